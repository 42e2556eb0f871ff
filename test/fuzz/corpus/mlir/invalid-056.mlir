func.func @slice_stride(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects positive strides, got [0]}}
  %0 = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 5>, strides = array<i64: 0>} : (tensor<5xf32>) -> tensor<5xf32>
  return
}
