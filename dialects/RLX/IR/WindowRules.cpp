//===- WindowRules.cpp - Derivatives of conv2d and pooling ----------------===//
///
/// \file
/// The VJPs of conv2d and pooling, and the JVP of max pooling, built from
/// rlx ops only (pad, slice, matmul, compare, select), so that derivatives
/// of derivatives still have rules. A window op is unrolled over its
/// (static, small) window offsets: for offset (kh, kw) the strided slice of
/// the padded input that the offset reads pairs with the whole output.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::ad;

namespace {

/// The geometry of a 2-D window op over NHWC.
struct Window {
  int64_t kh, kw, sh, sw, dh, dw;
  ArrayRef<int64_t> padding; // top, bottom, left, right
  int64_t oh, ow;            // output extent
  int64_t hp, wp;            // padded input extent
};

Value padNHWC(RuleBuilder b, Value x, ArrayRef<int64_t> low,
              ArrayRef<int64_t> high, ArrayRef<int64_t> interior,
              Value padValue) {
  return PadOp::create(b.b, b.loc, x, padValue,
                       b.b.getDenseI64ArrayAttr(low),
                       b.b.getDenseI64ArrayAttr(high),
                       b.b.getDenseI64ArrayAttr(interior));
}

/// Slice of NHWC `x` on dims H, W (start, limit, stride) and channels
/// [c0, c1); N whole.
Value sliceNHWC(RuleBuilder b, Value x, int64_t h0, int64_t h1, int64_t hs,
                int64_t w0, int64_t w1, int64_t ws, int64_t c0, int64_t c1) {
  RankedTensorType type = tensorType(x);
  SmallVector<int64_t> start = {0, h0, w0, c0}, limit = {-1, h1, w1, c1},
                       strides = {1, hs, ws, 1};
  if (!type.isDynamicDim(0))
    limit[0] = type.getDimSize(0);
  return SliceOp::create(b.b, b.loc, x,
                         b.b.getDenseI64ArrayAttr(start),
                         b.b.getDenseI64ArrayAttr(limit),
                         b.b.getDenseI64ArrayAttr(strides));
}

/// The strided slice of the padded input read by window offset (i, j).
Value windowSlice(RuleBuilder b, Value xp, const Window &w, int64_t i,
                  int64_t j, int64_t c0, int64_t c1) {
  int64_t h0 = i * w.dh, w0 = j * w.dw;
  return sliceNHWC(b, xp, h0, h0 + (w.oh - 1) * w.sh + 1, w.sh, w0,
                   w0 + (w.ow - 1) * w.sw + 1, w.sw, c0, c1);
}

/// Scatters an output-shaped `v` back to the padded input positions that
/// window offset (i, j) reads: the adjoint of windowSlice (zeros elsewhere).
Value scatterToPadded(RuleBuilder b, Value v, const Window &w, int64_t i,
                      int64_t j) {
  int64_t h0 = i * w.dh, w0 = j * w.dw;
  int64_t spanH = (w.oh - 1) * w.sh + 1, spanW = (w.ow - 1) * w.sw + 1;
  SmallVector<int64_t> low = {0, h0, w0, 0};
  SmallVector<int64_t> high = {0, w.hp - h0 - spanH, w.wp - w0 - spanW, 0};
  SmallVector<int64_t> interior = {0, w.sh - 1, w.sw - 1, 0};
  return padNHWC(b, v, low, high, interior, scalarLike(b, v, 0));
}

/// Crops the padding off a padded-input-shaped adjoint.
Value cropPadding(RuleBuilder b, Value gp, const Window &w, int64_t h,
                  int64_t wd, int64_t c) {
  return sliceNHWC(b, gp, w.padding[0], w.padding[0] + h, 1, w.padding[2],
                   w.padding[2] + wd, 1, 0, c);
}

FailureOr<Window> windowOf(Operation *op, RankedTensorType input,
                           RankedTensorType result, int64_t kh, int64_t kw,
                           ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations,
                           ArrayRef<int64_t> padding) {
  if (input.isDynamicDim(1) || input.isDynamicDim(2) || input.isDynamicDim(3))
    return op->emitOpError("has no derivative rule for dynamic H, W or C");
  Window w{kh, kw, strides[0], strides[1], dilations[0], dilations[1],
           padding, result.getDimSize(1), result.getDimSize(2),
           input.getDimSize(1) + padding[0] + padding[1],
           input.getDimSize(2) + padding[2] + padding[3]};
  return w;
}

/// The window of a pooling op (dilation 1).
template <typename PoolOp>
FailureOr<Window> poolWindow(PoolOp op) {
  ArrayRef<int64_t> win = op.getWindow();
  SmallVector<int64_t> ones = {1, 1};
  return windowOf(op, op.getInput().getType(), op.getType(), win[0], win[1],
                  op.getStrides(), ones, op.getPadding());
}

/// [rows..., k] → [prod rows, k] (one dynamic dim at most).
Value flattenRows(RuleBuilder b, Value x) {
  RankedTensorType type = tensorType(x);
  int64_t rows = 1;
  for (int64_t s : type.getShape().drop_back())
    rows = ShapedType::isDynamic(s) || ShapedType::isDynamic(rows)
               ? ShapedType::kDynamic
               : rows * s;
  return reshapeTo(b, x, type.clone({rows, type.getShape().back()}));
}

Value concatAlong(RuleBuilder b, ArrayRef<Value> parts, int64_t axis) {
  if (parts.size() == 1)
    return parts.front();
  return ConcatOp::create(b.b, b.loc, parts,
                          b.b.getI64IntegerAttr(axis));
}

} // namespace

LogicalResult Conv2DOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &) {
  // An int8 conv has no derivative: no adjoints.
  if (!isa<FloatType>(getType().getElementType())) {
    out.append(getOperation()->getNumOperands(), Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  auto inType = getInput().getType();
  auto filterType = getFilter().getType();
  int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1);
  int64_t cg = filterType.getDimSize(2), f = filterType.getDimSize(3);
  int64_t groups = getGroups(), fg = f / groups;
  FailureOr<Window> window = windowOf(*this, inType, getType(), kh, kw,
                                      getStrides(), getDilations(),
                                      getPadding());
  if (failed(window))
    return failure();
  const Window &w = *window;
  Value g = adj[0];
  Value zero = scalarLike(b, g, 0);
  Value xp = padNHWC(b, getInput(), {0, getPadding()[0], getPadding()[2], 0},
                     {0, getPadding()[1], getPadding()[3], 0}, {0, 0, 0, 0},
                     zero);
  SmallVector<Value> inputGrads, filterGrads;
  for (int64_t gi = 0; gi < groups; ++gi) {
    Value gg = sliceNHWC(b, g, 0, w.oh, 1, 0, w.ow, 1, gi * fg, (gi + 1) * fg);
    Value gpGroup;
    SmallVector<Value> rows;
    for (int64_t i = 0; i < kh; ++i) {
      SmallVector<Value> cols;
      for (int64_t j = 0; j < kw; ++j) {
        // w[i, j, :, group] as a [Cg, Fg] matrix.
        auto wkType = filterType.clone({1, 1, cg, fg});
        Value wk = SliceOp::create(
            b.b, b.loc, wkType, getFilter(),
            b.b.getDenseI64ArrayAttr({i, j, 0, gi * fg}),
            b.b.getDenseI64ArrayAttr({i + 1, j + 1, cg, (gi + 1) * fg}),
            b.b.getDenseI64ArrayAttr({1, 1, 1, 1}));
        Value wm = reshapeTo(b, wk, filterType.clone({cg, fg}));
        // Input: g @ wk^T, scattered to where offset (i, j) reads.
        Value part = scatterToPadded(b, matmul(b, gg, transposeLast2(b, wm)),
                                     w, i, j);
        gpGroup = gpGroup ? add(b, gpGroup, part) : part;
        // Filter: patch^T @ g over every output position.
        Value patch = windowSlice(b, xp, w, i, j, gi * cg, (gi + 1) * cg);
        Value gwk = matmul(b, transposeLast2(b, flattenRows(b, patch)),
                           flattenRows(b, gg));
        cols.push_back(reshapeTo(b, gwk, filterType.clone({1, 1, cg, fg})));
      }
      rows.push_back(concatAlong(b, cols, 1));
    }
    inputGrads.push_back(gpGroup);
    filterGrads.push_back(concatAlong(b, rows, 0));
  }
  Value gp = concatAlong(b, inputGrads, 3);
  out.push_back(cropPadding(b, gp, w, inType.getDimSize(1),
                            inType.getDimSize(2), inType.getDimSize(3)));
  out.push_back(concatAlong(b, filterGrads, 3));
  return success();
}

LogicalResult AvgPool2DOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  auto inType = getInput().getType();
  ArrayRef<int64_t> win = getWindow();
  FailureOr<Window> window = poolWindow(*this);
  if (failed(window))
    return failure();
  Value share = div(b, adj[0], scalarLike(b, adj[0], double(win[0] * win[1])));
  Value gp;
  for (int64_t i = 0; i < win[0]; ++i)
    for (int64_t j = 0; j < win[1]; ++j) {
      Value part = scatterToPadded(b, share, *window, i, j);
      gp = gp ? add(b, gp, part) : part;
    }
  out.push_back(cropPadding(b, gp, *window, inType.getDimSize(1),
                            inType.getDimSize(2), inType.getDimSize(3)));
  return success();
}

namespace {

/// For max pooling: per window offset, the mask of positions equal to the
/// window's maximum, and their count per output (ties share evenly).
struct MaxPoolMasks {
  SmallVector<Value> masks; // per offset, output-shaped 0/1
  Value count;
};

FailureOr<MaxPoolMasks> maxPoolMasks(RuleBuilder b, MaxPool2DOp op,
                                     const Window &w) {
  Value x = op.getInput();
  Value negInf = ConstantOp::create(
      b.b, b.loc,
      DenseElementsAttr::get(
          RankedTensorType::get({}, tensorType(x).getElementType()),
          APFloat::getInf(cast<FloatType>(tensorType(x).getElementType())
                              .getFloatSemantics(),
                          /*Negative=*/true)));
  ArrayRef<int64_t> p = op.getPadding();
  Value xp = padNHWC(b, x, {0, p[0], p[2], 0}, {0, p[1], p[3], 0},
                     {0, 0, 0, 0}, negInf);
  int64_t c = tensorType(x).getDimSize(3);
  MaxPoolMasks result;
  Value one = scalarLike(b, x, 1), zero = scalarLike(b, x, 0);
  for (int64_t i = 0; i < w.kh; ++i)
    for (int64_t j = 0; j < w.kw; ++j) {
      Value hit = compare(b, "eq", windowSlice(b, xp, w, i, j, 0, c),
                          op.getResult());
      Value mask = select(b, hit, one, zero);
      result.masks.push_back(mask);
      result.count = result.count ? add(b, result.count, mask) : mask;
    }
  return result;
}

} // namespace

LogicalResult MaxPool2DOp::buildVJP(OpBuilder &builder, ArrayRef<Value> adj,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  auto inType = getInput().getType();
  ArrayRef<int64_t> win = getWindow();
  FailureOr<Window> window = poolWindow(*this);
  if (failed(window))
    return failure();
  FailureOr<MaxPoolMasks> masks = maxPoolMasks(b, *this, *window);
  if (failed(masks))
    return failure();
  Value share = div(b, adj[0], masks->count);
  Value gp;
  unsigned k = 0;
  for (int64_t i = 0; i < win[0]; ++i)
    for (int64_t j = 0; j < win[1]; ++j) {
      Value part =
          scatterToPadded(b, mul(b, share, masks->masks[k++]), *window, i, j);
      gp = gp ? add(b, gp, part) : part;
    }
  out.push_back(cropPadding(b, gp, *window, inType.getDimSize(1),
                            inType.getDimSize(2), inType.getDimSize(3)));
  return success();
}

LogicalResult MaxPool2DOp::buildJVP(OpBuilder &builder, ArrayRef<Value> tan,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &) {
  if (!tan[0]) {
    out.push_back(Value());
    return success();
  }
  RuleBuilder b{builder, getLoc()};
  auto inType = getInput().getType();
  ArrayRef<int64_t> win = getWindow();
  FailureOr<Window> window = poolWindow(*this);
  if (failed(window))
    return failure();
  FailureOr<MaxPoolMasks> masks = maxPoolMasks(b, *this, *window);
  if (failed(masks))
    return failure();
  ArrayRef<int64_t> p = getPadding();
  Value tp = padNHWC(b, tan[0], {0, p[0], p[2], 0}, {0, p[1], p[3], 0},
                     {0, 0, 0, 0}, scalarLike(b, tan[0], 0));
  Value total;
  unsigned k = 0;
  for (int64_t i = 0; i < win[0]; ++i)
    for (int64_t j = 0; j < win[1]; ++j) {
      Value part = mul(b, windowSlice(b, tp, *window, i, j, 0,
                                      inType.getDimSize(3)),
                       masks->masks[k++]);
      total = total ? add(b, total, part) : part;
    }
  out.push_back(div(b, total, masks->count));
  return success();
}
