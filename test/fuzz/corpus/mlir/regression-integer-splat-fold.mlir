func.func @constant_folding() -> (tensor<2xf32>, tensor<2xi32>) {
  %a = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = rlx.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %s = rlx.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %i = rlx.constant dense<[2, 2]> : tensor<2xi32>
  %j = rlx.constant dense<[4, 4]> : tensor<2xi32>
  %p = rlx.mul %i, %j : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %n = rlx.neg %p : tensor<2xi32>
  return %s, %n : tensor<2xf32>, tensor<2xi32>
}
