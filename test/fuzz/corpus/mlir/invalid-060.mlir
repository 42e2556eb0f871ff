func.func @concat_empty() {
  // The SameOperandsAndResultElementType trait rejects an empty list first.
  // expected-error @+1 {{'rlx.concat' op expected 1 or more operands, but found 0}}
  %0 = rlx.concat {axis = 0 : i64} : () -> tensor<0xf32>
  return
}
