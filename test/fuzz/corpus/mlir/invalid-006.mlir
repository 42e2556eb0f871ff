func.func @param_empty_name() {
  // expected-error @+1 {{'rlx.param' op expects a non-empty parameter name}}
  %0 = rlx.param "" : tensor<3xf32>
  return
}
