// rlx computes the broadcast shape, which can be more static than TOSA's
// result type; the function signature follows.
func.func @broadcast_refines_result(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %0 = tosa.add %a, %b : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
