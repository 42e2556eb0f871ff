//===- GridSample.cpp - ONNX GridSample ------------------------------------===//
///
/// \file
/// GridSample of a 2-D image batch [N, C, H, W] at the points of a grid
/// [N, Ho, Wo, 2] (x then y, normalized to [-1, 1]), as ONNX's reference
/// computes it (PyTorch's grid_sample): each point denormalized, rounded
/// halves to even for nearest, moved inside the image by border or
/// reflection padding, then the 1, 4 or 16 source pixels around it read
/// and blended with linear or Keys' cubic weights (A = -0.75). A pixel
/// outside the image reads 0 (zeros), the nearest edge pixel (border) or
/// its reflection.
///
/// The pixels are one rlx.gather from the image as rows [N * H * W, C] at
/// linear indices computed from the grid at run time, so N, H and W must
/// be static; the grid's point dims must be static too.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include <array>

namespace mlir::rlx::onnx_import {
namespace {

/// Builds the elementwise arithmetic of one node, remembering the first
/// failure (an op that did not verify, already reported) so that long
/// formulas read as formulas.
struct Arith {
  NodeContext &ctx;
  Type type;
  bool failedAny = false;

  Value check(FailureOr<Value> v, Value fallback) {
    if (succeeded(v))
      return *v;
    failedAny = true;
    return fallback;
  }
  Value c(double v) { return scalar(ctx, type, v); }
  Value add(Value a, Value b) { return check(ctx.create<AddOp>(a, b), a); }
  Value sub(Value a, Value b) { return check(ctx.create<SubOp>(a, b), a); }
  Value mul(Value a, Value b) { return check(ctx.create<MulOp>(a, b), a); }
  Value div(Value a, Value b) { return check(ctx.create<DivOp>(a, b), a); }
  Value min(Value a, Value b) { return check(ctx.create<MinimumOp>(a, b), a); }
  Value max(Value a, Value b) { return check(ctx.create<MaximumOp>(a, b), a); }
  Value cmp(StringRef direction, Value a, Value b) {
    return check(ctx.create<CompareOp>(direction, a, b), a);
  }
  /// Logical or and and of i1 tensors.
  Value either(Value p, Value q) { return select(p, p, q); }
  Value both(Value p, Value q) { return select(p, q, p); }
  Value select(Value p, Value a, Value b) {
    return check(ctx.create<SelectOp>(p, a, b), a);
  }
  Value floor(Value x) { return check(floorOf(ctx, x), x); }
  Value clamp(Value x, double lo, double hi) {
    return min(max(x, c(lo)), c(hi));
  }
};

/// Keys' cubic weights of the four taps at distances t + 1, t, 1 - t and
/// 2 - t from the point (t in [0, 1)).
std::array<Value, 4> cubicWeights(Arith &a, Value t) {
  const double A = -0.75;
  auto outer = [&](Value s) { // 1 <= s < 2
    return a.sub(a.mul(a.add(a.mul(a.sub(a.mul(a.c(A), s), a.c(5 * A)), s),
                             a.c(8 * A)),
                       s),
                 a.c(4 * A));
  };
  auto inner = [&](Value s) { // 0 <= s <= 1
    return a.add(a.mul(a.mul(a.sub(a.mul(a.c(A + 2), s), a.c(A + 3)), s), s),
                 a.c(1));
  };
  Value one = a.c(1), two = a.c(2);
  return {outer(a.add(t, one)), inner(t), inner(a.sub(one, t)),
          outer(a.sub(two, t))};
}

/// ONNX's reflection of coordinates `x` into [lo, hi], by the nearer
/// border until inside.
Value reflect(Arith &a, Value x, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0)
    return a.c(lo);
  Value below = a.cmp("lt", x, a.c(lo));
  Value above = a.cmp("gt", x, a.c(hi));
  Value distance = a.select(below, a.sub(a.c(lo), x), a.sub(x, a.c(hi)));
  Value folds = a.floor(a.div(distance, a.c(range)));
  Value rest = a.sub(distance, a.mul(folds, a.c(range)));
  Value half = a.mul(folds, a.c(0.5));
  Value even = a.cmp("eq", a.floor(half), half);
  Value fromLo = a.add(a.c(lo), rest), fromHi = a.sub(a.c(hi), rest);
  Value belowResult = a.select(even, fromLo, fromHi);
  Value aboveResult = a.select(even, fromHi, fromLo);
  return a.select(below, belowResult, a.select(above, aboveResult, x));
}

LogicalResult convertGridSample(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes(
          {"align_corners", "mode", "padding_mode"})))
    return failure();
  FailureOr<int64_t> alignCorners = ctx.getInt("align_corners", 0);
  FailureOr<std::string> mode = ctx.getString("mode", "bilinear"),
                         padding = ctx.getString("padding_mode", "zeros");
  FailureOr<Value> x = ctx.input(0), grid = ctx.input(1);
  if (failed(alignCorners) || failed(mode) || failed(padding) || failed(x) ||
      failed(grid))
    return failure();
  // Opset 20 renamed bilinear and bicubic linear and cubic.
  bool nearest = *mode == "nearest";
  bool linear = *mode == "bilinear" || *mode == "linear";
  bool cubic = *mode == "bicubic" || *mode == "cubic";
  if (!nearest && !linear && !cubic)
    return ctx.unsupportedAttribute("mode", "'" + *mode +
                                                "' (nearest, bilinear, "
                                                "bicubic)");
  if (*padding != "zeros" && *padding != "border" && *padding != "reflection")
    return ctx.unsupportedAttribute("padding_mode",
                                    "'" + *padding +
                                        "' (zeros, border, reflection)");
  RankedTensorType xType = typeOf(*x), gridType = typeOf(*grid);
  auto floatType = dyn_cast<FloatType>(xType.getElementType());
  if (!floatType || gridType.getElementType() != floatType)
    return ctx.error() << "X and grid must be floats of one type";
  if (xType.getRank() != 4 || gridType.getRank() != 4 ||
      gridType.getDimSize(3) != 2)
    return ctx.error() << "only 2-D sampling is supported: X [N, C, H, W] "
                          "and grid [N, H_out, W_out, 2]";
  int64_t n = xType.getDimSize(0), h = xType.getDimSize(2),
          w = xType.getDimSize(3);
  int64_t ho = gridType.getDimSize(1), wo = gridType.getDimSize(2);
  if (llvm::any_of(Ints{n, h, w, ho, wo}, ShapedType::isDynamic) ||
      gridType.getDimSize(0) != n)
    return ctx.error() << "X's N, H, W and the grid's dims must be static, "
                          "the grid's N that of X";
  std::optional<int64_t> pixels = checkedProduct({n, h, w});
  if (!pixels || *pixels > (int64_t(1) << 40) || h == 0 || w == 0)
    return ctx.error() << "X's N * H * W must be positive and at most 2^40";

  Arith a{ctx, floatType};
  Type i64 = ctx.builder().getIntegerType(64);
  Ints points{n, ho, wo};
  // The grid's x (along W) and y (along H), denormalized.
  auto component = [&](int64_t k, int64_t length) {
    FailureOr<Value> s = ctx.create<SliceOp>(*grid, Ints{0, 0, 0, k},
                                             Ints{-1, -1, -1, k + 1},
                                             Ints{1, 1, 1, 1});
    Value g = reshape(ctx, a.check(s, *grid), points);
    Value one = a.c(1);
    Value p = *alignCorners
                  ? a.mul(a.add(g, one), a.c(0.5 * double(length - 1)))
                  : a.mul(a.sub(a.mul(a.add(g, one), a.c(double(length))),
                                one),
                          a.c(0.5));
    if (nearest)
      p = a.check(roundHalfToEven(ctx, p), p);
    // Points outside the borders move in (zeros padding leaves them).
    double lo = *alignCorners ? 0.0 : -0.5;
    double hi = *alignCorners ? double(length - 1) : double(length) - 0.5;
    if (*padding == "border") {
      Value outside =
          a.either(a.cmp("lt", p, a.c(lo)), a.cmp("gt", p, a.c(hi)));
      p = a.select(outside, a.clamp(p, 0, double(length - 1)), p);
    } else if (*padding == "reflection") {
      p = reflect(a, p, lo, hi);
    }
    return p;
  };
  Value px = component(0, w), py = component(1, h);

  // The image as rows [N * H * W, C]; each point's batch row offset.
  FailureOr<Value> nhwc = transpose(ctx, *x, {0, 2, 3, 1});
  if (failed(nhwc))
    return failure();
  Value rows = reshape(ctx, *nhwc, {*pixels, xType.getDimSize(1)});
  FailureOr<Value> batch = indicesAlong(ctx, n, 0, 3, i64);
  if (failed(batch))
    return failure();
  Value base = reshape(ctx, a.check(ctx.create<MulOp>(
                                        *batch, scalar(ctx, i64, double(h * w))),
                                    *batch),
                       {n, 1, 1});
  // The pixel at integer-valued coordinates (iy, ix) of each point, as
  // [N, Ho, Wo, C]: 0 outside for zeros padding, clamped for border,
  // reflected (then truncated, as the reference does) for reflection.
  auto pixel = [&](Value iy, Value ix) {
    Value inside;
    if (*padding == "zeros") {
      auto within = [&](Value v, int64_t length) {
        return a.both(a.cmp("ge", v, a.c(0)),
                      a.cmp("le", v, a.c(double(length - 1))));
      };
      inside = a.both(within(iy, h), within(ix, w));
    } else if (*padding == "reflection") {
      double off = *alignCorners ? 0.0 : 0.5;
      iy = reflect(a, iy, -off, double(h - 1) + off);
      ix = reflect(a, ix, -off, double(w - 1) + off);
    }
    auto toIndex = [&](Value v, int64_t length) {
      Value clamped = a.clamp(v, 0, double(length - 1));
      return Value(CastOp::create(ctx.builder(), ctx.loc,
                                  typeOf(clamped).clone(i64), clamped));
    };
    Value linear = a.add(
        a.check(ctx.create<AddOp>(base, a.check(ctx.create<MulOp>(
                                                    toIndex(iy, h),
                                                    scalar(ctx, i64, double(w))),
                                                base)),
                base),
        toIndex(ix, w));
    Value value =
        a.check(ctx.create<GatherOp>(rows, linear, uint64_t(0)), rows);
    if (inside)
      value = a.select(reshape(ctx, inside, {n, ho, wo, 1}), value, a.c(0));
    return value;
  };
  auto weighted = [&](Value v, Value weight) {
    return a.mul(v, reshape(ctx, weight, {n, ho, wo, 1}));
  };

  Value y;
  if (nearest) {
    y = pixel(py, px);
  } else {
    Value x0 = a.floor(px), y0 = a.floor(py);
    Value tx = a.sub(px, x0), ty = a.sub(py, y0);
    SmallVector<Value> wx, wy;
    int64_t first = 0;
    if (linear) {
      wx = {a.sub(a.c(1), tx), tx};
      wy = {a.sub(a.c(1), ty), ty};
    } else {
      auto cx = cubicWeights(a, tx), cy = cubicWeights(a, ty);
      wx.assign(cx.begin(), cx.end());
      wy.assign(cy.begin(), cy.end());
      first = -1;
    }
    for (size_t i = 0; i < wy.size(); ++i) {
      Value iy = a.add(y0, a.c(double(first + int64_t(i))));
      for (size_t j = 0; j < wx.size(); ++j) {
        Value ix = a.add(x0, a.c(double(first + int64_t(j))));
        Value term = weighted(pixel(iy, ix), a.mul(wy[i], wx[j]));
        y = y ? a.add(y, term) : term;
      }
    }
  }
  if (a.failedAny)
    return failure();
  FailureOr<Value> nchw = transpose(ctx, y, {0, 3, 1, 2});
  if (failed(nchw))
    return failure();
  ctx.setOutput(0, *nchw);
  return success();
}

} // namespace

void addSamplingOps(llvm::StringMap<OpConverter> &t) {
  t["GridSample"] = convertGridSample;
}

} // namespace mlir::rlx::onnx_import
