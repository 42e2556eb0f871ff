// RUN: rlx-opt %s -split-input-file -rlx-expose-params -verify-diagnostics | FileCheck %s

// Params become trailing arguments, one per name in order of first use, and
// the entry point records its manifest description.
// CHECK-LABEL: func @forward
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32> {rlx.name = "x"}, %[[W:.+]]: tensor<4x3xf32> {rlx.param = "layers.0.weight"}, %[[B:.+]]: tensor<3xf32> {rlx.param = "layers.0.bias"})
// CHECK-SAME: rlx.entry = {dim_constraints = [], inputs = [{dtype = "f32", name = "x", shape = [-1, 4]}], outputs = [{dtype = "f32", name = "y", shape = [-1, 3]}], params = [{dtype = "f32", name = "layers.0.weight", shape = [4, 3]}, {dtype = "f32", name = "layers.0.bias", shape = [3]}]}
// CHECK-NOT: rlx.param "
// CHECK: %[[MM:.+]] = rlx.matmul %[[X]], %[[W]]
// CHECK: rlx.add %[[MM]], %[[B]]
// CHECK: rlx.add %{{.+}}, %[[B]]
func.func @forward(%x: tensor<?x4xf32> {rlx.name = "x"}) -> (tensor<?x3xf32> {rlx.name = "y"}) {
  %w = rlx.param "layers.0.weight" : tensor<4x3xf32>
  %b = rlx.param "layers.0.bias" : tensor<3xf32>
  %0 = rlx.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %1 = rlx.add %0, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %b2 = rlx.param "layers.0.bias" : tensor<3xf32>
  %2 = rlx.add %1, %b2 : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %2 : tensor<?x3xf32>
}

// -----

// Unnamed inputs and outputs get positional names; private helpers are not
// entry points.
// CHECK-LABEL: func private @helper
// CHECK-NOT: rlx.entry
// CHECK-LABEL: func @unnamed
// CHECK-SAME: rlx.entry = {dim_constraints = [], inputs = [{dtype = "i32", name = "arg0", shape = [2]}], outputs = [{dtype = "i32", name = "out0", shape = [2]}], params = []}
func.func private @helper(%x: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
func.func @unnamed(%x: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}

// -----

// Dynamic dims the ops assume equal become constraints on the inputs: a ? added
// to a ?, a ? broadcast against a static 4, the K dims of a matmul.
// CHECK-LABEL: func @constraints
// CHECK-SAME: dim_constraints = [{dims = {{\[\[}}0, 0], [1, 0]], size = -1 : i64}, {dims = {{\[\[}}2, 0]], size = 4 : i64}, {dims = {{\[\[}}3, 1], [4, 0]], size = -1 : i64}]
func.func @constraints(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>, %z: tensor<?xf32>, %a: tensor<2x?xf32>, %b: tensor<?x3xf32>) -> (tensor<?x4xf32>, tensor<2x3xf32>) {
  %0 = rlx.add %x, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = rlx.matmul %a, %b : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
  %2 = rlx.add %0, %z : (tensor<?x4xf32>, tensor<?xf32>) -> tensor<?x4xf32>
  return %2, %1 : tensor<?x4xf32>, tensor<2x3xf32>
}

// -----

// Negative: a reshape that scales a dynamic dim ties nothing.
// CHECK-LABEL: func @scaled
// CHECK-SAME: dim_constraints = []
func.func @scaled(%x: tensor<?x6xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %r = rlx.reshape %x : (tensor<?x6xf32>) -> tensor<?x3xf32>
  %0 = rlx.add %r, %y : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func private @reads_param() -> tensor<3xf32> {
  %w = rlx.param "w" : tensor<3xf32>
  return %w : tensor<3xf32>
}
func.func @not_inlined() -> tensor<3xf32> {
  // expected-error @+1 {{'func.call' op expects calls inside entry point 'not_inlined' to be inlined before params are exposed}}
  %0 = func.call @reads_param() : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @two_types() -> tensor<3xf32> {
  %a = rlx.param "w" : tensor<3xf32>
  // expected-error @+1 {{'rlx.param' op expects every read of param 'w' to have one type, got 'tensor<3xf32>' and 'tensor<4xf32>'}}
  %b = rlx.param "w" : tensor<4xf32>
  return %a : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op expects a dtype among f16, bf16, f32, f64, i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f6E3M2FN, f6E2M3FN, f4E2M1FN, f8E8M0FNU for 'arg0', got 'si16'}}
func.func @bad_dtype(%x: tensor<2xsi16>) -> tensor<2xsi16> {
  return %x : tensor<2xsi16>
}

// -----

// Two inputs of one name: a call binds inputs by name, so one of them could
// never be given.
func.func @duplicate_inputs(%x: tensor<2xf32> {rlx.name = "x"},
                            // expected-error @+1 {{'duplicate_inputs' expects distinct input names, inputs 0 and 1 are both named "x"}}
                            %y: tensor<2xf32> {rlx.name = "x"}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// A default name counts too: input 0 is arg0.
func.func @duplicate_default(%a: tensor<2xf32>,
                             // expected-error @+1 {{'duplicate_default' expects distinct input names, inputs 0 and 1 are both named "arg0"}}
                             %b: tensor<2xf32> {rlx.name = "arg0"}) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op expects distinct output names, outputs 0 and 1 are both named "y"}}
func.func @duplicate_outputs(%x: tensor<2xf32>) -> (tensor<2xf32> {rlx.name = "y"}, tensor<2xf32> {rlx.name = "y"}) {
  return %x, %x : tensor<2xf32>, tensor<2xf32>
}

// -----

// A NUL cuts the C string the runtime is given.
// expected-error @+1 {{'func.func' op expects names without NUL characters, output 0 is named "y\00z"}}
func.func @nul_output(%x: tensor<2xf32>) -> (tensor<2xf32> {rlx.name = "y\00z"}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'nul_input' expects names without NUL characters, input 0 is named "\00"}}
func.func @nul_input(%x: tensor<2xf32> {rlx.name = "\00"}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// The manifest is JSON: a name must be UTF-8 (é as two bytes is fine).
// expected-error @+1 {{'func.func' op expects names in UTF-8, output 1 is named "\FF\FE"}}
func.func @not_utf8_output(%x: tensor<2xf32> {rlx.name = "caf\C3\A9"}) -> (tensor<2xf32>, tensor<2xf32> {rlx.name = "\FF\FE"}) {
  return %x, %x : tensor<2xf32>, tensor<2xf32>
}

// -----

func.func @not_utf8_param() -> tensor<2xf32> {
  // expected-error @+1 {{'rlx.param' op expects names in UTF-8, param is named "w\C3"}}
  %w = rlx.param "w\C3" : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op expects names without NUL characters, entry point is named "f\00g"}}
func.func @"f\00g"(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// Names are unique per kind: an input and an output may share one.
// CHECK-LABEL: func @same_input_output
// CHECK: rlx.entry
func.func @same_input_output(%x: tensor<2xf32> {rlx.name = "x"}) -> (tensor<2xf32> {rlx.name = "x"}) {
  return %x : tensor<2xf32>
}
