// tosa.while_loop becomes rlx.while: what the regions use from outside
// (%limit) is a const of both, the constant 2 is cloned into the body.
func.func @while_loop(%x: tensor<f32>, %n: tensor<i32>, %limit: tensor<f32>) -> (tensor<f32>, tensor<i32>) {
  %two = "tosa.const"() {values = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %0:2 = tosa.while_loop (%a = %x, %b = %n) : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>) {
    %p = tosa.greater %limit, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
    tosa.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<f32>, %b: tensor<i32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %d = tosa.mul %a, %two, %shift : (tensor<f32>, tensor<f32>, tensor<1xi8>) -> tensor<f32>
    %i = tosa.add %b, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %d, %i : tensor<f32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<f32>, tensor<i32>
}
