// RUN: rlx-opt %s -split-input-file -convert-rlx-to-scf=target=vulkan -verify-diagnostics -o /dev/null

// The GPU backends do not run loops and branches yet: each is an error
// naming the op and the target.
func.func private @neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.neg %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @on_gpu(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'rlx.switch' op is not supported on the vulkan target yet: loops and branches compile for the CPU target (--target=cpu)}}
  %y = rlx.switch %p [@neg, @neg](%x) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @scan_on_gpu(%h: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'rlx.scan' op is not supported on the vulkan target yet}}
  %r = rlx.scan @id init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
