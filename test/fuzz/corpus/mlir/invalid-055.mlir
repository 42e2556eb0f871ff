func.func @slice_count(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects start, limit and strides with one entry per dim (1)}}
  %0 = rlx.slice %x {start = array<i64: 0, 0>, limit = array<i64: 5>, strides = array<i64: 1>} : (tensor<5xf32>) -> tensor<5xf32>
  return
}
