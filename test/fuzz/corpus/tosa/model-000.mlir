// A small MLP as another tool exports it: func + TOSA 1.0, weights declared
// as external ml_program globals and bound by name at run time.
ml_program.global private @fc1_w(#ml_program.extern : tensor<1x4x6xf32>) : tensor<1x4x6xf32>
ml_program.global private @fc1_b(#ml_program.extern : tensor<1x1x6xf32>) : tensor<1x1x6xf32>
ml_program.global private @fc2_w(#ml_program.extern : tensor<1x6x2xf32>) : tensor<1x6x2xf32>
func.func @main(%x: tensor<1x3x4xf32>) -> tensor<1x3x2xf32> {
  %w1 = ml_program.global_load_const @fc1_w : tensor<1x4x6xf32>
  %b1 = ml_program.global_load_const @fc1_b : tensor<1x1x6xf32>
  %w2 = ml_program.global_load_const @fc2_w : tensor<1x6x2xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x3x4xf32>, tensor<1x4x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x6xf32>
  %1 = tosa.add %0, %b1 : (tensor<1x3x6xf32>, tensor<1x1x6xf32>) -> tensor<1x3x6xf32>
  %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x3x6xf32>) -> tensor<1x3x6xf32>
  %3 = tosa.matmul %2, %w2, %zp, %zp : (tensor<1x3x6xf32>, tensor<1x6x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32>
  %4 = tosa.tanh %3 : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  return %4 : tensor<1x3x2xf32>
}
