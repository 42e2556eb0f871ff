func.func @slice_bounds(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects 0 <= start <= limit <= size on dim 0, got start 2, limit 7, size 5}}
  %0 = rlx.slice %x {start = array<i64: 2>, limit = array<i64: 7>, strides = array<i64: 1>} : (tensor<5xf32>) -> tensor<5xf32>
  return
}
