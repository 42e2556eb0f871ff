//===- WindowOps.cpp - ONNX convolutions and pools, 1-D to 3-D ------------===//
///
/// \file
/// Conv, ConvTranspose, MaxPool, AveragePool and the global pools. ONNX is
/// NC[D]HW with OI[D]HW filters, rlx NHWC with HWIO: each op is wrapped in
/// transposes, which the simplifier folds between consecutive ones.
///
/// rlx has 2-D windows only. A 1-D window is a 2-D one of height 1. A 3-D
/// one is split along its depth, which is exact because the depth and the
/// plane of a window are independent: a 3-D convolution is the sum over
/// the kernel's depth taps of 2-D convolutions of the strided depth slices
/// (batch and output depth folded together), and a 3-D pool reduces the
/// depth taps' slices (max, or sum over the valid taps) before a 2-D pool
/// of each output depth's plane. Same arithmetic, kD convolutions or slices
/// more in the graph.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace mlir::rlx::onnx_import {
namespace {

/// The window of 1, 2 or 3 spatial dims (the order of ONNX's spatial
/// dims), padding as (begin, end) pairs per dim.
struct Window {
  Ints kernel, strides, dilations, padding;
  int64_t dims() const { return kernel.size(); }
};

/// The most depth taps a 3-D window is split into (each a 2-D conv or a
/// slice in the graph).
constexpr int64_t kMaxDepthTaps = 1024;

/// Reads kernel_shape (or `kernel` when the attribute is absent), strides,
/// dilations and pads for `dims` spatial dims of the NC... shape `inShape`,
/// and with `autoPad` the auto_pad attribute (SAME_* needs static spatial
/// dims).
FailureOr<Window> readWindow(NodeContext &ctx, ArrayRef<int64_t> inShape,
                             ArrayRef<int64_t> kernel, int64_t dims,
                             bool autoPad = true) {
  FailureOr<Ints> k = ctx.getInts("kernel_shape", Ints(kernel));
  FailureOr<Ints> s = ctx.getInts("strides", Ints(dims, 1));
  FailureOr<Ints> d = ctx.getInts("dilations", Ints(dims, 1));
  FailureOr<Ints> p = ctx.getInts("pads", Ints(2 * dims, 0));
  FailureOr<std::string> mode = ctx.getString("auto_pad", "NOTSET");
  if (failed(k) || failed(s) || failed(d) || failed(p) || failed(mode))
    return failure();
  if (int64_t(k->size()) != dims || int64_t(s->size()) != dims ||
      int64_t(d->size()) != dims || int64_t(p->size()) != 2 * dims)
    return ctx.error() << "the window attributes must have one value per "
                          "spatial dim ("
                       << dims << ": kernel_shape, strides, dilations; pads "
                       << 2 * dims << ")";
  // Bounds that keep every size computed from them far from overflow.
  constexpr int64_t kMaxWindow = int64_t(1) << 20;
  auto outside = [&](ArrayRef<int64_t> values, int64_t lo) {
    return llvm::any_of(values, [&](int64_t v) {
      return v < lo || v > kMaxWindow || ShapedType::isDynamic(v);
    });
  };
  if (outside(*k, 1) || outside(*s, 1) || outside(*d, 1) || outside(*p, 0))
    return ctx.error() << "kernel_shape, strides and dilations must be in [1, "
                          "2^20] and pads in [0, 2^20] (and the kernel static)";
  for (int64_t i = 0; i < dims; ++i)
    if (!ShapedType::isDynamic(inShape[2 + i]) &&
        inShape[2 + i] > (int64_t(1) << 40))
      return ctx.error() << "spatial dim " << 2 + i << " is too large";
  Window w{*k, *s, *d, {}};
  // ONNX pads: [x1_begin, x2_begin, ..., x1_end, x2_end, ...].
  for (int64_t i = 0; i < dims; ++i)
    w.padding.append({(*p)[i], (*p)[dims + i]});
  if (!autoPad || *mode == "NOTSET")
    return w;
  if (*mode == "VALID") {
    llvm::fill(w.padding, 0);
    return w;
  }
  if (*mode != "SAME_UPPER" && *mode != "SAME_LOWER")
    return ctx.unsupportedAttribute("auto_pad",
                                    "unknown value '" + *mode + "'");
  for (int64_t i = 0; i < dims; ++i) {
    int64_t size = inShape[2 + i];
    if (ShapedType::isDynamic(size))
      return ctx.unsupportedAttribute("auto_pad",
                                      "SAME padding needs static spatial dims");
    int64_t out = (size + w.strides[i] - 1) / w.strides[i];
    int64_t total = std::max<int64_t>(
        (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 -
            size,
        0);
    int64_t small = total / 2, large = total - small;
    w.padding[2 * i] = *mode == "SAME_UPPER" ? small : large;
    w.padding[2 * i + 1] = *mode == "SAME_UPPER" ? large : small;
  }
  return w;
}

/// The 2-D window of a 1-D one: height 1.
Window liftWindow(const Window &w) {
  return {{1, w.kernel[0]},
          {1, w.strides[0]},
          {1, w.dilations[0]},
          {0, 0, w.padding[0], w.padding[1]}};
}

/// The 2-D window of the last two dims of a 3-D one.
Window planeWindow(const Window &w) {
  return {{w.kernel[1], w.kernel[2]},
          {w.strides[1], w.strides[2]},
          {w.dilations[1], w.dilations[2]},
          {w.padding[2], w.padding[3], w.padding[4], w.padding[5]}};
}

/// N x C x L as N x C x 1 x L (a weight M x C x K as M x C x 1 x K).
Value liftTo2D(NodeContext &ctx, Value x) {
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  return reshape(ctx, x, {shape[0], shape[1], 1, shape[2]});
}

/// The inverse of liftTo2D on a result N x C x 1 x L.
Value dropHeight(NodeContext &ctx, Value y) {
  ArrayRef<int64_t> shape = typeOf(y).getShape();
  return reshape(ctx, y, {shape[0], shape[1], shape[3]});
}

/// The output size of a window along one dim, or an error when the
/// (dilated) window is larger than the padded input.
FailureOr<int64_t> outputSize(NodeContext &ctx, int64_t size, const Window &w,
                              int64_t i) {
  int64_t span = size + w.padding[2 * i] + w.padding[2 * i + 1] -
                 (w.kernel[i] - 1) * w.dilations[i] - 1;
  if (span < 0)
    return ctx.error() << "the window of spatial dim " << 2 + i
                       << " is larger than the padded input";
  return span / w.strides[i] + 1;
}

/// 3-D windows take static channel and spatial dims (the batch may be
/// dynamic): the depth is sliced, and batch and depth fold into one dim.
LogicalResult checkStatic3D(NodeContext &ctx, Value x) {
  if (llvm::any_of(typeOf(x).getShape().drop_front(), ShapedType::isDynamic))
    return ctx.error() << "3-D convolutions and pools need static channel "
                          "and spatial dims (the batch may be dynamic)";
  return success();
}

/// Depth taps t of a window along dim 2 of an NCDHW `x` already padded in
/// depth: the slices x[:, :, t*d : t*d + (out-1)*s + 1 : s], each
/// N x C x out x H x W.
FailureOr<SmallVector<Value>> depthSlices(NodeContext &ctx, Value x,
                                          const Window &w, int64_t out) {
  if (w.kernel[0] > kMaxDepthTaps)
    return ctx.unsupportedAttribute(
        "kernel_shape", "3-D windows deeper than " +
                            std::to_string(kMaxDepthTaps) +
                            " are not supported");
  SmallVector<Value> slices;
  for (int64_t t = 0; t < w.kernel[0]; ++t) {
    Ints start{0, 0, t * w.dilations[0], 0, 0}, limit{-1, -1, 0, -1, -1},
        strides{1, 1, w.strides[0], 1, 1};
    limit[2] = start[2] + (out - 1) * w.strides[0] + 1;
    FailureOr<Value> slice = ctx.create<SliceOp>(x, start, limit, strides);
    if (failed(slice))
      return failure();
    slices.push_back(*slice);
  }
  return slices;
}

/// `x` padded by `low` and `high` along dim 2 (the depth) with `value`.
FailureOr<Value> padDepth(NodeContext &ctx, Value x, int64_t low, int64_t high,
                          Value value) {
  if (!low && !high)
    return x;
  return ctx.create<PadOp>(x, value, Ints{0, 0, low, 0, 0},
                           Ints{0, 0, high, 0, 0}, Ints{0, 0, 0, 0, 0});
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// rlx.conv2d of NHWC `input` by the OIHW `w`; the i8 conv's result widened
/// to i32 with `int8`. The result is NHWC.
FailureOr<Value> conv2dNHWC(NodeContext &ctx, Value input, Value w,
                            const Window &win, int64_t group, bool int8) {
  FailureOr<Value> filter = transpose(ctx, w, {2, 3, 1, 0});
  if (failed(filter))
    return failure();
  FailureOr<Value> y = ctx.create<Conv2DOp>(
      input, *filter, ArrayRef<int64_t>(win.strides),
      ArrayRef<int64_t>(win.padding), ArrayRef<int64_t>(win.dilations),
      static_cast<uint64_t>(group));
  // The i8 conv's inferred type, widened: products summed in i32.
  if (succeeded(y) && int8)
    y->setType(typeOf(*y).clone(ctx.builder().getI32Type()));
  return y;
}

/// A 3-D convolution as the sum over the kernel's depth taps of 2-D ones:
/// tap t convolves the depth slices it reads (batch and output depth
/// folded into one dim) with the weight's plane t.
FailureOr<Value> convolve3D(NodeContext &ctx, Value x, Value w,
                            const Window &win, int64_t group, bool int8) {
  if (failed(checkStatic3D(ctx, x)))
    return failure();
  ArrayRef<int64_t> xShape = typeOf(x).getShape(),
                    wShape = typeOf(w).getShape();
  FailureOr<int64_t> outD = outputSize(ctx, xShape[2], win, 0);
  if (failed(outD))
    return failure();
  Type elementType = typeOf(x).getElementType();
  FailureOr<Value> padded = padDepth(ctx, x, win.padding[0], win.padding[1],
                                     scalar(ctx, elementType, 0.0));
  FailureOr<SmallVector<Value>> slices =
      failed(padded) ? FailureOr<SmallVector<Value>>(failure())
                     : depthSlices(ctx, *padded, win, *outD);
  if (failed(slices))
    return failure();
  int64_t n = xShape[0], c = xShape[1], h = xShape[3], wd = xShape[4];
  int64_t folded = ShapedType::isDynamic(n) ? n : n * *outD;
  Window plane = planeWindow(win);
  std::optional<Value> sum;
  for (auto [t, slice] : llvm::enumerate(*slices)) {
    FailureOr<Value> input = transpose(ctx, slice, {0, 2, 3, 4, 1});
    Ints start{0, 0, int64_t(t), 0, 0}, limit{-1, -1, int64_t(t) + 1, -1, -1},
        strides{1, 1, 1, 1, 1};
    FailureOr<Value> tap = ctx.create<SliceOp>(w, start, limit, strides);
    if (failed(input) || failed(tap))
      return failure();
    FailureOr<Value> y = conv2dNHWC(
        ctx, reshape(ctx, *input, {folded, h, wd, c}),
        reshape(ctx, *tap, {wShape[0], wShape[1], wShape[3], wShape[4]}),
        plane, group, int8);
    if (failed(y) || (sum && failed(y = ctx.create<AddOp>(*sum, *y))))
      return failure();
    sum = *y;
  }
  ArrayRef<int64_t> yShape = typeOf(*sum).getShape();
  Value y = reshape(ctx, *sum, {n, *outD, yShape[1], yShape[2], yShape[3]});
  return transpose(ctx, y, {0, 4, 1, 2, 3});
}

/// ONNX's convolution of NC... `x` by the OI... `w` with an explicit
/// window, for 1, 2 and 3 spatial dims.
FailureOr<Value> convolveWindow(NodeContext &ctx, Value x, Value w,
                                const Window &win, int64_t group, bool int8) {
  int64_t rank = typeOf(x).getRank();
  if (rank == 5)
    return convolve3D(ctx, x, w, win, group, int8);
  bool oneD = rank == 3;
  Window plane = oneD ? liftWindow(win) : win;
  if (oneD) {
    x = liftTo2D(ctx, x);
    w = liftTo2D(ctx, w);
  }
  FailureOr<Value> input = transpose(ctx, x, {0, 2, 3, 1});
  FailureOr<Value> y = failed(input)
                           ? input
                           : conv2dNHWC(ctx, *input, w, plane, group, int8);
  if (failed(y) || failed(y = transpose(ctx, *y, {0, 3, 1, 2})))
    return failure();
  return oneD ? dropHeight(ctx, *y) : *y;
}

/// The number of spatial dims of a window op's input `x` (rank 3 to 5),
/// or an error naming what is supported.
FailureOr<int64_t> spatialDims(NodeContext &ctx, Value x, StringRef what) {
  int64_t rank = typeOf(x).getRank();
  if (rank < 3 || rank > 5)
    return ctx.error() << "only 1-D, 2-D and 3-D " << what
                       << " (input of rank 3, 4 or 5) are supported";
  return rank - 2;
}

} // namespace

FailureOr<Value> convolve(NodeContext &ctx, Value x, Value w, bool int8) {
  FailureOr<int64_t> group = ctx.getInt("group", 1);
  FailureOr<int64_t> dims = spatialDims(ctx, x, "convolutions");
  if (failed(group) || failed(dims))
    return failure();
  if (typeOf(w).getRank() != typeOf(x).getRank())
    return ctx.error() << "the weight's rank " << typeOf(w).getRank()
                       << " differs from the input's "
                       << typeOf(x).getRank();
  ArrayRef<int64_t> wShape = typeOf(w).getShape();
  FailureOr<Window> window =
      readWindow(ctx, typeOf(x).getShape(), wShape.drop_front(2), *dims);
  if (failed(window))
    return failure();
  if (ArrayRef<int64_t>(window->kernel) != wShape.drop_front(2))
    return ctx.unsupportedAttribute("kernel_shape",
                                    "differs from the weight's spatial dims");
  return convolveWindow(ctx, x, w, *window, *group, int8);
}

namespace {

/// `y` plus the bias input `index` (of `y`'s channel dim 1), when given.
FailureOr<Value> addChannelBias(NodeContext &ctx, Value y, unsigned index) {
  if (!ctx.hasInput(index))
    return y;
  FailureOr<Value> bias = ctx.input(index);
  if (failed(bias))
    return failure();
  Ints shape(typeOf(y).getRank() - 1, 1);
  shape[0] = typeOf(*bias).getDimSize(0);
  return ctx.create<AddOp>(y, reshape(ctx, *bias, shape));
}

LogicalResult convertConv(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes(kConvAttributes)))
    return failure();
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(x) || failed(w))
    return failure();
  FailureOr<Value> y = convolve(ctx, *x, *w, /*int8=*/false);
  if (failed(y) || failed(y = addChannelBias(ctx, *y, 2)))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// ConvTranspose's padding: `pads` as given, or, with output_shape or a
/// SAME auto_pad, the total padding that gives that output (the input size
/// times the stride for SAME) split as ONNX's reference splits it (with
/// floor division: a negative total pads the end with zeros).
LogicalResult transposePadding(NodeContext &ctx, ArrayRef<int64_t> xShape,
                               Window &w, ArrayRef<int64_t> outputPadding) {
  FailureOr<std::string> mode = ctx.getString("auto_pad", "NOTSET");
  FailureOr<Ints> outputShape = ctx.getInts("output_shape", {});
  if (failed(mode) || failed(outputShape))
    return failure();
  int64_t dims = w.dims();
  if (*mode == "VALID") {
    llvm::fill(w.padding, 0);
    return success();
  }
  bool same = *mode == "SAME_UPPER" || *mode == "SAME_LOWER";
  if (!same && *mode != "NOTSET")
    return ctx.unsupportedAttribute("auto_pad",
                                    "unknown value '" + *mode + "'");
  if (outputShape->empty() && !same)
    return success();
  // output_shape names the spatial dims, or all of them.
  if (int64_t(outputShape->size()) == dims + 2)
    outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
  if (!outputShape->empty() && int64_t(outputShape->size()) != dims)
    return ctx.unsupportedAttribute(
        "output_shape", "needs one value per spatial dim (" +
                            std::to_string(dims) + ")");
  for (int64_t i = 0; i < dims; ++i) {
    int64_t size = xShape[2 + i];
    if (ShapedType::isDynamic(size))
      return ctx.unsupportedAttribute(
          outputShape->empty() ? "auto_pad" : "output_shape",
          "needs static spatial dims");
    int64_t out =
        outputShape->empty() ? size * w.strides[i] : (*outputShape)[i];
    if (out < 1 || out > (int64_t(1) << 40))
      return ctx.unsupportedAttribute("output_shape",
                                      "values must be in [1, 2^40]");
    int64_t total = w.strides[i] * (size - 1) + outputPadding[i] +
                    (w.kernel[i] - 1) * w.dilations[i] + 1 - out;
    int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
    bool upper = *mode == "SAME_UPPER";
    w.padding[2 * i] = upper ? half : total - half;
    w.padding[2 * i + 1] = upper ? total - half : half;
  }
  return success();
}

/// ConvTranspose as a convolution: the input dilated by the strides
/// (rlx.pad's interior padding) and padded by dilation * (k - 1) - pads
/// (plus output_padding at the end), then convolved at stride 1 with the
/// spatially flipped kernel, its in and out channels swapped per group.
LogicalResult convertConvTranspose(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"auto_pad", "dilations", "group",
                                       "kernel_shape", "output_padding",
                                       "output_shape", "pads", "strides"})))
    return failure();
  FailureOr<int64_t> group = ctx.getInt("group", 1);
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(group) || failed(x) || failed(w))
    return failure();
  FailureOr<int64_t> dims = spatialDims(ctx, *x, "transposed convolutions");
  if (failed(dims))
    return failure();
  if (typeOf(*w).getRank() != typeOf(*x).getRank())
    return ctx.error() << "the weight's rank " << typeOf(*w).getRank()
                       << " differs from the input's "
                       << typeOf(*x).getRank();
  ArrayRef<int64_t> xShape = typeOf(*x).getShape(),
                    wShape = typeOf(*w).getShape();
  if (!typeOf(*w).hasStaticShape())
    return ctx.error() << "the weight must have a static shape";
  int64_t g = *group;
  if (g <= 0 || wShape[0] % g != 0)
    return ctx.unsupportedAttribute("group", "does not divide the channels");
  FailureOr<Ints> outputPadding =
      ctx.getInts("output_padding", Ints(*dims, 0));
  FailureOr<Window> window = readWindow(ctx, xShape, wShape.drop_front(2),
                                        *dims, /*autoPad=*/false);
  if (failed(outputPadding) || failed(window))
    return failure();
  if (ArrayRef<int64_t>(window->kernel) != wShape.drop_front(2))
    return ctx.unsupportedAttribute("kernel_shape",
                                    "differs from the weight's spatial dims");
  if (int64_t(outputPadding->size()) != *dims ||
      llvm::any_of(*outputPadding,
                   [](int64_t v) { return v < 0 || v > (1 << 20); }))
    return ctx.unsupportedAttribute(
        "output_padding",
        "needs " + std::to_string(*dims) + " values in [0, 2^20]");
  if (failed(transposePadding(ctx, xShape, *window, *outputPadding)))
    return failure();
  int64_t rank = *dims + 2;
  Ints low(rank, 0), high(rank, 0), interior(rank, 0);
  for (int64_t i = 0; i < *dims; ++i) {
    int64_t span = window->dilations[i] * (wShape[2 + i] - 1);
    low[2 + i] = span - window->padding[2 * i];
    high[2 + i] = span - window->padding[2 * i + 1] + (*outputPadding)[i];
    interior[2 + i] = window->strides[i] - 1;
    if (low[2 + i] < 0 || high[2 + i] < 0)
      return ctx.unsupportedAttribute(
          "pads", "pads larger than dilation * (kernel - 1) are not supported");
    if (ShapedType::isDynamic(xShape[2 + i]) &&
        (low[2 + i] || high[2 + i] || interior[2 + i]))
      return ctx.error() << "dynamic spatial dims are not supported";
  }
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> input = ctx.create<PadOp>(
      *x, scalar(ctx, elementType, 0.0), ArrayRef<int64_t>(low),
      ArrayRef<int64_t>(high), ArrayRef<int64_t>(interior));
  if (failed(input))
    return failure();
  // Flip the kernel's spatial dims with gathers of reversed indices.
  Value filter = *w;
  for (int64_t axis = 2; axis < rank; ++axis) {
    Ints reversed(wShape[axis]);
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    Value indices = ctx.importer.materialize(
        intsAttr(ctx.builder().getContext(), reversed,
                 {(int64_t)reversed.size()}, ctx.builder().getIntegerType(64)),
        ctx.loc);
    FailureOr<Value> flipped =
        ctx.create<GatherOp>(filter, indices, static_cast<uint64_t>(axis));
    if (failed(flipped))
      return failure();
    filter = *flipped;
  }
  // [C, F/g, k...] -> [g, C/g, F/g, k...] -> [g, F/g, C/g, k...]
  // -> [F, C/g, k...]: the OI... weight of the forward convolution.
  int64_t c = wShape[0], fg = wShape[1];
  ArrayRef<int64_t> kernel = wShape.drop_front(2);
  Ints grouped{g, c / g, fg}, perm{0, 2, 1}, oi{g * fg, c / g};
  for (int64_t i = 0; i < *dims; ++i) {
    grouped.push_back(kernel[i]);
    perm.push_back(3 + i);
    oi.push_back(kernel[i]);
  }
  FailureOr<Value> swapped =
      transpose(ctx, reshape(ctx, filter, grouped), perm);
  if (failed(swapped))
    return failure();
  Window unit{window->kernel, Ints(*dims, 1), window->dilations,
              Ints(2 * *dims, 0)};
  FailureOr<Value> y = convolveWindow(ctx, *input, reshape(ctx, *swapped, oi),
                                      unit, g, /*int8=*/false);
  if (failed(y) || failed(y = addChannelBias(ctx, *y, 2)))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// ceil_mode: the extra end padding per dim that makes floor division give
/// the ceil of ONNX's output size.
FailureOr<Ints> ceilPadding(NodeContext &ctx, ArrayRef<int64_t> inShape,
                            const Window &w) {
  Ints extra(w.dims(), 0);
  for (int64_t i = 0; i < w.dims(); ++i) {
    int64_t size = inShape[2 + i];
    if (ShapedType::isDynamic(size))
      return ctx.unsupportedAttribute("ceil_mode", "needs static spatial dims");
    int64_t span = size + w.padding[2 * i] + w.padding[2 * i + 1] -
                   (w.kernel[i] - 1) * w.dilations[i] - 1;
    int64_t out = (span + w.strides[i] - 1) / w.strides[i] + 1;
    extra[i] = std::max<int64_t>((out - 1) * w.strides[i] - span, 0);
  }
  return extra;
}

/// A max pool with dilations over NHWC `x` (static spatial dims): the
/// input padded with -inf, then, the maximum being separable, the maximum
/// of one strided slice per kernel row (along H), then of one per kernel
/// column of that (along W): kh + kw slices (rlx.max_pool2d has no
/// dilations).
FailureOr<Value> dilatedMaxPool(NodeContext &ctx, Value x, const Window &w) {
  RankedTensorType type = typeOf(x);
  ArrayRef<int64_t> shape = type.getShape();
  if (ShapedType::isDynamic(shape[1]) || ShapedType::isDynamic(shape[2]))
    return ctx.unsupportedAttribute(
        "dilations", "dilated pooling needs static spatial dims");
  Ints out(2);
  for (int i = 0; i < 2; ++i) {
    FailureOr<int64_t> size = outputSize(ctx, shape[1 + i], w, i);
    if (failed(size))
      return failure();
    out[i] = *size;
  }
  if (w.kernel[0] + w.kernel[1] > 4096)
    return ctx.unsupportedAttribute(
        "kernel_shape", "dilated pooling of windows over 4096 rows and "
                        "columns is not supported");
  Type elementType = type.getElementType();
  if (!isa<FloatType>(elementType))
    return ctx.unsupportedAttribute(
        "dilations", "dilated pooling of integers is not supported");
  FailureOr<Value> y = ctx.create<PadOp>(
      x, lowest(ctx, elementType), Ints{0, w.padding[0], w.padding[2], 0},
      Ints{0, w.padding[1], w.padding[3], 0}, Ints{0, 0, 0, 0});
  // Along H (dim 1), then along W (dim 2).
  for (int axis = 1; axis <= 2 && succeeded(y); ++axis) {
    int i = axis - 1;
    std::optional<Value> reduced;
    for (int64_t t = 0; t < w.kernel[i]; ++t) {
      Ints start{0, 0, 0, 0}, limit{-1, -1, -1, -1}, strides{1, 1, 1, 1};
      start[axis] = t * w.dilations[i];
      limit[axis] = start[axis] + (out[i] - 1) * w.strides[i] + 1;
      strides[axis] = w.strides[i];
      FailureOr<Value> slice = ctx.create<SliceOp>(*y, start, limit, strides);
      if (failed(slice) ||
          (reduced && failed(slice = ctx.create<MaximumOp>(*reduced, *slice))))
        return failure();
      reduced = *slice;
    }
    y = *reduced;
  }
  return y;
}

/// A 2-D pool of NCHW `x` by `w` (ceil_mode's extra padding included):
/// NCHW out. Average pools divide by the real elements of each window
/// unless `includePad`. MaxPool of int8 and uint8 (held as i32) pools in
/// f32, which holds every value exactly.
FailureOr<Value> pool2D(NodeContext &ctx, Value x, const Window &w, bool isMax,
                        bool includePad) {
  Type elementType = typeOf(x).getElementType();
  if (isa<IntegerType>(elementType)) {
    if (!isMax || !(elementType.isInteger(8) || ctx.inputIsUint8(0)))
      return ctx.error() << "pooling " << elementType
                         << " is not supported (MaxPool of int8 and uint8)";
    auto castTo = [&](Value v, Type t) -> Value {
      return CastOp::create(ctx.builder(), ctx.loc, typeOf(v).clone(t), v);
    };
    FailureOr<Value> asFloat = pool2D(
        ctx, castTo(x, ctx.builder().getF32Type()), w, isMax, includePad);
    if (failed(asFloat))
      return failure();
    return castTo(*asFloat, elementType);
  }
  FailureOr<Value> input = transpose(ctx, x, {0, 2, 3, 1});
  if (failed(input))
    return failure();
  FailureOr<Value> y = failure();
  if (w.dilations != Ints{1, 1})
    y = dilatedMaxPool(ctx, *input, w);
  else if (isMax)
    y = ctx.create<MaxPool2DOp>(*input, ArrayRef<int64_t>(w.kernel),
                                ArrayRef<int64_t>(w.strides),
                                ArrayRef<int64_t>(w.padding));
  else
    y = ctx.create<AvgPool2DOp>(*input, ArrayRef<int64_t>(w.kernel),
                                ArrayRef<int64_t>(w.strides),
                                ArrayRef<int64_t>(w.padding));
  if (failed(y))
    return failure();
  bool padded = llvm::any_of(w.padding, [](int64_t p) { return p != 0; });
  if (!isMax && padded && !includePad) {
    // rlx's average counts padded zeros; dividing by the average of ones
    // over the same windows counts only the real elements.
    ArrayRef<int64_t> shape = typeOf(*input).getShape();
    if (ShapedType::isDynamic(shape[1]) || ShapedType::isDynamic(shape[2]))
      return ctx.unsupportedAttribute(
          "count_include_pad", "0 with padding needs static spatial dims");
    auto onesType = RankedTensorType::get({1, shape[1], shape[2], 1},
                                          typeOf(*input).getElementType());
    Value ones = ctx.importer.materialize(
        DenseElementsAttr::get(onesType,
                               FloatAttr::get(onesType.getElementType(), 1.0)),
        ctx.loc);
    FailureOr<Value> count = ctx.create<AvgPool2DOp>(
        ones, ArrayRef<int64_t>(w.kernel), ArrayRef<int64_t>(w.strides),
        ArrayRef<int64_t>(w.padding));
    if (failed(count) || failed(y = ctx.create<DivOp>(*y, *count)))
      return failure();
  }
  return transpose(ctx, *y, {0, 3, 1, 2});
}

/// A 3-D pool: the depth taps' slices reduced (max, or the sum divided by
/// the taps in the input, or all taps with `includePad`), then a 2-D pool
/// of each output depth's plane. Both averages are exact: the window's
/// real elements are the product of its real depth taps and real plane
/// elements, so the mean is the mean over depth of the plane means.
FailureOr<Value> pool3D(NodeContext &ctx, Value x, const Window &w, bool isMax,
                        bool includePad) {
  if (failed(checkStatic3D(ctx, x)))
    return failure();
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  Type elementType = typeOf(x).getElementType();
  FailureOr<int64_t> outD = outputSize(ctx, shape[2], w, 0);
  if (failed(outD))
    return failure();
  Value padValue = isMax ? lowest(ctx, elementType)
                         : scalar(ctx, elementType, 0.0);
  FailureOr<Value> padded =
      padDepth(ctx, x, w.padding[0], w.padding[1], padValue);
  FailureOr<SmallVector<Value>> slices =
      failed(padded) ? FailureOr<SmallVector<Value>>(failure())
                     : depthSlices(ctx, *padded, w, *outD);
  if (failed(slices))
    return failure();
  FailureOr<Value> y = (*slices)[0];
  for (Value slice : ArrayRef<Value>(*slices).drop_front())
    if (failed(y = isMax ? ctx.create<MaximumOp>(*y, slice)
                         : ctx.create<AddOp>(*y, slice)))
      return failure();
  if (!isMax) {
    // Taps per output depth that read the input (all of them with
    // includePad).
    Ints counts(*outD);
    for (int64_t o = 0; o < *outD; ++o)
      for (int64_t t = 0; t < w.kernel[0]; ++t) {
        int64_t at = o * w.strides[0] + t * w.dilations[0] - w.padding[0];
        counts[o] += includePad || (at >= 0 && at < shape[2]);
      }
    auto countType = RankedTensorType::get({1, 1, *outD, 1, 1}, elementType);
    SmallVector<Attribute> values;
    for (int64_t count : counts)
      values.push_back(FloatAttr::get(elementType, double(count)));
    Value divisor = ctx.importer.materialize(
        DenseElementsAttr::get(countType, values), ctx.loc);
    if (failed(y = ctx.create<DivOp>(*y, divisor)))
      return failure();
  }
  int64_t n = shape[0], c = shape[1];
  int64_t folded = ShapedType::isDynamic(n) ? n : n * *outD;
  FailureOr<Value> planes = transpose(ctx, *y, {0, 2, 1, 3, 4});
  if (failed(planes))
    return failure();
  FailureOr<Value> pooled =
      pool2D(ctx, reshape(ctx, *planes, {folded, c, shape[3], shape[4]}),
             planeWindow(w), isMax, includePad);
  if (failed(pooled))
    return failure();
  ArrayRef<int64_t> pooledShape = typeOf(*pooled).getShape();
  Value unfolded = reshape(ctx, *pooled,
                           {n, *outD, c, pooledShape[2], pooledShape[3]});
  return transpose(ctx, unfolded, {0, 2, 1, 3, 4});
}

LogicalResult convertPool(NodeContext &ctx, bool isMax) {
  if (failed(ctx.checkKnownAttributes(
          {"auto_pad", "ceil_mode", "count_include_pad", "dilations",
           "kernel_shape", "pads", "storage_order", "strides"})))
    return failure();
  if (isMax && failed(ctx.expectUnusedOutputsFrom(1)))
    return failure();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> dims = spatialDims(ctx, *x, "pools");
  if (failed(dims))
    return failure();
  if (!ctx.attribute("kernel_shape"))
    return ctx.error() << "attribute 'kernel_shape' is missing";
  FailureOr<Window> w = readWindow(ctx, typeOf(*x).getShape(), {}, *dims);
  FailureOr<int64_t> ceilMode = ctx.getInt("ceil_mode", 0),
                     includePad = ctx.getInt("count_include_pad", 0);
  if (failed(w) || failed(ceilMode) || failed(includePad))
    return failure();
  if (w->dilations != Ints(*dims, 1) && !isMax)
    return ctx.unsupportedAttribute("dilations",
                                    "dilated average pooling is not "
                                    "supported");
  if (*ceilMode) {
    FailureOr<Ints> extra = ceilPadding(ctx, typeOf(*x).getShape(), *w);
    if (failed(extra))
      return failure();
    if (!isMax && llvm::any_of(*extra, [](int64_t e) { return e != 0; }))
      return ctx.unsupportedAttribute(
          "ceil_mode", "average pooling whose last window overhangs the "
                       "input is not supported");
    for (int64_t i = 0; i < *dims; ++i)
      w->padding[2 * i + 1] += (*extra)[i];
  }
  FailureOr<Value> y = failure();
  if (*dims == 3) {
    y = pool3D(ctx, *x, *w, isMax, *includePad);
  } else if (*dims == 2) {
    y = pool2D(ctx, *x, *w, isMax, *includePad);
  } else {
    y = pool2D(ctx, liftTo2D(ctx, *x), liftWindow(*w), isMax, *includePad);
    if (succeeded(y))
      y = dropHeight(ctx, *y);
  }
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

template <typename OpTy> LogicalResult convertGlobalPool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (rank < 3)
    return ctx.error() << "input must have rank 3 or more";
  Ints axes;
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  FailureOr<Value> y = ctx.create<OpTy>(*x, axes, true);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

} // namespace

void addWindowOps(llvm::StringMap<OpConverter> &t) {
  t["Conv"] = convertConv;
  t["ConvTranspose"] = convertConvTranspose;
  t["MaxPool"] = [](NodeContext &c) { return convertPool(c, true); };
  t["AveragePool"] = [](NodeContext &c) { return convertPool(c, false); };
  t["GlobalAveragePool"] = convertGlobalPool<MeanOp>;
  t["GlobalMaxPool"] = convertGlobalPool<MaxOp>;
}

} // namespace mlir::rlx::onnx_import
