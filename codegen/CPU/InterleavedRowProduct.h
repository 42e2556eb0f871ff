//===- InterleavedRowProduct.h - A row or two of A by a panel ---*- C++ -*-===//
///
/// \file
/// The rows of A after the last whole register tile (a 7x7 conv's 49th
/// pixel, BERT's 127th and 128th tokens) are multiplied by the panel block
/// that the tiles read. As a register tile of their own they carry one
/// accumulator chain per 8 columns and row, two for one row of a 16-column
/// panel: each multiply-add waits for the last (4 cycles on Zen 3), so the
/// 49th row of ResNet-50's 7x7 convs took about 5% of their time for 2% of
/// their work. Here such rows run with the k loop split over interleaved
/// partial sums, enough to keep both FMA units busy, added together at the
/// end.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_INTERLEAVEDROWPRODUCT_H
#define RLX_CODEGEN_CPU_INTERLEAVEDROWPRODUCT_H

#include "mlir/IR/Builders.h"

namespace mlir::rlx {

/// Builds `c += a x b` for a static f32 `a` of one or two rows (K-major when
/// `aTransposed`), `b` a [K, N] f32 block with unit-stride rows and `c`
/// [rows, N], as vector code with interleaved partial sums; `c` is read as
/// zeros where `fromZero` (an i1, or null for never) holds. Returns false,
/// building nothing, when the operands do not fit those conditions or K is
/// not a multiple of the interleaving.
bool buildInterleavedRowProduct(OpBuilder &b, Location loc, Value a,
                                bool aTransposed, Value bBlock, Value c,
                                Value fromZero);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_INTERLEAVEDROWPRODUCT_H
