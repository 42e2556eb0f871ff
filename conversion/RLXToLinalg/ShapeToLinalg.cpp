//===- ShapeToLinalg.cpp - rlx shape ops to tensor and linalg -------------===//
///
/// \file
/// constant, reshape, transpose, broadcast_in_dim, slice, concat, gather.
/// Reshapes and slices become tensor views; gathers clamp their indices so
/// that no input can read out of bounds.
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

struct ConstantPattern : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "expects a typed constant");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct ReshapePattern : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildReshape(rewriter, op.getLoc(), op.getX(), op.getType()));
    return success();
  }
};

struct TransposePattern : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> dyn;
    for (auto [d, p] : llvm::enumerate(op.getPermutation()))
      if (op.getType().isDynamicDim(d))
        dyn.push_back(dimValue(rewriter, loc, op.getX(), p));
    Value init = emptyTensor(rewriter, loc, op.getType(), dyn);
    auto transpose = linalg::TransposeOp::create(rewriter, loc, op.getX(), init,
                                                 op.getPermutation());
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

struct BroadcastInDimPattern : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto inType = op.getX().getType();
    auto outType = op.getType();
    SmallVector<AffineExpr> exprs;
    SmallVector<Value> dyn(outType.getRank());
    for (auto [i, d] : llvm::enumerate(op.getBroadcastDimensions())) {
      bool stretched = inType.getDimSize(i) == 1 && outType.getDimSize(d) != 1;
      exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(d, ctx));
      if (outType.isDynamicDim(d))
        dyn[d] = dimValue(rewriter, loc, op.getX(), i);
    }
    SmallVector<Value> dynamicSizes;
    for (Value v : dyn)
      if (v)
        dynamicSizes.push_back(v);
    Value init = emptyTensor(rewriter, loc, outType, dynamicSizes);
    int64_t rank = outType.getRank();
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{op.getX()},
        ValueRange{init}, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct SlicePattern : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = op.getX().getType();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < inType.getRank(); ++d) {
      strides.push_back(rewriter.getIndexAttr(op.getStrides()[d]));
      if (!inType.isDynamicDim(d)) {
        offsets.push_back(rewriter.getIndexAttr(op.getStart()[d]));
        sizes.push_back(rewriter.getIndexAttr(op.getType().getDimSize(d)));
        continue;
      }
      // Bounds relative to the run-time size, clamped into [0, size].
      auto c = [&](int64_t v) {
        return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
      };
      Value size = dimValue(rewriter, loc, op.getX(), d);
      int64_t start = op.getStart()[d], limit = op.getLimit()[d];
      Value begin = start >= 0 ? c(start)
                               : arith::AddIOp::create(rewriter, loc, size,
                                                       c(start))
                                     .getResult();
      Value end = limit >= 0 ? c(limit)
                             : arith::AddIOp::create(rewriter, loc, size,
                                                     c(limit + 1))
                                   .getResult();
      Value zero = c(0);
      begin = arith::MinSIOp::create(
          rewriter, loc, arith::MaxSIOp::create(rewriter, loc, begin, zero),
          size);
      end = arith::MinSIOp::create(
          rewriter, loc, arith::MaxSIOp::create(rewriter, loc, end, begin),
          size);
      offsets.push_back(begin);
      sizes.push_back(
          arith::SubIOp::create(rewriter, loc, end, begin).getResult());
    }
    // An empty result reads nothing: tensor.extract_slice would refuse its
    // offset (a start at the end of a dim, or any start into an empty one).
    RankedTensorType type = op.getType();
    if (llvm::is_contained(type.getShape(), 0)) {
      SmallVector<Value> dynamicSizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          dynamicSizes.push_back(
              getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]));
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
          op, type.getShape(), type.getElementType(), dynamicSizes);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, op.getX(), offsets, sizes, strides);
    return success();
  }
};

struct ConcatPattern : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = type.getRank();
    // Dynamic sizes: off-axis from the first input, the axis as a sum.
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      if (d != axis) {
        dyn.push_back(dimValue(rewriter, loc, op.getInputs()[0], d));
        continue;
      }
      Value total = arith::ConstantIndexOp::create(rewriter, loc, 0);
      for (Value input : op.getInputs())
        total = arith::AddIOp::create(rewriter, loc, total,
                                      dimValue(rewriter, loc, input, axis));
      dyn.push_back(total);
    }
    Value result = emptyTensor(rewriter, loc, type, dyn);
    Value offset = arith::ConstantIndexOp::create(rewriter, loc, 0);
    for (Value input : op.getInputs()) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = offset;
      auto inType = cast<RankedTensorType>(input.getType());
      for (int64_t d = 0; d < rank; ++d)
        sizes.push_back(inType.isDynamicDim(d)
                            ? OpFoldResult(dimValue(rewriter, loc, input, d))
                            : OpFoldResult(rewriter.getIndexAttr(inType.getDimSize(d))));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset = arith::AddIOp::create(rewriter, loc, offset,
                                     dimValue(rewriter, loc, input, axis));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// result[pre..., idx..., post...] = x[pre..., clamp(indices[idx...]), post...]
struct GatherPattern : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = op.getX(), indices = op.getIndices();
    auto type = op.getType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t idxRank = op.getIndices().getType().getRank();
    int64_t rank = type.getRank();
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      if (d < axis)
        dyn.push_back(dimValue(rewriter, loc, x, d));
      else if (d < axis + idxRank)
        dyn.push_back(dimValue(rewriter, loc, indices, d - axis));
      else
        dyn.push_back(dimValue(rewriter, loc, x, d - idxRank + 1));
    }
    Value init = emptyTensor(rewriter, loc, type, dyn);
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < idxRank; ++i)
      idxExprs.push_back(getAffineDimExpr(axis + i, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, idxExprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value upper = arith::SubIOp::create(
        rewriter, loc, dimValue(rewriter, loc, x, axis),
        arith::ConstantIndexOp::create(rewriter, loc, 1));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{indices}, ValueRange{init},
        maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value idx = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          idx = arith::MaxSIOp::create(b, l, idx, zero);
          idx = arith::MinSIOp::create(b, l, idx, upper);
          SmallVector<Value> coords;
          for (int64_t d = 0; d < axis; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          coords.push_back(idx);
          for (int64_t d = axis + idxRank; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          Value v = tensor::ExtractOp::create(b, l, x, coords);
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The padding value everywhere, then x inserted with strides.
struct PadPattern : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dyn.push_back(dimValue(rewriter, loc, op.getX(), d));
    Value empty = emptyTensor(rewriter, loc, type, dyn);
    Value value = tensor::ExtractOp::create(rewriter, loc, op.getPaddingValue(),
                                            ValueRange{});
    Value filled =
        linalg::FillOp::create(rewriter, loc, value, empty).getResult(0);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    auto inType = op.getX().getType();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      offsets.push_back(rewriter.getIndexAttr(op.getLow()[d]));
      strides.push_back(rewriter.getIndexAttr(op.getInterior()[d] + 1));
      sizes.push_back(inType.isDynamicDim(d)
                          ? OpFoldResult(dimValue(rewriter, loc, op.getX(), d))
                          : OpFoldResult(rewriter.getIndexAttr(inType.getDimSize(d))));
    }
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, op.getX(), filled, offsets, sizes, strides);
    return success();
  }
};

/// stop_gradient only matters to autodiff, which has run by now.
struct StopGradientPattern : OpRewritePattern<StopGradientOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StopGradientOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getX());
    return success();
  }
};

/// The barrier has kept CSE from merging a recomputation; it goes now.
struct OptimizationBarrierPattern : OpRewritePattern<OptimizationBarrierOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(OptimizationBarrierOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getX());
    return success();
  }
};

} // namespace

void mlir::rlx::populateShapeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantPattern, ReshapePattern, TransposePattern,
               BroadcastInDimPattern, SlicePattern, ConcatPattern,
               GatherPattern, PadPattern, StopGradientPattern,
               OptimizationBarrierPattern>(
      patterns.getContext());
}
