// RUN: rlx-opt %s -split-input-file "-rlx-build-manifest=cpu=x86-64-v3 cpu-features=-fma" -verify-diagnostics | FileCheck %s

// The manifest JSON lands on the module; rlx.* attributes leave the entry
// points, which get a C interface. Static allocations count as workspace.
// The CPU the code is compiled for, with the features it needs (without
// fma: -fma turned it off).
// CHECK: module attributes {rlx.manifest = "{\22abi_version\22:4,
// CHECK-SAME: \22cpu\22:\22x86-64-v3\22,\22cpu_features\22:[\22+sse\22,\22+sse2\22,\22+sse3\22,\22+ssse3\22,\22+cx16\22,\22+sse4.1\22,\22+sse4.2\22,\22+movbe\22,\22+popcnt\22,\22+avx\22,\22+f16c\22,\22+bmi\22,\22+avx2\22,\22+bmi2\22,\22+sahf\22,\22+lzcnt\22],
// CHECK-SAME: \22entry_points\22:[{\22dim_constraints\22:[{\22dims\22:{{\[\[}}0,0]],\22size\22:7}],\22inputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22x\22,\22shape\22:[-1,3]}],\22name\22:\22f\22,\22outputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22out0\22,\22shape\22:[-1,3]}],\22params\22:[{\22dtype\22:\22f32\22,\22name\22:\22w\22,\22shape\22:[3]}],\22prepare\22:\22\22,\22symbol\22:\22rlx_entry_f\22,\22workspace_bytes\22:48,\22workspace_lower_bound_bytes\22:48}]
// CHECK-SAME: \22format\22:\22rlx-artifact\22,\22params\22:[{\22dtype\22:\22f32\22,\22name\22:\22w\22,\22shape\22:[3]}],\22target\22:\22cpu\22,\22target_triple\22:\22x86_64-{{[^\\]*}}\22}"}
// CHECK: func.func @rlx_impl_f(%{{.+}}: memref<?x3xf32>, %{{.+}}: memref<3xf32>) -> memref<?x3xf32> attributes {llvm.emit_c_interface}
func.func @f(%x: memref<?x3xf32> {rlx.name = "x"}, %w: memref<3xf32> {rlx.param = "w"}) -> memref<?x3xf32>
    attributes {rlx.entry = {dim_constraints = [{dims = [[0, 0]], size = 7 : i64}],
                             inputs = [{dtype = "f32", name = "x", shape = [-1, 3]}],
                             params = [{dtype = "f32", name = "w", shape = [3]}],
                             outputs = [{dtype = "f32", name = "out0", shape = [-1, 3]}]}} {
  %tmp = memref.alloc() : memref<4x3xf32>
  memref.dealloc %tmp : memref<4x3xf32>
  return %x : memref<?x3xf32>
}

// -----

// Negative: a param shared by two entry points must agree.
module {
  func.func @a(%w: memref<3xf32>) attributes {rlx.entry = {inputs = [], outputs = [],
      params = [{dtype = "f32", name = "w", shape = [3]}]}} {
    return
  }
  // expected-error @+1 {{'func.func' op expects param 'w' to have the same dtype and shape in every entry point}}
  func.func @b(%w: memref<4xf32>) attributes {rlx.entry = {inputs = [], outputs = [],
      params = [{dtype = "f32", name = "w", shape = [4]}]}} {
    return
  }
}
