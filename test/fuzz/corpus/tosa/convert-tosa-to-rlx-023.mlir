func.func @float_to_int_cast(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tosa.cast' op expects no float-to-integer cast (TOSA rounds to nearest, rlx.cast truncates), got 'f32' to 'i32'}}
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
