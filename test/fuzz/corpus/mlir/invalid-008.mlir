func.func @gelu_mode(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.gelu' op expects approximate = "tanh" or "erf", got "fast"}}
  %0 = rlx.gelu %x {approximate = "fast"} : tensor<3xf32>
  return
}
