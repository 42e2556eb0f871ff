func.func @cast_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.cast' op expects the result shape to equal the operand shape [3], got [4]}}
  %0 = rlx.cast %x : tensor<3xf32> -> tensor<4xf64>
  return
}
