func.func @slice_types(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects operand and result of one element type}}
  %0 = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 5>, strides = array<i64: 1>} : (tensor<5xf32>) -> tensor<5xf64>
  return
}
