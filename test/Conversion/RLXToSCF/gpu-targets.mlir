// RUN: rlx-opt %s -split-input-file -convert-rlx-to-scf=target=vulkan -verify-diagnostics -o /dev/null

// The GPU backends do not run while loops and switches yet (the host would
// read their condition or index from device memory): each is an error
// naming the op and the target.
func.func private @neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.neg %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @on_gpu(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'rlx.switch' op is not supported on the vulkan target yet: its condition or index would be read by the host from device memory (rlx.scan is; while and switch compile for --target=cpu)}}
  %y = rlx.switch %p [@neg, @neg](%x) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func private @below(%x: tensor<f32>) -> tensor<i1> {
  %c = rlx.constant dense<true> : tensor<i1>
  return %c : tensor<i1>
}
func.func @while_on_gpu(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'rlx.while' op is not supported on the vulkan target yet}}
  %r = rlx.while @below, @below2 init(%x) : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func private @below2(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

// A scan stays: its steps are host code launching the body's kernels.
func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @scan_on_gpu(%h: tensor<3xf32>) -> tensor<3xf32> {
  %r = rlx.scan @id init(%h) {length = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
