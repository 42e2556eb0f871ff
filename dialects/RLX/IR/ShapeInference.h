//===- ShapeInference.h - Result shapes of rlx ops -------------*- C++ -*-===//
///
/// \file
/// One shape function per rlx op whose result follows from its operands and
/// attributes. Each checks the operands and attributes and returns the result
/// shape; it is the op's whole shape rule. The op's `inferReturnTypes` calls
/// it (so builders need no result type), its verifier calls it and compares
/// the declared result, and the TOSA import calls it to check a conversion
/// before it builds anything.
///
/// A function reports why it fails through `emitError`: the verifier passes
/// the op's `emitOpError`, inference an error at its optional location (an
/// inactive diagnostic, which prints nothing, when it has none).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_SHAPEINFERENCE_H
#define RLX_DIALECTS_RLX_IR_SHAPEINFERENCE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::rlx {

/// Starts the diagnostic a shape function reports a failure with.
using EmitErrorFn = llvm::function_ref<mlir::InFlightDiagnostic()>;

/// A shape, or failure after `emitError` said why there is none.
using ShapeOrFailure = mlir::FailureOr<llvm::SmallVector<int64_t>>;

/// Checks that `axis` lies in [0, rank); `what` names it in the message.
llvm::LogicalResult checkAxis(int64_t axis, int64_t rank, EmitErrorFn emitError,
                              llvm::StringRef what = "axis");

/// Elementwise ops (binary ops, compare, select): the NumPy broadcast of the
/// shapes of `operands`, ranked tensors, in order (see broadcastShapes).
ShapeOrFailure inferBroadcastShape(mlir::TypeRange operands,
                                   EmitErrorFn emitError);

/// matmul: `[..., M, K] x [..., K, N]` gives `[broadcast(batch), M, N]`.
ShapeOrFailure inferMatmulShape(llvm::ArrayRef<int64_t> lhs,
                                llvm::ArrayRef<int64_t> rhs,
                                EmitErrorFn emitError);

/// conv2d: NHWC `input`, static HWIO `filter`.
ShapeOrFailure inferConv2DShape(llvm::ArrayRef<int64_t> input,
                                llvm::ArrayRef<int64_t> filter,
                                llvm::ArrayRef<int64_t> strides,
                                llvm::ArrayRef<int64_t> padding,
                                llvm::ArrayRef<int64_t> dilations,
                                int64_t groups, EmitErrorFn emitError);

/// max_pool2d and avg_pool2d over NHWC `input`.
ShapeOrFailure inferPool2DShape(llvm::ArrayRef<int64_t> input,
                                llvm::ArrayRef<int64_t> window,
                                llvm::ArrayRef<int64_t> strides,
                                llvm::ArrayRef<int64_t> padding,
                                EmitErrorFn emitError);

/// sum, mean, max: `input` without the distinct `axes`, or with them as 1.
ShapeOrFailure inferReductionShape(llvm::ArrayRef<int64_t> input,
                                   llvm::ArrayRef<int64_t> axes, bool keepdims,
                                   EmitErrorFn emitError);

/// transpose: result dim i is `input` dim `permutation[i]`.
ShapeOrFailure inferTransposeShape(llvm::ArrayRef<int64_t> input,
                                   llvm::ArrayRef<int64_t> permutation,
                                   EmitErrorFn emitError);

/// slice: per dim `start:limit:stride`; dynamic dims stay dynamic.
ShapeOrFailure inferSliceShape(llvm::ArrayRef<int64_t> input,
                               llvm::ArrayRef<int64_t> start,
                               llvm::ArrayRef<int64_t> limit,
                               llvm::ArrayRef<int64_t> strides,
                               EmitErrorFn emitError);

/// pad: `low + size + (size - 1) * interior + high` per dim, with a rank-0
/// `paddingValue`.
ShapeOrFailure inferPadShape(llvm::ArrayRef<int64_t> input,
                             llvm::ArrayRef<int64_t> paddingValue,
                             llvm::ArrayRef<int64_t> low,
                             llvm::ArrayRef<int64_t> high,
                             llvm::ArrayRef<int64_t> interior,
                             EmitErrorFn emitError);

/// concat: `inputs`, ranked tensors, agree on every dim but `axis`, whose
/// sizes add up (dynamic when any is).
ShapeOrFailure inferConcatShape(mlir::TypeRange inputs, int64_t axis,
                                EmitErrorFn emitError);

/// gather: `input.shape[:axis] ++ indices.shape ++ input.shape[axis+1:]`.
ShapeOrFailure inferGatherShape(llvm::ArrayRef<int64_t> input,
                                llvm::ArrayRef<int64_t> indices, int64_t axis,
                                EmitErrorFn emitError);

/// A PRNG key of the random ops: `tensor<...x2xi32>`, ranked; gives its
/// batch dims (every dim but the last).
ShapeOrFailure inferKeyBatchShape(mlir::Type key, EmitErrorFn emitError);

/// A stochastic rounding's key (rlx.fake_quant's, rlx.cast's) against its
/// operand of type `x`: a key whose batch dims are x's leading dims.
mlir::LogicalResult verifyRoundingKey(mlir::Type key, mlir::RankedTensorType x,
                                      EmitErrorFn emitError);

/// random_split: the key's batch dims, then `[num, 2]`.
ShapeOrFailure inferRandomSplitShape(mlir::Type key, int64_t num,
                                     EmitErrorFn emitError);

/// random_fold_in: the NumPy broadcast of the key's batch dims and the
/// shape of `data` (i32), then `[2]`.
ShapeOrFailure inferRandomFoldInShape(mlir::Type key, mlir::Type data,
                                      EmitErrorFn emitError);

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_IR_SHAPEINFERENCE_H
