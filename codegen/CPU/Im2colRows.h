//===- Im2colRows.h - An im2col copy rebuilt per row tile ---------*- C++
//-*-===//
///
/// \file
/// A KxK convolution reaches the matmul kernel as the product of its
/// windows copied into rows `[N*OH*OW, KH*KW*C]` (im2col, see
/// docs/architecture.md "Lowering choices") by the filter. Copied whole,
/// those rows are KH*KW times the input (7 MiB for a 3x3 conv over 56x56x64,
/// beyond L2): one pass writes them, the matmul reads them back from memory.
/// Rebuilt per tile of rows instead, right before the tile's product, the
/// rows of a tile are still in L1 when the kernel reads them and the whole
/// copy never exists: implicit GEMM on the row tiles the epilogue fusion
/// already walks.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_IM2COLROWS_H
#define RLX_CODEGEN_CPU_IM2COLROWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::rlx {

/// The im2col copy behind a matmul's A: rows[(n, oh, ow), (kh, j)] =
/// source[n, oh * rowStep + kh * windowRowStep, ow * columnStep + j], j in
/// [0, run) (a window row's KW*C values, consecutive in the source, which
/// is the padded input viewed as [N, H, W*C]).
struct Im2colRows {
  /// The copy generic, and the empty tensor it writes (its first three
  /// sizes are the output pixels' N, OH and OW).
  linalg::GenericOp copy;
  tensor::EmptyOp pixels;
  Value source;
  int64_t rowStep, windowRowStep, columnStep;
  /// KH and KW*C.
  int64_t windowRows, run;
};

/// The im2col copy that `lhs` is, if it is one of the form above read only
/// by this matmul.
std::optional<Im2colRows> matchIm2colRows(Value lhs);

/// The output pixels' N, OH and OW: rows.pixels' first three sizes.
SmallVector<OpFoldResult> im2colPixelSizes(const Im2colRows &rows);

/// Rows [row, row + tileRows) of `rows`' matrix, copied from its source
/// window row by window row into a new [tileRows, KH*KW*C] tensor.
Value buildIm2colTile(OpBuilder &b, Location loc, const Im2colRows &rows,
                      OpFoldResult row, OpFoldResult tileRows);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_IM2COLROWS_H
