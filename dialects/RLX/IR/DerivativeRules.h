//===- DerivativeRules.h - Derivatives shared by VJP and JVP ----*- C++ -*-===//
///
/// \file
/// Local derivatives that the reverse and forward rules both multiply by:
/// f'(x) of unary elementwise ops, the partials of pow, the share of a
/// max/min winner. Written once so the two modes cannot disagree.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_DERIVATIVERULES_H
#define RLX_DIALECTS_RLX_IR_DERIVATIVERULES_H

#include "dialects/RLX/IR/AutodiffBuilders.h"

namespace mlir::rlx::ad {

/// f'(x) for a unary elementwise op (abs, exp, log, sqrt, rsqrt, tanh, erf,
/// sigmoid, relu, gelu), with the op's type.
mlir::Value unaryDerivative(RuleBuilder b, mlir::Operation *op);

/// (d/da, d/db) of a^b, each of the result's shape; d/db is 0 where a <= 0.
std::pair<mlir::Value, mlir::Value> powPartials(RuleBuilder b, PowOp op);

/// The share of the lhs in a maximum/minimum: 1 where it wins, 0.5 on a tie,
/// 0 where it loses (the rhs gets 1 - share).
mlir::Value chooserShare(RuleBuilder b, mlir::Operation *op);

/// For rlx.max: the share of each element of x in its reduced maximum
/// (1/count at the maxima, 0 elsewhere), of x's shape.
mlir::Value maxShare(RuleBuilder b, MaxOp op);

/// The adjoint of x for a gather, summing g into the gathered positions
/// (a one-hot contraction). Fails when the shapes cannot be flattened.
mlir::FailureOr<mlir::Value> scatterAddByOneHot(RuleBuilder b, GatherOp op,
                                                mlir::Value g);

} // namespace mlir::rlx::ad

#endif // RLX_DIALECTS_RLX_IR_DERIVATIVERULES_H
