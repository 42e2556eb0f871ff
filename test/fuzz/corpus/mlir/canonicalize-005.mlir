// Reshaping a constant folds; broadcasting a splat folds.
func.func @constant_shapes() -> (tensor<2x2xf32>, tensor<3x4xf32>) {
  %c = rlx.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = rlx.reshape %c : (tensor<4xf32>) -> tensor<2x2xf32>
  %h = rlx.constant dense<0.5> : tensor<4xf32>
  %b = rlx.broadcast_in_dim %h {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<3x4xf32>
  return %r, %b : tensor<2x2xf32>, tensor<3x4xf32>
}
