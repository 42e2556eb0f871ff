//===- LinearizeCollapses.h - Products' inputs as linear views --*- C++ -*-===//
///
/// \file
/// Folding memref aliases turns a read through a memref.collapse_shape into
/// a read of its source at delinearized indices: a floor division and a
/// remainder per collapsed dim, for every row of every register tile (a 1x1
/// conv's [N*H*W, C] rows, a dense layer's [B*S, H], an im2col's rows),
/// which LLVM cannot fold back into the linear row (~300 instructions per
/// 6x16 tile of a 1x1 f32 conv, against 768 cycles of FMAs at K = 128; the
/// divisions by 3136 and 56 of a 56x56 bf16 conv's rows on every 8-row
/// tile). A memref.reinterpret_cast is not folded, and the row's address
/// stays one multiply.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_LINEARIZECOLLAPSES_H
#define RLX_CODEGEN_CPU_LINEARIZECOLLAPSES_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::rlx {

/// Replaces each memref.collapse_shape that a product (an op `isProduct`
/// accepts, with buffer semantics) reads an input through, where the
/// collapsed buffer is contiguous (identity layout), by the same view as a
/// memref.reinterpret_cast. Collapses a product's output is written
/// through are left alone: the f32 kernel's hoisting of the C tile handles
/// those views.
void linearizeCollapsedInputs(ModuleOp module,
                              llvm::function_ref<bool(Operation *)> isProduct);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_LINEARIZECOLLAPSES_H
