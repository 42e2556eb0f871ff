func.func @param_dynamic() {
  // expected-error @+1 {{'rlx.param' op expects a static shape for parameter 'w', got [?,3]}}
  %0 = rlx.param "w" : tensor<?x3xf32>
  return
}
