// RUN: rlx-opt %s -split-input-file -convert-tosa-to-rlx -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4xf32>, %[[B:.+]]: tensor<2x4x5xf32>)
// CHECK: %[[R:.+]] = rlx.matmul %[[A]], %[[B]] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[R]]
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// The OHWI weight becomes an HWIO filter; the bias is added with broadcasting.
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x3xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>, %[[BIAS:.+]]: tensor<4xf32>)
// CHECK: %[[F:.+]] = rlx.transpose %[[W]] {permutation = array<i64: 1, 2, 3, 0>} : (tensor<4x3x3x3xf32>) -> tensor<3x3x3x4xf32>
// CHECK: %[[C:.+]] = rlx.conv2d %[[X]], %[[F]] {dilations = array<i64: 1, 2>, padding = array<i64: 0, 1, 1, 2>, strides = array<i64: 2, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x7x4xf32>
// CHECK: %[[R:.+]] = rlx.add %[[C]], %[[BIAS]] : (tensor<1x4x7x4xf32>, tensor<4xf32>) -> tensor<1x4x7x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @conv2d(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %bias: tensor<4xf32>) -> tensor<1x4x7x4xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 1, 1, 2>, stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x7x4xf32>
  return %0 : tensor<1x4x7x4xf32>
}

// -----

// A constant zero bias adds nothing.
// CHECK-LABEL: func.func @conv2d_zero_bias
// CHECK: %[[F:.+]] = rlx.transpose
// CHECK: %[[C:.+]] = rlx.conv2d %{{.+}}, %[[F]] : (tensor<?x4x4x2xf16>, tensor<1x1x2x8xf16>) -> tensor<?x4x4x8xf16>
// CHECK-NOT: rlx.add
// CHECK: return %[[C]]
func.func @conv2d_zero_bias(%x: tensor<?x4x4x2xf16>, %w: tensor<8x1x1x2xf16>) -> tensor<?x4x4x8xf16> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf16>} : () -> tensor<1xf16>
  %bias = "tosa.const"() {values = dense<0.0> : tensor<8xf16>} : () -> tensor<8xf16>
  %0 = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x4x4x2xf16>, tensor<8x1x1x2xf16>, tensor<8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<?x4x4x8xf16>
  return %0 : tensor<?x4x4x8xf16>
}

// -----

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<1x3xf32>)
// CHECK: %[[ADD:.+]] = rlx.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[SUB:.+]] = rlx.sub %[[ADD]], %[[B]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[MUL:.+]] = rlx.mul %[[SUB]], %[[B]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[MAX:.+]] = rlx.maximum %[[MUL]], %[[B]]
// CHECK: %[[MIN:.+]] = rlx.minimum %[[MAX]], %[[B]]
// CHECK: %[[POW:.+]] = rlx.pow %[[MIN]], %[[B]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[POW]]
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %1 = tosa.sub %0, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %2 = tosa.mul %1, %b, %shift : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  %3 = tosa.maximum %2, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %4 = tosa.minimum %3, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %5 = tosa.pow %4, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %5 : tensor<2x3xf32>
}

// -----

// rlx computes the broadcast shape, which can be more static than TOSA's
// result type; the function signature follows.
// CHECK-LABEL: func.func @broadcast_refines_result
// CHECK-SAME: -> tensor<3x4xf32>
// CHECK: %[[R:.+]] = rlx.add %{{.+}}, %{{.+}} : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: return %[[R]] : tensor<3x4xf32>
func.func @broadcast_refines_result(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %0 = tosa.add %a, %b : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @integer
// CHECK-SAME: (%[[A:.+]]: tensor<4xi32>, %[[B:.+]]: tensor<4xi32>)
// CHECK: %[[ADD:.+]] = rlx.add %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK: %[[MUL:.+]] = rlx.mul %[[ADD]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK: %[[DIV:.+]] = rlx.div %[[MUL]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK: %[[NEG:.+]] = rlx.neg %[[DIV]] : tensor<4xi32>
// CHECK: return %[[NEG]]
func.func @integer(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %zp = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tosa.mul %0, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  %2 = tosa.intdiv %1, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tosa.negate %2, %zp, %zp : (tensor<4xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  return %3 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[NEG:.+]] = rlx.neg %[[X]] : tensor<2x3xf32>
// CHECK: %[[EXP:.+]] = rlx.exp %[[NEG]] : tensor<2x3xf32>
// CHECK: %[[LOG:.+]] = rlx.log %[[EXP]] : tensor<2x3xf32>
// CHECK: %[[TANH:.+]] = rlx.tanh %[[LOG]] : tensor<2x3xf32>
// CHECK: %[[SIG:.+]] = rlx.sigmoid %[[TANH]] : tensor<2x3xf32>
// CHECK: %[[RSQRT:.+]] = rlx.rsqrt %[[SIG]] : tensor<2x3xf32>
// CHECK: %[[ABS:.+]] = rlx.abs %[[RSQRT]] : tensor<2x3xf32>
// CHECK: %[[ONE:.+]] = rlx.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[RECIP:.+]] = rlx.div %[[ONE]], %[[ABS]] : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[RECIP]]
func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.negate %x, %zp, %zp : (tensor<2x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %1 = tosa.exp %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tosa.log %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tosa.tanh %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = tosa.sigmoid %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = tosa.rsqrt %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = tosa.abs %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = tosa.reciprocal %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = tosa.identity %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %8 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @trig
// CHECK-SAME: (%[[X:.+]]: tensor<?x3xf32>)
// CHECK: %[[SIN:.+]] = rlx.sin %[[X]] : tensor<?x3xf32>
// CHECK: %[[COS:.+]] = rlx.cos %[[SIN]] : tensor<?x3xf32>
// CHECK: return %[[COS]]
func.func @trig(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = tosa.sin %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = tosa.cos %0 : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// -----

// Bounds become scalar constants of the element type; a bound at the end of
// the type's range is left out, and clamp(x, 0, max) is rlx.relu.
// CHECK-LABEL: func.func @clamp
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[H:.+]]: tensor<4xf16>, %[[BF:.+]]: tensor<4xbf16>, %[[I:.+]]: tensor<4xi32>)
// CHECK: %[[LO:.+]] = rlx.constant dense<-1.000000e+00> : tensor<f32>
// CHECK: %[[MAX:.+]] = rlx.maximum %[[X]], %[[LO]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[HI:.+]] = rlx.constant dense<6.000000e+00> : tensor<f32>
// CHECK: %[[F32:.+]] = rlx.minimum %[[MAX]], %[[HI]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[F16:.+]] = rlx.relu %[[H]] : tensor<4xf16>
// CHECK: %[[BHI:.+]] = rlx.constant dense<2.500000e+00> : tensor<bf16>
// CHECK: %[[BF16:.+]] = rlx.minimum %[[BF]], %[[BHI]] : (tensor<4xbf16>, tensor<bf16>) -> tensor<4xbf16>
// CHECK: %[[ILO:.+]] = rlx.constant dense<-3> : tensor<i32>
// CHECK: %[[IMAX:.+]] = rlx.maximum %[[I]], %[[ILO]] : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK: %[[IHI:.+]] = rlx.constant dense<3> : tensor<i32>
// CHECK: %[[I32:.+]] = rlx.minimum %[[IMAX]], %[[IHI]] : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK: return %[[F32]], %[[F16]], %[[BF16]], %[[I32]]
func.func @clamp(%x: tensor<4xf32>, %h: tensor<4xf16>, %bf: tensor<4xbf16>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<4xi32>) {
  %0 = tosa.clamp %x {min_val = -1.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.clamp %h {min_val = 0.0 : f16, max_val = 0x7C00 : f16} : (tensor<4xf16>) -> tensor<4xf16>
  %2 = tosa.clamp %bf {min_val = 0xFF80 : bf16, max_val = 2.5 : bf16} : (tensor<4xbf16>) -> tensor<4xbf16>
  %3 = tosa.clamp %i {min_val = -3 : i32, max_val = 3 : i32} : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<4xi32>
}

// -----

// rlx.compare takes operands of one type: a size-1 dim is stretched first.
// CHECK-LABEL: func.func @compare_select
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<1x3xf32>)
// CHECK: %[[BB:.+]] = rlx.broadcast_in_dim %[[B]] {broadcast_dimensions = array<i64: 0, 1>} : (tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[GT:.+]] = rlx.compare "gt", %[[A]], %[[BB]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: %[[GE:.+]] = rlx.compare "ge", %[[A]], %[[A]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: %[[EQ:.+]] = rlx.compare "eq", %[[A]], %[[A]]
// CHECK: %[[SEL:.+]] = rlx.select %[[GT]], %[[A]], %[[B]] : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[SEL]], %[[GE]], %[[EQ]]
func.func @compare_select(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = tosa.greater %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %1 = tosa.greater_equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = tosa.equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = tosa.select %0, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %3, %1, %2 : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[I:.+]]: tensor<4xi32>)
// CHECK: %[[H:.+]] = rlx.cast %[[X]] : tensor<4xf32> -> tensor<4xf16>
// CHECK: %[[F:.+]] = rlx.cast %[[I]] : tensor<4xi32> -> tensor<4xf32>
// CHECK: %[[ZERO:.+]] = rlx.constant dense<0> : tensor<4xi32>
// CHECK: %[[B:.+]] = rlx.compare "ne", %[[I]], %[[ZERO]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK: return %[[H]], %[[F]], %[[B]]
func.func @cast(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf16>, tensor<4xf32>, tensor<4xi1>) {
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  %1 = tosa.cast %i : (tensor<4xi32>) -> tensor<4xf32>
  %2 = tosa.cast %i : (tensor<4xi32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf32>, tensor<4xi1>
}

// -----

// TOSA keeps the reduced axis as size 1: keepdims = true.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>)
// CHECK: %[[SUM:.+]] = rlx.sum %[[X]] {axes = array<i64: 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
// CHECK: %[[MAX:.+]] = rlx.max %[[X]] {axes = array<i64: 0>, keepdims = true} : (tensor<4x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[NEG:.+]] = rlx.neg %[[X]] : tensor<4x3xf32>
// CHECK: %[[NMAX:.+]] = rlx.max %[[NEG]] {axes = array<i64: 0>, keepdims = true} : (tensor<4x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[MIN:.+]] = rlx.neg %[[NMAX]] : tensor<1x3xf32>
// CHECK: return %[[SUM]], %[[MAX]], %[[MIN]]
func.func @reductions(%x: tensor<4x3xf32>) -> (tensor<4x1xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  %1 = tosa.reduce_max %x {axis = 0 : i32} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  %2 = tosa.reduce_min %x {axis = 0 : i32} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  return %0, %1, %2 : tensor<4x1xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Shapes, starts and sizes come from tosa.const_shape, which is then dropped.
// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT: tosa.const_shape
// CHECK: %[[R:.+]] = rlx.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: %[[T:.+]] = rlx.transpose %[[R]] {permutation = array<i64: 1, 0>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
// CHECK: %[[S:.+]] = rlx.slice %[[T]] {limit = array<i64: 3, 6>, start = array<i64: 1, 2>, strides = array<i64: 1, 1>} : (tensor<4x6xf32>) -> tensor<2x4xf32>
// CHECK: %[[C:.+]] = rlx.concat %[[S]], %[[S]] {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK: return %[[C]]
func.func @shape_ops(%x: tensor<2x3x4xf32>) -> tensor<4x4xf32> {
  %shape = tosa.const_shape {values = dense<[6, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %x, %shape : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  %1 = tosa.transpose %0 {perms = array<i32: 1, 0>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %start = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.slice %1, %start, %size : (tensor<4x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  %3 = tosa.concat %2, %2 {axis = 0 : i32} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_shape_ops
// CHECK-SAME: (%[[X:.+]]: tensor<?x28x28xf32>)
// CHECK: %[[R:.+]] = rlx.reshape %[[X]] : (tensor<?x28x28xf32>) -> tensor<?x784xf32>
// CHECK: %[[S:.+]] = rlx.slice %[[R]] {limit = array<i64: -1, 10>, start = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x784xf32>) -> tensor<?x10xf32>
// CHECK: %[[C:.+]] = rlx.concat %[[S]], %[[S]] {axis = 0 : i64} : (tensor<?x10xf32>, tensor<?x10xf32>) -> tensor<?x10xf32>
// CHECK: return %[[C]]
func.func @dynamic_shape_ops(%x: tensor<?x28x28xf32>) -> tensor<?x10xf32> {
  %shape = tosa.const_shape {values = dense<[-1, 784]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %x, %shape : (tensor<?x28x28xf32>, !tosa.shape<2>) -> tensor<?x784xf32>
  %start = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[-1, 10]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %1 = tosa.slice %0, %start, %size : (tensor<?x784xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<?x10xf32>
  %2 = tosa.concat %1, %1 {axis = 0 : i32} : (tensor<?x10xf32>, tensor<?x10xf32>) -> tensor<?x10xf32>
  return %2 : tensor<?x10xf32>
}

// -----

// CHECK-LABEL: func.func @pooling
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x3xf32>)
// CHECK: %[[MAX:.+]] = rlx.max_pool2d %[[X]] {padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[AVG:.+]] = rlx.avg_pool2d %[[MAX]] {window = array<i64: 2, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x3x3x3xf32>
// CHECK: return %[[AVG]]
func.func @pooling(%x: tensor<1x8x8x3xf32>) -> tensor<1x3x3x3xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = tosa.avg_pool2d %0, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x3xf32>
  return %1 : tensor<1x3x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.+]] = rlx.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]]
func.func @constant() -> tensor<2xf32> {
  %0 = "tosa.const"() {values = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A two-layer MLP as exported with ml_program weights: extern globals become
// rlx.param, a global with a dense value an rlx.constant, and the globals go.
// CHECK-NOT: ml_program.global
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x4xf32>)
// CHECK-DAG: %[[W1:.+]] = rlx.param "fc1.weight" : tensor<1x4x8xf32>
// CHECK-DAG: %[[B1:.+]] = rlx.constant dense<5.000000e-01> : tensor<1x1x8xf32>
// CHECK-DAG: %[[W2:.+]] = rlx.param "fc2.weight" : tensor<1x8x3xf32>
// CHECK: %[[H:.+]] = rlx.matmul %[[X]], %[[W1]] : (tensor<1x2x4xf32>, tensor<1x4x8xf32>) -> tensor<1x2x8xf32>
// CHECK: %[[HB:.+]] = rlx.add %[[H]], %[[B1]] : (tensor<1x2x8xf32>, tensor<1x1x8xf32>) -> tensor<1x2x8xf32>
// CHECK: %[[A:.+]] = rlx.relu %[[HB]] : tensor<1x2x8xf32>
// CHECK: %[[Y:.+]] = rlx.matmul %[[A]], %[[W2]] : (tensor<1x2x8xf32>, tensor<1x8x3xf32>) -> tensor<1x2x3xf32>
// CHECK: return %[[Y]]
// CHECK-NOT: ml_program
ml_program.global private @fc1.weight(#ml_program.extern : tensor<1x4x8xf32>) : tensor<1x4x8xf32>
ml_program.global private @fc1.bias(dense<0.5> : tensor<1x1x8xf32>) : tensor<1x1x8xf32>
ml_program.global private @fc2.weight(#ml_program.extern : tensor<1x8x3xf32>) : tensor<1x8x3xf32>
func.func @mlp(%x: tensor<1x2x4xf32>) -> tensor<1x2x3xf32> {
  %w1 = ml_program.global_load_const @fc1.weight : tensor<1x4x8xf32>
  %b1 = ml_program.global_load_const @fc1.bias : tensor<1x1x8xf32>
  %w2 = ml_program.global_load_const @fc2.weight : tensor<1x8x3xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32>
  %1 = tosa.add %0, %b1 : (tensor<1x2x8xf32>, tensor<1x1x8xf32>) -> tensor<1x2x8xf32>
  %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %3 = tosa.matmul %2, %w2, %zp, %zp : (tensor<1x2x8xf32>, tensor<1x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
  return %3 : tensor<1x2x3xf32>
}

// -----

func.func @unsupported_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tosa.erf' op is not supported by the TOSA import (convert-tosa-to-rlx)}}
  %0 = tosa.erf %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @unsupported_fft(%re: tensor<1x4x4xf32>, %im: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  // expected-error @+1 {{'tosa.fft2d' op is not supported by the TOSA import (convert-tosa-to-rlx)}}
  %0, %1 = tosa.fft2d %re, %im {inverse = false} : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x4xf32>)
  return %0 : tensor<1x4x4xf32>
}

// -----

// TOSA's own verifier rejects a non-zero zero point on floats; integers reach
// the import, which has no quantized arithmetic.
func.func @nonzero_zero_point(%a: tensor<1x2x3xi8>, %b: tensor<1x3x4xi8>) -> tensor<1x2x4xi32> {
  %a_zp = "tosa.const"() {values = dense<3> : tensor<1xi8>} : () -> tensor<1xi8>
  %b_zp = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.matmul' op expects a_zp to be zero (quantized TOSA is not supported), got dense<3> : tensor<1xi8>}}
  %0 = tosa.matmul %a, %b, %a_zp, %b_zp : (tensor<1x2x3xi8>, tensor<1x3x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x4xi32>
  return %0 : tensor<1x2x4xi32>
}

// -----

func.func @nonzero_shift(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %shift = "tosa.const"() {values = dense<2> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.mul' op expects shift to be zero}}
  %0 = tosa.mul %a, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @integer_conv2d(%x: tensor<1x4x4x2xi8>, %w: tensor<8x1x1x2xi8>, %bias: tensor<8xi32>) -> tensor<1x4x4x8xi32> {
  %zp = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.conv2d' op expects floating-point input, weight, bias and output of one element type}}
  %0 = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<8x1x1x2xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  return %0 : tensor<1x4x4x8xi32>
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tosa.exp' op expects ranked tensors, got 'tensor<*xf32>'}}
  %0 = tosa.exp %x : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @nan_ignore(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.maximum' op expects nan_mode = PROPAGATE (rlx propagates NaN), got IGNORE}}
  %0 = tosa.maximum %a, %b {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @float_to_int_cast(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tosa.cast' op expects no float-to-integer cast (TOSA rounds to nearest, rlx.cast truncates), got 'f32' to 'i32'}}
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @padded_avg_pool(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+1 {{'tosa.avg_pool2d' op expects zero padding}}
  %0 = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}

// -----

func.func @partial_dynamic_slice(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %start = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-error @+1 {{'tosa.slice' op expects dynamic dim 0 to be sliced whole (start 0, size -1)}}
  %0 = tosa.slice %x, %start, %size : (tensor<?x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// rlx's shape rules are stricter than TOSA's: the rlx.concat rule wants the
// dims besides the axis equal, and a `?` does not equal a 2. The import asks
// the rule before it builds (inferred result types) and reports it here.
func.func @concat_mixed_static(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'rlx.concat' op expects input 1 [2,3] to match input 0 [?,3] on dim 0}}
  %0 = tosa.concat %a, %b {axis = 1 : i32} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// The rlx.conv2d rule, checked before the weight transpose is built.
func.func @dynamic_conv_weight(%x: tensor<1x5x5x1xf32>, %w: tensor<?x3x3x1xf32>, %b: tensor<1xf32>) -> tensor<1x3x3x?xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+1 {{'tosa.conv2d' op expects a static filter shape, got [3,3,1,?]}}
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x5x5x1xf32>, tensor<?x3x3x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x?xf32>
  return %0 : tensor<1x3x3x?xf32>
}

// -----

// expected-error @+1 {{'ml_program.global' op expects immutable ml_program globals}}
ml_program.global private mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
func.func @mutable_global() -> tensor<4xf32> {
  %0 = ml_program.global_load @state : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The broadcast makes the result 3x4; a caller would need the same
// refinement down its users.
// expected-error @+1 {{'func.func' op expects no calls to a function whose results the import refines, from 'tensor<?x4xf32>' to 'tensor<3x4xf32>'}}
func.func @called(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %0 = tosa.add %a, %b : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func @caller(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %0 = func.call @called(%a, %b) : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// tosa.cond_if becomes rlx.switch over outlined branches, else first (an i1
// index picks the first branch for false). A one-element condition is
// reshaped to tensor<i1>; a value a region uses from outside (%y) becomes a
// leading argument of both branches; a constant is cloned in, so the
// negate's zero points are still constants.
// CHECK-LABEL: func.func @cond_if
// CHECK-SAME: (%[[C:.+]]: tensor<1xi1>, %[[X:.+]]: tensor<4xf32>, %[[Y:.+]]: tensor<4xf32>)
// CHECK: %[[I:.+]] = rlx.reshape %[[C]] : (tensor<1xi1>) -> tensor<i1>
// CHECK: %[[R:.+]] = rlx.switch %[[I]] [@cond_if__cond_if_else, @cond_if__cond_if_then](%[[Y]], %[[X]]) : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[R]]
// CHECK: func.func private @cond_if__cond_if_then(%[[TY:.+]]: tensor<4xf32>, %[[TX:.+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[N:.+]] = rlx.neg %[[TX]]
// CHECK: %[[S:.+]] = rlx.add %[[N]], %[[TY]]
// CHECK: return %[[S]]
// CHECK: func.func private @cond_if__cond_if_else(%{{.+}}: tensor<4xf32>, %[[EX:.+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[A:.+]] = rlx.abs %[[EX]]
// CHECK: return %[[A]]
// CHECK-NOT: tosa.
func.func @cond_if(%c: tensor<1xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.cond_if %c (%a = %x) : tensor<1xi1> (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = tosa.negate %a, %zp, %zp : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
    %s = tosa.add %n, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %s : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %m = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %m : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// tosa.while_loop becomes rlx.while: what the regions use from outside
// (%limit) is a const of both, the constant 2 is cloned into the body.
// CHECK-LABEL: func.func @while_loop
// CHECK-SAME: (%[[X:.+]]: tensor<f32>, %[[N:.+]]: tensor<i32>, %[[LIMIT:.+]]: tensor<f32>)
// CHECK: %[[R:.+]]:2 = rlx.while @while_loop__while_cond, @while_loop__while_body consts(%[[LIMIT]]) init(%[[X]], %[[N]]) : (tensor<f32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK: func.func private @while_loop__while_cond(%[[CL:.+]]: tensor<f32>, %[[CX:.+]]: tensor<f32>, %{{.+}}: tensor<i32>) -> tensor<i1>
// CHECK: %[[P:.+]] = rlx.compare "gt", %[[CL]], %[[CX]]
// CHECK: return %[[P]] : tensor<i1>
// CHECK: func.func private @while_loop__while_body(%{{.+}}: tensor<f32>, %[[BX:.+]]: tensor<f32>, %[[BN:.+]]: tensor<i32>) -> (tensor<f32>, tensor<i32>)
// CHECK-DAG: %[[TWO:.+]] = rlx.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ONE:.+]] = rlx.constant dense<1> : tensor<i32>
// CHECK: %[[D:.+]] = rlx.mul %[[BX]], %[[TWO]]
// CHECK: %[[I:.+]] = rlx.add %[[BN]], %[[ONE]]
// CHECK: return %[[D]], %[[I]]
func.func @while_loop(%x: tensor<f32>, %n: tensor<i32>, %limit: tensor<f32>) -> (tensor<f32>, tensor<i32>) {
  %two = "tosa.const"() {values = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %0:2 = tosa.while_loop (%a = %x, %b = %n) : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>) {
    %p = tosa.greater %limit, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
    tosa.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<f32>, %b: tensor<i32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %d = tosa.mul %a, %two, %shift : (tensor<f32>, tensor<f32>, tensor<1xi8>) -> tensor<f32>
    %i = tosa.add %b, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %d, %i : tensor<f32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<f32>, tensor<i32>
}

// -----

// A cond_if inside a while body is outlined from the outlined body; %y, used
// by the inner branch, is captured twice: a const of the loop, then an
// argument of the branches.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>, %[[N:.+]]: tensor<i32>, %[[Y:.+]]: tensor<3xf32>)
// CHECK: rlx.while @nested__while_cond, @nested__while_body consts(%[[Y]]) init(%[[X]], %[[N]])
// CHECK: func.func private @nested__while_cond(
// CHECK: func.func private @nested__while_body(%[[BY:.+]]: tensor<3xf32>, %[[BX:.+]]: tensor<3xf32>, %[[BN:.+]]: tensor<i32>)
// CHECK: %[[P:.+]] = rlx.compare "ge", %[[BN]]
// CHECK: %[[S:.+]] = rlx.switch %[[P]] [@nested__while_body__cond_if_else, @nested__while_body__cond_if_then](%[[BY]], %[[BX]])
// CHECK: return %[[S]],
// CHECK: func.func private @nested__while_body__cond_if_then(%[[TY:.+]]: tensor<3xf32>, %[[TX:.+]]: tensor<3xf32>)
// CHECK: rlx.mul %[[TX]], %[[TY]]
// CHECK: func.func private @nested__while_body__cond_if_else(
// CHECK: rlx.add
// CHECK-NOT: tosa.
func.func @nested(%x: tensor<3xf32>, %n: tensor<i32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %four = "tosa.const"() {values = dense<4> : tensor<i32>} : () -> tensor<i32>
  %two = "tosa.const"() {values = dense<2> : tensor<i32>} : () -> tensor<i32>
  %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0:2 = tosa.while_loop (%a = %x, %b = %n) : (tensor<3xf32>, tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
    %p = tosa.greater %four, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<3xf32>, %b: tensor<i32>):
    %late = tosa.greater_equal %b, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %v = tosa.cond_if %late (%c = %a) : tensor<i1> (tensor<3xf32>) -> tensor<3xf32> {
    ^bb0(%c: tensor<3xf32>):
      %m = tosa.mul %c, %y, %shift : (tensor<3xf32>, tensor<3xf32>, tensor<1xi8>) -> tensor<3xf32>
      tosa.yield %m : tensor<3xf32>
    } else {
    ^bb0(%c: tensor<3xf32>):
      %s = tosa.add %c, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      tosa.yield %s : tensor<3xf32>
    }
    %i = tosa.add %b, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %v, %i : tensor<3xf32>, tensor<i32>
  }
  return %0#0 : tensor<3xf32>
}

// -----

// An op the import cannot convert is reported inside the outlined branch.
func.func @unsupported_in_branch(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{'tosa.erf' op is not supported by the TOSA import (convert-tosa-to-rlx)}}
    %e = tosa.erf %a : (tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %e : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    tosa.yield %a : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

// rlx infers a static shape for the broadcast in the then branch; the else
// branch keeps the `?`, and rlx.switch wants one type per result.
func.func @branch_types_differ(%c: tensor<i1>, %x: tensor<?xf32>, %y: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tosa.cond_if' op expects both regions to yield the same types, value 0 is 'tensor<4xf32>' in then_graph and 'tensor<?xf32>' in else_graph}}
  %0 = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %s = tosa.add %a, %y : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    tosa.yield %s : tensor<?xf32>
  } else {
  ^bb0(%a: tensor<?xf32>):
    tosa.yield %a : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}

// -----

func.func @carry_type_changes(%x: tensor<?xf32>, %y: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tosa.while_loop' op expects body_graph to keep the carry's types, value 0 is 'tensor<4xf32>' for a carry of 'tensor<?xf32>'}}
  %0 = tosa.while_loop (%a = %x) : (tensor<?xf32>) -> tensor<?xf32> {
    %t = "tosa.const"() {values = dense<true> : tensor<i1>} : () -> tensor<i1>
    tosa.yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<?xf32>):
    %s = tosa.add %a, %y : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    tosa.yield %s : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}

// -----

func.func @unranked_input(%c: tensor<i1>, %x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tosa.cond_if' op expects inputs to be ranked tensors of integers or floats, got 'tensor<*xf32>'}}
  %0 = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<*xf32>) -> tensor<*xf32> {
  ^bb0(%a: tensor<*xf32>):
    tosa.yield %a : tensor<*xf32>
  } else {
  ^bb0(%a: tensor<*xf32>):
    tosa.yield %a : tensor<*xf32>
  }
  return %0 : tensor<*xf32>
}

// -----

// A size of -1 takes the rest of the dim (2 here), which the declared type
// contradicts; TOSA's verifier lets it through.
func.func @slice_rest_contradicts_result(%x: tensor<4x6xf32>) -> tensor<2x4xf32> {
  %start = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-error @+1 {{'tosa.slice' op expects result type 'tensor<2x2xf32>' for its operands, got 'tensor<2x4xf32>'}}
  %0 = tosa.slice %x, %start, %size : (tensor<4x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
