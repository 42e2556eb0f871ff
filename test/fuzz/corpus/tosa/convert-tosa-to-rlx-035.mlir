func.func @carry_type_changes(%x: tensor<?xf32>, %y: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tosa.while_loop' op expects body_graph to keep the carry's types, value 0 is 'tensor<4xf32>' for a carry of 'tensor<?xf32>'}}
  %0 = tosa.while_loop (%a = %x) : (tensor<?xf32>) -> tensor<?xf32> {
    %t = "tosa.const"() {values = dense<true> : tensor<i1>} : () -> tensor<i1>
    tosa.yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<?xf32>):
    %s = tosa.add %a, %y : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    tosa.yield %s : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}
