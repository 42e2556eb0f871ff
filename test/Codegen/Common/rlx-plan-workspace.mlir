// RUN: rlx-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(rlx-plan-workspace))' | FileCheck %s --check-prefix=PLAN
// RUN: rlx-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(rlx-plan-workspace,rlx-materialize-workspace))' | FileCheck %s

// The plan: offsets on the allocs (largest first, lowest offset that fits),
// the arena and the lower bound on the function.
// PLAN-LABEL: func @reuse
// PLAN-SAME: rlx.workspace_arena = 8192 : i64
// PLAN-SAME: rlx.workspace_lower_bound = 8192 : i64
// PLAN: memref.alloc() {rlx.arena_offset = 0 : i64}
// PLAN: memref.alloc() {rlx.arena_offset = 4096 : i64}
// PLAN: memref.alloc() {rlx.arena_offset = 0 : i64}
// PLAN: memref.alloc() : memref<1024xf32>
// PLAN-LABEL: func @dynamic
// PLAN-NOT: rlx.arena_offset

// Three temporaries: %a and %b live together, %c only after %a is freed, so
// %c reuses %a's bytes. One arena of 2 x 4096 bytes replaces the three
// allocations; the returned buffer keeps its own.
// Materialized:
// CHECK-LABEL: func @reuse
// CHECK-NOT: rlx.workspace_arena
// CHECK: %[[ARENA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
// CHECK: memref.view %[[ARENA]][%{{.+}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: memref.view %[[ARENA]][%{{.+}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: memref.view %[[ARENA]][%{{.+}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<1024xf32>
// CHECK-NOT: memref.dealloc %[[OUT]]
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return %[[OUT]]
func.func @reuse(%x: memref<1024xf32>) -> memref<1024xf32> {
  %a = memref.alloc() : memref<1024xf32>
  memref.copy %x, %a : memref<1024xf32> to memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  memref.copy %a, %b : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  %c = memref.alloc() : memref<1024xf32>
  memref.copy %b, %c : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  %out = memref.alloc() : memref<1024xf32>
  memref.copy %c, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %c : memref<1024xf32>
  return %out : memref<1024xf32>
}

// -----

// Dynamically shaped buffers keep their own allocation; no arena is made
// when nothing is left to plan.
// CHECK-LABEL: func @dynamic
// CHECK-NOT: rlx.workspace_arena
// CHECK: memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK: memref.dealloc
func.func @dynamic(%x: memref<?xf32>, %n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A buffer handed to a host function (ownership flags around loops) stays
// out of the arena, which is device memory on GPU targets.
// PLAN-LABEL: func @host_helper_buffer
// PLAN: memref.alloc() : memref<2xi1>
// PLAN-NOT: rlx.arena_offset
func.func private @helper(%flags: memref<?xi1>)
func.func @host_helper_buffer() {
  %flags = memref.alloc() : memref<2xi1>
  %cast = memref.cast %flags : memref<2xi1> to memref<?xi1>
  func.call @helper(%cast) : (memref<?xi1>) -> ()
  memref.dealloc %flags : memref<2xi1>
  return
}
