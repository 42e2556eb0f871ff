// expected-error @+1 {{'ml_program.global' op expects immutable ml_program globals}}
ml_program.global private mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
func.func @mutable_global() -> tensor<4xf32> {
  %0 = ml_program.global_load @state : tensor<4xf32>
  return %0 : tensor<4xf32>
}
