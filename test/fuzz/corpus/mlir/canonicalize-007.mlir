// The zeros autodiff builds for dynamic shapes, select(false, x, 0), vanish
// when added; a select on a constant condition picks its operand.
func.func @zero_like(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %no = rlx.constant dense<false> : tensor<i1>
  %yes = rlx.constant dense<true> : tensor<i1>
  %zero = rlx.constant dense<0.0> : tensor<f32>
  %z = rlx.select %no, %x, %zero : (tensor<i1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %a = rlx.add %z, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = rlx.select %yes, %x, %y : (tensor<i1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %a, %s : tensor<?x4xf32>, tensor<?x4xf32>
}
