//===- BlockDequantize.h - One element of rlx.block_dequantize --*- C++ -*-===//
///
/// \file
/// The scalar product rlx.block_dequantize computes per element, shared by
/// its own lowering and by the matmul that reads a block-scaled weight
/// packed (DotOperandsToLinalg.cpp), so the two cannot round differently.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_RLXTOLINALG_BLOCKDEQUANTIZE_H
#define RLX_CONVERSION_RLXTOLINALG_BLOCKDEQUANTIZE_H

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::rlx {

/// `x` (a scalar of op's x) times `scale` (of its scales): computed in f32,
/// in f64 when any of the op's types is f64, and rounded once to the
/// result's element type.
/// `throughF16` decodes narrow float codes through f16 (see
/// narrowFloatToF32): the same values, for CPU kernels.
Value blockDequantizedElement(OpBuilder &b, Location loc, BlockDequantizeOp op,
                              Value x, Value scale, bool throughF16 = false);

} // namespace mlir::rlx

#endif // RLX_CONVERSION_RLXTOLINALG_BLOCKDEQUANTIZE_H
