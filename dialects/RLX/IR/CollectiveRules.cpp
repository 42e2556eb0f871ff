//===- CollectiveRules.cpp - Autodiff and vmap rules of the collectives ---===//
///
/// \file
/// DifferentiableOpInterface and BatchableOpInterface of rlx.all_reduce,
/// all_gather, reduce_scatter, broadcast and axis_index. The function being
/// differentiated is the sum over replicas of what each replica computes
/// (every replica's loss depends on every replica's inputs through the
/// collectives), which is how JAX transposes psum inside pmap:
///
/// - `y = sum_r x_r` on every replica: `dx_r = sum_s dy_s`, an all_reduce
///   sum of the adjoints; mean likewise with mean.
/// - max/min: the adjoint goes to the replicas whose `x` is the extreme,
///   split evenly between ties (as rlx.max's VJP splits).
/// - all_gather ↔ reduce_scatter: replica `r`'s block of every gathered
///   copy came from `x_r`, so its adjoint is the sum of those blocks.
/// - broadcast from `root`: the root's `x` reaches every replica, so the
///   root gets the sum of the adjoints and the others nothing.
///
/// All but max/min are linear, so their JVP is the op on the tangent.
/// Batching (vmap inside each replica) maps over a local dim: the batch dim
/// is just one more dim of every replica's operand.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::ad;

namespace {

Value allReduce(RuleBuilder b, Value x, StringRef axis, StringRef kind) {
  return AllReduceOp::create(b.b, b.loc, x, b.b.getStringAttr(axis),
                             b.b.getStringAttr(kind));
}

/// `type` with dim `dim` multiplied (`gather`) or divided by `size`.
RankedTensorType scaledType(RankedTensorType type, int64_t dim, int64_t size,
                            bool gather) {
  SmallVector<int64_t> shape(type.getShape());
  if (!ShapedType::isDynamic(shape[dim]))
    shape[dim] = gather ? shape[dim] * size : shape[dim] / size;
  return type.clone(shape);
}

Value allGather(RuleBuilder b, Value x, StringRef axis, int64_t dim,
                int64_t size) {
  return AllGatherOp::create(
      b.b, b.loc, scaledType(tensorType(x), dim, size, /*gather=*/true), x,
      b.b.getStringAttr(axis), b.b.getI64IntegerAttr(dim),
      b.b.getI64IntegerAttr(size));
}

Value reduceScatter(RuleBuilder b, Value x, StringRef axis, int64_t dim,
                    int64_t size) {
  return ReduceScatterOp::create(
      b.b, b.loc, scaledType(tensorType(x), dim, size, /*gather=*/false), x,
      b.b.getStringAttr(axis), b.b.getI64IntegerAttr(dim),
      b.b.getI64IntegerAttr(size));
}

/// For max/min: 1 where this replica's `x` is the extreme `y`, divided by
/// how many replicas share it, so that the shares sum to one.
Value extremeShare(RuleBuilder b, Value x, Value y, StringRef axis) {
  Value mask = castTo(b, compare(b, "eq", x, y), tensorType(x).getElementType());
  return div(b, mask, allReduce(b, mask, axis, "sum"));
}

} // namespace

//===----------------------------------------------------------------------===//
// all_reduce
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::buildVJP(OpBuilder &builder,
                                    ArrayRef<Value> resultAdjoints,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  Value dy = resultAdjoints[0];
  if (!dy || !isa<FloatType>(getType().getElementType())) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  StringRef kind = getKind();
  if (kind == "sum" || kind == "mean") {
    out.push_back(allReduce(b, dy, getAxis(), kind));
    return success();
  }
  Value total = allReduce(b, dy, getAxis(), "sum");
  out.push_back(mul(b, total, extremeShare(b, getX(), getResult(), getAxis())));
  return success();
}

LogicalResult AllReduceOp::buildJVP(OpBuilder &builder,
                                    ArrayRef<Value> operandTangents,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  Value dx = operandTangents[0];
  if (!dx) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  StringRef kind = getKind();
  if (kind == "sum" || kind == "mean") {
    out.push_back(allReduce(b, dx, getAxis(), kind));
    return success();
  }
  Value share = extremeShare(b, getX(), getResult(), getAxis());
  out.push_back(allReduce(b, mul(b, dx, share), getAxis(), "sum"));
  return success();
}

LogicalResult AllReduceOp::buildBatched(OpBuilder &builder,
                                        ArrayRef<Value> operands,
                                        ArrayRef<bool>,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &) {
  results.push_back(
      allReduce({builder, getLoc()}, operands[0], getAxis(), getKind()));
  return success();
}

//===----------------------------------------------------------------------===//
// all_gather and reduce_scatter
//===----------------------------------------------------------------------===//

LogicalResult AllGatherOp::buildVJP(OpBuilder &builder,
                                    ArrayRef<Value> resultAdjoints,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  Value dy = resultAdjoints[0];
  if (!dy) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  out.push_back(reduceScatter(b, dy, getAxis(), getDim(), getAxisSize()));
  return success();
}

LogicalResult AllGatherOp::buildJVP(OpBuilder &builder,
                                    ArrayRef<Value> operandTangents,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  Value dx = operandTangents[0];
  if (!dx) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  out.push_back(allGather(b, dx, getAxis(), getDim(), getAxisSize()));
  return success();
}

LogicalResult AllGatherOp::buildBatched(OpBuilder &builder,
                                        ArrayRef<Value> operands,
                                        ArrayRef<bool>,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &) {
  results.push_back(allGather({builder, getLoc()}, operands[0], getAxis(),
                              getDim() + 1, getAxisSize()));
  return success();
}

LogicalResult ReduceScatterOp::buildVJP(OpBuilder &builder,
                                        ArrayRef<Value> resultAdjoints,
                                        SmallVectorImpl<Value> &out,
                                        SymbolTableCollection &) {
  Value dy = resultAdjoints[0];
  if (!dy) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  out.push_back(allGather(b, dy, getAxis(), getDim(), getAxisSize()));
  return success();
}

LogicalResult ReduceScatterOp::buildJVP(OpBuilder &builder,
                                        ArrayRef<Value> operandTangents,
                                        SmallVectorImpl<Value> &out,
                                        SymbolTableCollection &) {
  Value dx = operandTangents[0];
  if (!dx) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  out.push_back(reduceScatter(b, dx, getAxis(), getDim(), getAxisSize()));
  return success();
}

LogicalResult ReduceScatterOp::buildBatched(OpBuilder &builder,
                                            ArrayRef<Value> operands,
                                            ArrayRef<bool>,
                                            SmallVectorImpl<Value> &results,
                                            SymbolTableCollection &) {
  results.push_back(reduceScatter({builder, getLoc()}, operands[0], getAxis(),
                                  getDim() + 1, getAxisSize()));
  return success();
}

//===----------------------------------------------------------------------===//
// broadcast and axis_index
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::buildVJP(OpBuilder &builder,
                                    ArrayRef<Value> resultAdjoints,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  Value dy = resultAdjoints[0];
  if (!dy) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  Value total = allReduce(b, dy, getAxis(), "sum");
  Value index = AxisIndexOp::create(
      builder, getLoc(), RankedTensorType::get({}, builder.getI32Type()),
      builder.getStringAttr(getAxis()));
  Value isRoot = compare(
      b, "eq", index,
      scalar(b, builder.getI32Type(), static_cast<double>(getRoot())));
  out.push_back(select(b, isRoot, total, zerosLike(b, total)));
  return success();
}

LogicalResult BroadcastOp::buildJVP(OpBuilder &builder,
                                    ArrayRef<Value> operandTangents,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  Value dx = operandTangents[0];
  if (!dx) {
    out.push_back(Value());
    return success();
  }
  out.push_back(BroadcastOp::create(builder, getLoc(), dx, getAxisAttr(),
                                    getRootAttr()));
  return success();
}

LogicalResult BroadcastOp::buildBatched(OpBuilder &builder,
                                        ArrayRef<Value> operands,
                                        ArrayRef<bool>,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &) {
  results.push_back(BroadcastOp::create(builder, getLoc(), operands[0],
                                        getAxisAttr(), getRootAttr()));
  return success();
}

LogicalResult AxisIndexOp::buildVJP(OpBuilder &, ArrayRef<Value>,
                                    SmallVectorImpl<Value> &,
                                    SymbolTableCollection &) {
  return success(); // no operands
}

LogicalResult AxisIndexOp::buildJVP(OpBuilder &, ArrayRef<Value>,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  out.push_back(Value()); // an integer: no tangent
  return success();
}

LogicalResult AxisIndexOp::buildBatched(OpBuilder &, ArrayRef<Value>,
                                        ArrayRef<bool>, SmallVectorImpl<Value> &,
                                        SymbolTableCollection &) {
  return failure(); // no operands, so never batched
}
