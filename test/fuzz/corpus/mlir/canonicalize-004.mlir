// Two transposes compose into one; two reshapes into one.
func.func @chains(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<4x6xf32>) {
  %t1 = rlx.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %t2 = rlx.transpose %t1 {permutation = array<i64: 2, 0, 1>} : (tensor<3x2x4xf32>) -> tensor<4x3x2xf32>
  %r1 = rlx.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %r2 = rlx.reshape %r1 : (tensor<24xf32>) -> tensor<4x6xf32>
  return %t2, %r2 : tensor<4x3x2xf32>, tensor<4x6xf32>
}
