//===- WindowRules.cpp - Derivatives of conv2d and pooling ----------------===//
///
/// \file
/// The VJPs of conv2d and pooling, and the JVP of max pooling, built from
/// rlx ops only (conv2d, pad, slice, concat, matmul, compare, select), so
/// that derivatives of derivatives still have rules. A pooling op is
/// unrolled over its (static, small) window offsets: for offset (kh, kw)
/// the strided slice of the padded input that the offset reads pairs with
/// the whole output; so is a conv's filter gradient (one product per
/// offset). A conv's input gradient is convs of the output gradient by the
/// reversed filter (one per stride phase), so that it runs on the conv
/// kernels (im2col implicit per row tile) instead of a scatter and a sum of
/// padded-input-sized tensors per window offset; with few input channels
/// (an RGB stem), one product of the output gradient by every tap and, per
/// phase, a sum of its columns shifted by each tap.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::ad;

namespace {

/// Input channels per group below which a conv's filter gradient is one
/// product of all its windows rather than one per window offset (two of
/// AVX2's 6-row register tiles, fewer than one of AVX-512's 16 columns).
constexpr int64_t kMinFilterGradientRowsPerOffset = 16;

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

namespace {

/// How the input gradient of a conv is computed along one spatial dim: as
/// convs of the output gradient `g` by the filter's taps, reversed. Phase r
/// covers the padded input positions r, r + s, r + 2s, ...: position
/// r + s*t receives g[t - m] * w[r + s*m] for every tap r + s*m of the
/// window, a stride-1 conv of g over the phase's taps. Only positions of
/// the input itself are computed (not its padding: a 3x3 conv at 7x7 would
/// otherwise compute 9x9). With dilation (rare beside a stride), one phase
/// instead: g spread out by the stride (zeros between) and a dilated conv
/// over every tap.
struct GradientPhases {
  struct Phase {
    SmallVector<int64_t> taps; // window offsets, in the conv's order
    int64_t first;             // the first input position covered
    int64_t count;             // input positions covered (`step` apart)
    /// The conv reads g (spread) from `start` - `low` for
    /// count + (taps - 1) * dilation positions: zeros before it (`low`)
    /// and past its end (`high`), `start` and `size` the part of g read.
    int64_t low, high, start, size;
  };
  SmallVector<Phase> phases;
  int64_t spread = 0;   // zeros put between g's elements
  int64_t dilation = 1; // the conv's dilation
  int64_t step = 1;     // the distance between a phase's positions

  /// Along a dim of `size` input positions padded by `padLow` in front.
  GradientPhases(int64_t window, int64_t stride, int64_t dilation,
                 int64_t outputs, int64_t size, int64_t padLow) {
    if (dilation == 1) {
      step = stride;
      for (int64_t r = 0; r < stride && r < window; ++r) {
        SmallVector<int64_t> taps;
        for (int64_t tap = r; tap < window; tap += stride)
          taps.insert(taps.begin(), tap);
        // t from the first r + s*t at or past padLow to the last before
        // padLow + size.
        int64_t t0 = std::max<int64_t>(0, (padLow - r + stride - 1) / stride);
        int64_t t1 = padLow + size - 1 - r;
        t1 = t1 < 0 ? -1 : t1 / stride;
        add(std::move(taps), t0, t1 - t0 + 1, r + stride * t0 - padLow,
            outputs);
      }
      return;
    }
    spread = stride - 1;
    this->dilation = dilation;
    SmallVector<int64_t> taps;
    for (int64_t tap = window - 1; tap >= 0; --tap)
      taps.push_back(tap);
    add(std::move(taps), padLow, size, 0, (outputs - 1) * stride + 1);
  }

private:
  /// A phase whose conv output t0, t0 + 1, ... (count of them) lands on
  /// input position `first`, `first` + step, ...; g (spread) has `length`
  /// positions. A phase covering no input position is left out.
  void add(SmallVector<int64_t> taps, int64_t t0, int64_t count, int64_t first,
           int64_t length) {
    if (count <= 0)
      return;
    // Output t reads g at t - (taps - 1) * dilation + m * dilation.
    int64_t from = t0 - (int64_t(taps.size()) - 1) * dilation;
    int64_t to = t0 + count - 1; // the last position of g read
    int64_t start = std::clamp<int64_t>(from, 0, length);
    int64_t end = std::clamp<int64_t>(to + 1, start, length);
    if (end == start) // its windows reach past g: nothing to add
      return;
    Phase phase{std::move(taps), first, count,      start - from,
                to + 1 - end,    start, end - start};
    phases.push_back(std::move(phase));
  }
};

/// The filter's taps (rows x cols of window offsets) as a filter of their
/// own, [rows, cols, Fg, groups * Cg]: each group's [Cg, Fg] block
/// transposed, so that a conv of the output gradient by it sums into the
/// input's channels.
Value transposedTaps(RuleBuilder b, Value filter, int64_t groups,
                     ArrayRef<int64_t> rows, ArrayRef<int64_t> cols) {
  RankedTensorType type = tensorType(filter);
  int64_t cg = type.getDimSize(2), f = type.getDimSize(3), fg = f / groups;
  SmallVector<Value> rowParts;
  for (int64_t i : rows) {
    SmallVector<Value> parts;
    for (int64_t j : cols)
      parts.push_back(SliceOp::create(
          b.b, b.loc, filter, b.b.getDenseI64ArrayAttr({i, j, 0, 0}),
          b.b.getDenseI64ArrayAttr({i + 1, j + 1, cg, f}),
          b.b.getDenseI64ArrayAttr({1, 1, 1, 1})));
    rowParts.push_back(concatAlong(b, parts, 1));
  }
  Value taps = concatAlong(b, rowParts, 0);
  int64_t kh = rows.size(), kw = cols.size();
  if (groups == 1)
    return transposeLast2(b, taps);
  Value split = reshapeTo(b, taps, type.clone({kh, kw, cg, groups, fg}));
  Value swapped = transpose(b, split, {0, 1, 4, 3, 2});
  return reshapeTo(b, swapped, type.clone({kh, kw, fg, groups * cg}));
}

/// Input channels per group below which a conv's input gradient multiplies
/// g by every tap of the filter at once (inputGradientByTapColumns) rather
/// than convolving g per stride phase: a phase conv's product has that few
/// columns, most of an AVX2 register tile's 16 idle (an RGB stem's: 3).
constexpr int64_t kMaxInputChannelsForTapColumns = 16;

/// The padding of g that every phase's reads fit in: the most any phase
/// reads before g's start (`low`) and past its end (`high`).
std::pair<int64_t, int64_t> paddingForAllPhases(const GradientPhases &along) {
  int64_t low = 0, high = 0;
  for (const GradientPhases::Phase &phase : along.phases) {
    low = std::max(low, phase.low);
    high = std::max(high, phase.high);
  }
  return {low, high};
}

/// Computes one stride phase pair's part of a conv's input gradient,
/// [N, ph.count, pw.count, C].
using PhaseGradient = llvm::function_ref<Value(const GradientPhases::Phase &,
                                               const GradientPhases::Phase &)>;

/// A conv's input gradient from its parts, one per stride phase pair
/// (GradientPhases), interleaved: each part spread to the input positions
/// its phases cover and summed.
Value interleavePhases(RuleBuilder b, Conv2DOp op, const GradientPhases &alongH,
                       const GradientPhases &alongW, PhaseGradient phaseGrad) {
  auto inType = op.getInput().getType();
  int64_t h = inType.getDimSize(1), wd = inType.getDimSize(2);
  Value zero = scalarLike(b, op.getInput(), 0);
  Value gx;
  for (const GradientPhases::Phase &ph : alongH.phases)
    for (const GradientPhases::Phase &pw : alongW.phases) {
      Value part = phaseGrad(ph, pw);
      int64_t spanH = (ph.count - 1) * alongH.step + 1,
              spanW = (pw.count - 1) * alongW.step + 1;
      if (ph.count != h || pw.count != wd) // not every position: spread
        part = padNHWC(b, part, {0, ph.first, pw.first, 0},
                       {0, h - ph.first - spanH, wd - pw.first - spanW, 0},
                       {0, alongH.step - 1, alongW.step - 1, 0}, zero);
      gx = gx ? add(b, gx, part) : part;
    }
  // No part at all when no window reads the input (only its padding).
  return gx ? gx : zerosLike(b, op.getInput());
}

/// A conv's input gradient as convs of g by the filter's reversed taps, one
/// per stride phase pair (GradientPhases), interleaved. Its cost beside the
/// convs: the filter reversed and transposed (three copies of it with the
/// kernel's packing), against a scatter and sum of the padded input per
/// window offset in inputGradientPerOffset. So it is taken for many pixels
/// and few channels: 3x3 convs of 64 channels at 56x56 took 2.2 ms against
/// 4.7 per offset; of 512 at 7x7, 13 ms against 7.
Value inputGradientByPhases(RuleBuilder b, Conv2DOp op, Value g,
                            const Window &w) {
  auto inType = op.getInput().getType();
  auto filterType = op.getFilter().getType();
  int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1);
  int64_t f = filterType.getDimSize(3), groups = op.getGroups();
  int64_t h = inType.getDimSize(1), wd = inType.getDimSize(2),
          c = inType.getDimSize(3);
  Value zero = scalarLike(b, g, 0);
  GradientPhases alongH(kh, w.sh, w.dh, w.oh, h, w.padding[0]),
      alongW(kw, w.sw, w.dw, w.ow, wd, w.padding[2]);
  Value spread = g;
  if (alongH.spread || alongW.spread)
    spread = padNHWC(b, g, {0, 0, 0, 0}, {0, 0, 0, 0},
                     {0, alongH.spread, alongW.spread, 0}, zero);
  auto phaseConv = [&](const GradientPhases::Phase &ph,
                       const GradientPhases::Phase &pw) -> Value {
    Value source = sliceNHWC(b, spread, ph.start, ph.start + ph.size, 1,
                             pw.start, pw.start + pw.size, 1, 0, f);
    Value taps = transposedTaps(b, op.getFilter(), groups, ph.taps, pw.taps);
    auto resultType =
        inType.clone({inType.getDimSize(0), ph.count, pw.count, c});
    // The zeros around g are the conv's own padding, not a padded copy: on
    // the CPU a padded conv of 64 channels or more then runs as products
    // per tap over the pixels inside g (rlx-cpu-conv-tap-products), where
    // the copy made it an im2col product over the zeros too.
    return Conv2DOp::create(
        b.b, b.loc, resultType, source, taps, b.b.getDenseI64ArrayAttr({1, 1}),
        b.b.getDenseI64ArrayAttr({ph.low, ph.high, pw.low, pw.high}),
        b.b.getDenseI64ArrayAttr({alongH.dilation, alongW.dilation}),
        b.b.getI64IntegerAttr(groups));
  };
  return interleavePhases(b, op, alongH, alongW, phaseConv);
}

/// A conv's input gradient for few input channels (one group, no
/// dilation): one product of g (padded once, as far as any phase reads)
/// by every tap of the filter, [pixels, F] x [F, kh * kw * C], then per
/// stride phase pair the sum of those columns shifted by each of its taps
/// (col2im's gather form, with no scatter), interleaved. The product has
/// kh * kw * C columns where a phase conv's has C, and g is padded once
/// rather than per phase; the border rows of the padding cost products of
/// zeros (5% more for a 7x7 stem at 112x112).
Value inputGradientByTapColumns(RuleBuilder b, Conv2DOp op, Value g,
                                const Window &w) {
  auto inType = op.getInput().getType();
  auto filterType = op.getFilter().getType();
  int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1);
  int64_t c = filterType.getDimSize(2), f = filterType.getDimSize(3);
  int64_t h = inType.getDimSize(1), wd = inType.getDimSize(2);
  GradientPhases alongH(kh, w.sh, w.dh, w.oh, h, w.padding[0]),
      alongW(kw, w.sw, w.dw, w.ow, wd, w.padding[2]);
  int64_t lowH, highH, lowW, highW;
  std::tie(lowH, highH) = paddingForAllPhases(alongH);
  std::tie(lowW, highW) = paddingForAllPhases(alongW);
  Value gp = g;
  if (lowH || highH || lowW || highW)
    gp = padNHWC(b, g, {0, lowH, lowW, 0}, {0, highH, highW, 0}, {0, 0, 0, 0},
                 scalarLike(b, g, 0));
  // [kh, kw, C, F] -> [F, kh * kw * C]: column (i * kw + j) * C + ci is tap
  // (i, j)'s weights into input channel ci.
  Value taps = transposeLast2(
      b, reshapeTo(b, op.getFilter(), filterType.clone({kh * kw * c, f})));
  RankedTensorType gpType = tensorType(gp);
  Value columns =
      reshapeTo(b, matmul(b, flattenRows(b, gp), taps),
                gpType.clone({gpType.getDimSize(0), gpType.getDimSize(1),
                              gpType.getDimSize(2), kh * kw * c}));
  // Phase output v, tap m reads g at from + v + m (GradientPhases), so
  // the padded columns' row from + m + low onwards.
  auto shiftedSum = [&](const GradientPhases::Phase &ph,
                        const GradientPhases::Phase &pw) -> Value {
    int64_t fromH = ph.start - ph.low + lowH, fromW = pw.start - pw.low + lowW;
    Value sum;
    for (auto [mh, tapH] : llvm::enumerate(ph.taps))
      for (auto [mw, tapW] : llvm::enumerate(pw.taps)) {
        int64_t h0 = fromH + int64_t(mh), w0 = fromW + int64_t(mw);
        int64_t c0 = (tapH * kw + tapW) * c;
        Value shifted = sliceNHWC(b, columns, h0, h0 + ph.count, 1, w0,
                                  w0 + pw.count, 1, c0, c0 + c);
        sum = sum ? add(b, sum, shifted) : shifted;
      }
    return sum;
  };
  return interleavePhases(b, op, alongH, alongW, shiftedSum);
}

/// A conv's input gradient per window offset (i, j): g times the offset's
/// [C, F] block of the filter, transposed, scattered to the padded input
/// positions the offset reads, summed over the offsets, then cropped.
Value inputGradientPerOffset(RuleBuilder b, Conv2DOp op, Value g,
                             const Window &w) {
  auto inType = op.getInput().getType();
  auto filterType = op.getFilter().getType();
  int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1);
  int64_t cg = filterType.getDimSize(2), f = filterType.getDimSize(3);
  int64_t groups = op.getGroups(), fg = f / groups;
  SmallVector<Value> groupGrads;
  for (int64_t gi = 0; gi < groups; ++gi) {
    Value gg = sliceNHWC(b, g, 0, w.oh, 1, 0, w.ow, 1, gi * fg, (gi + 1) * fg);
    Value sum;
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) {
        auto wkType = filterType.clone({1, 1, cg, fg});
        Value wk = SliceOp::create(
            b.b, b.loc, wkType, op.getFilter(),
            b.b.getDenseI64ArrayAttr({i, j, 0, gi * fg}),
            b.b.getDenseI64ArrayAttr({i + 1, j + 1, cg, (gi + 1) * fg}),
            b.b.getDenseI64ArrayAttr({1, 1, 1, 1}));
        Value wm = reshapeTo(b, wk, filterType.clone({cg, fg}));
        Value part =
            scatterToPadded(b, matmul(b, gg, transposeLast2(b, wm)), w, i, j);
        sum = sum ? add(b, sum, part) : part;
      }
    groupGrads.push_back(sum);
  }
  return cropPadding(b, concatAlong(b, groupGrads, 3), w, inType.getDimSize(1),
                     inType.getDimSize(2), inType.getDimSize(3));
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

  // Input: where the input has more pixels than twice the output channels,
  // per stride phase: by tap columns for few input channels, else convs of
  // g by the reversed filter; otherwise per window offset (see
  // inputGradientByPhases).
  int64_t images = inType.isDynamicDim(0) ? 1 : inType.getDimSize(0);
  bool fewChannels = groups == 1 && w.dh == 1 && w.dw == 1 &&
                     cg < kMaxInputChannelsForTapColumns;
  if (images * w.hp * w.wp <= 2 * f)
    out.push_back(inputGradientPerOffset(b, *this, g, w));
  else if (fewChannels)
    out.push_back(inputGradientByTapColumns(b, *this, g, w));
  else
    out.push_back(inputGradientByPhases(b, *this, g, w));

  // Filter: per window offset, the strided slice of the padded input that
  // the offset reads, transposed, times g. (One product of all the windows
  // at once, im2col's, was slower here: 6.8 against 4.7 ms for a 3x3 conv
  // of 64 channels at 56x56, its 7 MiB of windows copied and transposed.)
  // But with few input channels per group, each offset's product has that
  // few rows: most of a register tile idle and g read again per offset (an
  // RGB stem's 7x7 window: 49 products of 3 rows). Those take the windows
  // side by side, [pixels, kh * kw * Cg], in one product.
  Value xp = padNHWC(b, getInput(), {0, getPadding()[0], getPadding()[2], 0},
                     {0, getPadding()[1], getPadding()[3], 0}, {0, 0, 0, 0},
                     zero);
  SmallVector<Value> filterGrads;
  for (int64_t gi = 0; gi < groups; ++gi) {
    Value gg = flattenRows(
        b, sliceNHWC(b, g, 0, w.oh, 1, 0, w.ow, 1, gi * fg, (gi + 1) * fg));
    if (cg < kMinFilterGradientRowsPerOffset && kh * kw > 1) {
      SmallVector<Value> windows;
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          windows.push_back(
              windowSlice(b, xp, w, i, j, gi * cg, (gi + 1) * cg));
      Value columns = flattenRows(b, concatAlong(b, windows, 3));
      Value gw = matmul(b, transposeLast2(b, columns), gg);
      filterGrads.push_back(
          reshapeTo(b, gw, filterType.clone({kh, kw, cg, fg})));
      continue;
    }
    SmallVector<Value> rows;
    for (int64_t i = 0; i < kh; ++i) {
      SmallVector<Value> cols;
      for (int64_t j = 0; j < kw; ++j) {
        Value patch = windowSlice(b, xp, w, i, j, gi * cg, (gi + 1) * cg);
        Value gwk = matmul(b, transposeLast2(b, flattenRows(b, patch)), gg);
        cols.push_back(reshapeTo(b, gwk, filterType.clone({1, 1, cg, fg})));
      }
      rows.push_back(concatAlong(b, cols, 1));
    }
    filterGrads.push_back(concatAlong(b, rows, 0));
  }
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
