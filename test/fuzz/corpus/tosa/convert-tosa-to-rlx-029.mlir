// The broadcast makes the result 3x4; a caller would need the same
// refinement down its users.
// expected-error @+1 {{'func.func' op expects no calls to a function whose results the import refines, from 'tensor<?x4xf32>' to 'tensor<3x4xf32>'}}
func.func @called(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %0 = tosa.add %a, %b : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func @caller(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %0 = func.call @called(%a, %b) : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
