//===- LinalgBuilders.h - Helpers building linalg on tensors ----*- C++ -*-===//
///
/// \file
/// Small builders shared by the rlx → linalg patterns: empty and filled
/// tensors with dynamic sizes, broadcasting generics, reductions.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_RLXTOLINALG_LINALGBUILDERS_H
#define RLX_CONVERSION_RLXTOLINALG_LINALGBUILDERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::rlx {

/// Builds a scalar from the block arguments of a generic's body.
using ScalarBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// The size of dim `d` of `v` as an index value (a constant when static).
mlir::Value dimValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     int64_t d);

/// A `tensor.empty` of `type`, whose dynamic sizes are taken from
/// `dynamicSizes` (one per dynamic dim, in order).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type,
                        mlir::ValueRange dynamicSizes);

/// A tensor of `type` filled with `value` (an arith constant attribute).
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type,
                         mlir::ValueRange dynamicSizes,
                         mlir::TypedAttr value);

/// The dynamic sizes of `resultType` found on operands broadcast into it
/// (aligned from the right), for an elementwise op.
llvm::SmallVector<mlir::Value>
broadcastDynamicSizes(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::RankedTensorType resultType,
                      mlir::ValueRange operands);

/// An elementwise `linalg.generic` over `resultType` whose operands
/// broadcast NumPy-style into it.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType,
                             mlir::ValueRange operands, ScalarBodyFn body);

/// Reduces `input` over `axes` (sorted, distinct) with `combine`, starting
/// from `init`; the result drops the reduced dims.
mlir::Value buildReduction(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value input, llvm::ArrayRef<int64_t> axes,
                           mlir::TypedAttr init, ScalarBodyFn combine);

/// Applies `body(x, r)` over `x`'s shape, where `r` is a reduction of `x`
/// over `axes` (dims dropped) broadcast back along them.
mlir::Value buildWithReduced(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value x, mlir::Value reduced,
                             llvm::ArrayRef<int64_t> axes,
                             mlir::Type resultElement, ScalarBodyFn body);

/// Reshapes row-major `x` to `resultType` by collapsing and expanding
/// (views after bufferization, never copies): through 1-D when the result
/// has at most one dynamic dim (sized from the element count), group by group
/// when it has several (each sized by its paired operand dim, see
/// groupReshape).
mlir::Value buildReshape(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value x, mlir::RankedTensorType resultType);

/// Stops the call at run time with `what` (prefixed by the op's file:line:col)
/// unless `ok` holds; rlx-runtime-checks turns it into a status.
void checkAtRunTime(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ok,
                    const llvm::Twine &what);

/// Scalar `x` converted to `to` as rlx.cast converts it (narrow floats
/// decoded and rounded exactly); `saturate` clamps what overflows a narrow
/// float.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          mlir::Type to, bool saturate);

/// The identity for max over `element`: -inf, or the lowest integer.
mlir::TypedAttr lowestValue(mlir::Type element);

/// A scalar arith constant of `element` type holding `value`.
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type element, double value);

} // namespace mlir::rlx

#endif // RLX_CONVERSION_RLXTOLINALG_LINALGBUILDERS_H
