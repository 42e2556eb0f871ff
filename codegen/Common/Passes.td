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
