//===- Passes.td - target-independent codegen --------------*- tablegen -*-===//
//
// Codegen passes every target runs: fusion, reshapes, deallocation and the workspace arena.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_COMMON_PASSES_TD
#define RLX_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXFuseElementwise : Pass<"rlx-fuse-elementwise"> {
  let summary = "Fuses elementwise linalg producers into their consumers";
  let description = [{
    First merges an elementwise producer whose results are also used after
    its elementwise consumer into that consumer as extra results (an
    optimizer's new moments and its weight update become one loop); then
    linalg's elementwise fusion of single-use producers, without the reshape
    propagation of `linalg-fuse-elementwise-ops`: propagating
    collapse/expand shapes through a named matmul turns it into a generic
    contraction that no longer gets the vectorized matmul schedule.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def RLXFillSplatConstants : Pass<"rlx-fill-splat-constants"> {
  let summary = "Turns large splat tensor constants into fills of empty tensors";
  let description = [{
    Runs just before bufferization. A splat `arith.constant` of a static
    tensor type of at least `min-bytes` bytes becomes `linalg.fill` of a
    `tensor.empty`: bufferized as is, the constant would be a global holding
    every element, so `dense<1.0> : tensor<8192x8192xf32>` made a 256 MiB
    artifact and 2^40 elements exhausted the compiler's memory. Splats that
    elementwise fusion did not fold into their consumers are the ones left
    here; smaller ones stay read-only globals, cheaper than a fill per call.

    ```mlir
    %c = arith.constant dense<1.0> : tensor<8192x8192xf32>
    // becomes
    %e = tensor.empty() : tensor<8192x8192xf32>
    %s = arith.constant 1.0 : f32
    %c = linalg.fill ins(%s : f32) outs(%e : tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"4096",
           "splats of at least this many bytes become fills">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def RLXLowerDynamicExpandShapes
    : Pass<"rlx-lower-dynamic-expand-shapes", "mlir::ModuleOp"> {
  let summary = "Rewrites expand_shapes with several dynamic dims per group as reinterpret_casts";
  let description = [{
    MLIR 22's expand-strided-metadata crashes on a `memref.expand_shape`
    whose reassociation group has more than one dynamic result dim (vmap
    with a dynamic batch over a dynamic per-example dim makes one). Over an
    identity-layout source the reshape is new sizes with row-major strides,
    written here as a `memref.reinterpret_cast`.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def RLXDeallocAtLastUse : Pass<"rlx-dealloc-at-last-use", "mlir::func::FuncOp"> {
  let summary = "Moves each memref.dealloc right after the buffer's last use";
  let description = [{
    The deallocation pipeline frees temporaries at the end of their block,
    so every temporary of a training step is live at once. This moves each
    `memref.dealloc` up to just after the last op of its block that uses the
    buffer or a view of it, so peak memory follows liveness (and remat pays
    off). Buffers used by ops with nested regions count as used by the whole
    op.
  }];
}

def RLXPlanWorkspace : Pass<"rlx-plan-workspace", "mlir::func::FuncOp"> {
  let summary = "Plans one arena for a function's static temporaries";
  let description = [{
    Every statically shaped `memref.alloc` in the function's top-level code
    with one top-level `memref.dealloc` (a temporary, not an output) gets an
    offset in one 64-byte aligned arena by liveness (best fit, largest
    first), recorded as `rlx.arena_offset` on the alloc. Records
    `rlx.workspace_arena` (the arena bytes) and `rlx.workspace_lower_bound`
    (most bytes live at once) on the function. Runs after
    rlx-dealloc-at-last-use; rlx-materialize-workspace applies the plan.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def RLXMaterializeWorkspace : Pass<"rlx-materialize-workspace", "mlir::func::FuncOp"> {
  let summary = "Allocates the planned arena and makes temporaries views of it";
  let description = [{
    For a function with `rlx.workspace_arena`: one 64-byte aligned i8 arena
    allocated at entry and freed before each return; every alloc with
    `rlx.arena_offset` becomes a `memref.view` of the arena at that offset
    and its deallocs go. Runs after the CPU kernels are built: the matmul
    schedule hoists its accumulator only out of loops over plain buffers.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

#endif // RLX_CODEGEN_COMMON_PASSES_TD
