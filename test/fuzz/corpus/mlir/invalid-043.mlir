// Two dynamic dims on each side, but the second would be split by 2.
func.func @reshape_two_dynamic_unpaired(%x: tensor<?x?xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects one dynamic result dim, or dims that pair with the operand's (groups of equal static size holding one dynamic dim on each side), got [?,?] -> [?,2,?]}}
  %0 = rlx.reshape %x : (tensor<?x?xf32>) -> tensor<?x2x?xf32>
  return
}
