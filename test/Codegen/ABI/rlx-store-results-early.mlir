// RUN: rlx-opt %s -split-input-file -rlx-store-results-early | FileCheck %s
// RUN: rlx-opt %s -split-input-file -rlx-store-results-early | mlir-translate --mlir-to-llvmir --split-input-file >/dev/null

// Five results, stored by the C interface wrapper: the function takes the
// wrapper's pointer and stores each field right after it is made (before
// the call between them), a failure's zeros whole; the wrapper passes its
// pointer and stores nothing.
// CHECK: llvm.func @many(%[[OUT:.+]]: !llvm.ptr, %[[X:.+]]: i64, %[[FAIL:.+]]: i1) {
// CHECK: %[[A:.+]] = llvm.add %[[X]], %[[X]]
// CHECK-NEXT: %[[PA:.+]] = llvm.getelementptr %[[OUT]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64, i64, i64, f32)>
// CHECK-NEXT: llvm.store %[[A]], %[[PA]] : i64, !llvm.ptr
// CHECK-NEXT: llvm.call @work()
// CHECK: llvm.cond_br %[[FAIL]], ^[[EXIT:.+]], ^[[REST:.+]]
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: %[[ZERO:.+]] = llvm.mlir.zero : !llvm.struct<(i64, i64, i64, i64, f32)>
// CHECK-NEXT: llvm.store %[[ZERO]], %[[OUT]]
// CHECK-NEXT: llvm.return
// CHECK: ^[[REST]]:
// CHECK: %[[E:.+]] = llvm.sitofp
// CHECK-NEXT: %[[PE:.+]] = llvm.getelementptr %[[OUT]][0, 4]
// CHECK-NEXT: llvm.store %[[E]], %[[PE]] : f32, !llvm.ptr
// CHECK-NOT: llvm.insertvalue
// CHECK: llvm.return{{$}}
// CHECK: llvm.func @_mlir_ciface_many(%[[RES:.+]]: !llvm.ptr, %[[Y:.+]]: i64, %[[F:.+]]: i1)
// CHECK-NEXT: llvm.call @many(%[[RES]], %[[Y]], %[[F]]) : (!llvm.ptr, i64, i1) -> ()
// CHECK-NEXT: llvm.return
llvm.func @work()
llvm.func @many(%x: i64, %fail: i1) -> !llvm.struct<(i64, i64, i64, i64, f32)> {
  %a = llvm.add %x, %x : i64
  llvm.call @work() : () -> ()
  %b = llvm.mul %x, %x : i64
  %c = llvm.sub %x, %a : i64
  %d = llvm.mlir.constant(7 : i64) : i64
  llvm.cond_br %fail, ^exit, ^rest
^exit:
  %zero = llvm.mlir.zero : !llvm.struct<(i64, i64, i64, i64, f32)>
  llvm.return %zero : !llvm.struct<(i64, i64, i64, i64, f32)>
^rest:
  %e = llvm.sitofp %b : i64 to f32
  %s0 = llvm.mlir.poison : !llvm.struct<(i64, i64, i64, i64, f32)>
  %s1 = llvm.insertvalue %a, %s0[0] : !llvm.struct<(i64, i64, i64, i64, f32)>
  %s2 = llvm.insertvalue %b, %s1[1] : !llvm.struct<(i64, i64, i64, i64, f32)>
  %s3 = llvm.insertvalue %c, %s2[2] : !llvm.struct<(i64, i64, i64, i64, f32)>
  %s4 = llvm.insertvalue %d, %s3[3] : !llvm.struct<(i64, i64, i64, i64, f32)>
  %s5 = llvm.insertvalue %e, %s4[4] : !llvm.struct<(i64, i64, i64, i64, f32)>
  llvm.return %s5 : !llvm.struct<(i64, i64, i64, i64, f32)>
}
llvm.func @_mlir_ciface_many(%res: !llvm.ptr, %y: i64, %f: i1) {
  %r = llvm.call @many(%y, %f) : (i64, i1) -> !llvm.struct<(i64, i64, i64, i64, f32)>
  llvm.store %r, %res : !llvm.struct<(i64, i64, i64, i64, f32)>, !llvm.ptr
  llvm.return
}

// -----

// Left alone: four results or fewer; a caller that reads the struct; a
// store to memory that is not an argument of the caller.
// CHECK-LABEL: llvm.func @few(%{{.+}}: i64) -> !llvm.struct<(i64, i64, i64, i64)>
// CHECK-LABEL: llvm.func @read(%{{.+}}: i64) -> !llvm.struct<(i64, i64, i64, i64, i64)>
// CHECK-LABEL: llvm.func @local(%{{.+}}: i64) -> !llvm.struct<(i64, i64, i64, i64, i64)>
llvm.func @few(%x: i64) -> !llvm.struct<(i64, i64, i64, i64)> {
  %s0 = llvm.mlir.poison : !llvm.struct<(i64, i64, i64, i64)>
  %s1 = llvm.insertvalue %x, %s0[0] : !llvm.struct<(i64, i64, i64, i64)>
  %s2 = llvm.insertvalue %x, %s1[1] : !llvm.struct<(i64, i64, i64, i64)>
  %s3 = llvm.insertvalue %x, %s2[2] : !llvm.struct<(i64, i64, i64, i64)>
  %s4 = llvm.insertvalue %x, %s3[3] : !llvm.struct<(i64, i64, i64, i64)>
  llvm.return %s4 : !llvm.struct<(i64, i64, i64, i64)>
}
llvm.func @read(%x: i64) -> !llvm.struct<(i64, i64, i64, i64, i64)> {
  %z = llvm.mlir.zero : !llvm.struct<(i64, i64, i64, i64, i64)>
  llvm.return %z : !llvm.struct<(i64, i64, i64, i64, i64)>
}
llvm.func @reads(%x: i64) -> i64 {
  %r = llvm.call @read(%x) : (i64) -> !llvm.struct<(i64, i64, i64, i64, i64)>
  %v = llvm.extractvalue %r[0] : !llvm.struct<(i64, i64, i64, i64, i64)>
  llvm.return %v : i64
}
llvm.func @local(%x: i64) -> !llvm.struct<(i64, i64, i64, i64, i64)> {
  %z = llvm.mlir.zero : !llvm.struct<(i64, i64, i64, i64, i64)>
  llvm.return %z : !llvm.struct<(i64, i64, i64, i64, i64)>
}
llvm.func @stores_locally(%x: i64) {
  %one = llvm.mlir.constant(1 : i64) : i64
  %p = llvm.alloca %one x !llvm.struct<(i64, i64, i64, i64, i64)> : (i64) -> !llvm.ptr
  %r = llvm.call @local(%x) : (i64) -> !llvm.struct<(i64, i64, i64, i64, i64)>
  llvm.store %r, %p : !llvm.struct<(i64, i64, i64, i64, i64)>, !llvm.ptr
  llvm.return
}
