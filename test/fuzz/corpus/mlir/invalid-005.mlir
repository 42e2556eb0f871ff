// The shape rules give no encoding, so a declared one differs from the
// inferred type: InferTypeOpInterface's check, after the op's verifier.
func.func @matmul_encoding(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'rlx.matmul' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32, "enc">'}}
  // expected-error @+1 {{'rlx.matmul' op failed to infer returned types}}
  %0 = rlx.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32, "enc">
  return
}
