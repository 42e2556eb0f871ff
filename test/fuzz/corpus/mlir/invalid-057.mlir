func.func @slice_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects stride 1 on dynamic dim 0}}
  %0 = rlx.slice %x {start = array<i64: 1>, limit = array<i64: -1>, strides = array<i64: 2>} : (tensor<?xf32>) -> tensor<?xf32>
  return
}
