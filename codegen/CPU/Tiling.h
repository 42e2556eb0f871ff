//===- Tiling.h - Tiling a linalg op on buffers by constant sizes -*- C++ -*-===//

#ifndef RLX_CODEGEN_CPU_TILING_H
#define RLX_CODEGEN_CPU_TILING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"

namespace mlir::rlx {

/// Tiles `op` (on buffers) into scf.for loops by `sizes` (one per loop,
/// 0 = untiled) and erases it; the tile and loops are in the result.
inline mlir::FailureOr<mlir::scf::SCFTilingResult>
tileByConstants(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                llvm::ArrayRef<int64_t> sizes) {
  llvm::SmallVector<mlir::OpFoldResult> tileSizes;
  for (int64_t size : sizes)
    tileSizes.push_back(rewriter.getIndexAttr(size));
  mlir::scf::SCFTilingOptions options;
  options.setTileSizes(tileSizes);
  rewriter.setInsertionPoint(op);
  auto tiled = mlir::scf::tileUsingSCF(
      rewriter, llvm::cast<mlir::TilingInterface>(op.getOperation()), options);
  if (succeeded(tiled))
    rewriter.eraseOp(op);
  return tiled;
}

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_TILING_H
