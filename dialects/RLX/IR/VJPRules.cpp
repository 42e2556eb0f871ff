//===- VJPRules.cpp - Reverse-mode rules of rlx ops -----------------------===//
///
/// \file
/// DifferentiableOpInterface::buildVJP for every rlx op. Each rule builds
/// operand adjoints from the result adjoint with rlx ops (so derivatives of
/// derivatives work) and sums broadcast dims back to each operand's shape.
/// Integer results carry no adjoint.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/DerivativeRules.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/ShapeUtils.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::ad;

namespace {

bool isFloatTensor(Value v) {
  return isa<FloatType>(tensorType(v).getElementType());
}

/// Appends null adjoints for every operand of `op`.
LogicalResult noAdjoints(Operation *op, SmallVectorImpl<Value> &out) {
  out.append(op->getNumOperands(), Value());
  return success();
}

/// The adjoint of a unary elementwise op: g * f'(x).
LogicalResult unaryVJP(Operation *op, OpBuilder &builder, ArrayRef<Value> adj,
                       SmallVectorImpl<Value> &out) {
  RuleBuilder b{builder, op->getLoc()};
  out.push_back(mul(b, adj[0], unaryDerivative(b, op)));
  return success();
}

/// Re-inserts the reduced `axes` of a reduction of `x` as size 1.
Value keepReducedDims(RuleBuilder b, Value g, Value x, ArrayRef<int64_t> axes,
                      bool keepdims) {
  if (keepdims)
    return g;
  RankedTensorType xType = tensorType(x);
  SmallVector<int64_t> shape, mapped;
  for (int64_t d = 0; d < xType.getRank(); ++d) {
    if (llvm::is_contained(axes, d)) {
      shape.push_back(1);
      continue;
    }
    mapped.push_back(d);
    shape.push_back(xType.getDimSize(d));
  }
  auto type = RankedTensorType::get(shape, tensorType(g).getElementType());
  return BroadcastInDimOp::create(b.b, b.loc, type, g,
                                  b.b.getDenseI64ArrayAttr(mapped));
}

/// Number of elements reduced by `axes` of `x`, as a rank-0 float tensor or
/// broadcastable count.
Value reducedCount(RuleBuilder b, Value x, ArrayRef<int64_t> axes) {
  RankedTensorType type = tensorType(x);
  int64_t count = 1;
  bool dynamic = false;
  for (int64_t axis : axes) {
    if (type.isDynamicDim(axis))
      dynamic = true;
    else
      count *= type.getDimSize(axis);
  }
  if (!dynamic)
    return scalarLike(b, x, static_cast<double>(count));
  Value ones = add(b, zerosLike(b, x), scalarLike(b, x, 1));
  return sum(b, ones, axes, /*keepdims=*/true);
}

} // namespace

#define RLX_UNARY_VJP(OpTy)                                                    \
  LogicalResult OpTy::buildVJP(OpBuilder &b, ArrayRef<Value> adj,              \
                               SmallVectorImpl<Value> &out,                    \
                               SymbolTableCollection &) {                      \
    if (!isFloatTensor(getResult()))                                           \
      return noAdjoints(*this, out);                                           \
    return unaryVJP(*this, b, adj, out);                                       \
  }
RLX_UNARY_VJP(AbsOp)
RLX_UNARY_VJP(ExpOp)
RLX_UNARY_VJP(LogOp)
RLX_UNARY_VJP(SqrtOp)
RLX_UNARY_VJP(RsqrtOp)
RLX_UNARY_VJP(TanhOp)
RLX_UNARY_VJP(ErfOp)
RLX_UNARY_VJP(SinOp)
RLX_UNARY_VJP(CosOp)
RLX_UNARY_VJP(AtanOp)
RLX_UNARY_VJP(SigmoidOp)
RLX_UNARY_VJP(ReluOp)
RLX_UNARY_VJP(GeluOp)
#undef RLX_UNARY_VJP

LogicalResult ParamOp::buildVJP(OpBuilder &, ArrayRef<Value>,
                                SmallVectorImpl<Value> &,
                                SymbolTableCollection &) {
  return success();
}

LogicalResult ConstantOp::buildVJP(OpBuilder &, ArrayRef<Value>,
                                   SmallVectorImpl<Value> &,
                                   SymbolTableCollection &) {
  return success();
}

LogicalResult AddOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  out.push_back(sumToType(b, adj[0], getLhs().getType()));
  out.push_back(sumToType(b, adj[0], getRhs().getType()));
  return success();
}

LogicalResult SubOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  out.push_back(sumToType(b, adj[0], getLhs().getType()));
  out.push_back(sumToType(b, neg(b, adj[0]), getRhs().getType()));
  return success();
}

LogicalResult MulOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  out.push_back(sumToType(b, mul(b, adj[0], getRhs()), getLhs().getType()));
  out.push_back(sumToType(b, mul(b, adj[0], getLhs()), getRhs().getType()));
  return success();
}

LogicalResult DivOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  Value g = adj[0];
  out.push_back(sumToType(b, div(b, g, getRhs()), getLhs().getType()));
  // d(a/b)/db = -(a/b)/b.
  Value gb = neg(b, mul(b, g, div(b, getResult(), getRhs())));
  out.push_back(sumToType(b, gb, getRhs().getType()));
  return success();
}

LogicalResult PowOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  auto [da, db] = powPartials(b, *this);
  out.push_back(sumToType(b, mul(b, adj[0], da), getLhs().getType()));
  out.push_back(sumToType(b, mul(b, adj[0], db), getRhs().getType()));
  return success();
}

/// x rem y = x - n y with n = trunc(x / y) constant almost everywhere: the
/// partials are 1 and -n, n read back as (x - r) / y.
LogicalResult RemOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  Value g = adj[0];
  out.push_back(sumToType(b, g, getLhs().getType()));
  Value n = div(b, sub(b, getLhs(), getResult()), getRhs());
  out.push_back(sumToType(b, neg(b, mul(b, g, n)), getRhs().getType()));
  return success();
}

/// max/min: the winner takes the adjoint, ties split it evenly (as JAX).
static LogicalResult chooserVJP(Operation *op, OpBuilder &builder, Value g,
                                SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(op->getResult(0)))
    return noAdjoints(op, out);
  RuleBuilder b{builder, op->getLoc()};
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value share = chooserShare(b, op);
  Value one = scalarLike(b, g, 1);
  out.push_back(sumToType(b, mul(b, g, share), tensorType(lhs)));
  out.push_back(sumToType(b, mul(b, g, sub(b, one, share)), tensorType(rhs)));
  return success();
}

LogicalResult MaximumOp::buildVJP(OpBuilder &b, ArrayRef<Value> adj,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  return chooserVJP(*this, b, adj[0], out);
}

LogicalResult MinimumOp::buildVJP(OpBuilder &b, ArrayRef<Value> adj,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  return chooserVJP(*this, b, adj[0], out);
}

LogicalResult NegOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  out.push_back(neg(b, adj[0]));
  return success();
}

LogicalResult CompareOp::buildVJP(OpBuilder &, ArrayRef<Value>,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  return noAdjoints(*this, out);
}

LogicalResult SelectOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  Value zero = scalarLike(b, adj[0], 0);
  out.push_back(Value());
  out.push_back(sumToType(b, select(b, getCond(), adj[0], zero),
                          getOnTrue().getType()));
  out.push_back(sumToType(b, select(b, getCond(), zero, adj[0]),
                          getOnFalse().getType()));
  return success();
}

LogicalResult CastOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                               SmallVectorImpl<Value> &out,
                               SymbolTableCollection &) {
  if (!isFloatTensor(getResult()) || !isFloatTensor(getX()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  out.push_back(castTo(b, adj[0], getX().getType().getElementType()));
  if (getKey())
    out.push_back(Value()); // A stochastic rounding's key has no derivative.
  return success();
}

LogicalResult BitcastOp::buildVJP(OpBuilder &, ArrayRef<Value>,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  return noAdjoints(*this, out);
}

LogicalResult StopGradientOp::buildVJP(OpBuilder &, ArrayRef<Value>,
                                       SmallVectorImpl<Value> &out,
                                       SymbolTableCollection &) {
  return noAdjoints(*this, out);
}

LogicalResult MatmulOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  Value g = adj[0];
  out.push_back(sumToType(b, matmul(b, g, transposeLast2(b, getRhs())),
                          getLhs().getType()));
  out.push_back(sumToType(b, matmul(b, transposeLast2(b, getLhs()), g),
                          getRhs().getType()));
  return success();
}

LogicalResult SumOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  Value g = keepReducedDims(b, adj[0], getX(), getAxes(), getKeepdims());
  out.push_back(broadcastLike(b, g, getX()));
  return success();
}

LogicalResult MeanOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                               SmallVectorImpl<Value> &out,
                               SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  Value g = keepReducedDims(b, adj[0], getX(), getAxes(), getKeepdims());
  g = div(b, g, reducedCount(b, getX(), getAxes()));
  out.push_back(broadcastLike(b, g, getX()));
  return success();
}

LogicalResult MaxOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  if (!isFloatTensor(getResult()))
    return noAdjoints(*this, out);
  RuleBuilder b{builder, getLoc()};
  Value share = maxShare(b, *this);
  Value g = keepReducedDims(b, adj[0], getX(), getAxes(), getKeepdims());
  out.push_back(mul(b, share, g));
  return success();
}

LogicalResult SoftmaxOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  int64_t axis = static_cast<int64_t>(getAxis());
  Value s = getResult(), g = adj[0];
  Value inner = sum(b, mul(b, g, s), {axis}, /*keepdims=*/true);
  out.push_back(mul(b, s, sub(b, g, inner)));
  return success();
}

LogicalResult LogSoftmaxOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                     SmallVectorImpl<Value> &out,
                                     SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  int64_t axis = static_cast<int64_t>(getAxis());
  Value g = adj[0];
  Value total = sum(b, g, {axis}, /*keepdims=*/true);
  Value softmax = ExpOp::create(b.b, b.loc, getResult());
  out.push_back(sub(b, g, mul(b, softmax, total)));
  return success();
}

LogicalResult ReshapeOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                  SmallVectorImpl<Value> &out,
                                  SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  auto target = getX().getType();
  // The adjoint is reshaped back; with several dynamic operand dims that
  // needs them paired with the result's (groupReshape is symmetric).
  if (target.getNumDynamicDims() > 1 &&
      !groupReshape(getType().getShape(), target.getShape()))
    return emitOpError("has no VJP: its operand's dynamic dims ")
           << formatShape(target.getShape())
           << " do not pair with the result's "
           << formatShape(getType().getShape());
  out.push_back(reshapeTo(b, adj[0], target));
  return success();
}

LogicalResult TransposeOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  out.push_back(transpose(b, adj[0], inverse));
  return success();
}

LogicalResult BroadcastInDimOp::buildVJP(OpBuilder &builder,
                                         ArrayRef<Value> adj,
                                         SmallVectorImpl<Value> &out,
                                         SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  auto in = getX().getType();
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  Value g = adj[0];
  // Sum the stretched mapped dims (keeping them), then the unmapped ones.
  SmallVector<int64_t> stretched, unmapped;
  for (auto [i, d] : llvm::enumerate(dims))
    if (in.getDimSize(i) == 1 && getType().getDimSize(d) != 1)
      stretched.push_back(d);
  for (int64_t d = 0; d < getType().getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      unmapped.push_back(d);
  g = sum(b, g, stretched, /*keepdims=*/true);
  g = sum(b, g, unmapped, /*keepdims=*/false);
  // What remains is in increasing result-dim order; operand i sits at the
  // rank of dims[i] among the sorted dims.
  SmallVector<int64_t> sorted(dims);
  llvm::sort(sorted);
  SmallVector<int64_t> perm;
  for (int64_t d : dims)
    perm.push_back(llvm::find(sorted, d) - sorted.begin());
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    g = transpose(b, g, perm);
  out.push_back(reshapeTo(b, g, in));
  return success();
}

LogicalResult SliceOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                SmallVectorImpl<Value> &out,
                                SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  auto in = getX().getType();
  SmallVector<int64_t> low, high, interior;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (in.isDynamicDim(d)) {
      if (getStart()[d] != 0 || getLimit()[d] != -1)
        return emitOpError("has no VJP for a partial slice of a dynamic dim");
      low.push_back(0);
      high.push_back(0);
      interior.push_back(0);
      continue;
    }
    int64_t n = getType().getDimSize(d), stride = getStrides()[d];
    int64_t start = getStart()[d];
    int64_t span = n == 0 ? 0 : (n - 1) * stride + 1;
    low.push_back(start);
    interior.push_back(n == 0 ? 0 : stride - 1);
    high.push_back(in.getDimSize(d) - start - span);
  }
  Value zero = scalarLike(b, adj[0], 0);
  out.push_back(PadOp::create(b.b, b.loc, in, adj[0], zero,
                              b.b.getDenseI64ArrayAttr(low),
                              b.b.getDenseI64ArrayAttr(high),
                              b.b.getDenseI64ArrayAttr(interior)));
  return success();
}

LogicalResult PadOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  auto in = getX().getType();
  SmallVector<int64_t> start, limit, strides;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (in.isDynamicDim(d)) {
      start.push_back(0);
      limit.push_back(-1);
      strides.push_back(1);
      continue;
    }
    int64_t n = in.getDimSize(d), step = getInterior()[d] + 1;
    start.push_back(getLow()[d]);
    limit.push_back(getLow()[d] + (n == 0 ? 0 : (n - 1) * step + 1));
    strides.push_back(step);
  }
  Value inner = SliceOp::create(b.b, b.loc, in, adj[0],
                                b.b.getDenseI64ArrayAttr(start),
                                b.b.getDenseI64ArrayAttr(limit),
                                b.b.getDenseI64ArrayAttr(strides));
  out.push_back(inner);
  // The padding value receives everything that did not land on x.
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < in.getRank(); ++d)
    all.push_back(d);
  out.push_back(sub(b, sum(b, adj[0], all, false), sum(b, inner, all, false)));
  return success();
}

LogicalResult ConcatOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  int64_t axis = static_cast<int64_t>(getAxis());
  auto resultType = getType();
  // One input may be dynamic along the axis: inputs before it are sliced
  // from the front, inputs after it counting from the end.
  int64_t dynamicInputs = llvm::count_if(getInputs(), [&](Value v) {
    return cast<RankedTensorType>(v.getType()).isDynamicDim(axis);
  });
  if (dynamicInputs > 1)
    return emitOpError("has no VJP with several inputs of dynamic size along "
                       "the axis");
  int64_t before = 0, after = 0;
  bool seenDynamic = false;
  for (Value input : getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.isDynamicDim(axis))
      seenDynamic = true;
    else if (seenDynamic)
      after += type.getDimSize(axis);
  }
  seenDynamic = false;
  int64_t fromEnd = after; // elements of the later inputs, counted from end
  for (Value input : getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> start(rank, 0), limit, strides(rank, 1);
    for (int64_t d = 0; d < rank; ++d)
      limit.push_back(resultType.isDynamicDim(d) ? -1 : resultType.getDimSize(d));
    if (type.isDynamicDim(axis)) {
      seenDynamic = true;
      start[axis] = before;
      limit[axis] = -1 - after;
    } else if (seenDynamic) {
      start[axis] = -fromEnd;
      limit[axis] = -1 - (fromEnd - type.getDimSize(axis));
      fromEnd -= type.getDimSize(axis);
    } else {
      start[axis] = before;
      limit[axis] = before + type.getDimSize(axis);
      before += type.getDimSize(axis);
    }
    Value part = SliceOp::create(b.b, b.loc, adj[0],
                                 b.b.getDenseI64ArrayAttr(start),
                                 b.b.getDenseI64ArrayAttr(limit),
                                 b.b.getDenseI64ArrayAttr(strides));
    out.push_back(reshapeTo(b, part, type));
  }
  return success();
}

LogicalResult GatherOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  FailureOr<Value> gx = scatterAddByOneHot(b, *this, adj[0]);
  if (failed(gx))
    return failure();
  out.push_back(*gx);
  out.push_back(Value());
  return success();
}
