//===- AutodiffBuilders.h - Building rlx ops in derivative rules -*- C++ -*-===//
///
/// \file
/// Small builders over the ops' inferring builders (result types come from
/// each op's shape function, ShapeInference.h), so that VJP and JVP rules
/// read like the math they implement: `mul(b, g, sub(b, one, mul(b, r, r)))`.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_AUTODIFFBUILDERS_H
#define RLX_DIALECTS_RLX_IR_AUTODIFFBUILDERS_H

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::rlx::ad {

/// A builder at a location; every helper below uses both.
struct RuleBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
};

mlir::RankedTensorType tensorType(mlir::Value v);

/// A rank-0 constant of `element` type.
mlir::Value scalar(RuleBuilder b, mlir::Type element, double value);
/// A rank-0 constant with `like`'s element type.
mlir::Value scalarLike(RuleBuilder b, mlir::Value like, double value);
/// Zeros of `type` (dynamic dims taken from `like`, which has that type).
mlir::Value zerosLike(RuleBuilder b, mlir::Value like);

mlir::Value add(RuleBuilder b, mlir::Value x, mlir::Value y);
mlir::Value sub(RuleBuilder b, mlir::Value x, mlir::Value y);
mlir::Value mul(RuleBuilder b, mlir::Value x, mlir::Value y);
mlir::Value div(RuleBuilder b, mlir::Value x, mlir::Value y);
mlir::Value neg(RuleBuilder b, mlir::Value x);
/// cond ? x : y, broadcasting; cond is i1.
mlir::Value select(RuleBuilder b, mlir::Value cond, mlir::Value x, mlir::Value y);
mlir::Value compare(RuleBuilder b, llvm::StringRef direction, mlir::Value x,
                    mlir::Value y);
/// Elementwise cast to `element`.
mlir::Value castTo(RuleBuilder b, mlir::Value x, mlir::Type element);
/// f32 `x` rounded to nearest, ties to even, for |x| <= 2^22 (callers clamp
/// first): adding 1.5 * 2^23 leaves an f32 with no fraction bits, so the
/// addition itself rounds and the subtraction is exact; nothing in this
/// compiler reassociates float arithmetic. (rlx has no round op.)
mlir::Value roundHalfToEven(RuleBuilder b, mlir::Value x);

/// Sums `g` (broadcast from a value of `target` type) back to `target`:
/// over leading dims and over dims where the target has a stretched 1.
mlir::Value sumToType(RuleBuilder b, mlir::Value g, mlir::RankedTensorType target);
/// Sum over `axes` with keepdims.
mlir::Value sum(RuleBuilder b, mlir::Value x, llvm::ArrayRef<int64_t> axes,
                bool keepdims);
mlir::Value transpose(RuleBuilder b, mlir::Value x, llvm::ArrayRef<int64_t> perm);
/// Swaps the two trailing dims.
mlir::Value transposeLast2(RuleBuilder b, mlir::Value x);
mlir::Value matmul(RuleBuilder b, mlir::Value x, mlir::Value y);
/// A reshape to `type`, or tensor.cast when only static-ness differs.
mlir::Value reshapeTo(RuleBuilder b, mlir::Value x, mlir::RankedTensorType type);
/// Broadcasts `x` to the shape of `like` (NumPy rules), via x + 0.
mlir::Value broadcastLike(RuleBuilder b, mlir::Value x, mlir::Value like);

/// Inserts unit dims after the batch dim (dim 0) of batched `v` so that it
/// has `target` dims besides the batch dim.
mlir::Value alignBatched(RuleBuilder b, mlir::Value v, int64_t target);
/// Broadcasts unbatched `v` along a new leading batch dim, sized like dim 0
/// of `batchedLike` (static or dynamic).
mlir::Value broadcastToBatch(RuleBuilder b, mlir::Value v,
                             mlir::Value batchedLike);

} // namespace mlir::rlx::ad

#endif // RLX_DIALECTS_RLX_IR_AUTODIFFBUILDERS_H
