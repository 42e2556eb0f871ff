// Two dynamic result dims from one dynamic operand dim: no pairing.
func.func @reshape_two_dynamic(%x: tensor<?x12xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects one dynamic result dim, or dims that pair with the operand's (groups of equal static size holding one dynamic dim on each side), got [?,12] -> [?,?,3]}}
  %0 = rlx.reshape %x : (tensor<?x12xf32>) -> tensor<?x?x3xf32>
  return
}
