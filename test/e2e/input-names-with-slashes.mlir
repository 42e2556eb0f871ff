// Input names may hold `/` (ONNX's `gpu_0/data_0`, PyTorch's
// `/layer1/Relu_output_0`): `--input NAME=FILE` splits at the first `=`
// unless the whole argument is an existing file.
// RUN: rlxc %s -o %t.so
// RUN: rlx-testdata npy %t.x.npy f32 2,3
// RUN: rlx-testdata npy %t.y.npy f32 3
// RUN: rlx-run %t.so --input /layer1/y=%t.y.npy --input gpu_0/data_0=%t.x.npy | FileCheck %s
// CHECK: out0: f32[2,3]
// A file whose own name holds `=` is read as a file, in order.
// RUN: mkdir -p %t.dir && cp %t.x.npy "%t.dir/gpu_0=x.npy"
// RUN: rlx-run %t.so --input "%t.dir/gpu_0=x.npy" --input %t.y.npy | FileCheck %s
// A name the entry point does not have is still an error naming it.
// RUN: not rlx-run %t.so --input gpu_1/data_0=%t.x.npy --input /layer1/y=%t.y.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: gpu_1/data_0
func.func @f(%x: tensor<2x3xf32> {rlx.name = "gpu_0/data_0"},
             %y: tensor<3xf32> {rlx.name = "/layer1/y"}) -> tensor<2x3xf32> {
  %0 = rlx.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
