func.func @slice_result(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects result shape [2], got [3]}}
  %0 = rlx.slice %x {start = array<i64: 1>, limit = array<i64: 5>, strides = array<i64: 2>} : (tensor<5xf32>) -> tensor<3xf32>
  return
}
