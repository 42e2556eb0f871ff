//===- ConvTapProducts.cpp - A padded conv as products per filter tap -----===//
///
/// \file
/// A KxK convolution reaches the CPU as the product of its im2col rows
/// (windows of the zero-padded input) by the filter. Near the border those
/// rows hold zeros, and the product multiplies them: 9% of a 3x3 conv's
/// multiply-adds at 14x14, 18% at 7x7 (ResNet-50's last stages), work that
/// oneDNN's direct convolution skips. Here, on tensors after fusion, such a
/// product becomes a sum of products per filter tap (kh, kw), each over
/// only the output pixels whose input pixel for that tap lies inside the
/// image: for one output row, a tap's pixels are a run of columns whose
/// input pixels are evenly strided in the unpadded input, so the tap's A is
/// a strided view of the input (no copy at all) and its B the filter's C
/// rows of that tap. The padded input and the im2col copy go.
///
/// Loops: column groups of the product (parallel: disjoint columns of the
/// output), then images, and either output rows, the kh valid for each,
/// and the KW taps of the row unrolled (each a static run of rows), where
/// a group's B for every tap fits in L2 (few channels, big images: each
/// output row's C tile stays in L1 through its taps); or kh, the output
/// rows valid for it, and the KW taps (many channels: only one filter
/// row's B, 3 x C x 64 floats, stays in L2 while every output row reads it).
///
/// Matched: an f32 linalg.matmul, or a product by a prepacked f32 weight
/// (`rlx.packed_rhs`), into a zero fill of a tensor.empty, whose A is an
/// im2col copy (Im2colRows.h) of an input zero-padded by padSpatial's
/// strips, with static image height, width and channels, a window read
/// whole along W (no width dilation), and at least `min-tap-depth` input
/// channels (a tap's K: shorter ones reload the C tile too often).
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Im2colRows.h"
#include "codegen/CPU/Passes.h"
#include "codegen/CPU/PrepackedProduct.h"
#include "dialects/RLX/IR/DotOperandLayout.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUCONVTAPPRODUCTS
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Columns per parallel group: two 32-column panels of the f32 kernel.
constexpr int64_t kGroupColumns = 64;

/// A conv's im2col product, in the terms the tap products need.
struct TapConv {
  linalg::LinalgOp product;
  linalg::FillOp fill;
  Im2colRows rows;
  /// The unpadded input [N, H, W, C] and where it sits in the padded one.
  Value input;
  int64_t height, width, channels, padTop, padLeft;
  /// Strides, height dilation and window size.
  int64_t strideH, strideW, dilationH, windowH, windowW;
  /// The output's height and width (static).
  int64_t outH, outW;
  int64_t columns;
};

/// The conv's images: the input's N, read where `b` builds (the input
/// dominates every use of the im2col rows, unlike sizes found beside them).
OpFoldResult imagesAt(OpBuilder &b, Location loc, const TapConv &conv) {
  auto type = cast<RankedTensorType>(conv.input.getType());
  if (!type.isDynamicDim(0))
    return b.getIndexAttr(type.getDimSize(0));
  return tensor::DimOp::create(b, loc, conv.input, 0).getResult();
}

/// The product's rows: images x output pixels per image.
OpFoldResult rowsAt(OpBuilder &b, Location loc, const TapConv &conv) {
  AffineExpr s0 = getAffineSymbolExpr(0, b.getContext());
  return affine::makeComposedFoldedAffineApply(
      b, loc, AffineMap::get(0, 1, s0 * (conv.outH * conv.outW)),
      {imagesAt(b, loc, conv)});
}

int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

/// Whether `v` is a tensor whose every element is zero: a linalg.fill of
/// a 0.0 constant.
bool isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getDpsInputs()[0], m_AnyZeroFloat());
}

/// The unpadded input behind `source` ([N, Hp, Wp * C], the collapse of a
/// padded [N, Hp, Wp, C]), with its offsets, if every element around it is
/// a zero: padSpatial's insert_slice of the input into strips of zero
/// fills inserted into a tensor.empty, each strip whole along N and C.
std::optional<std::tuple<Value, int64_t, int64_t>>
matchZeroPaddedInput(Value source) {
  auto collapse = source.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getReassociationIndices() !=
                       SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}})
    return std::nullopt;
  auto padded = cast<RankedTensorType>(collapse.getSrc().getType());
  if (padded.isDynamicDim(1) || padded.isDynamicDim(2) ||
      padded.isDynamicDim(3))
    return std::nullopt;
  int64_t hp = padded.getDimSize(1), wp = padded.getDimSize(2);
  // Which (h, w) of the padded image some insert covers.
  std::vector<bool> covered(hp * wp, false);
  auto cover = [&](tensor::InsertSliceOp insert) {
    ArrayRef<int64_t> offsets = insert.getStaticOffsets();
    ArrayRef<int64_t> sizes = insert.getStaticSizes();
    auto type = insert.getSourceType();
    if (ShapedType::isDynamic(offsets[1]) || ShapedType::isDynamic(offsets[2]) ||
        offsets[0] != 0 || offsets[3] != 0 || !insert.hasUnitStride() ||
        type.getRank() != 4 || type.isDynamicDim(1) || type.isDynamicDim(2) ||
        type.getDimSize(3) != padded.getDimSize(3) ||
        offsets[1] + sizes[1] > hp || offsets[2] + sizes[2] > wp)
      return false;
    // Whole along N: the padded tensor's N is the input's.
    for (int64_t h = offsets[1]; h < offsets[1] + sizes[1]; ++h)
      for (int64_t w = offsets[2]; w < offsets[2] + sizes[2]; ++w)
        covered[h * wp + w] = true;
    return true;
  };
  auto inputInsert = collapse.getSrc().getDefiningOp<tensor::InsertSliceOp>();
  if (!inputInsert || !cover(inputInsert))
    return std::nullopt;
  Value input = inputInsert.getSource();
  Value dest = inputInsert.getDest();
  while (auto strip = dest.getDefiningOp<tensor::InsertSliceOp>()) {
    if (!isZeroFill(strip.getSource()) || !cover(strip))
      return std::nullopt;
    dest = strip.getDest();
  }
  if (!dest.getDefiningOp<tensor::EmptyOp>() ||
      llvm::is_contained(covered, false))
    return std::nullopt;
  return std::make_tuple(input, inputInsert.getStaticOffsets()[1],
                         inputInsert.getStaticOffsets()[2]);
}

std::optional<TapConv> matchTapConv(linalg::LinalgOp product,
                                    int64_t minTapDepth) {
  auto named = dyn_cast<linalg::MatmulOp>(product.getOperation());
  if (named ? !named.hasPureTensorSemantics() || named.hasUserDefinedMaps()
            : !isPrepackedF32Product(cast<linalg::GenericOp>(product)))
    return std::nullopt;
  for (Value v : product->getOperands())
    if (!cast<RankedTensorType>(v.getType()).getElementType().isF32())
      return std::nullopt;
  auto fill = product.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !fill->hasOneUse() || !isZeroFill(fill.getResult(0)) ||
      !fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return std::nullopt;
  std::optional<Im2colRows> rows = matchIm2colRows(product.getDpsInputs()[0]);
  if (!rows)
    return std::nullopt;
  auto padded = matchZeroPaddedInput(rows->source);
  if (!padded)
    return std::nullopt;
  auto [input, padTop, padLeft] = *padded;
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType.getRank() != 4 || inputType.isDynamicDim(1) ||
      inputType.isDynamicDim(2) || inputType.isDynamicDim(3))
    return std::nullopt;
  TapConv conv;
  conv.product = product;
  conv.fill = fill;
  conv.rows = *rows;
  conv.input = input;
  conv.height = inputType.getDimSize(1);
  conv.width = inputType.getDimSize(2);
  conv.channels = inputType.getDimSize(3);
  conv.padTop = padTop;
  conv.padLeft = padLeft;
  // rows[(n, oh, ow), (kh, j)] = padded[n, oh*sh + kh*dh, ow*sw*C + j].
  if (conv.channels < minTapDepth || rows->run % conv.channels != 0 ||
      rows->columnStep % conv.channels != 0)
    return std::nullopt;
  conv.strideH = rows->rowStep;
  conv.dilationH = rows->windowRowStep;
  conv.strideW = rows->columnStep / conv.channels;
  conv.windowH = rows->windowRows;
  conv.windowW = rows->run / conv.channels;
  SmallVector<OpFoldResult> pixels = im2colPixelSizes(*rows);
  std::optional<int64_t> outH = getConstantIntValue(pixels[1]);
  std::optional<int64_t> outW = getConstantIntValue(pixels[2]);
  if (!outH || !outW)
    return std::nullopt;
  conv.outH = *outH;
  conv.outW = *outW;
  auto productType = cast<RankedTensorType>(product->getResult(0).getType());
  if (productType.isDynamicDim(1))
    return std::nullopt;
  conv.columns = productType.getDimSize(1);
  // Only where a tap reads padding: otherwise the im2col product is the
  // same work in one long K.
  bool readsPadding = padTop > 0 || padLeft > 0 ||
                      (conv.outH - 1) * conv.strideH +
                              (conv.windowH - 1) * conv.dilationH >=
                          padTop + conv.height ||
                      (conv.outW - 1) * conv.strideW + conv.windowW - 1 >=
                          padLeft + conv.width;
  if (!readsPadding)
    return std::nullopt;
  return conv;
}

/// The output columns [lo, hi) whose input column for tap column `kw` lies
/// inside the image.
std::pair<int64_t, int64_t> validColumns(const TapConv &conv, int64_t kw) {
  int64_t lo = std::max<int64_t>(0, ceilDiv(conv.padLeft - kw, conv.strideW));
  int64_t hi = std::min<int64_t>(
      conv.outW,
      floorDiv(conv.width - 1 + conv.padLeft - kw, conv.strideW) + 1);
  return {lo, std::max(lo, hi)};
}

/// `rowOuterBytes`: the most bytes of B (a column group's filter, every
/// tap) for which the output rows are the outer loop; by default under
/// half of a 1 MiB L2, the rest for the input rows and C tiles.
void rewrite(RewriterBase &rewriter, const TapConv &conv,
             int64_t rowOuterBytes) {
  linalg::LinalgOp product = conv.product;
  Location loc = product.getLoc();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(product);
  Value rhs = product.getDpsInputs()[1];
  bool packed = !isa<linalg::MatmulOp>(product);
  int64_t panelColumns =
      packed ? dot_layout::packedPanelColumns(
                   cast<RankedTensorType>(rhs.getType()))
             : 1;
  // Column groups the threads take: whole panels; one group where the
  // columns do not split evenly.
  int64_t groupColumns = conv.columns;
  for (int64_t width : {kGroupColumns, kGroupColumns / 2})
    if (conv.columns % width == 0 && conv.columns > width &&
        width % panelColumns == 0) {
      groupColumns = width;
      break;
    }
  int64_t groups = conv.columns / groupColumns;
  // Where a group's B for every tap fits in L2 beside a few input rows,
  // each output row takes all its taps in turn, its C tile staying in L1
  // and each input row read while hot for the next output rows; the big
  // images with few channels (56x56x64 at batch 8: 0.82x oneDNN with
  // filter rows outside, the group's accumulator and the input streamed
  // from L3 for every filter row) want that. Otherwise (many channels, few
  // rows) the filter row is outside and only its taps' B stay in L2.
  bool rowOuter = conv.windowH * conv.windowW * conv.channels * groupColumns *
                      int64_t(sizeof(float)) <=
                  rowOuterBytes;
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto toValue = [&](OpBuilder &b, OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(b, loc, v);
  };
  OpFoldResult images = imagesAt(rewriter, loc, conv);
  OpFoldResult rows = rowsAt(rewriter, loc, conv);
  Value output = tensor::EmptyOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rows, rewriter.getIndexAttr(conv.columns)},
      rewriter.getF32Type());
  Value zero = linalg::FillOp(conv.fill).getDpsInputs()[0];
  OpFoldResult zeroAttr = rewriter.getIndexAttr(0),
               oneAttr = rewriter.getIndexAttr(1);
  int64_t c = conv.channels;
  int64_t depth = conv.windowH * conv.windowW * c;

  auto groupLoop = scf::ForOp::create(
      rewriter, loc, index(rewriter, 0), index(rewriter, groups),
      index(rewriter, 1), ValueRange{output},
      [&](OpBuilder &b, Location loc, Value g, ValueRange groupArgs) {
        Value column = arith::MulIOp::create(b, loc, g,
                                             index(b, groupColumns));
        SmallVector<OpFoldResult> groupOffsets = {zeroAttr, column};
        SmallVector<OpFoldResult> groupSizes = {
            rows, b.getIndexAttr(groupColumns)};
        SmallVector<OpFoldResult> unit2 = {oneAttr, oneAttr};
        Value groupOut = tensor::ExtractSliceOp::create(
            b, loc, groupArgs[0], groupOffsets, groupSizes, unit2);
        Value acc =
            linalg::FillOp::create(b, loc, zero, groupOut).getResult(0);
        // The group's B: its panels, or its columns of the filter matrix.
        auto tapRhs = [&](OpBuilder &nb, Value kh, int64_t kw) -> Value {
          Value tap = affine::AffineApplyOp::create(
              nb, loc,
              AffineMap::get(1, 0,
                             getAffineDimExpr(0, context) * (conv.windowW * c) +
                                 kw * c),
              ValueRange{kh});
          if (packed) {
            Value panel = arith::DivUIOp::create(nb, loc, column,
                                                 index(nb, panelColumns));
            return tensor::ExtractSliceOp::create(
                nb, loc, rhs,
                ArrayRef<OpFoldResult>{panel, tap, zeroAttr},
                ArrayRef<OpFoldResult>{
                    nb.getIndexAttr(groupColumns / panelColumns),
                    nb.getIndexAttr(c), nb.getIndexAttr(panelColumns)},
                ArrayRef<OpFoldResult>{oneAttr, oneAttr, oneAttr});
          }
          return tensor::ExtractSliceOp::create(
              nb, loc, rhs, ArrayRef<OpFoldResult>{tap, column},
              ArrayRef<OpFoldResult>{nb.getIndexAttr(c),
                                     nb.getIndexAttr(groupColumns)},
              unit2);
        };
        AffineExpr d0 = getAffineDimExpr(0, context),
                   d1 = getAffineDimExpr(1, context);
        // The KW taps of output row `oh` for filter row `kh`, added into
        // `acc`: each a run of the row's pixels times the tap's B.
        auto addRowTaps = [&](OpBuilder &b, Location loc, Value n, Value oh,
                              Value kh, Value acc) -> Value {
          Value inRow = affine::AffineApplyOp::create(
              b, loc,
              AffineMap::get(2, 0,
                             d0 * conv.strideH + d1 * conv.dilationH -
                                 conv.padTop),
              ValueRange{oh, kh});
          for (int64_t kw = 0; kw < conv.windowW; ++kw) {
            auto [owLo, owHi] = validColumns(conv, kw);
            int64_t runRows = owHi - owLo;
            if (runRows == 0)
              continue;
            // A: the run's input pixels, strided by sw.
            auto aType = RankedTensorType::get({runRows, c}, b.getF32Type());
            Value a = tensor::ExtractSliceOp::create(
                b, loc, aType, conv.input,
                ArrayRef<OpFoldResult>{
                    n, inRow,
                    b.getIndexAttr(owLo * conv.strideW + kw - conv.padLeft),
                    zeroAttr},
                ArrayRef<OpFoldResult>{oneAttr, oneAttr,
                                       b.getIndexAttr(runRows),
                                       b.getIndexAttr(c)},
                ArrayRef<OpFoldResult>{oneAttr, oneAttr,
                                       b.getIndexAttr(conv.strideW), oneAttr});
            // C: the run's rows of the group's columns.
            Value row = affine::AffineApplyOp::create(
                b, loc,
                AffineMap::get(2, 0, (d0 * conv.outH + d1) * conv.outW + owLo),
                ValueRange{n, oh});
            SmallVector<OpFoldResult> offsets = {row, zeroAttr};
            SmallVector<OpFoldResult> sizes = {b.getIndexAttr(runRows),
                                               b.getIndexAttr(groupColumns)};
            Value cTile = tensor::ExtractSliceOp::create(b, loc, acc, offsets,
                                                         sizes, unit2);
            Value sum = mlir::clone(b, product, TypeRange{cTile.getType()},
                                    ValueRange{a, tapRhs(b, kh, kw), cTile})
                            ->getResult(0);
            acc = tensor::InsertSliceOp::create(b, loc, sum, acc, offsets,
                                                sizes, unit2);
          }
          return acc;
        };
        // A loop over [first, last) carrying one tensor.
        auto forRange = [&](OpBuilder &b, Location loc, Value first,
                            Value last, Value init,
                            function_ref<Value(OpBuilder &, Location, Value,
                                               Value)>
                                body) -> Value {
          return scf::ForOp::create(
                     b, loc, first, last, index(b, 1), ValueRange{init},
                     [&](OpBuilder &b, Location loc, Value iv,
                         ValueRange args) {
                       scf::YieldOp::create(b, loc, body(b, loc, iv, args[0]));
                     })
              .getResult(0);
        };
        // Output rows and filter rows, outer then inner in the order
        // rowOuter picks; the inner loop runs over the values for which
        // the input row oh*sh + kh*dh - pt lies in [0, H) given the outer
        // one's value (d0).
        int64_t outerCount = rowOuter ? conv.outH : conv.windowH;
        int64_t innerCount = rowOuter ? conv.windowH : conv.outH;
        int64_t outerScale = rowOuter ? conv.strideH : conv.dilationH;
        int64_t innerScale = rowOuter ? conv.dilationH : conv.strideH;
        AffineMap innerLo = AffineMap::get(
            1, 0,
            {getAffineConstantExpr(0, context),
             (conv.padTop - d0 * outerScale).ceilDiv(innerScale)},
            context);
        AffineMap innerHi = AffineMap::get(
            1, 0,
            {getAffineConstantExpr(innerCount, context),
             (conv.height - 1 + conv.padTop - d0 * outerScale)
                     .floorDiv(innerScale) +
                 1},
            context);
        Value result = forRange(
            b, loc, index(b, 0), toValue(b, images), acc,
            [&](OpBuilder &b, Location loc, Value n, Value acc) {
              return forRange(
                  b, loc, index(b, 0), index(b, outerCount), acc,
                  [&](OpBuilder &b, Location loc, Value outer, Value acc) {
                    Value first = affine::AffineMaxOp::create(
                        b, loc, innerLo, ValueRange{outer});
                    Value last = affine::AffineMinOp::create(
                        b, loc, innerHi, ValueRange{outer});
                    return forRange(
                        b, loc, first, last, acc,
                        [&](OpBuilder &b, Location loc, Value inner,
                            Value acc) {
                          Value oh = rowOuter ? outer : inner;
                          Value kh = rowOuter ? inner : outer;
                          return addRowTaps(b, loc, n, oh, kh, acc);
                        });
                  });
            });
        Value done = tensor::InsertSliceOp::create(
            b, loc, result, groupArgs[0], groupOffsets,
            groupSizes, unit2);
        scf::YieldOp::create(b, loc, done);
      });
  // The groups write disjoint columns: rlx-cpu-parallelize may fork them.
  groupLoop->setAttr("rlx.parallel", rewriter.getUnitAttr());

  // Sizes taken of the im2col rows, from what they equal; then the rows,
  // the copy and the fill go.
  Value lhs = product.getDpsInputs()[0];
  for (Operation *user : llvm::make_early_inc_range(lhs.getUsers())) {
    auto dim = dyn_cast<tensor::DimOp>(user);
    if (!dim)
      continue;
    std::optional<int64_t> d = dim.getConstantIndex();
    if (!d)
      continue;
    rewriter.setInsertionPoint(dim);
    rewriter.replaceOp(dim, *d == 0 ? toValue(rewriter,
                                              rowsAt(rewriter, loc, conv))
                                    : index(rewriter, depth));
  }
  rewriter.replaceOp(product, groupLoop.getResult(0));
  rewriter.eraseOp(linalg::FillOp(conv.fill));
  if (lhs.use_empty()) {
    rewriter.eraseOp(lhs.getDefiningOp());
    if (conv.rows.copy->use_empty())
      rewriter.eraseOp(conv.rows.copy);
  }
}

struct RLXCPUConvTapProductsPass
    : mlir::rlx::impl::RLXCPUConvTapProductsBase<RLXCPUConvTapProductsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<TapConv> convs;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::GenericOp>(op))
        return;
      if (std::optional<TapConv> conv = matchTapConv(op, minTapDepth))
        convs.push_back(*conv);
    });
    IRRewriter rewriter(&getContext());
    for (const TapConv &conv : convs)
      rewrite(rewriter, conv, rowOuterBytes);
  }
};

} // namespace
