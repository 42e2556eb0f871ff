// A TOSA regression model with its loss, as another tool exports it:
// loss = mean((tanh(x @ w1 + b1) @ w2 - y)^2), weights as external
// ml_program globals. `rlxc --value-and-grad=loss` makes it trainable.
ml_program.global private @w1(#ml_program.extern : tensor<1x4x6xf32>) : tensor<1x4x6xf32>
ml_program.global private @b1(#ml_program.extern : tensor<1x1x6xf32>) : tensor<1x1x6xf32>
ml_program.global private @w2(#ml_program.extern : tensor<1x6x2xf32>) : tensor<1x6x2xf32>
func.func @loss(%x: tensor<1x3x4xf32> {rlx.name = "x"}, %y: tensor<1x3x2xf32> {rlx.name = "y"}) -> tensor<1x1x1xf32> {
  %w1 = ml_program.global_load_const @w1 : tensor<1x4x6xf32>
  %b1 = ml_program.global_load_const @b1 : tensor<1x1x6xf32>
  %w2 = ml_program.global_load_const @w2 : tensor<1x6x2xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x3x4xf32>, tensor<1x4x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x6xf32>
  %1 = tosa.add %0, %b1 : (tensor<1x3x6xf32>, tensor<1x1x6xf32>) -> tensor<1x3x6xf32>
  %2 = tosa.tanh %1 : (tensor<1x3x6xf32>) -> tensor<1x3x6xf32>
  %3 = tosa.matmul %2, %w2, %zp, %zp : (tensor<1x3x6xf32>, tensor<1x6x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32>
  %4 = tosa.sub %3, %y : (tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  %5 = tosa.mul %4, %4, %shift : (tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1xi8>) -> tensor<1x3x2xf32>
  %6 = tosa.reduce_sum %5 {axis = 1 : i32} : (tensor<1x3x2xf32>) -> tensor<1x1x2xf32>
  %7 = tosa.reduce_sum %6 {axis = 2 : i32} : (tensor<1x1x2xf32>) -> tensor<1x1x1xf32>
  %scale = "tosa.const"() {values = dense<0.16666667> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %8 = tosa.mul %7, %scale, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
  return %8 : tensor<1x1x1xf32>
}
