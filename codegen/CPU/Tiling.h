//===- Tiling.h - Tiling a linalg op on buffers by constant sizes -*- C++ -*-===//

#ifndef RLX_CODEGEN_CPU_TILING_H
#define RLX_CODEGEN_CPU_TILING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"

namespace mlir::rlx {

/// On a matmul: its register tiles are the pass's tall ones (tall-tile-m
/// rows, not tile-m), and on the zero fill of such a tile, for the schedule
/// to vectorize at that size.
inline constexpr llvm::StringLiteral kTallTileAttrName = "rlx.tall_tile";
inline constexpr llvm::StringLiteral kZeroTallTileAttrName =
    "rlx.zero_tall_tile";

/// Tiles `op` (on buffers) into scf.for loops by `sizes` (one per loop,
/// 0 = untiled) and erases it; the tile and loops are in the result. With
/// `interchange`, loop i walks op dim interchange[i] (outermost first).
inline mlir::FailureOr<mlir::scf::SCFTilingResult>
tileByConstants(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                llvm::ArrayRef<int64_t> sizes,
                llvm::ArrayRef<int64_t> interchange = {}) {
  llvm::SmallVector<mlir::OpFoldResult> tileSizes;
  for (int64_t size : sizes)
    tileSizes.push_back(rewriter.getIndexAttr(size));
  mlir::scf::SCFTilingOptions options;
  options.setTileSizes(tileSizes);
  if (!interchange.empty())
    options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  auto tiled = mlir::scf::tileUsingSCF(
      rewriter, llvm::cast<mlir::TilingInterface>(op.getOperation()), options);
  if (succeeded(tiled))
    rewriter.eraseOp(op);
  return tiled;
}

/// Marks for rlx-cpu-parallelize the outermost loop of a tiled op (one loop
/// per op dim, tiled by `sizes`; `ranges` are the op's static loop ranges)
/// that walks a leading parallel dim in more than one tile. A dim of one
/// tile (an NHWC tensor's batch of 1, the single row of a matmul at batch
/// 1) is skipped: marking its loop, the first one, left every batch-1
/// elementwise op, im2col copy and classifier on one thread. No mark when
/// a reduction comes first. Mark before peeling, so partial tiles' copies
/// of a loop keep it.
inline void
markOuterParallelLoop(mlir::RewriterBase &rewriter,
                      llvm::ArrayRef<mlir::LoopLikeOpInterface> loops,
                      llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                      llvm::ArrayRef<int64_t> ranges,
                      llvm::ArrayRef<int64_t> sizes) {
  for (auto [loop, iterator, range, size] :
       llvm::zip(loops, iterators, ranges, sizes)) {
    if (iterator != mlir::utils::IteratorType::parallel)
      return;
    if (!mlir::ShapedType::isDynamic(range) && range <= size)
      continue;
    loop->setAttr("rlx.parallel", rewriter.getUnitAttr());
    return;
  }
}

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_TILING_H
