func.func @unranked_input(%c: tensor<i1>, %x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tosa.cond_if' op expects inputs to be ranked tensors of integers or floats, got 'tensor<*xf32>'}}
  %0 = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<*xf32>) -> tensor<*xf32> {
  ^bb0(%a: tensor<*xf32>):
    tosa.yield %a : tensor<*xf32>
  } else {
  ^bb0(%a: tensor<*xf32>):
    tosa.yield %a : tensor<*xf32>
  }
  return %0 : tensor<*xf32>
}
