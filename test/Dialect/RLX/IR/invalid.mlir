// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @broadcast_incompatible(%a: tensor<4x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'rlx.add' op expects operand shapes that broadcast, got [4,3] and [2]}}
  %0 = rlx.add %a, %b : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_result(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.mul' op expects result shape [4,3] (the broadcast of the operands), got [4,1]}}
  %0 = rlx.mul %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  return
}

// -----

// The declared result must be exactly the inferred one: not more dynamic.
func.func @broadcast_result_dynamic(%a: tensor<4x3xf32>, %b: tensor<?x3xf32>) {
  // expected-error @+1 {{'rlx.add' op expects result shape [4,3] (the broadcast of the operands), got [?,3]}}
  %0 = rlx.add %a, %b : (tensor<4x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @compare_result(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.compare' op expects result shape [4,3] (the broadcast of the operands), got [3]}}
  %0 = rlx.compare "lt", %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @select_result(%c: tensor<4x1xi1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.select' op expects result shape [4,3] (the broadcast of the operands), got [3]}}
  %0 = rlx.select %c, %x, %x : (tensor<4x1xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// The shape rules give no encoding, so a declared one differs from the
// inferred type: InferTypeOpInterface's check, after the op's verifier.
func.func @matmul_encoding(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'rlx.matmul' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32, "enc">'}}
  // expected-error @+1 {{'rlx.matmul' op failed to infer returned types}}
  %0 = rlx.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32, "enc">
  return
}

// -----

func.func @param_empty_name() {
  // expected-error @+1 {{'rlx.param' op expects a non-empty parameter name}}
  %0 = rlx.param "" : tensor<3xf32>
  return
}

// -----

func.func @param_dynamic() {
  // expected-error @+1 {{'rlx.param' op expects a static shape for parameter 'w', got [?,3]}}
  %0 = rlx.param "w" : tensor<?x3xf32>
  return
}

// -----

func.func @gelu_mode(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.gelu' op expects approximate = "tanh" or "erf", got "fast"}}
  %0 = rlx.gelu %x {approximate = "fast"} : tensor<3xf32>
  return
}

// -----

func.func @compare_direction(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.compare' op expects direction eq, ne, lt, le, gt or ge, got "gte"}}
  %0 = rlx.compare "gte", %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @select_types(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf64>) {
  // expected-error @+1 {{'rlx.select' op expects on_true, on_false and result of one element type}}
  %0 = rlx.select %c, %x, %y : (tensor<3xi1>, tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.cast' op expects the result shape to equal the operand shape [3], got [4]}}
  %0 = rlx.cast %x : tensor<3xf32> -> tensor<4xf64>
  return
}

// -----

func.func @matmul_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error @+1 {{'rlx.matmul' op expects operands and result of one element type}}
  %0 = rlx.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'rlx.matmul' op expects operands of rank 2 or more, got [3] and [3,4]}}
  %0 = rlx.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_k(%a: tensor<?x784xf32>, %b: tensor<748x10xf32>) {
  // expected-error @+1 {{'rlx.matmul' op expects contracting dims to match: lhs [?,784] has K = 784, rhs [748,10] has K = 748}}
  %0 = rlx.matmul %a, %b : (tensor<?x784xf32>, tensor<748x10xf32>) -> tensor<?x10xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<5x3x4xf32>) {
  // expected-error @+1 {{'rlx.matmul' op expects batch dims that broadcast, got [2] and [5]}}
  %0 = rlx.matmul %a, %b : (tensor<2x2x3xf32>, tensor<5x3x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'rlx.matmul' op expects result shape [2,4], got [2,5]}}
  %0 = rlx.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @conv_types(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf64>) {
  // expected-error @+1 {{'rlx.conv2d' op expects float input, filter and result of one type, or i8 input and filter with an i32 result}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf64>) -> tensor<1x3x3x4xf32>
  return
}

// -----

// A float conv does not change its type.
func.func @conv_float_widening(%x: tensor<1x5x5x2xf16>, %w: tensor<3x3x2x4xf16>) {
  // expected-error @+1 {{'rlx.conv2d' op expects float input, filter and result of one type, or i8 input and filter with an i32 result}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf16>, tensor<3x3x2x4xf16>) -> tensor<1x3x3x4xf32>
  return
}

// -----

// Integer convs are int8 into i32 only.
func.func @conv_int_types(%x: tensor<1x5x5x2xi32>, %w: tensor<3x3x2x4xi32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects float input, filter and result of one type, or i8 input and filter with an i32 result}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xi32>, tensor<3x3x2x4xi32>) -> tensor<1x3x3x4xi32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects an HWIO filter of rank 4, got [3,3,2]}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_filter_static(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x?xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects a static filter shape, got [3,3,2,?]}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2x?xf32>) -> tensor<1x3x3x?xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects groups >= 1, got 0}}
  %0 = rlx.conv2d %x, %w {groups = 0 : i64} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects input channels 3 = filter input channels 2 x groups 1}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x3xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_group_divides(%x: tensor<1x5x5x4xf32>, %w: tensor<3x3x2x3xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects filter output channels 3 divisible by groups 2}}
  %0 = rlx.conv2d %x, %w {groups = 2 : i64} : (tensor<1x5x5x4xf32>, tensor<3x3x2x3xf32>) -> tensor<1x3x3x3xf32>
  return
}

// -----

func.func @conv_input_rank(%x: tensor<5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects an NHWC input of rank 4, got [5,5,2]}}
  %0 = rlx.conv2d %x, %w : (tensor<5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_strides_count(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects 2 window sizes, 2 strides and 2 dilations}}
  %0 = rlx.conv2d %x, %w {strides = array<i64: 1>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_padding_count(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects padding [top, bottom, left, right], got [1,1]}}
  %0 = rlx.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_positive(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects positive window sizes, strides and dilations}}
  %0 = rlx.conv2d %x, %w {strides = array<i64: 0, 1>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_negative_padding(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects non-negative padding, got [-1,0,0,0]}}
  %0 = rlx.conv2d %x, %w {padding = array<i64: -1, 0, 0, 0>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_result(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'rlx.conv2d' op expects result shape [1,3,3,4], got [1,5,5,4]}}
  %0 = rlx.conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x5x5x4xf32>
  return
}

// -----

func.func @pool_types(%x: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'rlx.max_pool2d' op expects input and result of one element type}}
  %0 = rlx.max_pool2d %x {window = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x3x3x2xf64>
  return
}

// -----

func.func @pool_result(%x: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'rlx.max_pool2d' op expects result shape [1,3,3,2], got [1,4,4,2]}}
  %0 = rlx.max_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return
}

// -----

func.func @pool_padding(%x: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'rlx.avg_pool2d' op expects padding smaller than the window, got [2,0,0,0]}}
  %0 = rlx.avg_pool2d %x {window = array<i64: 2, 2>, padding = array<i64: 2, 0, 0, 0>} : (tensor<1x4x4x2xf32>) -> tensor<1x5x3x2xf32>
  return
}

// -----

func.func @reduce_types(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.sum' op expects input and result of one element type}}
  %0 = rlx.sum %x {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @reduce_axis(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.sum' op expects axes in [0, 2), got 2}}
  %0 = rlx.sum %x {axes = array<i64: 2>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_distinct(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.max' op expects distinct axes, got [1,1]}}
  %0 = rlx.max %x {axes = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.sum' op expects result shape [4,1], got [4]}}
  %0 = rlx.sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @mean_int(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'rlx.mean' op expects a floating-point tensor}}
  %0 = rlx.mean %x {axes = array<i64: 1>} : (tensor<4x3xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.softmax' op expects axis in [0, 2), got 2}}
  %0 = rlx.softmax %x {axis = 2 : i64} : tensor<4x3xf32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.log_softmax' op expects axis in [0, 2), got -1}}
  %0 = rlx.log_softmax %x {axis = -1 : i64} : tensor<4x3xf32>
  return
}

// -----

func.func @reshape_types(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects operand and result of one element type}}
  %0 = rlx.reshape %x : (tensor<4x3xf32>) -> tensor<12xf64>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects the same number of elements, got [4,3] (12) and [13] (13)}}
  %0 = rlx.reshape %x : (tensor<4x3xf32>) -> tensor<13xf32>
  return
}

// -----

func.func @reshape_static_to_dynamic(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects a static result for a static operand, got [?]}}
  %0 = rlx.reshape %x : (tensor<4x3xf32>) -> tensor<?xf32>
  return
}

// -----

// Two dynamic result dims from one dynamic operand dim: no pairing.
func.func @reshape_two_dynamic(%x: tensor<?x12xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects one dynamic result dim, or dims that pair with the operand's (groups of equal static size holding one dynamic dim on each side), got [?,12] -> [?,?,3]}}
  %0 = rlx.reshape %x : (tensor<?x12xf32>) -> tensor<?x?x3xf32>
  return
}

// -----

// Two dynamic dims on each side, but the second would be split by 2.
func.func @reshape_two_dynamic_unpaired(%x: tensor<?x?xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects one dynamic result dim, or dims that pair with the operand's (groups of equal static size holding one dynamic dim on each side), got [?,?] -> [?,2,?]}}
  %0 = rlx.reshape %x : (tensor<?x?xf32>) -> tensor<?x2x?xf32>
  return
}

// -----

func.func @reshape_dynamic_to_static(%x: tensor<?x12xf32>) {
  // expected-error @+1 {{'rlx.reshape' op expects a dynamic result dim for a dynamic operand, got [4,3]}}
  %0 = rlx.reshape %x : (tensor<?x12xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @transpose_types(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.transpose' op expects operand and result of one element type}}
  %0 = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf64>
  return
}

// -----

func.func @transpose_size(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.transpose' op expects a permutation of 2 dims, got [0]}}
  %0 = rlx.transpose %x {permutation = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.transpose' op expects a permutation of [0, 2), got [1,1]}}
  %0 = rlx.transpose %x {permutation = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.transpose' op expects result shape [3,4], got [4,3]}}
  %0 = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @bcast_types(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects operand and result of one element type}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf64>
  return
}

// -----

func.func @bcast_count(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects one broadcast dimension per operand dim (1), got [0,1]}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @bcast_range(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects distinct broadcast dimensions in [0, 2), got [2]}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 2>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @bcast_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects operand dim 0 ([3]) to be 1 or equal result dim 0 ([2])}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @bcast_dynamic(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.broadcast_in_dim' op expects result dim 0 to be static: no operand dim gives its size}}
  %0 = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @slice_types(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects operand and result of one element type}}
  %0 = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 5>, strides = array<i64: 1>} : (tensor<5xf32>) -> tensor<5xf64>
  return
}

// -----

func.func @slice_count(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects start, limit and strides with one entry per dim (1)}}
  %0 = rlx.slice %x {start = array<i64: 0, 0>, limit = array<i64: 5>, strides = array<i64: 1>} : (tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects positive strides, got [0]}}
  %0 = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 5>, strides = array<i64: 0>} : (tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @slice_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects stride 1 on dynamic dim 0}}
  %0 = rlx.slice %x {start = array<i64: 1>, limit = array<i64: -1>, strides = array<i64: 2>} : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects 0 <= start <= limit <= size on dim 0, got start 2, limit 7, size 5}}
  %0 = rlx.slice %x {start = array<i64: 2>, limit = array<i64: 7>, strides = array<i64: 1>} : (tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<5xf32>) {
  // expected-error @+1 {{'rlx.slice' op expects result shape [2], got [3]}}
  %0 = rlx.slice %x {start = array<i64: 1>, limit = array<i64: 5>, strides = array<i64: 2>} : (tensor<5xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @concat_empty() {
  // The SameOperandsAndResultElementType trait rejects an empty list first.
  // expected-error @+1 {{'rlx.concat' op expected 1 or more operands, but found 0}}
  %0 = rlx.concat {axis = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<2xf32>) {
  // expected-error @+1 {{'rlx.concat' op expects axis in [0, 1), got 1}}
  %0 = rlx.concat %x, %x {axis = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @concat_rank(%x: tensor<2xf32>, %y: tensor<2x1xf32>) {
  // expected-error @+1 {{'rlx.concat' op expects every input of rank 1, input 1 is [2,1]}}
  %0 = rlx.concat %x, %y {axis = 0 : i64} : (tensor<2xf32>, tensor<2x1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @concat_dims(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{'rlx.concat' op expects input 1 [2,4] to match input 0 [2,3] on dim 1}}
  %0 = rlx.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_total(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'rlx.concat' op expects result dim 0 to be [4], got [5]}}
  %0 = rlx.concat %x, %x {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @gather_types(%t: tensor<5x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.gather' op expects operand and result of one element type}}
  %0 = rlx.gather %t, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf64>
  return
}

// -----

func.func @gather_axis(%t: tensor<5x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.gather' op expects axis in [0, 2), got 2}}
  %0 = rlx.gather %t, %i {axis = 2 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_result(%t: tensor<5x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{'rlx.gather' op expects result shape [2,3], got [3,2]}}
  %0 = rlx.gather %t, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @pad_types(%x: tensor<3xf32>, %z: tensor<f64>) {
  // expected-error @+1 {{'rlx.pad' op expects operand, padding value and result of one element type}}
  %0 = rlx.pad %x, %z {low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<f64>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_value_rank(%x: tensor<3xf32>, %z: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.pad' op expects a rank-0 padding value, got [1]}}
  %0 = rlx.pad %x, %z {low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'rlx.pad' op expects low, high and interior with one entry per dim (1)}}
  %0 = rlx.pad %x, %z {low = array<i64: 1, 0>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'rlx.pad' op expects non-negative padding on dim 0}}
  %0 = rlx.pad %x, %z {low = array<i64: -1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @pad_dynamic(%x: tensor<?xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'rlx.pad' op expects no padding on dynamic dim 0}}
  %0 = rlx.pad %x, %z {low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return
}

// -----

func.func @pad_result(%x: tensor<3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'rlx.pad' op expects result shape [8], got [6]}}
  %0 = rlx.pad %x, %z {low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_no_callee(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects 'nowhere' to name a function with a body}}
  %0 = rlx.grad @nowhere(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_arg_count(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects 1 arguments for @sq, got 2}}
  %0 = rlx.grad @sq(%x, %x) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects argument 0 of type 'tensor<3xf32>', got 'tensor<4xf32>'}}
  %0 = rlx.grad @sq(%x) {wrt = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_non_scalar(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects @vec to return a one-element tensor, got 'tensor<3xf32>': differentiate a non-scalar function with rlx.vjp}}
  %0 = rlx.grad @vec(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_int_leaf(%x: tensor<3xi32>) {
  // expected-error @+1 {{'rlx.grad' op cannot differentiate with respect to input 0 of type 'tensor<3xi32>': hold integer or boolean data as a constant (not a leaf)}}
  %0 = rlx.grad @ints(%x) {wrt = array<i64: 0>} : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_wrt_range(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects wrt positions in [0, 1), got 1}}
  %0 = rlx.grad @sq(%x) {wrt = array<i64: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_unknown_param(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects param 'v' to be read by @sq}}
  %0 = rlx.grad @sq(%x) {wrt_params = ["v"]} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_bad_word(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects wrt_params to be "all" or a list of param names, got "every"}}
  %0 = rlx.grad @sq(%x) {wrt_params = "every"} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_bad_list(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects wrt_params to be "all" or a list of param names}}
  %0 = rlx.grad @sq(%x) {wrt_params = [1]} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_bad_kind(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects wrt_params to be "all" or a list of param names}}
  %0 = rlx.grad @sq(%x) {wrt_params = 1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_no_leaves(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects something to differentiate: wrt positions or wrt_params}}
  %0 = rlx.grad @sq(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_result_types(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects results 0 of type 'tensor<3xf32>', got 'tensor<3xf64>'}}
  %0 = rlx.grad @sq(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @grad_result_count(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.grad' op expects 2 results, got 1}}
  %0 = rlx.grad @sq(%x) {wrt = array<i64: 0>, wrt_params = "all"} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @vag_aux(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.value_and_grad' op expects @vec to return a one-element tensor}}
  %0:2 = rlx.value_and_grad @vec(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @vjp_cotangents(%x: tensor<3xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.vjp' op expects cotangents 0 of type 'tensor<3xf32>', got 'tensor<4xf32>'}}
  %0:2 = rlx.vjp @vec(%x) cotangents(%c) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<4xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @jvp_tangents(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.jvp' op expects 1 tangents, got 0}}
  %0:2 = rlx.jvp @vec(%x) tangents() {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %w = rlx.param "w" : tensor<3xf32>
  %m = rlx.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.sum %m {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @vec(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @ints(%x: tensor<3xi32>) -> tensor<f32> {
  %c = rlx.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

func.func @hvp_results(%x: tensor<3xf32>, %t: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.hvp' op expects results 0 of type 'tensor<3xf32>', got 'tensor<f32>'}}
  %0 = rlx.hvp @sq(%x) tangents(%t) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @bad_fwd(%x: tensor<3xf32>) -> tensor<4xf32> {
  %c = rlx.constant dense<0.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  return %g : tensor<3xf32>
}
func.func @custom_vjp_callee(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.custom_vjp' op expects callee 'nowhere' to name a function with a body}}
  %0 = rlx.custom_vjp @nowhere(%x) {fwd = @sq_fwd, bwd = @sq_bwd} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @bad_fwd(%x: tensor<3xf32>) -> tensor<4xf32> {
  %c = rlx.constant dense<0.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  return %g : tensor<3xf32>
}
func.func @custom_vjp_fwd(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.custom_vjp' op expects fwd @bad_fwd to return the expected types}}
  %0 = rlx.custom_vjp @sq(%x) {fwd = @bad_fwd, bwd = @sq_bwd} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @bad_fwd(%x: tensor<3xf32>) -> tensor<4xf32> {
  %c = rlx.constant dense<0.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  return %g : tensor<3xf32>
}
func.func @custom_vjp_bwd(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.custom_vjp' op expects bwd @sq to take 2 arguments of the expected types}}
  %0 = rlx.custom_vjp @sq(%x) {fwd = @sq_fwd, bwd = @sq} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @bad_fwd(%x: tensor<3xf32>) -> tensor<4xf32> {
  %c = rlx.constant dense<0.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  return %g : tensor<3xf32>
}
func.func @custom_jvp_rule(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.custom_jvp' op expects jvp @sq to take 2 arguments of the expected types}}
  %0 = rlx.custom_jvp @sq(%x) {jvp = @sq} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @sq_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y, %x : tensor<3xf32>, tensor<3xf32>
}
func.func private @bad_fwd(%x: tensor<3xf32>) -> tensor<4xf32> {
  %c = rlx.constant dense<0.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func private @sq_bwd(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  return %g : tensor<3xf32>
}
func.func @remat_callee(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.remat' op expects callee @sq_fwd to return the expected types}}
  %0 = rlx.remat @sq_fwd(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_count(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects one in_axes entry per argument (2), got 1}}
  %0 = rlx.vmap @sq(%x, %w) {in_axes = [0], out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_axis_range(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects the in_axes of input 0 in [-2, 2), got 2}}
  %0 = rlx.vmap @sq(%x, %w) {in_axes = [2, unit], out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_entry_kind(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects in_axes entries to be an axis or unit, input 1 has "x"}}
  %0 = rlx.vmap @sq(%x, %w) {in_axes = [0, "x"], out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_none_mapped(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects at least one mapped input}}
  %0 = rlx.vmap @sq(%y, %w) {in_axes = [unit, unit], out_axes = array<i64: 0>} : (tensor<3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_sizes(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects mapped sizes to agree, input 1 maps 5 but an earlier input maps 4}}
  %0 = rlx.vmap @sq(%x, %w5) {in_axes = [0, 0], out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<5x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_per_example_type(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects input 0 without its mapped axis 1 to have type 'tensor<3xf32>', got 'tensor<4x3xf32>'}}
  %0 = rlx.vmap @sq(%x, %w) {in_axes = [1, unit], out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_unmapped_type(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects unmapped input 1 of type 'tensor<2xf32>', got 'tensor<5x2xf32>'}}
  %0 = rlx.vmap @sq(%x, %w5) {in_axes = [0, unit], out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<5x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_out_range(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects the out_axes of result 0 in [-2, 2), got 3}}
  %0 = rlx.vmap @sq(%x, %w) {in_axes = [0, unit], out_axes = array<i64: 3>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @sq(%x: tensor<3xf32>, %w: tensor<2xf32>) -> tensor<3xf32> {
  %y = rlx.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @vmap_result_type(%x: tensor<4x3xf32>, %w: tensor<2xf32>, %w5: tensor<5x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.vmap' op expects result 0 of type 'tensor<3x4xf32>', got 'tensor<4x3xf32>'}}
  %0 = rlx.vmap @sq(%x, %w) {in_axes = [0, unit], out_axes = array<i64: 1>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func private @vec2(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func private @dyn(%x: tensor<?xf64>) -> tensor<?xf64> {
  return %x : tensor<?xf64>
}
func.func @jac_wrt(%x: tensor<3xf64>, %d: tensor<?xf64>) {
  // expected-error @+1 {{'rlx.jacfwd' op expects wrt in [0, 1), got 1}}
  %0 = rlx.jacfwd @vec2(%x) {wrt = 1 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
  return
}

// -----

func.func private @vec2(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func private @dyn(%x: tensor<?xf64>) -> tensor<?xf64> {
  return %x : tensor<?xf64>
}
func.func @jac_static(%x: tensor<3xf64>, %d: tensor<?xf64>) {
  // expected-error @+1 {{'rlx.jacrev' op expects static shapes for a Jacobian, got 'tensor<?xf64>' and 'tensor<?xf64>'}}
  %0 = rlx.jacrev @dyn(%d) {wrt = 0 : i64} : (tensor<?xf64>) -> tensor<?x?xf64>
  return
}

// -----

func.func private @vec2(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func private @dyn(%x: tensor<?xf64>) -> tensor<?xf64> {
  return %x : tensor<?xf64>
}
func.func @jac_type(%x: tensor<3xf64>, %d: tensor<?xf64>) {
  // expected-error @+1 {{'rlx.jacfwd' op expects result type 'tensor<2x3xf64>', got 'tensor<3x2xf64>'}}
  %0 = rlx.jacfwd @vec2(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x2xf64>
  return
}

// -----

func.func private @vec2(%x: tensor<3xf64>) -> tensor<2xf64> {
  %s = rlx.slice %x {start = array<i64: 0>, limit = array<i64: 2>, strides = array<i64: 1>} : (tensor<3xf64>) -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func private @dyn(%x: tensor<?xf64>) -> tensor<?xf64> {
  return %x : tensor<?xf64>
}
func.func @hessian_scalar(%x: tensor<3xf64>, %d: tensor<?xf64>) {
  // expected-error @+1 {{'rlx.hessian' op expects a one-element result for a Hessian, got 'tensor<2xf64>'}}
  %0 = rlx.hessian @vec2(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x3xf64>
  return
}

// -----

// Only i8 operands widen into the result: i16 -> i32 is refused.
func.func @matmul_widening(%a: tensor<2x3xi16>, %b: tensor<3x4xi16>) {
  // expected-error @+1 {{'rlx.matmul' op expects operands and result of one element type, or i8 operands and an i32 result}}
  %0 = rlx.matmul %a, %b : (tensor<2x3xi16>, tensor<3x4xi16>) -> tensor<2x4xi32>
  return
}

// -----

// Trigonometric ops take floats only.
func.func @sin_int(%x: tensor<3xi32>) {
  // expected-error @+1 {{'rlx.sin' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 values}}
  %0 = rlx.sin %x : tensor<3xi32>
  return
}

// -----

func.func @cos_result_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.cos' op requires the same type for all operands and results}}
  %0 = "rlx.cos"(%x) : (tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----

func.func @atan_int(%x: tensor<2x3xi64>) {
  // expected-error @+1 {{'rlx.atan' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 values}}
  %0 = rlx.atan %x : tensor<2x3xi64>
  return
}

// -----

func.func @rem_broadcast(%a: tensor<4x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'rlx.rem' op expects operand shapes that broadcast, got [4,3] and [2]}}
  %0 = rlx.rem %a, %b : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @rem_result(%a: tensor<4x3xi32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{'rlx.rem' op expects result shape [4,3] (the broadcast of the operands), got [4,1]}}
  %0 = rlx.rem %a, %b : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x1xi32>
  return
}

// -----

func.func @rem_mixed_types(%a: tensor<3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{'rlx.rem'}}
  %0 = rlx.rem %a, %b : (tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return
}
