//===- RLXFolds.cpp - rlx folders -----------------------------------------===//
///
/// \file
/// Folders of rlx ops: constant folding of same-shape elementwise
/// arithmetic, identities (x + 0, x * 1, neg(neg x)), and shape op chains
/// (reshape of reshape, transpose of transpose, identity shape ops). The
/// backward programs of later passes are full of these.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/ShapeUtils.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::rlx;

/// True when `attr` is a splat of `value` (0 or 1) in float or integer form.
static bool isSplatOf(Attribute attr, int64_t value) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type element = splat.getElementType();
  if (isa<FloatType>(element))
    return splat.getSplatValue<APFloat>().isExactlyValue(
        static_cast<double>(value));
  if (element.isIntOrIndex())
    return splat.getSplatValue<APInt>().getSExtValue() == value;
  return false;
}

/// True when `v` is all zeros: a splat-zero constant, or the zeros-like
/// form autodiff builds for dynamic shapes, select(false, x, 0).
static bool isZeroLike(Value v) {
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr)))
    return isSplatOf(attr, 0);
  auto select = v.getDefiningOp<SelectOp>();
  if (!select)
    return false;
  Attribute cond;
  if (!matchPattern(select.getCond(), m_Constant(&cond)))
    return false;
  auto splat = dyn_cast<SplatElementsAttr>(cond);
  if (!splat)
    return false;
  Value chosen =
      splat.getSplatValue<bool>() ? select.getOnTrue() : select.getOnFalse();
  return isZeroLike(chosen);
}

/// Folds `op(lhs, rhs)` elementwise when both are constants of one type.
template <typename FloatFn, typename IntFn>
static Attribute foldArithmetic(ArrayRef<Attribute> operands, Type resultType,
                                FloatFn floatFn, IntFn intFn) {
  if (!operands[0] || !operands[1])
    return {};
  auto lhs = dyn_cast<TypedAttr>(operands[0]);
  if (!lhs || lhs.getType() != resultType)
    return {};
  // constFoldBinaryOp reads a splat as the value type it is given without
  // checking the element type: an integer splat read as APFloat read
  // terabytes (found by test/fuzz, fuzz.mlir). Dispatch on the type.
  Type element = getElementTypeOrSelf(resultType);
  if (isa<FloatType>(element))
    return constFoldBinaryOp<FloatAttr, APFloat, void>(operands, floatFn);
  if (isa<IntegerType>(element))
    return constFoldBinaryOp<IntegerAttr, APInt, void>(operands, intFn);
  return {};
}

/// `x op neutral` folds to `x` when no broadcast changes x's type.
static Value foldNeutralRhs(Value lhs, Attribute rhs, Type resultType,
                            int64_t neutral) {
  if (lhs.getType() == resultType && isSplatOf(rhs, neutral))
    return lhs;
  return {};
}

static bool isFloatOrInt(RankedTensorType type) {
  return type.getElementType().isIntOrFloat();
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  auto cond = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCond());
  if (!cond)
    return {};
  Value chosen = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  if (chosen.getType() == getType())
    return chosen;
  return {};
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (Value v = foldNeutralRhs(getLhs(), adaptor.getRhs(), getType(), 0))
    return v;
  if (Value v = foldNeutralRhs(getRhs(), adaptor.getLhs(), getType(), 0))
    return v;
  if (isFloatOrInt(getType()) && isZeroLike(getLhs()) &&
      getRhs().getType() == getType())
    return getRhs();
  if (isFloatOrInt(getType()) && isZeroLike(getRhs()) &&
      getLhs().getType() == getType())
    return getLhs();
  return foldArithmetic(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a + b; },
      [](const APInt &a, const APInt &b) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (Value v = foldNeutralRhs(getLhs(), adaptor.getRhs(), getType(), 0))
    return v;
  if (isZeroLike(getRhs()) && getLhs().getType() == getType())
    return getLhs();
  return foldArithmetic(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a - b; },
      [](const APInt &a, const APInt &b) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (Value v = foldNeutralRhs(getLhs(), adaptor.getRhs(), getType(), 1))
    return v;
  if (Value v = foldNeutralRhs(getRhs(), adaptor.getLhs(), getType(), 1))
    return v;
  return foldArithmetic(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a * b; },
      [](const APInt &a, const APInt &b) { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (Value v = foldNeutralRhs(getLhs(), adaptor.getRhs(), getType(), 1))
    return v;
  // The same values as the generated code: x / 0 = -1 and INT_MIN / -1
  // wraps to INT_MIN.
  return foldArithmetic(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a / b; },
      [](const APInt &a, const APInt &b) {
        if (b.isZero())
          return APInt::getAllOnes(a.getBitWidth());
        bool overflow = false;
        return a.sdiv_ov(b, overflow);
      });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getX().getDefiningOp<NegOp>())
    return inner.getX();
  // As in foldArithmetic: the value type must match the element type.
  Type element = getElementTypeOrSelf(getType());
  if (isa<FloatType>(element))
    return constFoldUnaryOp<FloatAttr, APFloat, void>(
        adaptor.getOperands(), [](const APFloat &a) { return -a; });
  if (isa<IntegerType>(element))
    return constFoldUnaryOp<IntegerAttr, APInt, void>(
        adaptor.getOperands(), [](const APInt &a) { return -a; });
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType() && getType().hasStaticShape())
    return getX();
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    // A chain of reshapes is one reshape of the first operand, as long as
    // the combined op stays valid.
    if (inner.getX().getType() == getType() && getType().hasStaticShape())
      return inner.getX();
    // With several dynamic result dims the combined reshape must pair them
    // with the first operand's (pairings compose, in order).
    RankedTensorType first = inner.getX().getType();
    bool valid = getType().getNumDynamicDims() > 1
                     ? groupReshape(first.getShape(), getType().getShape())
                           .has_value()
                     : getType().hasStaticShape() ||
                           first.getNumDynamicDims() > 0;
    if (valid) {
      setOperand(inner.getX());
      return getResult();
    }
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getX();
  if (auto inner = getX().getDefiningOp<TransposeOp>()) {
    // result[i] = x[perm[i]] = inner.x[innerPerm[perm[i]]].
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPermutation()[p]);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())) &&
        inner.getX().getType() == getType())
      return inner.getX();
    setOperand(inner.getX());
    setPermutation(composed);
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (getX().getType() == getType() &&
      llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())))
    return getX();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getX()))
    if (getType().hasStaticShape())
      return SplatElementsAttr::get(getType(),
                                    splat.getSplatValue<Attribute>());
  return {};
}

namespace {
/// A product over K = 1 is an outer product: one broadcasting multiply,
/// without the zero fill and accumulation of a contraction (per-example
/// weight gradients are exactly this).
struct OuterProductMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getLhs().getType();
    // An i8 x i8 -> i32 product has no elementwise form.
    if (lhs.getDimSize(lhs.getRank() - 1) != 1 ||
        lhs.getElementType() != op.getType().getElementType())
      return failure();
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), op.getLhs(),
                                       op.getRhs());
    return success();
  }
};
} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<OuterProductMatmul>(context);
}

namespace {
/// The sum of two zero pads of abutting pieces along one dim is one zero
/// pad of their concatenation (or the concatenation itself when it fills
/// the dim): the adjoint of a tensor sliced into parts (an LSTM's four
/// gates) is then one copy instead of a zero fill and an add per part.
struct MergeAbuttingPads : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    auto a = op.getLhs().getDefiningOp<PadOp>();
    auto b = op.getRhs().getDefiningOp<PadOp>();
    if (!a || !b || a.getType() != op.getType() ||
        b.getType() != op.getType() || !isZeroLike(a.getPaddingValue()) ||
        !isZeroLike(b.getPaddingValue()) ||
        a.getX().getType().getElementType() !=
            b.getX().getType().getElementType())
      return failure();
    auto noInterior = [](PadOp p) {
      return llvm::all_of(p.getInterior(), [](int64_t i) { return i == 0; });
    };
    if (!noInterior(a) || !noInterior(b) || op.getType().getRank() == 0)
      return failure();
    // Exactly one dim differs, where one piece ends as the other starts.
    int64_t dim = -1;
    for (int64_t d = 0; d < op.getType().getRank(); ++d) {
      if (a.getLow()[d] == b.getLow()[d] && a.getHigh()[d] == b.getHigh()[d])
        continue;
      if (dim >= 0 || op.getType().isDynamicDim(d))
        return failure();
      dim = d;
    }
    if (dim < 0)
      return failure();
    int64_t size = op.getType().getDimSize(dim);
    if (size - a.getHigh()[dim] == b.getLow()[dim]) {
      // a then b.
    } else if (size - b.getHigh()[dim] == a.getLow()[dim]) {
      std::swap(a, b);
    } else {
      return failure();
    }
    Value joined = ConcatOp::create(rewriter, op.getLoc(),
                                    ValueRange{a.getX(), b.getX()},
                                    rewriter.getI64IntegerAttr(dim));
    SmallVector<int64_t> low(a.getLow()), high(b.getHigh());
    if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
        llvm::all_of(high, [](int64_t v) { return v == 0; }) &&
        joined.getType() == op.getType()) {
      rewriter.replaceOp(op, joined);
      return success();
    }
    rewriter.replaceOpWithNewOp<PadOp>(
        op, op.getType(), joined, a.getPaddingValue(),
        rewriter.getDenseI64ArrayAttr(low), rewriter.getDenseI64ArrayAttr(high),
        rewriter.getDenseI64ArrayAttr(SmallVector<int64_t>(low.size(), 0)));
    return success();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<MergeAbuttingPads>(context);
}
