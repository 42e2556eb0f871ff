//===- ZeroInitAccumulators.h - Products that start from zero ---*- C++ -*-===//
///
/// \file
/// Most products the matmul pass sees accumulate into a buffer that a
/// linalg.fill of zeros wrote just before (a dense layer or a conv: the
/// product into a zero fill). Filling C and then reading it into the
/// register tile is a memset over the whole output and a load of every
/// tile, paid before the first multiply-add (12% of a 1x1 conv 64 -> 256 at
/// 56x56, batch 8, on one Zen 3 core). Here the fill moves down to each
/// register tile, where the matmul pass's own schedule turns it into a
/// vector store of zeros right before the tile's hoisted read of C; that
/// pair then becomes zero accumulators in registers. Every step keeps the
/// IR's meaning: where a step does not apply, the tile's store of zeros
/// stays.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_ZEROINITACCUMULATORS_H
#define RLX_CODEGEN_CPU_ZEROINITACCUMULATORS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::rlx {

/// On a matmul: its C holds zeros when it starts (the fill that wrote them
/// is gone). Every rewrite of the matmul pass that replaces such a matmul
/// by smaller ones passes the attribute on, and the register tiling turns
/// it into a store of zeros per tile (zeroFillTile).
inline constexpr llvm::StringLiteral kZeroInitAttrName = "rlx.zero_init";

/// On a loop over K blocks around matmuls marked kZeroInitAttrName: they
/// start from zero in the loop's first iteration only (the later blocks
/// add to the first's sums).
inline constexpr llvm::StringLiteral kKBlocksAttrName = "rlx.k_blocks";

/// On the zero fill of one register tile (2-D C) or one batch's register
/// tile (3-D C), for the schedule to vectorize at the tile's size.
inline constexpr llvm::StringLiteral kZeroTileAttrName = "rlx.zero_tile";
inline constexpr llvm::StringLiteral kZeroBatchTileAttrName =
    "rlx.zero_batch_tile";

/// Erases each zero fill (+0.0) of an f32 buffer whose next op that
/// touches memory is an f32 matmul (linalg's, batched, or a product by a
/// prepacked f32 weight) accumulating into that same buffer value, and
/// marks the matmul kZeroInitAttrName.
void markZeroInitMatmuls(mlir::ModuleOp module);

/// For a matmul marked kZeroInitAttrName, of output `c`, just tiled into
/// `loops` (one per dim, the reduction last) with `tile` inside: fills the
/// tile's C with zeros before the reduction loop, in the first iteration of
/// an enclosing kKBlocksAttrName loop if there is one (or all of `c` before
/// the loops, if the tile's view cannot be made before the reduction).
void zeroFillTile(mlir::RewriterBase &rewriter, mlir::Operation *tile,
                  llvm::ArrayRef<mlir::LoopLikeOpInterface> loops,
                  mlir::Value c);

/// After the schedule: a vectorized tile fill, directly followed by the
/// hoisted read of the same tile into a reduction loop whose result is
/// written back to it, becomes zero accumulators (the read replaced by
/// zeros, or by zeros in the first K block and the read after) and the
/// store goes.
void forwardZeroTiles(mlir::ModuleOp module);

/// `linalg.fill` of +0.0 into the f32 buffer `c`: the fill a mark stands
/// for, where a path cannot honour the mark.
mlir::Operation *fillWithZeros(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value c);

/// Puts back the fill of any matmul still marked kZeroInitAttrName (none
/// should be: every path of the matmul pass tiles it), so that a path that
/// does not know the mark still computes the right product; and drops the
/// kKBlocksAttrName marks, whose use ends with the tiling.
void restoreZeroFills(mlir::ModuleOp module);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_ZEROINITACCUMULATORS_H
