// A two-layer MLP as exported with ml_program weights: extern globals become
// rlx.param, a global with a dense value an rlx.constant, and the globals go.
ml_program.global private @fc1.weight(#ml_program.extern : tensor<1x4x8xf32>) : tensor<1x4x8xf32>
ml_program.global private @fc1.bias(dense<0.5> : tensor<1x1x8xf32>) : tensor<1x1x8xf32>
ml_program.global private @fc2.weight(#ml_program.extern : tensor<1x8x3xf32>) : tensor<1x8x3xf32>
func.func @mlp(%x: tensor<1x2x4xf32>) -> tensor<1x2x3xf32> {
  %w1 = ml_program.global_load_const @fc1.weight : tensor<1x4x8xf32>
  %b1 = ml_program.global_load_const @fc1.bias : tensor<1x1x8xf32>
  %w2 = ml_program.global_load_const @fc2.weight : tensor<1x8x3xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32>
  %1 = tosa.add %0, %b1 : (tensor<1x2x8xf32>, tensor<1x1x8xf32>) -> tensor<1x2x8xf32>
  %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %3 = tosa.matmul %2, %w2, %zp, %zp : (tensor<1x2x8xf32>, tensor<1x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
  return %3 : tensor<1x2x3xf32>
}
