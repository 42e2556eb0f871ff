// RUN: rlx-opt %s -rlx-cpu-expand-bf16-casts | FileCheck %s

// f32 -> bf16 to nearest even (bits + 0x7fff + the kept part's lowest bit,
// top half), a NaN as its top half with the quiet bit (0x40) set: its sign
// stays. bf16 -> f32: the bits shifted up by 16. Scalars and vectors.
// CHECK-LABEL: func @casts
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK-DAG: %[[ONE:.+]] = arith.constant dense<1> : vector<8xi32>
// CHECK-DAG: %[[HALF:.+]] = arith.constant dense<32767> : vector<8xi32>
// CHECK-DAG: %[[SIXTEEN:.+]] = arith.constant dense<16> : vector<8xi32>
// CHECK-DAG: %[[QUIET:.+]] = arith.constant dense<64> : vector<8xi32>
// CHECK: %[[BITS:.+]] = arith.bitcast %arg0 : vector<8xf32> to vector<8xi32>
// CHECK: %[[TOP:.+]] = arith.shrui %[[BITS]], %[[SIXTEEN]]
// CHECK: %[[LOWEST:.+]] = arith.andi %[[TOP]], %[[ONE]]
// CHECK: %[[BIAS:.+]] = arith.addi %[[LOWEST]], %[[HALF]]
// CHECK: %[[SUM:.+]] = arith.addi %[[BITS]], %[[BIAS]]
// CHECK: %[[ROUNDED:.+]] = arith.shrui %[[SUM]], %[[SIXTEEN]]
// CHECK: %[[NAN:.+]] = arith.ori %[[TOP]], %[[QUIET]]
// CHECK: %[[ISNAN:.+]] = arith.cmpf uno, %arg0, %arg0 : vector<8xf32>
// CHECK: %[[PICK:.+]] = arith.select %[[ISNAN]], %[[NAN]], %[[ROUNDED]]
// CHECK: %[[NARROW:.+]] = arith.trunci %[[PICK]] : vector<8xi32> to vector<8xi16>
// CHECK: %[[T:.+]] = arith.bitcast %[[NARROW]] : vector<8xi16> to vector<8xbf16>
// CHECK: %[[H:.+]] = arith.bitcast %arg1 : bf16 to i16
// CHECK: %[[W:.+]] = arith.extui %[[H]] : i16 to i32
// CHECK: %[[S:.+]] = arith.shli %[[W]], %{{.+}} : i32
// CHECK: %[[E:.+]] = arith.bitcast %[[S]] : i32 to f32
// CHECK: return %[[T]], %[[E]]
func.func @casts(%x: vector<8xf32>, %y: bf16) -> (vector<8xbf16>, f32) {
  %t = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  %e = arith.extf %y : bf16 to f32
  return %t, %e : vector<8xbf16>, f32
}

// Other conversions are left to LLVM: f16 (F16C converts it), f64 -> bf16.
// CHECK-LABEL: func @left_alone
// CHECK: arith.truncf %arg0 : f32 to f16
// CHECK: arith.truncf %arg1 : f64 to bf16
// CHECK: arith.extf %arg2 : f16 to f32
func.func @left_alone(%x: f32, %d: f64, %h: f16) -> (f16, bf16, f32) {
  %t = arith.truncf %x : f32 to f16
  %b = arith.truncf %d : f64 to bf16
  %e = arith.extf %h : f16 to f32
  return %t, %b, %e : f16, bf16, f32
}
