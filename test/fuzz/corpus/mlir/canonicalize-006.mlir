// Negative: a dynamic reshape chain keeps one reshape; x / 2 stays.
func.func @kept(%x: tensor<?x6xf32>) -> (tensor<?x3xf32>, tensor<?x6xf32>) {
  %r = rlx.reshape %x : (tensor<?x6xf32>) -> tensor<?x3xf32>
  %two = rlx.constant dense<2.0> : tensor<f32>
  %d = rlx.div %x, %two : (tensor<?x6xf32>, tensor<f32>) -> tensor<?x6xf32>
  return %r, %d : tensor<?x3xf32>, tensor<?x6xf32>
}
