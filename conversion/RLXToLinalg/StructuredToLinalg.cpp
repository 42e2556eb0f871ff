//===- StructuredToLinalg.cpp - contractions and reductions to linalg -----===//
///
/// \file
/// matmul, conv2d, pooling, reductions and softmax. Matmuls that are plain
/// 2-D products (after folding the batch dims of `[..., M, K] x [K, N]` into
/// M) become `linalg.matmul`, which the CPU pipeline tiles and vectorizes;
/// other batched products are one generic contraction. A single-group conv2d
/// with static channels becomes a linalg.matmul too: 1x1 convs directly over
/// the input's pixels, others over an im2col copy of their windows; grouped
/// convs and dynamic channels keep one generic contraction.
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "conversion/RLXToLinalg/PackedMatmul.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

bool isFloatType(Type t) { return isa<FloatType>(t); }

Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  // i8 operands of an i32 product extend before they multiply.
  if (x.getType() != acc.getType() && !isFloatType(x.getType())) {
    x = arith::ExtSIOp::create(b, loc, acc.getType(), x);
    y = arith::ExtSIOp::create(b, loc, acc.getType(), y);
  }
  if (isFloatType(x.getType()))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  return arith::AddIOp::create(b, loc, acc, arith::MulIOp::create(b, loc, x, y));
}

TypedAttr zeroAttr(Type element) { return OpBuilder(element.getContext()).getZeroAttr(element); }

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

/// linalg.batch_matmul of [B, M, K] x [B, K, N] into zeros of `element`.
Value batchMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  Type element) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  auto type = RankedTensorType::get(
      {lhsType.getDimSize(0), lhsType.getDimSize(1), rhsType.getDimSize(2)},
      element);
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < 3; ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(d == 2 ? dimValue(b, loc, rhs, 2)
                           : dimValue(b, loc, lhs, d));
  Value acc = filledTensor(b, loc, type, dyn, zeroAttr(element));
  return linalg::BatchMatmulOp::create(b, loc, TypeRange{type},
                                       ValueRange{lhs, rhs}, ValueRange{acc})
      .getResult(0);
}

/// The bf16 or f16 tensor `v` is an f32 copy of, if any:
/// rlx-accumulate-in-f32 widens a 16-bit matmul's operands with rlx.cast
/// (lowered or not yet). linalg.matmul extends its operands as it
/// multiplies, so it reads the 16-bit value directly: no f32 copy is
/// materialized, and the CPU pipeline can use bf16 dot products
/// (rlx-cpu-dot-product-matmul), CUDA its tensor cores.
Value sixteenBitSource(Value v) {
  if (!getElementTypeOrSelf(v.getType()).isF32())
    return v;
  Value source;
  if (auto cast = v.getDefiningOp<CastOp>()) {
    source = cast.getX();
  } else if (auto generic = v.getDefiningOp<linalg::GenericOp>()) {
    Block &body = generic.getRegion().front();
    auto extend = dyn_cast<arith::ExtFOp>(body.front());
    if (generic.getNumDpsInputs() == 1 && generic.getNumResults() == 1 &&
        llvm::all_of(generic.getIndexingMapsArray(),
                     [](AffineMap m) { return m.isIdentity(); }) &&
        extend && extend.getIn() == body.getArgument(0) &&
        body.getOperations().size() == 2)
      source = generic.getDpsInputOperand(0)->get();
  }
  Type element = source ? getElementTypeOrSelf(source.getType()) : Type();
  if (source && (element.isBF16() || element.isF16()) &&
      cast<RankedTensorType>(source.getType()).getShape() ==
          cast<RankedTensorType>(v.getType()).getShape())
    return source;
  return v;
}

/// sixteenBitSource when it is bf16 (a conv's operands on the CPU).
Value bf16Source(Value v) {
  Value source = sixteenBitSource(v);
  return getElementTypeOrSelf(source.getType()).isBF16() ? source : v;
}

/// Replaces `lhs` and `rhs` by the 16-bit values they are f32 copies of
/// when both are copies of one type: bf16 always, f16 too with
/// `tensorCoreProducts`. Batched products only with `tensorCoreProducts`
/// (the CPU kernels' bf16 dot products are 2-D).
void readSixteenBitSources(Value &lhs, Value &rhs, bool tensorCoreProducts,
                           bool batched) {
  if (batched && !tensorCoreProducts)
    return;
  Value lhsSource = sixteenBitSource(lhs), rhsSource = sixteenBitSource(rhs);
  Type element = getElementTypeOrSelf(lhsSource.getType());
  if (element != getElementTypeOrSelf(rhsSource.getType()) ||
      !(element.isBF16() || (element.isF16() && tensorCoreProducts)))
    return;
  lhs = lhsSource;
  rhs = rhsSource;
}

/// `acc` + `lhs` x `rhs`, [M, K] x [K, N]: a linalg.matmul, or, when rhs
/// is a prepacked weight (rlx-pack-dot-operands), plain or block-scaled, a
/// product reading it packed.
Value matmul2D(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc) {
  if (UnpackDotOperandOp unpack = packedSource(rhs))
    return buildPackedMatmul(b, loc, lhs, unpack, acc);
  if (BlockDequantizeOp dequantize = packedBlockScaledSource(rhs))
    return buildPackedBlockScaledMatmul(b, loc, lhs, dequantize, acc);
  return linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{acc})
      .getResult(0);
}

struct MatmulPattern : OpRewritePattern<MatmulOp> {
  MatmulPattern(MLIRContext *ctx, bool tensorCoreProducts)
      : OpRewritePattern(ctx), tensorCoreProducts(tensorCoreProducts) {}
  bool tensorCoreProducts;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    RankedTensorType lhsType = op.getLhs().getType(),
                     rhsType = op.getRhs().getType();
    auto resultType = op.getType();
    Type element = resultType.getElementType();
    // A right operand batched with batches of one ([1, K, N], as TOSA's
    // matmul always is) is a 2-D one: collapsed, the product is a single
    // matmul over the lhs's rows, which the CPU pipeline parallelizes (a
    // batch_matmul of batch 1 would run on one thread).
    if (rhsType.getRank() > 2 && lhsType.getRank() >= rhsType.getRank() &&
        llvm::all_of(rhsType.getShape().drop_back(2),
                     [](int64_t d) { return d == 1; })) {
      ReassociationIndices front;
      for (int64_t d = 0; d < rhsType.getRank() - 1; ++d)
        front.push_back(d);
      rhs = tensor::CollapseShapeOp::create(
          rewriter, loc, rhs,
          ArrayRef<ReassociationIndices>{front, {rhsType.getRank() - 1}});
      rhsType = cast<RankedTensorType>(rhs.getType());
    }
    if (rhsType.getRank() == 2) {
      // [..., M, K] x [K, N]: fold the batch dims into M. bf16 sources
      // only for both operands: an f32 weight prepacked for the f32 kernel
      // (a target without bf16 dot products) keeps an f32 lhs, which that
      // kernel reads: a bf16 lhs beside f32 panels did not compile (the
      // packed product extends both sides alike), and extended one by one
      // it was a scalar loop nest, an MLP's bf16 step 17x its f32 time.
      readSixteenBitSources(lhs, rhs, tensorCoreProducts, /*batched=*/false);
      Value flatLhs = lhs;
      int64_t r = lhsType.getRank();
      if (r > 2) {
        ReassociationIndices front;
        for (int64_t d = 0; d < r - 1; ++d)
          front.push_back(d);
        flatLhs = tensor::CollapseShapeOp::create(
            rewriter, loc, lhs,
            ArrayRef<ReassociationIndices>{front, {r - 1}});
      }
      auto flatType = cast<RankedTensorType>(flatLhs.getType());
      auto productType = RankedTensorType::get(
          {flatType.getDimSize(0), rhsType.getDimSize(1)}, element);
      SmallVector<Value> dyn;
      if (productType.isDynamicDim(0))
        dyn.push_back(dimValue(rewriter, loc, flatLhs, 0));
      if (productType.isDynamicDim(1))
        dyn.push_back(dimValue(rewriter, loc, rhs, 1));
      Value acc =
          filledTensor(rewriter, loc, productType, dyn, zeroAttr(element));
      Value product = matmul2D(rewriter, loc, flatLhs, rhs, acc);
      if (r > 2) {
        ReassociationIndices front;
        for (int64_t d = 0; d < r - 1; ++d)
          front.push_back(d);
        SmallVector<OpFoldResult> outputShape;
        for (int64_t d = 0; d < r - 1; ++d)
          outputShape.push_back(
              lhsType.isDynamicDim(d)
                  ? OpFoldResult(dimValue(rewriter, loc, lhs, d))
                  : OpFoldResult(rewriter.getIndexAttr(lhsType.getDimSize(d))));
        outputShape.push_back(
            resultType.isDynamicDim(r - 1)
                ? OpFoldResult(dimValue(rewriter, loc, rhs, 1))
                : OpFoldResult(rewriter.getIndexAttr(resultType.getDimSize(r - 1))));
        product = tensor::ExpandShapeOp::create(
            rewriter, loc, resultType, product,
            ArrayRef<ReassociationIndices>{front, {r - 1}}, outputShape);
      }
      rewriter.replaceOp(op, product);
      return success();
    }
    // Both batched alike over several dims, [B1, B2, M, K] x [B1, B2, K, N]
    // (attention's heads): the batch dims collapse into one, so the product
    // is a batch_matmul (vectorized) rather than a generic contraction.
    // i8 x i8 -> i32 batched products take the generic contraction below:
    // the vectorized batch_matmul does not lower mixed integer types.
    bool mixed = element != lhsType.getElementType();
    if (!mixed && lhsType.getRank() > 3 &&
        lhsType.getRank() == rhsType.getRank() &&
        lhsType.getShape().drop_back(2) == rhsType.getShape().drop_back(2)) {
      int64_t r = lhsType.getRank();
      ReassociationIndices batch;
      for (int64_t d = 0; d < r - 2; ++d)
        batch.push_back(d);
      SmallVector<ReassociationIndices> groups = {batch, {r - 2}, {r - 1}};
      readSixteenBitSources(lhs, rhs, tensorCoreProducts, /*batched=*/true);
      Value lhs3 = tensor::CollapseShapeOp::create(rewriter, loc, lhs, groups);
      Value rhs3 = tensor::CollapseShapeOp::create(rewriter, loc, rhs, groups);
      Value product = batchMatmul(rewriter, loc, lhs3, rhs3, element);
      SmallVector<OpFoldResult> outputShape;
      for (int64_t d = 0; d < r; ++d) {
        Value from = d == r - 1 ? rhs : lhs;
        if (resultType.isDynamicDim(d))
          outputShape.push_back(dimValue(rewriter, loc, from, d));
        else
          outputShape.push_back(rewriter.getIndexAttr(resultType.getDimSize(d)));
      }
      rewriter.replaceOp(op, tensor::ExpandShapeOp::create(
                                 rewriter, loc, resultType, product, groups,
                                 outputShape));
      return success();
    }
    // Both operands batched alike, [B, M, K] x [B, K, N]: linalg's own
    // batch_matmul, which the CPU pipeline vectorizes like a matmul.
    if (!mixed && lhsType.getRank() == 3 && rhsType.getRank() == 3 &&
        lhsType.getDimSize(0) == rhsType.getDimSize(0) &&
        (lhsType.getDimSize(0) != 1 || rhsType.getDimSize(0) == 1)) {
      readSixteenBitSources(lhs, rhs, tensorCoreProducts, /*batched=*/true);
      Value product = batchMatmul(rewriter, loc, lhs, rhs, element);
      // The result type may know a dim the operands leave dynamic.
      if (product.getType() != resultType)
        product = tensor::CastOp::create(rewriter, loc, resultType, product);
      rewriter.replaceOp(op, product);
      return success();
    }
    // General batched product: one generic contraction with broadcasting
    // batch dims. Loops: batch..., m, n, k.
    int64_t rank = resultType.getRank();
    int64_t batchRank = rank - 2;
    MLIRContext *ctx = rewriter.getContext();
    auto operandMap = [&](RankedTensorType type, bool isLhs) {
      SmallVector<AffineExpr> exprs;
      int64_t opBatch = type.getRank() - 2;
      for (int64_t od = 0; od < opBatch; ++od) {
        int64_t d = od + (batchRank - opBatch);
        bool stretched =
            type.getDimSize(od) == 1 && resultType.getDimSize(d) != 1;
        exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(d, ctx));
      }
      AffineExpr m = getAffineDimExpr(batchRank, ctx);
      AffineExpr n = getAffineDimExpr(batchRank + 1, ctx);
      AffineExpr k = getAffineDimExpr(batchRank + 2, ctx);
      if (isLhs) {
        exprs.push_back(m);
        exprs.push_back(k);
      } else {
        exprs.push_back(k);
        exprs.push_back(n);
      }
      return AffineMap::get(rank + 1, 0, exprs, ctx);
    };
    SmallVector<AffineMap> maps = {
        operandMap(lhsType, true), operandMap(rhsType, false),
        AffineMap::get(rank + 1, 0,
                       AffineMap::getMultiDimIdentityMap(rank, ctx)
                           .getResults(),
                       ctx)};
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rank; ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      if (d == rank - 2) {
        dyn.push_back(dimValue(rewriter, loc, lhs, lhsType.getRank() - 2));
      } else if (d == rank - 1) {
        dyn.push_back(dimValue(rewriter, loc, rhs, rhsType.getRank() - 1));
      } else {
        Value size;
        for (auto [v, t] : {std::pair{lhs, lhsType}, std::pair{rhs, rhsType}}) {
          int64_t od = d - (batchRank - (t.getRank() - 2));
          if (od >= 0 && t.isDynamicDim(od)) {
            size = dimValue(rewriter, loc, v, od);
            break;
          }
        }
        dyn.push_back(size);
      }
    }
    Value acc = filledTensor(rewriter, loc, resultType, dyn, zeroAttr(element));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{lhs, rhs},
        ValueRange{acc}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l,
                                  multiplyAdd(b, l, args[0], args[1], args[2]));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// conv2d and pooling
//===----------------------------------------------------------------------===//

/// The output extent of a sliding window along dim `d` of `input` as an
/// index value: (size + padBefore + padAfter - span) / stride + 1.
Value windowExtent(OpBuilder &b, Location loc, Value input, int64_t d,
                   int64_t padBefore, int64_t padAfter, int64_t window,
                   int64_t stride, int64_t dilation) {
  Value size = dimValue(b, loc, input, d);
  int64_t offset = padBefore + padAfter - dilation * (window - 1) - 1;
  Value shifted = arith::AddIOp::create(
      b, loc, size, arith::ConstantIndexOp::create(b, loc, offset));
  Value steps = arith::DivSIOp::create(
      b, loc, shifted, arith::ConstantIndexOp::create(b, loc, stride));
  return arith::AddIOp::create(b, loc, steps,
                               arith::ConstantIndexOp::create(b, loc, 1));
}

/// The dynamic sizes of an NHWC window op's result: N from the input, OH and
/// OW from the window formula, C from `channelsFrom` dim 3 when dynamic.
SmallVector<Value> windowResultSizes(OpBuilder &b, Location loc, Value input,
                                     RankedTensorType resultType,
                                     ArrayRef<int64_t> window,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> padding,
                                     ArrayRef<int64_t> dilations) {
  SmallVector<Value> dyn;
  if (resultType.isDynamicDim(0))
    dyn.push_back(dimValue(b, loc, input, 0));
  for (int64_t i = 0; i < 2; ++i)
    if (resultType.isDynamicDim(1 + i))
      dyn.push_back(windowExtent(b, loc, input, 1 + i, padding[2 * i],
                                 padding[2 * i + 1], window[i], strides[i],
                                 dilations[i]));
  if (resultType.isDynamicDim(3))
    dyn.push_back(dimValue(b, loc, input, 3));
  return dyn;
}

/// Pads the H and W dims of an NHWC tensor with `value`: the padded
/// tensor's border strips are filled and the input is copied into the rest.
/// (A tensor.pad fills the whole tensor before the copy overwrites most of
/// it: ResNet-50's max pool filled 3.3 MB, a fifth of a millisecond, to
/// pad 112x112 by one pixel.)
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> padding, TypedAttr value) {
  if (llvm::all_of(padding, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  SmallVector<int64_t> low = {0, padding[0], padding[2], 0};
  SmallVector<int64_t> high = {0, padding[1], padding[3], 0};
  auto plus = [&](OpFoldResult extent, int64_t amount) -> OpFoldResult {
    if (std::optional<int64_t> known = getConstantIntValue(extent))
      return b.getIndexAttr(*known + amount);
    return arith::AddIOp::create(b, loc, cast<Value>(extent),
                                 arith::ConstantIndexOp::create(b, loc, amount))
        .getResult();
  };
  SmallVector<OpFoldResult> paddedSizes(sizes);
  for (int d = 1; d <= 2; ++d)
    paddedSizes[d] = plus(sizes[d], low[d] + high[d]);
  Value padValue = arith::ConstantOp::create(b, loc, value);
  Value padded =
      tensor::EmptyOp::create(b, loc, paddedSizes, type.getElementType());
  SmallVector<OpFoldResult> unitStrides(4, b.getIndexAttr(1));
  // One strip: a filled tensor inserted at `offsets`.
  auto fillStrip = [&](ArrayRef<OpFoldResult> offsets,
                       ArrayRef<OpFoldResult> stripSizes) {
    Value strip =
        tensor::EmptyOp::create(b, loc, stripSizes, type.getElementType());
    Value filled = linalg::FillOp::create(b, loc, padValue, strip).getResult(0);
    padded = tensor::InsertSliceOp::create(b, loc, filled, padded, offsets,
                                           stripSizes, unitStrides);
  };
  OpFoldResult zero = b.getIndexAttr(0);
  // Whole padded rows above and below the input, then the padded columns
  // beside each of its rows.
  if (low[1] > 0)
    fillStrip({zero, zero, zero, zero},
              {sizes[0], b.getIndexAttr(low[1]), paddedSizes[2], sizes[3]});
  if (high[1] > 0)
    fillStrip({zero, plus(sizes[1], low[1]), zero, zero},
              {sizes[0], b.getIndexAttr(high[1]), paddedSizes[2], sizes[3]});
  if (low[2] > 0)
    fillStrip({zero, b.getIndexAttr(low[1]), zero, zero},
              {sizes[0], sizes[1], b.getIndexAttr(low[2]), sizes[3]});
  if (high[2] > 0)
    fillStrip({zero, b.getIndexAttr(low[1]), plus(sizes[2], low[2]), zero},
              {sizes[0], sizes[1], b.getIndexAttr(high[2]), sizes[3]});
  return tensor::InsertSliceOp::create(
      b, loc, input, padded,
      ArrayRef<OpFoldResult>{zero, b.getIndexAttr(low[1]),
                             b.getIndexAttr(low[2]), zero},
      sizes, unitStrides);
}

/// The sizes of NHWC `resultType` as fold results, dynamic ones from `dyn`
/// (in order, as windowResultSizes gives them).
SmallVector<OpFoldResult> mixedSizes(OpBuilder &b, RankedTensorType type,
                                     ArrayRef<Value> dyn) {
  SmallVector<OpFoldResult> sizes;
  size_t next = 0;
  for (int64_t s : type.getShape())
    sizes.push_back(ShapedType::isDynamic(s) ? OpFoldResult(dyn[next++])
                                             : OpFoldResult(b.getIndexAttr(s)));
  return sizes;
}

/// How a conv2d is lowered (docs/architecture.md, "Lowering choices").
enum class ConvStrategy {
  /// 1x1, stride 1, no padding: the input viewed as [N*H*W, C] times the
  /// filter as [C, F], one linalg.matmul and no copy.
  Pointwise,
  /// Every other single-group conv: the windows copied
  /// into rows of [N*OH*OW, KH*KW*C] (im2col), then one linalg.matmul.
  Im2col,
  /// Several groups: one generic contraction.
  Generic,
};

ConvStrategy chooseConvStrategy(Conv2DOp op) {
  auto filterType = op.getFilter().getType();
  if (op.getGroups() != 1 || !filterType.hasStaticShape())
    return ConvStrategy::Generic;
  auto isOne = [](int64_t v) { return v == 1; };
  if (filterType.getDimSize(0) == 1 && filterType.getDimSize(1) == 1 &&
      llvm::all_of(op.getStrides(), isOne) &&
      llvm::all_of(op.getPadding(), [](int64_t p) { return p == 0; }))
    return ConvStrategy::Pointwise;
  return ConvStrategy::Im2col;
}

/// `rows` ([N*OH*OW, KH*KW*C], row-major over (n, oh, ow) and (kh, kw, c))
/// times `filter` (the conv's, or the bf16 value it widens) viewed as
/// [KH*KW*C, F], reshaped to the conv's result.
Value convRowsTimesFilter(OpBuilder &b, Location loc, Conv2DOp op, Value rows,
                          Value filter, ArrayRef<Value> resultDyn) {
  auto resultType = op.getType();
  Type element = resultType.getElementType();
  filter = tensor::CollapseShapeOp::create(
      b, loc, filter, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  auto rowsType = cast<RankedTensorType>(rows.getType());
  auto productType = RankedTensorType::get(
      {rowsType.getDimSize(0), resultType.getDimSize(3)}, element);
  SmallVector<Value> dyn;
  if (productType.isDynamicDim(0))
    dyn.push_back(dimValue(b, loc, rows, 0));
  Value acc = filledTensor(b, loc, productType, dyn, zeroAttr(element));
  Value product = matmul2D(b, loc, rows, filter, acc);
  return tensor::ExpandShapeOp::create(
      b, loc, resultType, product,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}},
      mixedSizes(b, resultType, resultDyn));
}

/// Pointwise strategy: every output pixel is a row of the input.
Value lowerPointwiseConv(OpBuilder &b, Location loc, Conv2DOp op, Value input,
                         Value filter, ArrayRef<Value> resultDyn) {
  Value rows = tensor::CollapseShapeOp::create(
      b, loc, input, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  return convRowsTimesFilter(b, loc, op, rows, filter, resultDyn);
}

/// Im2col strategy: patches[n, oh, ow, kh, kw, c] = xpad[n, oh*sh + kh*dh,
/// ow*sw + kw*dw, c], one copy generic whose innermost loop walks the
/// channels. Without width dilation a window row's KW*C values are
/// consecutive in the padded input, so W and C are collapsed and (kw, c) is
/// one loop of KW*C: the 7x7 stem's 3 channels copy 21 values at a time.
Value lowerIm2colConv(OpBuilder &b, Location loc, Conv2DOp op, Value input,
                      Value filter, ArrayRef<Value> resultDyn) {
  MLIRContext *ctx = b.getContext();
  auto resultType = op.getType();
  // The input's type: an int8 conv copies i8 windows (its result is i32),
  // a conv of widened bf16 values bf16 ones (its result is f32).
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  auto filterType = op.getFilter().getType();
  int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1);
  int64_t c = filterType.getDimSize(2);
  ArrayRef<int64_t> s = op.getStrides(), dil = op.getDilations();
  Value padded = padSpatial(b, loc, input, op.getPadding(), zeroAttr(element));
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  bool mergeRow = dil[1] == 1;
  SmallVector<int64_t> patchShape = {resultType.getDimSize(0),
                                     resultType.getDimSize(1),
                                     resultType.getDimSize(2), kh};
  AffineMap inputMap;
  Value source = padded;
  if (mergeRow) {
    // Loops: n, oh, ow, kh, j (j = kw * C + c).
    patchShape.push_back(kw * c);
    source = tensor::CollapseShapeOp::create(
        b, loc, padded, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    inputMap = AffineMap::get(
        5, 0, {d(0), d(1) * s[0] + d(3) * dil[0], d(2) * (s[1] * c) + d(4)},
        ctx);
  } else {
    // Loops: n, oh, ow, kh, kw, c.
    patchShape.append({kw, c});
    inputMap = AffineMap::get(6, 0,
                              {d(0), d(1) * s[0] + d(3) * dil[0],
                               d(2) * s[1] + d(4) * dil[1], d(5)},
                              ctx);
  }
  unsigned loops = patchShape.size();
  auto patchType = RankedTensorType::get(patchShape, element);
  // N, OH, OW are the result's; the window dims are static.
  Value init = emptyTensor(b, loc, patchType, resultDyn);
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      b, loc, TypeRange{patchType}, ValueRange{source}, ValueRange{init},
      ArrayRef<AffineMap>{inputMap, b.getMultiDimIdentityMap(loops)},
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, args[0]);
      });
  ReassociationIndices window;
  for (unsigned i = 3; i < loops; ++i)
    window.push_back(i);
  Value rows = tensor::CollapseShapeOp::create(
      b, loc, copy.getResult(0),
      ArrayRef<ReassociationIndices>{{0, 1, 2}, window});
  return convRowsTimesFilter(b, loc, op, rows, filter, resultDyn);
}

/// Generic strategy: pad, split channels into (group, channel-in-group) so
/// that every map is a plain projection (input [N,H,W,G,Cg], filter
/// [KH,KW,Cg,G,Fg]) and contract in one generic.
Value lowerGenericConv(OpBuilder &b, Location loc, Conv2DOp op, Value input,
                       ArrayRef<Value> resultDyn) {
  MLIRContext *ctx = b.getContext();
  auto resultType = op.getType();
  // Input and filter of `element`, the sums of `resultElement` (i32 for i8).
  Type element = op.getInput().getType().getElementType();
  Type resultElement = resultType.getElementType();
  int64_t groups = op.getGroups();
  input = padSpatial(b, loc, input, op.getPadding(), zeroAttr(element));
  auto inType = cast<RankedTensorType>(input.getType());
  auto filterType = op.getFilter().getType();
  int64_t cg = filterType.getDimSize(2);
  int64_t f = filterType.getDimSize(3);
  int64_t fg = f / groups;
  SmallVector<OpFoldResult> inShape;
  for (int64_t d = 0; d < 3; ++d)
    inShape.push_back(inType.isDynamicDim(d)
                          ? OpFoldResult(dimValue(b, loc, input, d))
                          : OpFoldResult(b.getIndexAttr(inType.getDimSize(d))));
  inShape.push_back(b.getIndexAttr(groups));
  inShape.push_back(b.getIndexAttr(cg));
  auto groupedInType = RankedTensorType::get(
      {inType.getDimSize(0), inType.getDimSize(1), inType.getDimSize(2),
       groups, cg},
      element);
  Value groupedIn = tensor::ExpandShapeOp::create(
      b, loc, groupedInType, input,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}}, inShape);
  auto groupedFilterType = RankedTensorType::get(
      {filterType.getDimSize(0), filterType.getDimSize(1), cg, groups, fg},
      element);
  SmallVector<OpFoldResult> filterShape;
  for (int64_t s : groupedFilterType.getShape())
    filterShape.push_back(b.getIndexAttr(s));
  Value groupedFilter = tensor::ExpandShapeOp::create(
      b, loc, groupedFilterType, op.getFilter(),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}}, filterShape);
  auto groupedOutType = RankedTensorType::get(
      {resultType.getDimSize(0), resultType.getDimSize(1),
       resultType.getDimSize(2), groups, fg},
      resultElement);
  Value acc = filledTensor(b, loc, groupedOutType, resultDyn,
                           zeroAttr(resultElement));
  // Loops: n, oh, ow, g, f, kh, kw, c.
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  ArrayRef<int64_t> s = op.getStrides(), dil = op.getDilations();
  SmallVector<AffineMap> maps = {
      AffineMap::get(8, 0,
                     {d(0), d(1) * s[0] + d(5) * dil[0],
                      d(2) * s[1] + d(6) * dil[1], d(3), d(7)},
                     ctx),
      AffineMap::get(8, 0, {d(5), d(6), d(7), d(3), d(4)}, ctx),
      AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx)};
  SmallVector<utils::IteratorType> iterators(5,
                                             utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{groupedOutType}, ValueRange{groupedIn, groupedFilter},
      ValueRange{acc}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l,
                                multiplyAdd(nb, l, args[0], args[1], args[2]));
      });
  return tensor::CollapseShapeOp::create(
      b, loc, resultType, generic.getResult(0),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
}

struct Conv2DPattern : OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto filterType = op.getFilter().getType();
    SmallVector<int64_t> window = {filterType.getDimSize(0),
                                   filterType.getDimSize(1)};
    // The result's dynamic sizes (N, OH, OW; F is the filter's, static).
    SmallVector<Value> dyn = windowResultSizes(
        rewriter, loc, op.getInput(), op.getType(), window, op.getStrides(),
        op.getPadding(), op.getDilations());
    ConvStrategy strategy = chooseConvStrategy(op);
    // A single-group conv of two widened bf16 values (rlx-accumulate-in-f32's
    // form of a bf16 conv) copies and multiplies the bf16 values, summed in
    // f32 as a bf16 matmul is: its im2col rows take half the bytes and the
    // CPU's bf16 dot products apply (rlx-cpu-dot-product-matmul).
    Value input = op.getInput(), filter = op.getFilter();
    if (strategy != ConvStrategy::Generic) {
      Value inputSource = bf16Source(input), filterSource = bf16Source(filter);
      if (getElementTypeOrSelf(inputSource.getType()).isBF16() &&
          getElementTypeOrSelf(filterSource.getType()).isBF16()) {
        input = inputSource;
        filter = filterSource;
      }
    }
    // Dynamic input channels must be the filter's (C / groups x groups):
    // checked at run time, then static for every strategy.
    auto inType = cast<RankedTensorType>(input.getType());
    if (inType.isDynamicDim(3)) {
      int64_t c = filterType.getDimSize(2) * op.getGroups();
      Value ok = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq,
          dimValue(rewriter, loc, input, 3),
          arith::ConstantIndexOp::create(rewriter, loc, c));
      checkAtRunTime(rewriter, loc, ok,
                     "conv2d expects " + llvm::Twine(c) +
                         " input channels, as the filter has");
      SmallVector<int64_t> shape(inType.getShape());
      shape[3] = c;
      input = tensor::CastOp::create(rewriter, loc, inType.clone(shape), input);
    }
    Value result;
    switch (strategy) {
    case ConvStrategy::Pointwise:
      result = lowerPointwiseConv(rewriter, loc, op, input, filter, dyn);
      break;
    case ConvStrategy::Im2col:
      result = lowerIm2colConv(rewriter, loc, op, input, filter, dyn);
      break;
    case ConvStrategy::Generic:
      result = lowerGenericConv(rewriter, loc, op, input, dyn);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Max or sum over windows of NHWC; `isMax` picks the combiner.
Value buildPool(OpBuilder &b, Location loc, Value input,
                ArrayRef<int64_t> window, ArrayRef<int64_t> strides,
                ArrayRef<int64_t> padding, RankedTensorType resultType,
                bool isMax) {
  MLIRContext *ctx = b.getContext();
  Type element = resultType.getElementType();
  TypedAttr init = isMax ? lowestValue(element) : zeroAttr(element);
  Value padded = padSpatial(b, loc, input, padding, init);
  SmallVector<int64_t> ones = {1, 1};
  SmallVector<Value> dyn = windowResultSizes(b, loc, input, resultType, window,
                                             strides, padding, ones);
  Value acc = filledTensor(b, loc, resultType, dyn, init);
  // The window's extent is given by a shape-only operand.
  Value windowShape = tensor::EmptyOp::create(b, loc, window, element);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // Loops: n, oh, ow, kh, kw, c. The channels innermost, so that each
  // window tap is one vector operation over a pixel's consecutive channels
  // (with the taps innermost, every element was a scalar loop of its own).
  using utils::IteratorType;
  SmallVector<AffineMap> maps = {
      AffineMap::get(
          6, 0,
          {d(0), d(1) * strides[0] + d(3), d(2) * strides[1] + d(4), d(5)},
          ctx),
      AffineMap::get(6, 0, {d(3), d(4)}, ctx),
      AffineMap::get(6, 0, {d(0), d(1), d(2), d(5)}, ctx)};
  SmallVector<IteratorType> iterators = {
      IteratorType::parallel,  IteratorType::parallel,  IteratorType::parallel,
      IteratorType::reduction, IteratorType::reduction, IteratorType::parallel};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{padded, windowShape},
      ValueRange{acc}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = isMax ? Value(arith::MaximumFOp::create(nb, l, args[0], args[2]))
                        : Value(arith::AddFOp::create(nb, l, args[0], args[2]));
        linalg::YieldOp::create(nb, l, v);
      });
  return generic.getResult(0);
}

struct MaxPoolPattern : OpRewritePattern<MaxPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2DOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildPool(rewriter, op.getLoc(), op.getInput(),
                                     op.getWindow(), op.getStrides(),
                                     op.getPadding(), op.getType(), true));
    return success();
  }
};

struct AvgPoolPattern : OpRewritePattern<AvgPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value sum = buildPool(rewriter, loc, op.getInput(), op.getWindow(),
                          op.getStrides(), op.getPadding(), op.getType(), false);
    double count = static_cast<double>(op.getWindow()[0] * op.getWindow()[1]);
    Value result = buildElementwise(
        rewriter, loc, op.getType(), ValueRange{sum},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value c = scalarConstant(b, l, args[0].getType(), count);
          return arith::DivFOp::create(b, l, args[0], c);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions and softmax
//===----------------------------------------------------------------------===//

/// Re-inserts reduced dims as size 1 when `keepdims` asks for them.
Value keepDims(OpBuilder &b, Location loc, Value reduced,
               RankedTensorType resultType) {
  if (reduced.getType() == resultType)
    return reduced;
  return buildReshape(b, loc, reduced, resultType);
}

Value sumBody(OpBuilder &b, Location l, ValueRange a) {
  if (isFloatType(a[0].getType()))
    return arith::AddFOp::create(b, l, a[0], a[1]);
  return arith::AddIOp::create(b, l, a[0], a[1]);
}

Value maxBody(OpBuilder &b, Location l, ValueRange a) {
  if (isFloatType(a[0].getType()))
    return arith::MaximumFOp::create(b, l, a[0], a[1]);
  return arith::MaxSIOp::create(b, l, a[0], a[1]);
}

SmallVector<int64_t> sortedAxes(ArrayRef<int64_t> axes) {
  SmallVector<int64_t> sorted(axes);
  llvm::sort(sorted);
  return sorted;
}

struct SumPattern : OpRewritePattern<SumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SumOp op,
                                PatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    Value r = buildReduction(rewriter, op.getLoc(), op.getX(),
                             sortedAxes(op.getAxes()), zeroAttr(element),
                             sumBody);
    rewriter.replaceOp(op, keepDims(rewriter, op.getLoc(), r, op.getType()));
    return success();
  }
};

struct MaxPattern : OpRewritePattern<MaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxOp op,
                                PatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    Value r = buildReduction(rewriter, op.getLoc(), op.getX(),
                             sortedAxes(op.getAxes()), lowestValue(element),
                             maxBody);
    rewriter.replaceOp(op, keepDims(rewriter, op.getLoc(), r, op.getType()));
    return success();
  }
};

struct MeanPattern : OpRewritePattern<MeanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MeanOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = op.getType().getElementType();
    SmallVector<int64_t> axes = sortedAxes(op.getAxes());
    Value sum = buildReduction(rewriter, loc, op.getX(), axes,
                               zeroAttr(element), sumBody);
    // The divisor is the product of the reduced dims, dynamic ones included.
    Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t axis : axes)
      count = arith::MulIOp::create(rewriter, loc, count,
                                    dimValue(rewriter, loc, op.getX(), axis));
    Value countInt = arith::IndexCastOp::create(rewriter, loc,
                                                rewriter.getI64Type(), count);
    Value countFloat =
        arith::SIToFPOp::create(rewriter, loc, element, countInt);
    auto sumType = cast<RankedTensorType>(sum.getType());
    Value mean = buildElementwise(
        rewriter, loc, sumType, ValueRange{sum},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::DivFOp::create(b, l, args[0], countFloat);
        });
    rewriter.replaceOp(op, keepDims(rewriter, loc, mean, op.getType()));
    return success();
  }
};

/// softmax(x) = e / sum(e) and log_softmax(x) = (x - m) - log(sum(e)), with
/// m = max(x) and e = exp(x - m) along the axis.
template <typename OpTy, bool isLog>
struct SoftmaxPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    Type element = op.getType().getElementType();
    SmallVector<int64_t> axes = {static_cast<int64_t>(op.getAxis())};
    Value m = buildReduction(rewriter, loc, x, axes, lowestValue(element),
                             maxBody);
    Value shifted = buildWithReduced(
        rewriter, loc, x, m, axes, element,
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::SubFOp::create(b, l, a[0], a[1]);
        });
    Value e = buildElementwise(
        rewriter, loc, op.getType(), ValueRange{shifted},
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return math::ExpOp::create(b, l, a[0]);
        });
    Value s = buildReduction(rewriter, loc, e, axes, zeroAttr(element), sumBody);
    Value result;
    if (isLog) {
      result = buildWithReduced(
          rewriter, loc, shifted, s, axes, element,
          [](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::SubFOp::create(b, l, a[0],
                                         math::LogOp::create(b, l, a[1]));
          });
    } else {
      result = buildWithReduced(
          rewriter, loc, e, s, axes, element,
          [](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::DivFOp::create(b, l, a[0], a[1]);
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::rlx::populateStructuredToLinalgPatterns(RewritePatternSet &patterns,
                                                   bool tensorCoreProducts) {
  patterns.add<MatmulPattern>(patterns.getContext(), tensorCoreProducts);
  patterns.add<Conv2DPattern, MaxPoolPattern, AvgPoolPattern,
               SumPattern, MaxPattern, MeanPattern,
               SoftmaxPattern<SoftmaxOp, false>,
               SoftmaxPattern<LogSoftmaxOp, true>>(patterns.getContext());
}
