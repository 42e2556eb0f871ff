func.func private @id(%h: tensor<3xf32>) -> tensor<3xf32> {
  return %h : tensor<3xf32>
}
func.func @no_length(%h: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.scan' op expects a length attribute when it scans no xs}}
  %r = rlx.scan @id init(%h) : (tensor<3xf32>) -> tensor<3xf32>
  return
}
