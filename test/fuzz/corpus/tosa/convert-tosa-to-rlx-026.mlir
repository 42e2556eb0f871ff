// rlx's shape rules are stricter than TOSA's: the rlx.concat rule wants the
// dims besides the axis equal, and a `?` does not equal a 2. The import asks
// the rule before it builds (inferred result types) and reports it here.
func.func @concat_mixed_static(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'rlx.concat' op expects input 1 [2,3] to match input 0 [?,3] on dim 0}}
  %0 = tosa.concat %a, %b {axis = 1 : i32} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
