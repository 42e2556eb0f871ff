func.func @neutral_elements(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %zero = rlx.constant dense<0.0> : tensor<4xf32>
  %one = rlx.constant dense<1.0> : tensor<f32>
  %a = rlx.add %x, %zero : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %s = rlx.sub %x, %zero : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %m = rlx.mul %one, %x : (tensor<f32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %d = rlx.div %x, %one : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %a, %s, %m, %d : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}
