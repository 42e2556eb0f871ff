// RUN: rlx-opt %s -convert-linalg-to-parallel-loops -rlx-gpu-map-kernels=block-size=128 -split-input-file -verify-diagnostics | FileCheck %s

// An elementwise op on a strided 2-D view: one grid-stride launch over the
// 4x?  iterations; the blocks are ceil(total/128) clamped to [1, 65535];
// the kernel reads flat views of the base buffers and linearizes with the
// view's offset and strides (static ones become constants in the kernel).
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[BLOCKS:.+]] = arith.ceildivsi %[[TOTAL:.+]], %c128{{.*}}
// CHECK: arith.minsi %[[BLOCKS]], %c65535
// CHECK: memref.extract_strided_metadata %arg0
// CHECK: %[[IN:.+]] = memref.reinterpret_cast %{{.+}} to offset: [0], sizes: [%{{.+}}], strides: [1] : memref<f32> to memref<?xf32>
// CHECK: %[[OUT:.+]] = memref.reinterpret_cast %{{.+}} to offset: [0], sizes: [%{{.+}}], strides: [1] : memref<f32> to memref<?xf32>
// CHECK: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in ({{.+}}) threads(%{{.+}}, %{{.+}}, %{{.+}}) in
// CHECK: scf.for %[[LIN:.+]] = %{{.+}} to %[[TOTAL]] step
// CHECK: arith.remsi %[[LIN]]
// CHECK: %[[V:.+]] = memref.load %[[IN]][%{{.+}}] : memref<?xf32>
// CHECK: math.exp %[[V]]
// CHECK: memref.store %{{.+}}, %[[OUT]][%{{.+}}] : memref<?xf32>
// CHECK: gpu.terminator
func.func @elementwise(%in: memref<4x?xf32, strided<[?, 2], offset: ?>>, %out: memref<4x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<4x?xf32, strided<[?, 2], offset: ?>>) outs(%out : memref<4x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A full reduction has no parallel dim: it runs in a one-thread launch.
// CHECK-LABEL: func.func @full_sum
// CHECK: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}}) threads
// CHECK: scf.for
// CHECK: memref.load
// CHECK: arith.addf
func.func @full_sum(%in: memref<64xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%in : memref<64xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A scalar the host would load (a pad value) is loaded inside the kernel.
// CHECK-LABEL: func.func @scalar_operand
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: memref.load %{{.+}}[%{{.+}}] : memref<?xf32>
// CHECK: memref.store
func.func @scalar_operand(%value: memref<f32>, %out: memref<8xf32>) {
  %v = memref.load %value[] : memref<f32>
  linalg.fill ins(%v : f32) outs(%out : memref<8xf32>)
  return
}

// -----

// The loads, arithmetic and store of a 0-d computation are one launch.
// CHECK-LABEL: func.func @zero_d
// CHECK: gpu.launch
// CHECK: memref.load
// CHECK: arith.mulf
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @zero_d(%a: memref<f32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                  iterator_types = []}
      ins(%a : memref<f32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// The host may not read what a kernel computed.
func.func @host_reads_device(%a: memref<f32>) -> f32 {
  // expected-error @+1 {{the host would read a value computed from device memory}}
  %v = memref.load %a[] : memref<f32>
  return %v : f32
}

// -----

// A host loop (an rlx.scan's steps): the scf.for stays host code and the
// parallel nest in its body becomes a launch per step. A buffer the host
// hands to a helper function (the deallocation pipeline's ownership flags)
// becomes one stack allocation at the entry, its loads stay on the host,
// and the helper itself is not mapped.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func @host_loop
// CHECK: %[[FLAGS:.+]] = memref.alloca() : memref<2xi1>
// CHECK: scf.for
// CHECK:   gpu.launch
// CHECK:   memref.store %{{.+}}, %[[FLAGS]][%{{.+}}] : memref<2xi1>
// CHECK:   call @helper
// CHECK:   memref.load %[[FLAGS]][%{{.+}}] : memref<2xi1>
// CHECK-NOT: memref.dealloc %[[FLAGS]]
func.func private @helper(%flags: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  memref.store %true, %flags[%c0] : memref<?xi1>
  return
}
func.func @host_loop(%buf: memref<64xf32>) -> i1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %false = arith.constant false
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %false) -> (i1) {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]} outs(%buf : memref<64xf32>) {
    ^bb0(%o: f32):
      %e = math.exp %o : f32
      linalg.yield %e : f32
    }
    %flags = memref.alloc() : memref<2xi1>
    memref.store %acc, %flags[%c0] : memref<2xi1>
    %cast = memref.cast %flags : memref<2xi1> to memref<?xi1>
    func.call @helper(%cast) : (memref<?xi1>) -> ()
    %f = memref.load %flags[%c0] : memref<2xi1>
    memref.dealloc %flags : memref<2xi1>
    scf.yield %f : i1
  }
  return %r : i1
}
