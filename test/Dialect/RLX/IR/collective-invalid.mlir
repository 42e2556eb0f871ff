// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @empty_axis(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.all_reduce' op expects a non-empty axis name}}
  %0 = rlx.all_reduce %x {axis = "", kind = "sum"} : tensor<3xf32>
  return
}

// -----

func.func @bad_kind(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.all_reduce' op expects kind sum, mean, max or min, got 'prod'}}
  %0 = rlx.all_reduce %x {axis = "i", kind = "prod"} : tensor<3xf32>
  return
}

// -----

func.func @integer_mean(%x: tensor<3xi32>) {
  // expected-error @+1 {{'rlx.all_reduce' op expects a float tensor for kind 'mean', got 'tensor<3xi32>'}}
  %0 = rlx.all_reduce %x {axis = "i", kind = "mean"} : tensor<3xi32>
  return
}

// -----

func.func @gather_axis_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.all_gather' op expects axis_size >= 1, got 0}}
  %0 = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.all_gather' op expects an operand of rank >= 1}}
  %0 = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @gather_dim(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.all_gather' op expects dim in [0, 1), got 1}}
  %0 = rlx.all_gather %x {axis = "i", dim = 1 : i64, axis_size = 2 : i64} : (tensor<3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @gather_element_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.all_gather' op expects a result of the operand's rank and element type, got 'tensor<6xf64>' for 'tensor<3xf32>'}}
  %0 = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<3xf32>) -> tensor<6xf64>
  return
}

// -----

func.func @gather_other_dim(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'rlx.all_gather' op expects result dim 1 to equal the operand's (4), got 5}}
  %0 = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<3x4xf32>) -> tensor<6x5xf32>
  return
}

// -----

func.func @gather_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.all_gather' op expects result dim 0 to be 2 x 3 = 6, got 5}}
  %0 = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<3xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @gather_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'rlx.all_gather' op expects dim 0 of operand and result both static or both dynamic}}
  %0 = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<?xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @scatter_divides(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.reduce_scatter' op expects operand dim 0 (5) to divide by axis_size 2}}
  %0 = rlx.reduce_scatter %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<5xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @scatter_size(%x: tensor<6xf32>) {
  // expected-error @+1 {{'rlx.reduce_scatter' op expects operand dim 0 to be 2 x 2 = 4, got 6}}
  %0 = rlx.reduce_scatter %x {axis = "i", dim = 0 : i64, axis_size = 2 : i64} : (tensor<6xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @scatter_axis(%x: tensor<6xf32>) {
  // expected-error @+1 {{'rlx.reduce_scatter' op expects a non-empty axis name}}
  %0 = rlx.reduce_scatter %x {axis = "", dim = 0 : i64, axis_size = 2 : i64} : (tensor<6xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_root(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast' op expects root >= 0, got -1}}
  %0 = rlx.broadcast %x {axis = "i", root = -1 : i64} : tensor<3xf32>
  return
}

// -----

func.func @broadcast_axis(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast' op expects a non-empty axis name}}
  %0 = rlx.broadcast %x {axis = ""} : tensor<3xf32>
  return
}

// -----

func.func @axis_index_axis() {
  // expected-error @+1 {{'rlx.axis_index' op expects a non-empty axis name}}
  %0 = rlx.axis_index {axis = ""} : tensor<i32>
  return
}
