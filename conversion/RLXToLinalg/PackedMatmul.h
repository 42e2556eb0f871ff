//===- PackedMatmul.h - Matmuls reading prepacked weights -------*- C++ -*-===//
///
/// \file
/// What the matmul and conv lowerings need of DotOperandsToLinalg.cpp: a B
/// operand read through rlx.unpack_dot_operand (or dequantized from codes
/// and scales read through two) is multiplied in its packed layout, never
/// unpacked.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_RLXTOLINALG_PACKEDMATMUL_H
#define RLX_CONVERSION_RLXTOLINALG_PACKEDMATMUL_H

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::rlx {

/// The unpack that a matmul's `[K, N]` operand `rhs` reads, directly or
/// through the collapse of a conv filter's leading dims; null if none.
UnpackDotOperandOp packedSource(Value rhs);

/// `acc` plus `lhs` ([M, K]) times the weight `unpack` unpacks, read in its
/// packed layout: a linalg.generic marked `rlx.packed_rhs`.
Value buildPackedMatmul(OpBuilder &b, Location loc, Value lhs,
                        UnpackDotOperandOp unpack, Value acc);

/// The block-scaled weight `rhs` is, when it is f32 and its codes ([K, N],
/// along K) and scales are both read through unpacks of the f32 panels
/// (rlx-pack-dot-operands); null if not.
BlockDequantizeOp packedBlockScaledSource(Value rhs);

/// `acc` plus `lhs` ([M, K], f32) times the weight `dequantize` computes,
/// its codes and scales read in their packed layout: a linalg.generic
/// marked `rlx.packed_rhs` and `rlx.scale_block_size`.
Value buildPackedBlockScaledMatmul(OpBuilder &b, Location loc, Value lhs,
                                   BlockDequantizeOp dequantize, Value acc);

/// The unpacked tensor, for an unpack read by anything else.
Value buildUnpack(OpBuilder &b, Location loc, UnpackDotOperandOp op);

} // namespace mlir::rlx

#endif // RLX_CONVERSION_RLXTOLINALG_PACKEDMATMUL_H
