// RUN: rlx-opt %s -split-input-file -rlx-cpu-move-half-floats-as-i16 | FileCheck %s

// A bf16 vector built lane by lane in a loop (a transposing read): each
// insert runs on the i16 vector of the same bits, bitcast at its ends.
// CHECK-LABEL: llvm.func @gather_bf16
// CHECK: ^bb1(%[[I:.+]]: i64, %[[V:.+]]: vector<32xbf16>):
// CHECK: %[[S:.+]] = llvm.load %{{.+}} : !llvm.ptr -> bf16
// CHECK-DAG: %[[VI:.+]] = llvm.bitcast %[[V]] : vector<32xbf16> to vector<32xi16>
// CHECK-DAG: %[[SI:.+]] = llvm.bitcast %[[S]] : bf16 to i16
// CHECK: %[[INS:.+]] = llvm.insertelement %[[SI]], %[[VI]][%[[I]] : i64] : vector<32xi16>
// CHECK: %[[BACK:.+]] = llvm.bitcast %[[INS]] : vector<32xi16> to vector<32xbf16>
// CHECK: llvm.br ^bb1(%{{.+}}, %[[BACK]] : i64, vector<32xbf16>)
// CHECK-NOT: llvm.insertelement {{.+}} : vector<32xbf16>
llvm.func @gather_bf16(%p: !llvm.ptr, %n: i64) -> vector<32xbf16> {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %init = llvm.mlir.poison : vector<32xbf16>
  llvm.br ^bb1(%zero, %init : i64, vector<32xbf16>)
^bb1(%i: i64, %v: vector<32xbf16>):
  %done = llvm.icmp "eq" %i, %n : i64
  llvm.cond_br %done, ^bb2, ^bb3
^bb3:
  %addr = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
  %s = llvm.load %addr : !llvm.ptr -> bf16
  %w = llvm.insertelement %s, %v[%i : i64] : vector<32xbf16>
  %next = llvm.add %i, %one : i64
  llvm.br ^bb1(%next, %w : i64, vector<32xbf16>)
^bb2:
  llvm.return %v : vector<32xbf16>
}

// -----

// An f16 lane extracted, two bf16 vectors shuffled and selected: on i16
// values too. f32 vectors stay as they are.
// CHECK-LABEL: llvm.func @move_lanes
// CHECK: %[[XI:.+]] = llvm.bitcast %arg0 : vector<8xf16> to vector<8xi16>
// CHECK: %[[LANE:.+]] = llvm.extractelement %[[XI]][%arg3 : i64] : vector<8xi16>
// CHECK: llvm.bitcast %[[LANE]] : i16 to f16
// CHECK-DAG: %[[AI:.+]] = llvm.bitcast %arg1 : vector<4xbf16> to vector<4xi16>
// CHECK-DAG: %[[BI:.+]] = llvm.bitcast %arg2 : vector<4xbf16> to vector<4xi16>
// CHECK: %[[SH:.+]] = llvm.shufflevector %[[AI]], %[[BI]] [0, 4, 1, 5] : vector<4xi16>
// CHECK: llvm.bitcast %[[SH]] : vector<4xi16> to vector<4xbf16>
// CHECK: %[[SEL:.+]] = llvm.select %arg4, %{{.+}}, %{{.+}} : vector<4xi1>, vector<4xi16>
// CHECK: llvm.bitcast %[[SEL]] : vector<4xi16> to vector<4xbf16>
// CHECK: llvm.insertelement %{{.+}}, %arg5[%arg3 : i64] : vector<4xf32>
// CHECK-NOT: llvm.select {{.+}}bf16
llvm.func @move_lanes(%x: vector<8xf16>, %a: vector<4xbf16>, %b: vector<4xbf16>,
                      %i: i64, %m: vector<4xi1>, %f: vector<4xf32>, %g: f32)
    -> !llvm.struct<(f16, vector<4xbf16>, vector<4xbf16>, vector<4xf32>)> {
  %lane = llvm.extractelement %x[%i : i64] : vector<8xf16>
  %sh = llvm.shufflevector %a, %b [0, 4, 1, 5] : vector<4xbf16>
  %sel = llvm.select %m, %a, %b : vector<4xi1>, vector<4xbf16>
  %fi = llvm.insertelement %g, %f[%i : i64] : vector<4xf32>
  %u = llvm.mlir.poison : !llvm.struct<(f16, vector<4xbf16>, vector<4xbf16>, vector<4xf32>)>
  %r0 = llvm.insertvalue %lane, %u[0] : !llvm.struct<(f16, vector<4xbf16>, vector<4xbf16>, vector<4xf32>)>
  %r1 = llvm.insertvalue %sh, %r0[1] : !llvm.struct<(f16, vector<4xbf16>, vector<4xbf16>, vector<4xf32>)>
  %r2 = llvm.insertvalue %sel, %r1[2] : !llvm.struct<(f16, vector<4xbf16>, vector<4xbf16>, vector<4xf32>)>
  %r3 = llvm.insertvalue %fi, %r2[3] : !llvm.struct<(f16, vector<4xbf16>, vector<4xbf16>, vector<4xf32>)>
  llvm.return %r3 : !llvm.struct<(f16, vector<4xbf16>, vector<4xbf16>, vector<4xf32>)>
}

