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

// A scalar the host itself uses (here returns) is downloaded: a stack
// buffer at the entry, the hook copying the element at the view's offset
// (bytes = element size), then a host load. No kernel is left.
// CHECK-LABEL: func.func @host_reads_device
// CHECK: %[[STAGE:.+]] = memref.alloca() : memref<f32>
// CHECK-NOT: gpu.launch
// CHECK: %[[BASE:.+]], %[[OFFSET:.+]], %{{.+}}:2, %[[STRIDES:.+]]:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[ROW:.+]] = arith.muli %arg1, %[[STRIDES]]#0
// CHECK: %[[LIN:.+]] = arith.addi %[[OFFSET]], %[[ROW]]
// CHECK: %[[COL:.+]] = arith.muli %arg2, %[[STRIDES]]#1
// CHECK: %[[LIN2:.+]] = arith.addi %[[LIN]], %[[COL]]
// CHECK: %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[BYTE:.+]] = arith.muli %[[LIN2]], %c4
// CHECK: %[[ADDR:.+]] = arith.addi %[[PTR]], %[[BYTE]]
// CHECK: %[[DEV:.+]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK: %[[HOSTPTR:.+]] = memref.extract_aligned_pointer_as_index %[[STAGE]]
// CHECK: %[[HOST:.+]] = arith.index_cast %[[HOSTPTR]] : index to i64
// CHECK: call @rlx_device_download(%[[HOST]], %[[DEV]], %c4_i64) : (i64, i64, i64) -> ()
// CHECK: %[[V:.+]] = memref.load %[[STAGE]][] : memref<f32>
// CHECK: return %[[V]]
// CHECK: func.func private @rlx_device_download(i64, i64, i64)
func.func @host_reads_device(%a: memref<4x?xf32, strided<[?, 1], offset: ?>>, %i: index, %j: index) -> f32 {
  %v = memref.load %a[%i, %j] : memref<4x?xf32, strided<[?, 1], offset: ?>>
  return %v : f32
}

// -----

// A kernel computes what the host reads (a while loop's condition): the
// download follows the launch; the kernel keeps the loads and arithmetic
// it uses itself, the host redoes the arithmetic on the downloaded value.
// CHECK-LABEL: func.func @shared_read
// CHECK: %[[STAGE:.+]] = memref.alloca() : memref<f32>
// CHECK: gpu.launch
// CHECK:   memref.load %{{.+}}[%{{.+}}] : memref<?xf32>
// CHECK:   %[[M:.+]] = arith.mulf
// CHECK:   memref.store %[[M]]
// CHECK:   gpu.terminator
// CHECK: call @rlx_device_download
// CHECK: %[[V:.+]] = memref.load %[[STAGE]][] : memref<f32>
// CHECK: %[[HM:.+]] = arith.mulf %[[V]], %[[V]]
// CHECK: return %[[HM]]
func.func @shared_read(%a: memref<f32>, %out: memref<f32>) -> f32 {
  %v = memref.load %a[] : memref<f32>
  %m = arith.mulf %v, %v : f32
  memref.store %m, %out[] : memref<f32>
  return %m : f32
}

// -----

// An rlx.while: the scf.while stays on the host. Its condition is computed
// by a kernel, downloaded (an i1 is one byte) and branched on; the body's
// nest is a launch per step.
// CHECK-LABEL: func.func @host_while
// CHECK: %[[STAGE:.+]] = memref.alloca() : memref<i1>
// CHECK: scf.while
// CHECK:   gpu.launch
// CHECK:     arith.cmpf
// CHECK:     gpu.terminator
// CHECK:   call @rlx_device_download(%{{.+}}, %{{.+}}, %c1_i64)
// CHECK:   %[[C:.+]] = memref.load %[[STAGE]][] : memref<i1>
// CHECK:   memref.dealloc
// CHECK:   scf.condition(%[[C]])
// CHECK: } do {
// CHECK:   gpu.launch
// CHECK:     math.exp
// CHECK:   scf.yield
func.func @host_while(%x: memref<64xf32>, %limit: memref<f32>) {
  scf.while : () -> () {
    %c = memref.alloc() : memref<i1>
    linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                    iterator_types = []}
        ins(%limit : memref<f32>) outs(%c : memref<i1>) {
    ^bb0(%l: f32, %o: i1):
      %k = arith.constant 20.0 : f32
      %lt = arith.cmpf olt, %l, %k : f32
      linalg.yield %lt : i1
    }
    %v = memref.load %c[] : memref<i1>
    memref.dealloc %c : memref<i1>
    scf.condition(%v)
  } do {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]} outs(%x : memref<64xf32>) {
    ^bb0(%o: f32):
      %e = math.exp %o : f32
      linalg.yield %e : f32
    }
    scf.yield
  }
  return
}

// -----

// An rlx.switch: the index is downloaded and clamped on the host (no
// kernel for it); the taken case launches its nest.
// CHECK-LABEL: func.func @host_switch
// CHECK-NOT: gpu.launch
// CHECK: call @rlx_device_download(%{{.+}}, %{{.+}}, %c4_i64)
// CHECK: %[[I:.+]] = memref.load %{{.+}}[] : memref<i32>
// CHECK: %[[N:.+]] = arith.index_cast %[[I]] : i32 to index
// CHECK: %[[LO:.+]] = arith.maxsi %[[N]]
// CHECK: %[[K:.+]] = arith.minsi %[[LO]]
// CHECK: scf.index_switch %[[K]]
// CHECK: case 0 {
// CHECK:   gpu.launch
// CHECK:     math.exp
// CHECK: default {
func.func @host_switch(%i: memref<i32>, %x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %i[] : memref<i32>
  %n = arith.index_cast %v : i32 to index
  %lo = arith.maxsi %n, %c0 : index
  %k = arith.minsi %lo, %c1 : index
  scf.index_switch %k
  case 0 {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]} outs(%x : memref<64xf32>) {
    ^bb0(%o: f32):
      %e = math.exp %o : f32
      linalg.yield %e : f32
    }
    scf.yield
  }
  default {
    scf.yield
  }
  return
}

// -----

// The host reads the value a load saw, after the launch: a kernel that
// overwrites the buffer later would change it.
func.func @read_then_overwritten(%a: memref<f32>) -> f32 {
  // expected-error @+1 {{the host would read a device value that the same kernel overwrites later}}
  %v = memref.load %a[] : memref<f32>
  %m = arith.mulf %v, %v : f32
  memref.store %m, %a[] : memref<f32>
  return %v : f32
}

// -----

// Only loads and arithmetic without side effects are redone on the host.
func.func private @host_fn(f32) -> f32
func.func @host_calls_on_device_value(%a: memref<f32>) -> f32 {
  %v = memref.load %a[] : memref<f32>
  // expected-error @+1 {{the host would read a value computed from device memory}}
  %r = func.call @host_fn(%v) : (f32) -> f32
  return %r : f32
}

// -----

// A download copies integers and floats, whose size it knows.
func.func @host_reads_index(%a: memref<index>) -> index {
  // expected-error @+1 {{the host would read a device value of type 'index'}}
  %v = memref.load %a[] : memref<index>
  return %v : index
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
