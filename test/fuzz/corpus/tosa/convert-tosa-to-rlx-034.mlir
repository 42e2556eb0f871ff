// rlx infers a static shape for the broadcast in the then branch; the else
// branch keeps the `?`, and rlx.switch wants one type per result.
func.func @branch_types_differ(%c: tensor<i1>, %x: tensor<?xf32>, %y: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tosa.cond_if' op expects both regions to yield the same types, value 0 is 'tensor<4xf32>' in then_graph and 'tensor<?xf32>' in else_graph}}
  %0 = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %s = tosa.add %a, %y : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    tosa.yield %s : tensor<?xf32>
  } else {
  ^bb0(%a: tensor<?xf32>):
    tosa.yield %a : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}
