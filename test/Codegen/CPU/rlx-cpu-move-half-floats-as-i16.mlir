// RUN: rlx-opt %s -split-input-file -rlx-cpu-move-half-floats-as-i16 | FileCheck %s

// A bf16 vector built lane by lane in a loop (a transposing read): each
// insert runs on the i16 vector of the same bits, bitcast at its ends; the
// loaded lane is an i16 load (the two bitcasts between them fold).
// CHECK-LABEL: llvm.func @gather_bf16
// CHECK: ^bb1(%[[I:.+]]: i64, %[[V:.+]]: vector<32xbf16>):
// CHECK: %[[S:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i16
// CHECK: %[[VI:.+]] = llvm.bitcast %[[V]] : vector<32xbf16> to vector<32xi16>
// CHECK: %[[INS:.+]] = llvm.insertelement %[[S]], %[[VI]][%[[I]] : i64] : vector<32xi16>
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


// -----

// A masked load and store of a partial bf16 vector (a bf16 im2col copy of
// 8 channels in 32 lanes), and a plain one of 9 elements: on i16 vectors,
// the pass-through value too; the bitcasts between them fold away.
// x86's backend could not promote a bf16 masked access's operands.
// CHECK-LABEL: llvm.func @masked_copy
// CHECK: %[[PI:.+]] = llvm.bitcast %{{.+}} : vector<32xbf16> to vector<32xi16>
// CHECK: %[[L:.+]] = llvm.intr.masked.load %arg0, %arg2, %[[PI]] {alignment = 2 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xi16>) -> vector<32xi16>
// CHECK: llvm.intr.masked.store %[[L]], %arg1, %arg2 {alignment = 2 : i32} : vector<32xi16>, vector<32xi1> into !llvm.ptr
// CHECK: %[[V9:.+]] = llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr -> vector<9xi16>
// CHECK: llvm.store %[[V9]], %{{.+}} {alignment = 2 : i64} : vector<9xi16>, !llvm.ptr
// CHECK-NOT: bf16>, vector<32xi1> into
// CHECK-NOT: llvm.load {{.+}} -> {{.*}}bf16
// CHECK-NOT: llvm.store {{.+}}bf16
llvm.func @masked_copy(%src: !llvm.ptr, %dst: !llvm.ptr, %m: vector<32xi1>) {
  %pass = llvm.mlir.poison : vector<32xbf16>
  %v = llvm.intr.masked.load %src, %m, %pass {alignment = 2 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xbf16>) -> vector<32xbf16>
  llvm.intr.masked.store %v, %dst, %m {alignment = 2 : i32} : vector<32xbf16>, vector<32xi1> into !llvm.ptr
  %p9 = llvm.getelementptr %src[32] : (!llvm.ptr) -> !llvm.ptr, bf16
  %q9 = llvm.getelementptr %dst[32] : (!llvm.ptr) -> !llvm.ptr, bf16
  %v9 = llvm.load %p9 {alignment = 2 : i64} : !llvm.ptr -> vector<9xbf16>
  llvm.store %v9, %q9 {alignment = 2 : i64} : vector<9xbf16>, !llvm.ptr
  llvm.return
}
