// RUN: rlx-opt %s -split-input-file -rlx-cpu-stack-loop-buffers | FileCheck %s

// A tile's scratch buffer, made and freed in each iteration: on the stack
// between a save at the allocation and a restore at the free.
// CHECK-LABEL: func @per_iteration
// CHECK: scf.for
// CHECK: %[[SAVED:.+]] = llvm.intr.stacksave : !llvm.ptr
// CHECK: %[[BUF:.+]] = memref.alloca() {alignment = 64 : i64} : memref<8x576xf32>
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[BUF]] : memref<8x576xf32>)
// CHECK: memref.copy %[[BUF]], %{{.+}}
// CHECK: llvm.intr.stackrestore %[[SAVED]] : !llvm.ptr
// CHECK-NOT: memref.dealloc
// CHECK-NOT: memref.alloc(
func.func @per_iteration(%out: memref<8x576xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %buf = memref.alloc() {alignment = 64 : i64} : memref<8x576xf32>
    linalg.fill ins(%zero : f32) outs(%buf : memref<8x576xf32>)
    memref.copy %buf, %out : memref<8x576xf32> to memref<8x576xf32>
    memref.dealloc %buf : memref<8x576xf32>
  }
  return
}

// -----

// The body of a parallel loop after convert-scf-to-openmp, and two
// buffers whose lifetimes nest: all three on the stack, restored in
// reverse order.
// CHECK-LABEL: func @omp_nested
// CHECK: omp.loop_nest
// CHECK: %[[S1:.+]] = llvm.intr.stacksave
// CHECK: memref.alloca() : memref<16xf32>
// CHECK: %[[S2:.+]] = llvm.intr.stacksave
// CHECK: memref.alloca() : memref<32xf32>
// CHECK: llvm.intr.stackrestore %[[S2]]
// CHECK: llvm.intr.stackrestore %[[S1]]
func.func @omp_nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        %a = memref.alloc() : memref<16xf32>
        %b = memref.alloc() : memref<32xf32>
        linalg.fill ins(%zero : f32) outs(%a : memref<16xf32>)
        linalg.fill ins(%zero : f32) outs(%b : memref<32xf32>)
        memref.dealloc %b : memref<32xf32>
        memref.dealloc %a : memref<16xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Left on the heap: a buffer over 64 KiB, a dynamic one, one outside any
// loop, one freed in another block, one of index elements (no bit width), and the second of two buffers whose
// lifetimes cross (a restore for the first would free the second).
// CHECK-LABEL: func @left_alone
// CHECK-COUNT-2: memref.alloc() : memref<128x129xf32>
// CHECK: memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.alloc() : memref<4xindex>
// CHECK: memref.alloca() : memref<8xf32>
// CHECK: memref.alloc() : memref<9xf32>
// CHECK: memref.alloc() : memref<10xf32>
func.func @left_alone(%n: index, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %outside = memref.alloc() : memref<128x129xf32>
  linalg.fill ins(%zero : f32) outs(%outside : memref<128x129xf32>)
  memref.dealloc %outside : memref<128x129xf32>
  scf.for %i = %c0 to %n step %c1 {
    %big = memref.alloc() : memref<128x129xf32>
    linalg.fill ins(%zero : f32) outs(%big : memref<128x129xf32>)
    memref.dealloc %big : memref<128x129xf32>
    %dyn = memref.alloc(%n) : memref<?xf32>
    linalg.fill ins(%zero : f32) outs(%dyn : memref<?xf32>)
    memref.dealloc %dyn : memref<?xf32>
    %other = memref.alloc() : memref<4xf32>
    linalg.fill ins(%zero : f32) outs(%other : memref<4xf32>)
    scf.if %cond {
      memref.dealloc %other : memref<4xf32>
    }
    %indices = memref.alloc() : memref<4xindex>
    memref.store %c0, %indices[%c0] : memref<4xindex>
    memref.dealloc %indices : memref<4xindex>
    %first = memref.alloc() : memref<8xf32>
    %second = memref.alloc() : memref<9xf32>
    linalg.fill ins(%zero : f32) outs(%first : memref<8xf32>)
    linalg.fill ins(%zero : f32) outs(%second : memref<9xf32>)
    memref.dealloc %first : memref<8xf32>
    memref.dealloc %second : memref<9xf32>
    %never = memref.alloc() : memref<10xf32>
    linalg.fill ins(%zero : f32) outs(%never : memref<10xf32>)
  }
  return
}
