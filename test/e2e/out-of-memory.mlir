// An input whose size makes the program ask for more memory than exists
// (the outer product of 4M elements is 64 TB) is a RESOURCE_EXHAUSTED
// status naming the entry point and the bytes, not a null dereference.
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.big.npy f32 4000000
// RUN: not rlx-run %t.so --input x=%t.big.npy 2>&1 | FileCheck %s
// CHECK: rlx-run: error: entry point 'outer' ran out of memory allocating 64000000000064 bytes
// The same artifact still works on a small input.
// RUN: rlx-testdata npy %t.small.npy f32 3
// RUN: rlx-run %t.so --input x=%t.small.npy | FileCheck %s --check-prefix=SMALL
// SMALL: y: f32[3,3]
// On a GPU (Vulkan here) the device allocation fails the same way.
// RUN: rlxc %s --target=vulkan -o %t.vk.so
// RUN: not rlx-run %t.vk.so --input x=%t.big.npy 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: rlx-run: error: entry point 'outer' ran out of device memory: cannot allocate 64000000000064 bytes
// RUN: rlx-run %t.vk.so --input x=%t.small.npy | FileCheck %s --check-prefix=SMALL
func.func @outer(%x: tensor<?xf32> {rlx.name = "x"}) -> (tensor<?x?xf32> {rlx.name = "y"}) {
  %a = rlx.reshape %x : (tensor<?xf32>) -> tensor<?x1xf32>
  %b = rlx.reshape %x : (tensor<?xf32>) -> tensor<1x?xf32>
  %y = rlx.mul %a, %b : (tensor<?x1xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
