//===- NNOps.cpp - ONNX contractions, convolutions, normalization ---------===//
///
/// \file
/// MatMul and Gemm; BatchNormalization, LayerNormalization, Softmax and the
/// reductions (convolutions and pools are in WindowOps.cpp).
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include <array>
#include <cmath>
#include <limits>
#include <numeric>

namespace mlir::rlx::onnx_import {
namespace {

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult convertMatMul(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  // NumPy's 1-D operands: a vector lhs is a row, a vector rhs a column,
  // and that dim is dropped from the result.
  Value lhs = *a, rhs = *b;
  bool rowVector = typeOf(lhs).getRank() == 1,
       colVector = typeOf(rhs).getRank() == 1;
  if (rowVector)
    lhs = reshape(ctx, lhs, {1, typeOf(lhs).getDimSize(0)});
  if (colVector)
    rhs = reshape(ctx, rhs, {typeOf(rhs).getDimSize(0), 1});
  FailureOr<Value> y = ctx.create<MatmulOp>(lhs, rhs);
  if (failed(y))
    return failure();
  if (rowVector || colVector) {
    Ints shape(typeOf(*y).getShape());
    if (colVector)
      shape.erase(shape.end() - 1);
    if (rowVector)
      shape.erase(shape.end() - 1 - (colVector ? 0 : 1));
    *y = reshape(ctx, *y, shape);
  }
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertGemm(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 1.0f),
                   beta = ctx.getFloat("beta", 1.0f);
  FailureOr<int64_t> transA = ctx.getInt("transA", 0),
                     transB = ctx.getInt("transB", 0);
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(alpha) || failed(beta) || failed(transA) || failed(transB) ||
      failed(a) || failed(b))
    return failure();
  if (typeOf(*a).getRank() != 2 || typeOf(*b).getRank() != 2)
    return ctx.error() << "A and B must be 2-D";
  if (*transA && failed(a = transpose(ctx, *a, {1, 0})))
    return failure();
  if (*transB && failed(b = transpose(ctx, *b, {1, 0})))
    return failure();
  FailureOr<Value> y = ctx.create<MatmulOp>(*a, *b);
  if (failed(y))
    return failure();
  Type elementType = typeOf(*y).getElementType();
  if (*alpha != 1.0f &&
      failed(y = ctx.create<MulOp>(*y, scalar(ctx, elementType, *alpha))))
    return failure();
  if (ctx.hasInput(2) && *beta != 0.0f) {
    FailureOr<Value> c = ctx.input(2);
    if (failed(c))
      return failure();
    if (*beta != 1.0f &&
        failed(c = ctx.create<MulOp>(*c, scalar(ctx, elementType, *beta))))
      return failure();
    if (failed(y = ctx.create<AddOp>(*y, *c)))
      return failure();
  }
  ctx.setOutput(0, *y);
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization and reductions
//===----------------------------------------------------------------------===//

LogicalResult convertBatchNorm(NodeContext &ctx) {
  FailureOr<float> epsilon = ctx.getFloat("epsilon", 1e-5f);
  FailureOr<int64_t> training = ctx.getInt("training_mode", 0);
  if (failed(epsilon) || failed(training))
    return failure();
  if (*training)
    return ctx.unsupportedAttribute("training_mode",
                                    "only inference (0) is supported");
  if (failed(ctx.expectUnusedOutputsFrom(1)))
    return failure();
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1), bias = ctx.input(2),
                   mean = ctx.input(3), var = ctx.input(4);
  if (failed(x) || failed(scale) || failed(bias) || failed(mean) || failed(var))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (rank < 2)
    return ctx.error() << "input must have rank 2 or more";
  Type elementType = typeOf(*x).getElementType();
  // y = x * a + b with a = scale / sqrt(var + eps), b = bias - mean * a,
  // computed on the [C] vectors.
  FailureOr<Value> a =
      ctx.create<AddOp>(*var, scalar(ctx, elementType, *epsilon));
  if (failed(a) || failed(a = ctx.create<RsqrtOp>(*a)) ||
      failed(a = ctx.create<MulOp>(*scale, *a)))
    return failure();
  FailureOr<Value> b = ctx.create<MulOp>(*mean, *a);
  if (failed(b) || failed(b = ctx.create<SubOp>(*bias, *b)))
    return failure();
  Ints shape(rank - 1, 1);
  shape[0] = typeOf(*a).getDimSize(0);
  FailureOr<Value> y = ctx.create<MulOp>(*x, reshape(ctx, *a, shape));
  if (failed(y) || failed(y = ctx.create<AddOp>(*y, reshape(ctx, *b, shape))))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// x's mean over `axes` (kept as 1s), x less it, and 1 / sqrt(variance +
/// epsilon): what layer and instance normalization share.
struct Normalized {
  Value mean, centered, invStdDev;
};
FailureOr<Normalized> normalize(NodeContext &ctx, Value x, const Ints &axes,
                                float epsilon) {
  Type elementType = typeOf(x).getElementType();
  FailureOr<Value> mean = ctx.create<MeanOp>(x, axes, true);
  if (failed(mean))
    return failure();
  FailureOr<Value> d = ctx.create<SubOp>(x, *mean);
  if (failed(d))
    return failure();
  FailureOr<Value> var = ctx.create<MulOp>(*d, *d);
  if (failed(var) || failed(var = ctx.create<MeanOp>(*var, axes, true)) ||
      failed(var = ctx.create<AddOp>(*var, scalar(ctx, elementType, epsilon))) ||
      failed(var = ctx.create<RsqrtOp>(*var)))
    return failure();
  return Normalized{*mean, *d, *var};
}

LogicalResult convertLayerNorm(NodeContext &ctx) {
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<float> epsilon = ctx.getFloat("epsilon", 1e-5f);
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1);
  if (failed(axis) || failed(epsilon) || failed(x) || failed(scale))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, rank);
  if (failed(a))
    return failure();
  Ints axes;
  for (int64_t i = *a; i < rank; ++i)
    axes.push_back(i);
  FailureOr<Normalized> n = normalize(ctx, *x, axes, *epsilon);
  if (failed(n))
    return failure();
  FailureOr<Value> y = ctx.create<MulOp>(n->centered, n->invStdDev);
  if (failed(y) || failed(y = ctx.create<MulOp>(*y, *scale)))
    return failure();
  if (ctx.hasInput(2)) {
    FailureOr<Value> bias = ctx.input(2);
    if (failed(bias) || failed(y = ctx.create<AddOp>(*y, *bias)))
      return failure();
  }
  ctx.setOutput(0, *y);
  // Mean and InvStdDev, with the reduced dims kept as 1.
  ctx.setOutput(1, n->mean);
  ctx.setOutput(2, n->invStdDev);
  return success();
}

template <typename OpTy> LogicalResult convertSoftmax(NodeContext &ctx) {
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<Value> x = ctx.input(0);
  if (failed(axis) || failed(x))
    return failure();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, typeOf(*x).getRank());
  if (failed(a))
    return failure();
  FailureOr<Value> y = ctx.create<OpTy>(*x, static_cast<uint64_t>(*a));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

enum class Reduction { Sum, Mean, Max, Min, L2, SumSquare, Prod };

/// The product of `x` along `axis` (static), kept as a dim of 1: rlx has no
/// product reduction, so the halves are multiplied until one element is
/// left (an odd element out joins the next round), ceil(log2(n)) rounds of
/// elementwise products, exact for integers.
FailureOr<Value> productAlong(NodeContext &ctx, Value x, int64_t axis) {
  auto type = typeOf(x);
  int64_t n = type.getDimSize(axis);
  if (ShapedType::isDynamic(n))
    return ctx.error() << "ReduceProd over a dynamic dim (" << axis
                       << ") is not supported";
  if (n == 0)
    return ctx.error() << "ReduceProd over an empty dim (" << axis
                       << ") is not supported";
  int64_t rank = type.getRank();
  auto sliceOf = [&](Value v, int64_t from, int64_t to) {
    SmallVector<int64_t> start(rank, 0), limit(rank, -1), strides(rank, 1);
    start[axis] = from;
    limit[axis] = to;
    return ctx.create<SliceOp>(v, start, limit, strides);
  };
  while (n > 1) {
    int64_t half = n / 2;
    FailureOr<Value> lo = sliceOf(x, 0, half), hi = sliceOf(x, half, 2 * half);
    if (failed(lo) || failed(hi))
      return failure();
    FailureOr<Value> product = ctx.create<MulOp>(*lo, *hi);
    if (failed(product))
      return failure();
    if (n % 2) {
      FailureOr<Value> last = sliceOf(x, n - 1, n);
      if (failed(last) ||
          failed(product = ctx.create<ConcatOp>(
                     ValueRange{*product, *last}, static_cast<uint64_t>(axis))))
        return failure();
    }
    x = *product;
    n = half + n % 2;
  }
  return x;
}

LogicalResult convertReduce(NodeContext &ctx, Reduction kind) {
  FailureOr<int64_t> keepdims = ctx.getInt("keepdims", 1),
                     noopEmpty = ctx.getInt("noop_with_empty_axes", 0);
  FailureOr<std::optional<Ints>> axesOrNone = axesOf(ctx, 1);
  FailureOr<Value> x = ctx.input(0);
  if (failed(keepdims) || failed(noopEmpty) || failed(axesOrNone) || failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  Ints axes;
  if (!*axesOrNone || (*axesOrNone)->empty()) {
    if (*noopEmpty) {
      ctx.setOutput(0, *x);
      return success();
    }
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  } else {
    for (int64_t axis : **axesOrNone) {
      FailureOr<int64_t> a = normalizeAxis(ctx, axis, rank);
      if (failed(a))
        return failure();
      axes.push_back(*a);
    }
    llvm::sort(axes);
  }
  Value in = *x;
  if (kind == Reduction::L2 || kind == Reduction::SumSquare) {
    FailureOr<Value> sq = ctx.create<MulOp>(in, in);
    if (failed(sq))
      return failure();
    in = *sq;
  } else if (kind == Reduction::Min) {
    FailureOr<Value> neg = ctx.create<NegOp>(in);
    if (failed(neg))
      return failure();
    in = *neg;
  }
  bool keep = *keepdims != 0;
  FailureOr<Value> y = failure();
  if (kind == Reduction::Prod) {
    for (int64_t axis : axes) {
      FailureOr<Value> product = productAlong(ctx, in, axis);
      if (failed(product))
        return failure();
      in = *product;
    }
    // Each reduced dim is 1 now.
    SmallVector<int64_t> shape;
    for (auto [d, size] : llvm::enumerate(typeOf(in).getShape()))
      if (keep || !llvm::is_contained(axes, static_cast<int64_t>(d)))
        shape.push_back(size);
    ctx.setOutput(0, reshape(ctx, in, shape));
    return success();
  }
  switch (kind) {
  case Reduction::Mean:
    y = ctx.create<MeanOp>(in, axes, keep);
    break;
  case Reduction::Max:
  case Reduction::Min:
    y = ctx.create<MaxOp>(in, axes, keep);
    break;
  default:
    y = ctx.create<SumOp>(in, axes, keep);
    break;
  }
  if (failed(y))
    return failure();
  if (kind == Reduction::Min && failed(y = ctx.create<NegOp>(*y)))
    return failure();
  if (kind == Reduction::L2 && failed(y = ctx.create<SqrtOp>(*y)))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertInstanceNorm(NodeContext &ctx) {
  FailureOr<float> epsilon = ctx.getFloat("epsilon", 1e-5f);
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1), bias = ctx.input(2);
  if (failed(epsilon) || failed(x) || failed(scale) || failed(bias))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (rank < 3)
    return ctx.error() << "input must have rank 3 or more";
  Ints axes;
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  FailureOr<Normalized> n = normalize(ctx, *x, axes, *epsilon);
  if (failed(n))
    return failure();
  Ints shape(rank - 1, 1);
  shape[0] = typeOf(*scale).getDimSize(0);
  FailureOr<Value> y = ctx.create<MulOp>(n->centered, n->invStdDev);
  if (failed(y) ||
      failed(y = ctx.create<MulOp>(*y, reshape(ctx, *scale, shape))) ||
      failed(y = ctx.create<AddOp>(*y, reshape(ctx, *bias, shape))))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// The i64 index of the maximum (or minimum) along `axis`: the first one,
/// the minimum over `select(x == max, index, size)`, or with `last` the
/// maximum over `select(x == max, index, -1)`.
FailureOr<Value> argExtremum(NodeContext &ctx, Value x, int64_t axis,
                             bool isMax, bool last, bool keepdims) {
  int64_t rank = typeOf(x).getRank();
  int64_t size = typeOf(x).getDimSize(axis);
  if (ShapedType::isDynamic(size))
    return ctx.error() << "the reduced dim " << axis << " must be static";
  Value v = x;
  if (!isMax) {
    FailureOr<Value> neg = ctx.create<NegOp>(v);
    if (failed(neg))
      return failure();
    v = *neg;
  }
  FailureOr<Value> m = ctx.create<MaxOp>(v, ArrayRef<int64_t>{axis}, true);
  if (failed(m))
    return failure();
  FailureOr<Value> hit = ctx.create<CompareOp>("eq", v, *m);
  if (failed(hit))
    return failure();
  Type i64 = ctx.builder().getIntegerType(64);
  FailureOr<Value> indices = indicesAlong(ctx, size, axis, rank, i64);
  if (failed(indices))
    return failure();
  FailureOr<Value> candidates =
      ctx.create<SelectOp>(*hit, *indices, scalar(ctx, i64, last ? -1 : size));
  if (failed(candidates) ||
      (!last && failed(candidates = ctx.create<NegOp>(*candidates))))
    return failure();
  FailureOr<Value> y =
      ctx.create<MaxOp>(*candidates, ArrayRef<int64_t>{axis}, keepdims);
  if (failed(y) || (!last && failed(y = ctx.create<NegOp>(*y))))
    return failure();
  return y;
}

LogicalResult convertArgExtremum(NodeContext &ctx, bool isMax) {
  FailureOr<int64_t> axis = ctx.getInt("axis", 0),
                     keepdims = ctx.getInt("keepdims", 1),
                     last = ctx.getInt("select_last_index", 0);
  FailureOr<Value> x = ctx.input(0);
  if (failed(axis) || failed(keepdims) || failed(last) || failed(x))
    return failure();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, typeOf(*x).getRank());
  if (failed(a))
    return failure();
  FailureOr<Value> y =
      argExtremum(ctx, *x, *a, isMax, *last != 0, *keepdims != 0);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere.
/// The most elements TopK picks (one max, argmax and mask per element).
constexpr int64_t kMaxTopK = 256;

/// TopK: k rounds of (the maximum of the elements not yet taken, its first
/// index, mark it taken), so ties come out in index order, as ONNX says.
/// The smallest are the largest of an order-reversing map: -x for floats,
/// -1 - x for integers (no overflow at the type's minimum). Values and
/// indices come out sorted whatever `sorted` says (which allows it).
LogicalResult convertTopK(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"axis", "largest", "sorted"})))
    return failure();
  FailureOr<int64_t> axis = ctx.getInt("axis", -1),
                     largest = ctx.getInt("largest", 1);
  FailureOr<Value> x = ctx.input(0);
  FailureOr<Ints> k = ctx.constantInts(1, "K");
  if (failed(axis) || failed(largest) || failed(x) || failed(k))
    return failure();
  RankedTensorType type = typeOf(*x);
  int64_t rank = type.getRank();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, rank);
  if (failed(a))
    return failure();
  int64_t size = type.getDimSize(*a);
  if (ShapedType::isDynamic(size))
    return ctx.error() << "the dim TopK selects along (" << *a
                       << ") must be static";
  if (k->size() != 1 || (*k)[0] < 0 || (*k)[0] > size)
    return ctx.error() << "K must be one value in [0, " << size << "]";
  int64_t count = (*k)[0];
  if (count > kMaxTopK)
    return ctx.error() << "K = " << count << " is more than the " << kMaxTopK
                       << " elements TopK picks";
  Type elementType = type.getElementType();
  bool isFloat = isa<FloatType>(elementType);
  Type i64 = ctx.builder().getIntegerType(64);
  // The order-reversing map for the smallest; its own inverse.
  auto reverse = [&](Value v) -> FailureOr<Value> {
    if (isFloat)
      return ctx.create<NegOp>(v);
    return ctx.create<SubOp>(scalar(ctx, elementType, -1.0), v);
  };
  Value v = *x;
  if (!*largest) {
    FailureOr<Value> r = reverse(v);
    if (failed(r))
      return failure();
    v = *r;
  }
  Value least = lowest(ctx, elementType);
  FailureOr<Value> positions = indicesAlong(ctx, size, *a, rank, i64);
  if (failed(positions))
    return failure();
  FailureOr<Value> taken = ctx.create<CompareOp>(
      "lt", *positions, scalar(ctx, i64, 0.0)); // all false
  if (failed(taken))
    return failure();
  SmallVector<Value> values, indices;
  for (int64_t round = 0; round < count; ++round) {
    FailureOr<Value> open = ctx.create<SelectOp>(*taken, least, v);
    FailureOr<Value> m = failed(open)
                             ? open
                             : ctx.create<MaxOp>(*open, ArrayRef<int64_t>{*a},
                                                 true);
    if (failed(m))
      return failure();
    // The first untaken position holding the maximum: -max(-candidates).
    FailureOr<Value> hit = ctx.create<CompareOp>("eq", *open, *m);
    FailureOr<Value> notTaken =
        ctx.create<CompareOp>("eq", *taken, scalar(ctx, ctx.builder().getI1Type(), 0));
    if (failed(hit) || failed(notTaken) ||
        failed(hit = ctx.create<SelectOp>(*notTaken, *hit, *notTaken)))
      return failure();
    FailureOr<Value> candidates =
        ctx.create<SelectOp>(*hit, *positions, scalar(ctx, i64, size));
    if (failed(candidates) ||
        failed(candidates = ctx.create<NegOp>(*candidates)))
      return failure();
    FailureOr<Value> index =
        ctx.create<MaxOp>(*candidates, ArrayRef<int64_t>{*a}, true);
    if (failed(index) || failed(index = ctx.create<NegOp>(*index)))
      return failure();
    FailureOr<Value> chosen = ctx.create<CompareOp>("eq", *positions, *index);
    FailureOr<Value> nowTaken =
        failed(chosen) ? chosen : ctx.create<SelectOp>(*chosen, *chosen, *taken);
    if (failed(nowTaken))
      return failure();
    taken = *nowTaken;
    values.push_back(*m);
    indices.push_back(*index);
  }
  auto joined = [&](ArrayRef<Value> parts, Type elem) -> FailureOr<Value> {
    if (parts.empty()) {
      Ints shape(type.getShape());
      shape[*a] = 0;
      if (llvm::any_of(shape, ShapedType::isDynamic))
        return ctx.error() << "K = 0 needs static dims";
      return ctx.importer.materialize(
          DenseElementsAttr::get(RankedTensorType::get(shape, elem),
                                 ArrayRef<Attribute>{}),
          ctx.loc);
    }
    if (parts.size() == 1)
      return parts[0];
    return ctx.create<ConcatOp>(ValueRange(parts), static_cast<uint64_t>(*a));
  };
  FailureOr<Value> y = joined(values, elementType),
                   i = joined(indices, i64);
  if (failed(y) || failed(i))
    return failure();
  if (!*largest && count > 0 && failed(y = reverse(*y)))
    return failure();
  ctx.setOutput(0, *y);
  ctx.setOutput(1, *i);
  return success();
}

LogicalResult convertHardmax(NodeContext &ctx) {
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<Value> x = ctx.input(0);
  if (failed(axis) || failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, rank);
  if (failed(a))
    return failure();
  FailureOr<Value> index = argExtremum(ctx, *x, *a, true, false, true);
  if (failed(index))
    return failure();
  FailureOr<Value> indices =
      indicesAlong(ctx, typeOf(*x).getDimSize(*a), *a, rank,
                   ctx.builder().getIntegerType(64));
  if (failed(indices))
    return failure();
  FailureOr<Value> hit = ctx.create<CompareOp>("eq", *indices, *index);
  if (failed(hit))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> y = ctx.create<SelectOp>(*hit, scalar(ctx, elementType, 1.0),
                                            scalar(ctx, elementType, 0.0));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// OneHot: `values[1]` where the (wrapped) index equals the position along
/// the new axis of size `depth`, `values[0]` elsewhere.
LogicalResult convertOneHot(NodeContext &ctx) {
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<Value> indices = ctx.input(0), values = ctx.input(2);
  std::optional<DenseElementsAttr> depthAttr = ctx.constantInput(1);
  if (failed(axis) || failed(indices) || failed(values))
    return failure();
  if (!depthAttr || depthAttr->getNumElements() != 1)
    return ctx.error() << "depth must be one value known at import time";
  double depthValue =
      isa<FloatType>(depthAttr->getElementType())
          ? (*depthAttr->getValues<APFloat>().begin()).convertToDouble()
          : static_cast<double>(
                (*depthAttr->getValues<APInt>().begin()).getSExtValue());
  if (!(depthValue >= 1 && depthValue <= double(kMaxComputedConstant)))
    return ctx.error() << "depth " << depthValue << " is out of range";
  int64_t depth = static_cast<int64_t>(depthValue);
  if (depth <= 0)
    return ctx.error() << "depth must be positive";
  if (typeOf(*values).getNumElements() != 2)
    return ctx.error() << "values must hold [off, on]";
  int64_t rank = typeOf(*indices).getRank() + 1;
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, rank);
  if (failed(a))
    return failure();
  // Indices as i64, negative ones wrapped, with the new axis as size 1.
  Type i64 = ctx.builder().getIntegerType(64);
  Value idx = *indices;
  if (typeOf(idx).getElementType() != i64)
    idx = CastOp::create(ctx.builder(), ctx.loc, typeOf(idx).clone(i64), idx);
  FailureOr<Value> negative =
      ctx.create<CompareOp>("lt", idx, scalar(ctx, i64, 0));
  FailureOr<Value> wrapped = ctx.create<AddOp>(idx, scalar(ctx, i64, depth));
  if (failed(negative) || failed(wrapped))
    return failure();
  FailureOr<Value> fixed = ctx.create<SelectOp>(*negative, *wrapped, idx);
  if (failed(fixed))
    return failure();
  Ints shape(typeOf(*fixed).getShape());
  shape.insert(shape.begin() + *a, 1);
  Value expanded = reshape(ctx, *fixed, shape);
  FailureOr<Value> positions = indicesAlong(ctx, depth, *a, rank, i64);
  if (failed(positions))
    return failure();
  FailureOr<Value> hit = ctx.create<CompareOp>("eq", expanded, *positions);
  if (failed(hit))
    return failure();
  Value off = reshape(
      ctx,
      SliceOp::create(ctx.builder(), ctx.loc, *values, ArrayRef<int64_t>{0},
                      ArrayRef<int64_t>{1}, ArrayRef<int64_t>{1})
          .getResult(),
      {});
  Value on = reshape(ctx,
                     SliceOp::create(ctx.builder(), ctx.loc, *values,
                                     ArrayRef<int64_t>{1}, ArrayRef<int64_t>{2},
                                     ArrayRef<int64_t>{1})
                         .getResult(),
                     {});
  FailureOr<Value> y = ctx.create<SelectOp>(*hit, on, off);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// CumSum along a static axis: a matmul with a triangular matrix of ones
/// (the axis moved last and back).
LogicalResult convertCumSum(NodeContext &ctx) {
  FailureOr<int64_t> exclusive = ctx.getInt("exclusive", 0),
                     reverse = ctx.getInt("reverse", 0);
  FailureOr<Ints> axisValues = ctx.constantInts(1, "axis");
  FailureOr<Value> x = ctx.input(0);
  if (failed(exclusive) || failed(reverse) || failed(axisValues) || failed(x))
    return failure();
  if (axisValues->size() != 1)
    return ctx.error() << "axis must hold one value";
  int64_t rank = typeOf(*x).getRank();
  FailureOr<int64_t> a = normalizeAxis(ctx, (*axisValues)[0], rank);
  if (failed(a))
    return failure();
  int64_t n = typeOf(*x).getDimSize(*a);
  if (ShapedType::isDynamic(n))
    return ctx.error() << "the summed dim " << *a << " must be static";
  if (n > 4096)
    return ctx.error() << "the summed dim " << *a << " (" << n
                       << ") is too long for the triangular matrix it needs";
  Type elementType = typeOf(*x).getElementType();
  // y[j] = sum_i x[i] * m[i][j], m[i][j] = 1 when i is summed into j.
  SmallVector<Attribute> ones;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      bool in = *reverse ? (*exclusive ? i > j : i >= j)
                         : (*exclusive ? i < j : i <= j);
      ones.push_back(
          isa<FloatType>(elementType)
              ? Attribute(FloatAttr::get(elementType, in ? 1.0 : 0.0))
              : Attribute(IntegerAttr::get(elementType, in ? 1 : 0)));
    }
  Value m = ctx.importer.materialize(
      DenseElementsAttr::get(RankedTensorType::get({n, n}, elementType), ones),
      ctx.loc);
  Ints perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != *a)
      perm.push_back(i);
  perm.push_back(*a);
  Ints inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  FailureOr<Value> moved = transpose(ctx, *x, perm);
  if (failed(moved))
    return failure();
  Value lhs = *moved;
  if (rank == 1)
    lhs = reshape(ctx, lhs, {1, n});
  FailureOr<Value> y = ctx.create<MatmulOp>(lhs, m);
  if (failed(y))
    return failure();
  if (rank == 1)
    *y = reshape(ctx, *y, {n});
  if (failed(y = transpose(ctx, *y, inverse)))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// SoftmaxCrossEntropyLoss (`softmax` true: scores, then log_softmax over
/// the classes) and NegativeLogLikelihoodLoss (log-probabilities given):
/// the label's entry picked with a one-hot mask (labels compared with the
/// class indices), weighted by `weights[label]` and by `label !=
/// ignore_index`; `mean` divides by the total weight, as ONNX defines.
LogicalResult convertClassLoss(NodeContext &ctx, bool softmax) {
  FailureOr<std::string> reduction = ctx.getString("reduction", "mean");
  FailureOr<Value> scores = ctx.input(0), labels = ctx.input(1);
  if (failed(reduction) || failed(scores) || failed(labels))
    return failure();
  if (*reduction != "mean" && *reduction != "sum" && *reduction != "none")
    return ctx.unsupportedAttribute("reduction",
                                    "unknown value '" + *reduction + "'");
  RankedTensorType scoresType = typeOf(*scores);
  int64_t rank = scoresType.getRank();
  // The rank first: a rank-0 or rank-1 input has no dim 1 to read.
  if (rank < 2 || ShapedType::isDynamic(scoresType.getDimSize(1)))
    return ctx.error() << "scores must be [N, C, ...] with a static C";
  int64_t classes = scoresType.getDimSize(1);
  if (classes > kMaxComputedConstant)
    return ctx.error() << classes << " classes are too many";
  // Labels are [N, d1, ...]: the scores' shape without the class dim.
  RankedTensorType labelsType = typeOf(*labels);
  if (labelsType.getRank() != rank - 1 ||
      !isa<IntegerType>(labelsType.getElementType()))
    return ctx.error() << "labels must be integers of rank " << rank - 1
                       << " (the scores' shape without the class dim), got "
                       << labelsType;
  Type elementType = scoresType.getElementType();
  Type labelType = labelsType.getElementType();
  Value logp = *scores;
  if (softmax) {
    FailureOr<Value> l = ctx.create<LogSoftmaxOp>(*scores, uint64_t(1));
    if (failed(l))
      return failure();
    logp = *l;
  }
  // One-hot of the labels over the class dim.
  Ints labelShape(typeOf(*labels).getShape());
  labelShape.insert(labelShape.begin() + 1, 1);
  Value expanded = reshape(ctx, *labels, labelShape);
  Ints iota(classes), iotaShape(rank, 1);
  std::iota(iota.begin(), iota.end(), 0);
  iotaShape[1] = classes;
  Value classIds = ctx.importer.materialize(
      intsAttr(ctx.builder().getContext(), iota, iotaShape, labelType),
      ctx.loc);
  FailureOr<Value> hit = ctx.create<CompareOp>("eq", expanded, classIds);
  if (failed(hit))
    return failure();
  Value oneHot = CastOp::create(ctx.builder(), ctx.loc,
                                typeOf(*hit).clone(elementType), *hit);
  FailureOr<Value> loss = ctx.create<MulOp>(logp, oneHot);
  if (failed(loss) ||
      failed(loss = ctx.create<SumOp>(*loss, ArrayRef<int64_t>{1}, false)) ||
      failed(loss = ctx.create<NegOp>(*loss)))
    return failure();
  // The weight of each element, when there are weights or an ignored label.
  Value weight;
  if (ctx.hasInput(2)) {
    FailureOr<Value> w = ctx.input(2);
    if (failed(w))
      return failure();
    FailureOr<Value> picked =
        ctx.create<MulOp>(oneHot, reshape(ctx, *w, iotaShape));
    if (failed(picked) || failed(picked = ctx.create<SumOp>(
                                     *picked, ArrayRef<int64_t>{1}, false)))
      return failure();
    weight = *picked;
  }
  if (const onnx::AttributeProto *ignore = ctx.attribute("ignore_index")) {
    FailureOr<Value> kept = ctx.create<CompareOp>(
        "ne", *labels,
        scalar(ctx, labelType, static_cast<double>(ignore->i())));
    if (failed(kept))
      return failure();
    Value mask = CastOp::create(ctx.builder(), ctx.loc,
                                typeOf(*kept).clone(elementType), *kept);
    if (weight) {
      FailureOr<Value> w = ctx.create<MulOp>(weight, mask);
      if (failed(w))
        return failure();
      weight = *w;
    } else {
      weight = mask;
    }
  }
  if (weight && failed(loss = ctx.create<MulOp>(*loss, weight)))
    return failure();
  Ints all(typeOf(*loss).getRank());
  std::iota(all.begin(), all.end(), 0);
  if (*reduction == "sum") {
    if (failed(loss = ctx.create<SumOp>(*loss, all, false)))
      return failure();
  } else if (*reduction == "mean") {
    if (weight) {
      FailureOr<Value> total = ctx.create<SumOp>(weight, all, false);
      if (failed(total) ||
          failed(loss = ctx.create<SumOp>(*loss, all, false)) ||
          failed(loss = ctx.create<DivOp>(*loss, *total)))
        return failure();
    } else if (failed(loss = ctx.create<MeanOp>(*loss, all, false))) {
      return failure();
    }
  }
  ctx.setOutput(0, *loss);
  if (softmax)
    ctx.setOutput(1, logp);
  return success();
}

/// ReduceL1, ReduceLogSum, ReduceLogSumExp: sums of |x|, log of a sum, and
/// max + log(sum(e^(x - max))) so that large x does not overflow.
LogicalResult convertLogReduce(NodeContext &ctx, StringRef kind) {
  FailureOr<int64_t> keepdims = ctx.getInt("keepdims", 1);
  FailureOr<std::optional<Ints>> axesOrNone = axesOf(ctx, 1);
  FailureOr<Value> x = ctx.input(0);
  if (failed(keepdims) || failed(axesOrNone) || failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  Ints axes;
  if (!*axesOrNone || (*axesOrNone)->empty()) {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  } else {
    for (int64_t axis : **axesOrNone) {
      FailureOr<int64_t> a = normalizeAxis(ctx, axis, rank);
      if (failed(a))
        return failure();
      axes.push_back(*a);
    }
    llvm::sort(axes);
  }
  bool keep = *keepdims != 0;
  FailureOr<Value> y = failure();
  if (kind == "L1") {
    FailureOr<Value> a = ctx.create<AbsOp>(*x);
    if (failed(a))
      return failure();
    y = ctx.create<SumOp>(*a, axes, keep);
  } else if (kind == "LogSum") {
    y = ctx.create<SumOp>(*x, axes, keep);
    if (succeeded(y))
      y = ctx.create<LogOp>(*y);
  } else {
    FailureOr<Value> m = ctx.create<MaxOp>(*x, axes, true);
    if (failed(m))
      return failure();
    FailureOr<Value> e = ctx.create<SubOp>(*x, *m);
    if (failed(e) || failed(e = ctx.create<ExpOp>(*e)) ||
        failed(e = ctx.create<SumOp>(*e, axes, true)) ||
        failed(e = ctx.create<LogOp>(*e)))
      return failure();
    y = ctx.create<AddOp>(*e, *m);
    if (succeeded(y) && !keep) {
      Ints shape;
      for (int64_t i = 0; i < rank; ++i)
        if (!llvm::is_contained(axes, i))
          shape.push_back(typeOf(*y).getDimSize(i));
      y = reshape(ctx, *y, shape);
    }
  }
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Trilu: x where the column minus the row is >= k (upper) or <= k
/// (lower), else 0, over the last two (static) dims; k known at import
/// (a constant mask) or at run time (a constant of column minus row,
/// compared with it).
LogicalResult convertTrilu(NodeContext &ctx) {
  FailureOr<int64_t> upper = ctx.getInt("upper", 1);
  FailureOr<Value> x = ctx.input(0);
  if (failed(upper) || failed(x))
    return failure();
  int64_t k = 0;
  // A k known only at run time: the mask compares a constant of column
  // minus row with it.
  if (ctx.hasInput(1) && !ctx.constantInput(1)) {
    FailureOr<Value> kv = ctx.input(1);
    if (failed(kv))
      return failure();
    RankedTensorType kType = typeOf(*kv), type = typeOf(*x);
    int64_t rank = type.getRank();
    if (!kType.getElementType().isInteger(64) || !kType.hasStaticShape() ||
        kType.getNumElements() != 1)
      return ctx.error() << "input 1 (k) must be one int64, got " << kType;
    if (rank < 2 || ShapedType::isDynamic(type.getDimSize(rank - 1)) ||
        ShapedType::isDynamic(type.getDimSize(rank - 2)))
      return ctx.error() << "the last two dims must be static";
    int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
    std::optional<int64_t> cells = checkedArith('*', rows, cols);
    if (!cells || *cells > kMaxComputedConstant)
      return ctx.error() << "the last two dims are too large for the mask";
    Ints offsets;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        offsets.push_back(j - i);
    Value diagonal = ctx.importer.materialize(
        intsAttr(ctx.builder().getContext(), offsets, {rows, cols},
                 ctx.builder().getI64Type()),
        ctx.loc);
    FailureOr<Value> mask = ctx.create<CompareOp>(
        *upper ? "ge" : "le", diagonal, reshape(ctx, *kv, {}));
    FailureOr<Value> y =
        failed(mask) ? FailureOr<Value>(failure())
                     : ctx.create<SelectOp>(
                           *mask, *x, scalar(ctx, type.getElementType(), 0.0));
    if (failed(y))
      return failure();
    ctx.setOutput(0, *y);
    return success();
  }
  if (ctx.hasInput(1)) {
    FailureOr<Ints> kv = ctx.constantInts(1, "k");
    if (failed(kv))
      return failure();
    if (kv->size() != 1)
      return ctx.error() << "k must hold one value";
    k = (*kv)[0];
  }
  RankedTensorType type = typeOf(*x);
  int64_t rank = type.getRank();
  if (rank < 2 || ShapedType::isDynamic(type.getDimSize(rank - 1)) ||
      ShapedType::isDynamic(type.getDimSize(rank - 2)))
    return ctx.error() << "the last two dims must be static";
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  std::optional<int64_t> cells = checkedArith('*', rows, cols);
  if (!cells || *cells > kMaxComputedConstant)
    return ctx.error() << "the last two dims are too large for the mask";
  SmallVector<bool> keep;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      keep.push_back(*upper ? j - i >= k : j - i <= k);
  Value mask = ctx.importer.materialize(
      DenseElementsAttr::get(
          RankedTensorType::get({rows, cols}, ctx.builder().getI1Type()),
          ArrayRef<bool>(keep)),
      ctx.loc);
  FailureOr<Value> y =
      ctx.create<SelectOp>(mask, *x, scalar(ctx, type.getElementType(), 0.0));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Einsum of one or two operands without repeated labels in an operand
/// (no diagonals): labels only one operand has and the output lacks are
/// summed first; then each operand is transposed to [batch, free,
/// contracted] (or [batch, contracted, free]) and flattened to 3 groups so
/// one rlx.matmul contracts them, and the product is unflattened and
/// transposed to the output's order. `...` stands for the leading dims.
LogicalResult convertEinsum(NodeContext &ctx) {
  FailureOr<std::string> equation = ctx.getString("equation", "");
  if (failed(equation))
    return failure();
  std::string eq;
  for (char c : *equation)
    if (c != ' ')
      eq.push_back(c);
  unsigned n = ctx.numInputs();
  if (n < 1 || n > 2)
    return ctx.error() << "only one or two operands are supported";
  SmallVector<Value> operands;
  for (unsigned i = 0; i < n; ++i) {
    FailureOr<Value> x = ctx.input(i);
    if (failed(x))
      return failure();
    operands.push_back(*x);
  }
  size_t arrow = eq.find("->");
  std::string lhsText = eq.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhsText.find(',', start);
    terms.push_back(lhsText.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != n)
    return ctx.unsupportedAttribute(
        "equation", "names " + std::to_string(terms.size()) +
                        " operands, the node has " + std::to_string(n));
  // Labels of each operand, `...` expanded to one label per leading dim
  // (digits, which equations never use).
  int64_t ellipsisRank = 0;
  SmallVector<std::string> labels;
  for (unsigned i = 0; i < n; ++i) {
    int64_t rank = typeOf(operands[i]).getRank();
    std::string term = terms[i];
    size_t dots = term.find("...");
    if (dots != std::string::npos) {
      int64_t count = rank - static_cast<int64_t>(term.size() - 3);
      if (count < 0 || count > 9)
        return ctx.unsupportedAttribute("equation", "'...' does not fit");
      ellipsisRank = std::max(ellipsisRank, count);
      std::string digits;
      for (int64_t k = 0; k < count; ++k)
        digits.push_back('0' + (9 - count + k));
      term = term.substr(0, dots) + digits + term.substr(dots + 3);
    }
    if (static_cast<int64_t>(term.size()) != rank)
      return ctx.unsupportedAttribute(
          "equation",
          "term '" + terms[i] + "' does not match its operand's rank");
    for (size_t a = 0; a < term.size(); ++a)
      if (term.find(term[a], a + 1) != std::string::npos)
        return ctx.unsupportedAttribute(
            "equation", "a label repeated in one operand (a diagonal)");
    labels.push_back(term);
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    size_t dots = out.find("...");
    if (dots != std::string::npos) {
      std::string digits;
      for (int64_t k = 0; k < ellipsisRank; ++k)
        digits.push_back('0' + (9 - ellipsisRank + k));
      out = out.substr(0, dots) + digits + out.substr(dots + 3);
    }
  } else {
    // Implicit output: the ellipsis, then labels used once, sorted.
    std::string all = n == 2 ? labels[0] + labels[1] : labels[0];
    for (char c : all)
      if (isdigit(c) && out.find(c) == std::string::npos)
        out.push_back(c);
    std::string once;
    for (char c : all)
      if (!isdigit(c) && llvm::count(all, c) == 1)
        once.push_back(c);
    llvm::sort(once);
    out += once;
  }
  // Sum away labels of one operand that nothing else uses.
  for (unsigned i = 0; i < n; ++i) {
    Ints axes;
    std::string kept;
    for (size_t a = 0; a < labels[i].size(); ++a) {
      char c = labels[i][a];
      bool elsewhere = out.find(c) != std::string::npos ||
                       (n == 2 && labels[1 - i].find(c) != std::string::npos);
      if (elsewhere)
        kept.push_back(c);
      else
        axes.push_back(a);
    }
    if (!axes.empty()) {
      FailureOr<Value> summed = ctx.create<SumOp>(operands[i], axes, false);
      if (failed(summed))
        return failure();
      operands[i] = *summed;
      labels[i] = kept;
    }
  }
  auto dimOf = [&](char c) -> int64_t {
    for (unsigned i = 0; i < n; ++i) {
      size_t a = labels[i].find(c);
      if (a != std::string::npos && typeOf(operands[i]).getDimSize(a) != 1)
        return typeOf(operands[i]).getDimSize(a);
    }
    return 1;
  };
  auto permuteTo = [&](Value x, StringRef from,
                       StringRef to) -> FailureOr<Value> {
    Ints perm;
    for (char c : to)
      perm.push_back(from.find(c));
    return transpose(ctx, x, perm);
  };
  auto product = [&](StringRef group) -> int64_t {
    int64_t p = 1;
    for (char c : group) {
      int64_t d = dimOf(c);
      // Overflow: dynamic, which the reshape's verifier then refuses.
      if (ShapedType::isDynamic(d) || __builtin_mul_overflow(p, d, &p))
        return group.size() == 1 ? d : ShapedType::kDynamic;
    }
    return p;
  };
  if (n == 1) {
    for (char c : out)
      if (labels[0].find(c) == std::string::npos)
        return ctx.unsupportedAttribute("equation", "an output label no "
                                                    "operand has");
    FailureOr<Value> y = permuteTo(operands[0], labels[0], out);
    if (failed(y))
      return failure();
    ctx.setOutput(0, *y);
    return success();
  }
  std::string batch, lfree, rfree, contracted;
  for (char c : labels[0]) {
    bool inRhs = labels[1].find(c) != std::string::npos;
    bool inOut = out.find(c) != std::string::npos;
    (inRhs ? (inOut ? batch : contracted) : lfree).push_back(c);
  }
  for (char c : labels[1])
    if (labels[0].find(c) == std::string::npos)
      rfree.push_back(c);
  for (char c : out)
    if (batch.find(c) == std::string::npos &&
        lfree.find(c) == std::string::npos &&
        rfree.find(c) == std::string::npos)
      return ctx.unsupportedAttribute("equation", "an output label no "
                                                  "operand has");
  FailureOr<Value> lhs =
      permuteTo(operands[0], labels[0], batch + lfree + contracted);
  FailureOr<Value> rhs =
      permuteTo(operands[1], labels[1], batch + contracted + rfree);
  if (failed(lhs) || failed(rhs))
    return failure();
  Ints batchDims(typeOf(*lhs).getShape().take_front(batch.size()));
  Ints rhsBatch(typeOf(*rhs).getShape().take_front(batch.size()));
  Ints lhsShape = batchDims, rhsShape = rhsBatch, outShape;
  lhsShape.append({product(lfree), product(contracted)});
  rhsShape.append({product(contracted), product(rfree)});
  FailureOr<Value> y = ctx.create<MatmulOp>(reshape(ctx, *lhs, lhsShape),
                                            reshape(ctx, *rhs, rhsShape));
  if (failed(y))
    return failure();
  ArrayRef<int64_t> yShape = typeOf(*y).getShape();
  outShape.append(yShape.begin(), yShape.begin() + batch.size());
  for (char c : lfree + rfree)
    outShape.push_back(dimOf(c));
  FailureOr<Value> result =
      permuteTo(reshape(ctx, *y, outShape), batch + lfree + rfree, out);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result);
  return success();
}

/// Resize, nearest, linear and cubic, one axis at a time (all are
/// separable): the source coordinate of every output index is computed here
/// by the coordinate transformation mode, then nearest is a gather of the
/// rounded index, linear a blend of two gathers and cubic of four, with
/// constant weights. The resized dims must be static; scales or sizes must
/// be known at import.
LogicalResult convertResize(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes(
          {"coordinate_transformation_mode", "mode", "nearest_mode",
           "cubic_coeff_a", "exclude_outside", "extrapolation_value"})))
    return failure();
  FailureOr<std::string> mode = ctx.getString("mode", "nearest"),
                         transform = ctx.getString(
                             "coordinate_transformation_mode", "half_pixel"),
                         nearest = ctx.getString("nearest_mode",
                                                 "round_prefer_floor");
  FailureOr<int64_t> excludeOutside = ctx.getInt("exclude_outside", 0);
  FailureOr<float> cubicA = ctx.getFloat("cubic_coeff_a", -0.75f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(mode) || failed(transform) || failed(nearest) ||
      failed(excludeOutside) || failed(cubicA) || failed(x))
    return failure();
  if (*mode != "nearest" && *mode != "linear" && *mode != "cubic")
    return ctx.unsupportedAttribute("mode", "'" + *mode +
                                                "' is not supported (nearest, "
                                                "linear, cubic)");
  if (*transform == "tf_crop_and_resize")
    return ctx.unsupportedAttribute("coordinate_transformation_mode",
                                    "tf_crop_and_resize is not supported");
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  int64_t rank = shape.size();
  // Output sizes and scales per axis.
  SmallVector<double> scales(rank, 1.0);
  Ints sizes(shape);
  std::optional<DenseElementsAttr> scalesAttr = ctx.constantInput(2);
  std::optional<SymbolicShape> sizesShape = symbolicInput(ctx, 3);
  const bool fromSizes = sizesShape && !sizesShape->elements.empty();
  if (fromSizes) {
    // Sizes computed from x's own dynamic dims keep those dims.
    ArrayRef<int64_t> symbols = ctx.importer.symbolsOf(*x);
    if ((int64_t)sizesShape->elements.size() != rank)
      return ctx.error() << "sizes must have one value per dim";
    Ints given;
    for (auto [i, e] : llvm::enumerate(sizesShape->elements)) {
      if (e.known())
        given.push_back(e.value);
      else if (e.symbol && e.symbol == symbols[i])
        given.push_back(shape[i]);
      else
        return ctx.error() << "size " << i
                           << " is only known at run time; resizing needs "
                              "static output sizes";
    }
    for (int64_t i = 0; i < rank; ++i) {
      if (given[i] == shape[i])
        continue;
      if (ShapedType::isDynamic(shape[i]) || given[i] <= 0 || shape[i] == 0)
        return ctx.error() << "resizing dim " << i << " to " << given[i]
                           << " is not supported (a static, non-empty dim "
                              "to a positive size)";
      sizes[i] = given[i];
      scales[i] = static_cast<double>(given[i]) / shape[i];
    }
  } else if (scalesAttr && scalesAttr->getNumElements() > 0) {
    if (scalesAttr->getNumElements() != rank ||
        !isa<FloatType>(scalesAttr->getElementType()))
      return ctx.error() << "scales must have one float per dim";
    int64_t i = 0;
    for (const APFloat &v : scalesAttr->getValues<APFloat>()) {
      double scale = v.convertToDouble();
      if (scale != 1.0) {
        if (ShapedType::isDynamic(shape[i]) || !(scale > 0) ||
            !(shape[i] * scale <= double(kMaxComputedConstant)))
          return ctx.error() << "scale " << scale << " of dim " << i
                             << " is not supported (a positive scale of a "
                                "static dim, at most 2^24 outputs)";
        scales[i] = scale;
        sizes[i] = static_cast<int64_t>(std::floor(shape[i] * scale));
      }
      ++i;
    }
  } else {
    return ctx.error() << "scales or sizes must be known at import time";
  }
  Type elementType = typeOf(*x).getElementType();
  Type i64 = ctx.builder().getIntegerType(64);
  Value y = *x;
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t in = shape[axis], out = sizes[axis];
    if (out > kMaxComputedConstant)
      return ctx.error() << "the output size " << out << " of dim " << axis
                         << " is too large";
    if (in == out && scales[axis] == 1.0)
      continue;
    double scale = scales[axis];
    // The mode once, not per output element (up to 2^24 of them).
    const bool asymmetric = *transform == "asymmetric",
               alignCorners = *transform == "align_corners",
               tfHalfPixel = *transform == "tf_half_pixel_for_nn",
               pytorchHalfPixel = *transform == "pytorch_half_pixel";
    // ONNX defines scale = length_resized / length_original: with scales
    // given, length_resized is in * scale, not the floored output size.
    const double lengthResized = fromSizes ? double(out) : in * scale;
    auto source = [&](int64_t i) -> double {
      if (asymmetric)
        return i / scale;
      if (alignCorners)
        return lengthResized == 1 ? 0.0
                                  : i * double(in - 1) / (lengthResized - 1);
      if (tfHalfPixel)
        return (i + 0.5) / scale;
      if (pytorchHalfPixel)
        return out > 1 ? (i + 0.5) / scale - 0.5 : 0.0;
      return (i + 0.5) / scale - 0.5; // half_pixel
    };
    if (*transform != "asymmetric" && *transform != "align_corners" &&
        *transform != "tf_half_pixel_for_nn" &&
        *transform != "pytorch_half_pixel" && *transform != "half_pixel")
      return ctx.unsupportedAttribute("coordinate_transformation_mode",
                                      "unknown value '" + *transform + "'");
    auto clampIndex = [&](int64_t i) {
      return std::clamp<int64_t>(i, 0, in - 1);
    };
    auto gatherAt = [&](ArrayRef<int64_t> indices) -> FailureOr<Value> {
      Value idx =
          ctx.importer.materialize(intsAttr(ctx.builder().getContext(), indices,
                                            {(int64_t)indices.size()}, i64),
                                   ctx.loc);
      return ctx.create<GatherOp>(y, idx, static_cast<uint64_t>(axis));
    };
    if (*mode == "nearest") {
      Ints indices;
      const bool floor = *nearest == "floor", ceil = *nearest == "ceil",
                 preferCeil = *nearest == "round_prefer_ceil";
      for (int64_t i = 0; i < out; ++i) {
        double s = source(i);
        double r = floor        ? std::floor(s)
                   : ceil       ? std::ceil(s)
                   : preferCeil ? std::floor(s + 0.5)
                                : std::ceil(s - 0.5); // round_prefer_floor
        indices.push_back(clampIndex(static_cast<int64_t>(r)));
      }
      if (*nearest != "floor" && *nearest != "ceil" &&
          *nearest != "round_prefer_ceil" && *nearest != "round_prefer_floor")
        return ctx.unsupportedAttribute("nearest_mode",
                                        "unknown value '" + *nearest + "'");
      FailureOr<Value> g = gatherAt(indices);
      if (failed(g))
        return failure();
      y = *g;
      continue;
    }
    // A weight per output index along `axis`, a constant broadcasting
    // over the other dims.
    auto weightsAlong = [&](ArrayRef<double> values) {
      SmallVector<APFloat> weights;
      for (double v : values) {
        APFloat w(v);
        bool lost;
        w.convert(cast<FloatType>(elementType).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &lost);
        weights.push_back(w);
      }
      Ints weightShape(rank, 1);
      weightShape[axis] = out;
      return ctx.importer.materialize(
          DenseElementsAttr::get(
              RankedTensorType::get(weightShape, elementType), weights),
          ctx.loc);
    };
    if (*mode == "cubic") {
      // Keys' cubic convolution, as ONNX's reference: the four source
      // indices around s (the left pair preferred when s is an integer),
      // edge values beyond the input, or with exclude_outside those
      // weights zeroed and the rest renormalized.
      const double A = *cubicA;
      auto kernel = [&](double t) {
        t = std::abs(t);
        if (t <= 1)
          return ((A + 2) * t - (A + 3)) * t * t + 1;
        if (t < 2)
          return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
        return 0.0;
      };
      std::array<Ints, 4> taps;
      std::array<SmallVector<double>, 4> coeffs;
      for (int64_t i = 0; i < out; ++i) {
        double s = source(i);
        double base = std::floor(s);
        double ratio = s - base;
        if (ratio == 0) {
          base -= 1;
          ratio = 1;
        }
        double c[4], total = 0;
        for (int k = 0; k < 4; ++k) {
          int64_t index = static_cast<int64_t>(base) - 1 + k;
          c[k] = kernel(ratio + 1 - k);
          if (*excludeOutside && (index < 0 || index >= in))
            c[k] = 0;
          total += c[k];
          taps[k].push_back(clampIndex(index));
        }
        for (int k = 0; k < 4; ++k)
          coeffs[k].push_back(*excludeOutside && total != 0 ? c[k] / total
                                                            : c[k]);
      }
      std::optional<Value> sum;
      for (int k = 0; k < 4; ++k) {
        FailureOr<Value> g = gatherAt(taps[k]);
        if (failed(g) ||
            failed(g = ctx.create<MulOp>(*g, weightsAlong(coeffs[k]))) ||
            (sum && failed(g = ctx.create<AddOp>(*sum, *g))))
          return failure();
        sum = *g;
      }
      y = *sum;
      continue;
    }
    Ints lo, hi;
    SmallVector<double> fractions;
    for (int64_t i = 0; i < out; ++i) {
      double s = std::clamp(source(i), 0.0, double(in - 1));
      int64_t l = static_cast<int64_t>(std::floor(s));
      lo.push_back(clampIndex(l));
      hi.push_back(clampIndex(l + 1));
      fractions.push_back(s - l);
    }
    Value w = weightsAlong(fractions);
    FailureOr<Value> a = gatherAt(lo), b = gatherAt(hi);
    if (failed(a) || failed(b))
      return failure();
    // a + (b - a) w
    FailureOr<Value> d = ctx.create<SubOp>(*b, *a);
    if (failed(d) || failed(d = ctx.create<MulOp>(*d, w)) ||
        failed(d = ctx.create<AddOp>(*a, *d)))
      return failure();
    y = *d;
  }
  ctx.setOutput(0, y);
  return success();
}

/// LRN: x / (bias + alpha / size * sum of x^2 over `size` channels
/// around)^beta. The channel window sum is an average pool over x^2 viewed
/// as [N, C, H * W, 1] (channels as rows), padded zeros counted, times size.
LogicalResult convertLRN(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 1e-4f),
                   beta = ctx.getFloat("beta", 0.75f),
                   bias = ctx.getFloat("bias", 1.0f);
  FailureOr<int64_t> size = ctx.getInt("size", 0);
  FailureOr<Value> x = ctx.input(0);
  if (failed(alpha) || failed(beta) || failed(bias) || failed(size) ||
      failed(x))
    return failure();
  if (!ctx.attribute("size") || *size <= 0 || *size > (1 << 20))
    return ctx.error() << "attribute 'size' (a positive int) is missing";
  RankedTensorType type = typeOf(*x);
  if (type.getRank() < 3)
    return ctx.error() << "input must have rank 3 or more";
  ArrayRef<int64_t> shape = type.getShape();
  std::optional<int64_t> spatial = checkedProduct(shape.drop_front(2));
  if (ShapedType::isDynamic(shape[1]) ||
      llvm::any_of(shape.drop_front(2), ShapedType::isDynamic) || !spatial)
    return ctx.error() << "channel and spatial dims must be static";
  Type elementType = type.getElementType();
  FailureOr<Value> sq = ctx.create<MulOp>(*x, *x);
  if (failed(sq))
    return failure();
  Value rows = reshape(ctx, *sq, {shape[0], shape[1], *spatial, 1});
  FailureOr<Value> sum = ctx.create<AvgPool2DOp>(
      rows, ArrayRef<int64_t>{*size, 1}, ArrayRef<int64_t>{1, 1},
      ArrayRef<int64_t>{(*size - 1) / 2, *size / 2, 0, 0});
  if (failed(sum))
    return failure();
  // avg * size is the sum; times alpha / size: avg * alpha.
  FailureOr<Value> d = ctx.create<MulOp>(reshape(ctx, *sum, shape),
                                         scalar(ctx, elementType, *alpha));
  if (failed(d) ||
      failed(d = ctx.create<AddOp>(*d, scalar(ctx, elementType, *bias))) ||
      failed(d = ctx.create<PowOp>(*d, scalar(ctx, elementType, *beta))))
    return failure();
  FailureOr<Value> y = ctx.create<DivOp>(*x, *d);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// GatherElements: out[..., i, ...] = x[..., index[..., i, ...], ...] along
/// `axis`, as a one-hot contraction: x (cut to the index's shape off the
/// axis) and one-hot(index) with the axis moved last, multiplied and summed.
LogicalResult convertGatherElements(NodeContext &ctx) {
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  FailureOr<Value> x = ctx.input(0), index = ctx.input(1);
  if (failed(axis) || failed(x) || failed(index))
    return failure();
  RankedTensorType xType = typeOf(*x), iType = typeOf(*index);
  int64_t rank = xType.getRank();
  if (iType.getRank() != rank)
    return ctx.error() << "data and indices must have the same rank";
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, rank);
  if (failed(a))
    return failure();
  if (!xType.hasStaticShape() || !iType.hasStaticShape())
    return ctx.error() << "data and indices must have static shapes";
  int64_t k = xType.getDimSize(*a);
  std::optional<int64_t> cells = checkedProduct(iType.getShape());
  std::optional<int64_t> total =
      cells ? checkedArith('*', *cells, k) : std::nullopt;
  if (!total || *total > kMaxComputedConstant * 4)
    return ctx.error() << "the one-hot of the indices would be too large";
  // x cut to the index's dims off the axis.
  Ints start(rank, 0), limit(xType.getShape()), strides(rank, 1);
  for (int64_t d = 0; d < rank; ++d) {
    if (d == *a)
      continue;
    if (iType.getDimSize(d) > xType.getDimSize(d))
      return ctx.error() << "indices dim " << d << " exceeds the data's";
    limit[d] = iType.getDimSize(d);
  }
  FailureOr<Value> data = ctx.create<SliceOp>(*x, start, limit, strides);
  if (failed(data))
    return failure();
  Ints perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *a)
      perm.push_back(d);
  perm.push_back(*a);
  Ints inverse(rank);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  // Indices with negatives wrapped, the axis moved last, then [..., K].
  Type indexType = iType.getElementType();
  FailureOr<Value> negative =
      ctx.create<CompareOp>("lt", *index, scalar(ctx, indexType, 0));
  FailureOr<Value> wrapped =
      ctx.create<AddOp>(*index, scalar(ctx, indexType, k));
  if (failed(negative) || failed(wrapped))
    return failure();
  FailureOr<Value> fixed = ctx.create<SelectOp>(*negative, *wrapped, *index);
  FailureOr<Value> movedIndex = failed(fixed) ? FailureOr<Value>(failure())
                                              : transpose(ctx, *fixed, perm);
  FailureOr<Value> movedData = transpose(ctx, *data, perm);
  if (failed(movedIndex) || failed(movedData))
    return failure();
  // out[..., j] = sum over k of data[..., k] * (index[..., j] == k): the
  // index as [..., n, 1] against positions [K], the data as [..., 1, K].
  Ints idxShape(typeOf(*movedIndex).getShape());
  Ints dataShape(typeOf(*movedData).getShape());
  Ints expandedIndex = idxShape, expandedData = dataShape;
  expandedIndex.push_back(1);                     // [..., n, 1]
  expandedData.insert(expandedData.end() - 1, 1); // [..., 1, K]
  FailureOr<Value> positions =
      indicesAlong(ctx, k, rank, rank + 1, indexType); // [1.., K]
  if (failed(positions))
    return failure();
  FailureOr<Value> hit = ctx.create<CompareOp>(
      "eq", reshape(ctx, *movedIndex, expandedIndex), *positions);
  if (failed(hit))
    return failure();
  Type elementType = xType.getElementType();
  FailureOr<Value> y =
      ctx.create<SelectOp>(*hit, reshape(ctx, *movedData, expandedData),
                           scalar(ctx, elementType, 0.0));
  if (failed(y) ||
      failed(y = ctx.create<SumOp>(*y, ArrayRef<int64_t>{rank}, false)) ||
      failed(y = transpose(ctx, *y, inverse)))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

} // namespace

void addNNOps(llvm::StringMap<OpConverter> &t) {
  t["LRN"] = convertLRN;
  t["GatherElements"] = convertGatherElements;
  t["Resize"] = convertResize;
  t["Einsum"] = convertEinsum;
  t["SoftmaxCrossEntropyLoss"] = [](NodeContext &c) {
    return convertClassLoss(c, true);
  };
  t["NegativeLogLikelihoodLoss"] = [](NodeContext &c) {
    return convertClassLoss(c, false);
  };
  t["ReduceL1"] = [](NodeContext &c) { return convertLogReduce(c, "L1"); };
  t["ReduceLogSum"] = [](NodeContext &c) {
    return convertLogReduce(c, "LogSum");
  };
  t["ReduceLogSumExp"] = [](NodeContext &c) {
    return convertLogReduce(c, "LogSumExp");
  };
  t["Trilu"] = convertTrilu;
  t["InstanceNormalization"] = convertInstanceNorm;
  t["ArgMax"] = [](NodeContext &c) { return convertArgExtremum(c, true); };
  t["ArgMin"] = [](NodeContext &c) { return convertArgExtremum(c, false); };
  t["Hardmax"] = convertHardmax;
  t["TopK"] = convertTopK;
  t["OneHot"] = convertOneHot;
  t["CumSum"] = convertCumSum;
  t["MatMul"] = convertMatMul;
  t["Gemm"] = convertGemm;
  // Normalization and reductions.
  t["BatchNormalization"] = convertBatchNorm;
  t["LayerNormalization"] = convertLayerNorm;
  t["Softmax"] = convertSoftmax<SoftmaxOp>;
  t["LogSoftmax"] = convertSoftmax<LogSoftmaxOp>;
  t["ReduceSum"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::Sum);
  };
  t["ReduceMean"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::Mean);
  };
  t["ReduceMax"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::Max);
  };
  t["ReduceMin"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::Min);
  };
  t["ReduceProd"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::Prod);
  };
  t["ReduceL2"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::L2);
  };
  t["ReduceSumSquare"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::SumSquare);
  };
}

} // namespace mlir::rlx::onnx_import
