func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tosa.exp' op expects ranked tensors, got 'tensor<*xf32>'}}
  %0 = tosa.exp %x : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
