//===- ShapeOps.cpp - ONNX shape and data movement ops --------------------===//
///
/// \file
/// Constants, shapes and data movement: Constant, Shape, Size,
/// ConstantOfShape, Reshape, Flatten, Transpose, Squeeze, Unsqueeze,
/// Concat, Slice, Gather, Expand, Split, Pad. Integer tensors known at
/// import (a static Shape and what is computed from it) fold, so a Reshape
/// sees a constant shape however the exporter computed it.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mlir::rlx::onnx_import {

/// The result shape of ONNX Reshape: 0 copies the input dim (unless
/// allowzero), -1 takes what is left, a dynamic entry (a symbolic shape's
/// unknown element) is a dynamic dim. -1 is static when the input dims it
/// covers are: those not copied into their own place by a 0.
FailureOr<SmallVector<int64_t>>
reshapeShape(NodeContext &ctx, ArrayRef<int64_t> in, ArrayRef<int64_t> spec,
             bool allowZero, ArrayRef<int64_t> equalTo) {
  Ints out;
  int64_t inferred = -1;
  auto copied = [&](size_t i) {
    return i < spec.size() && spec[i] == 0 && !allowZero && i < in.size();
  };
  for (auto [i, d] : llvm::enumerate(spec)) {
    if (ShapedType::isDynamic(d)) {
      out.push_back(ShapedType::kDynamic);
    } else if (d == 0 && !allowZero) {
      if (i >= in.size())
        return ctx.error() << "shape dim " << i
                           << " is 0 (copy) past the input's rank";
      out.push_back(in[i]);
    } else if (d == -1) {
      if (inferred >= 0)
        return ctx.error() << "shape has more than one -1";
      inferred = i;
      out.push_back(ShapedType::kDynamic);
    } else if (d < 0) {
      return ctx.error() << "shape has an invalid dim " << d;
    } else {
      out.push_back(d);
    }
  }
  // Dynamic entries known to equal an input dim (by its symbol) cancel it.
  auto matchedOut = [&](size_t i) {
    return i < equalTo.size() && equalTo[i] >= 0;
  };
  auto matchedIn = [&](size_t j) {
    return llvm::is_contained(equalTo, static_cast<int64_t>(j));
  };
  if (inferred >= 0) {
    int64_t rest = 1, known = 1;
    bool inferable = true;
    for (size_t i = 0; i < in.size(); ++i) {
      if (copied(i) || matchedIn(i))
        continue;
      if (ShapedType::isDynamic(in[i]))
        inferable = false;
      else
        inferable &= bool(rest = checkedArith('*', rest, in[i]).value_or(0));
    }
    for (auto [i, d] : llvm::enumerate(out)) {
      if (static_cast<int64_t>(i) == inferred || copied(i) || matchedOut(i))
        continue;
      if (ShapedType::isDynamic(d))
        inferable = false;
      else
        inferable &= bool(known = checkedArith('*', known, d).value_or(0));
    }
    if (inferable) {
      if (known == 0 || rest % known != 0)
        return ctx.error() << "cannot reshape " << rest << " elements to the "
                           << "requested shape";
      out[inferred] = rest / known;
    }
  }
  if (llvm::none_of(in, ShapedType::isDynamic) &&
      llvm::none_of(out, ShapedType::isDynamic)) {
    std::optional<int64_t> inCount = checkedProduct(in),
                           outCount = checkedProduct(out);
    if (!inCount || !outCount)
      return ctx.error() << "the element count overflows";
    if (*inCount != *outCount)
      return ctx.error() << "cannot reshape " << *inCount << " elements to "
                         << *outCount;
  }
  return out;
}

namespace {

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

LogicalResult convertConstant(NodeContext &ctx) {
  if (ctx.node.attribute_size() != 1)
    return ctx.error() << "needs exactly one value attribute";
  const onnx::AttributeProto &attr = ctx.node.attribute(0);
  MLIRContext *context = ctx.builder().getContext();
  Builder b(context);
  StringRef name = attr.name();
  if (name == "value") {
    std::string error;
    std::optional<DenseElementsAttr> value =
        decodeTensor(context, attr.t(), error);
    if (!value)
      return ctx.error() << "attribute 'value' " << error;
    ctx.setConstantOutput(0, *value);
    // uint8 ... uint64 and int16 values are held in a wider type.
    if (heldElementTypeOf(context, attr.t().data_type()))
      ctx.markOutputHeld(0, attr.t().data_type());
  } else if (name == "value_float") {
    ctx.setConstantOutput(
        0, DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                  attr.f()));
  } else if (name == "value_floats") {
    SmallVector<float> v(attr.floats().begin(), attr.floats().end());
    ctx.setConstantOutput(
        0, DenseElementsAttr::get(
               RankedTensorType::get({(int64_t)v.size()}, b.getF32Type()),
               ArrayRef<float>(v)));
  } else if (name == "value_int") {
    ctx.setConstantOutput(
        0, intsAttr(context, {attr.i()}, {}, b.getIntegerType(64)));
  } else if (name == "value_ints") {
    Ints v(attr.ints().begin(), attr.ints().end());
    ctx.setConstantOutput(
        0, intsAttr(context, v, {(int64_t)v.size()}, b.getIntegerType(64)));
  } else {
    return ctx.unsupportedAttribute(name, "this kind of constant is not "
                                          "supported");
  }
  return success();
}

LogicalResult convertShape(NodeContext &ctx) {
  FailureOr<int64_t> start = ctx.getInt("start", 0);
  FailureOr<Value> x = ctx.input(0);
  if (failed(start) || failed(x))
    return failure();
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  int64_t rank = shape.size();
  FailureOr<int64_t> end = ctx.getInt("end", rank);
  if (failed(end))
    return failure();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t lo = clampIndex(*start), hi = clampIndex(*end);
  Ints dims;
  for (int64_t i = lo; i < hi; ++i) {
    if (ShapedType::isDynamic(shape[i]))
      return ctx.error() << "the shape of '" << ctx.node.input(0)
                         << "' has a dynamic dim " << i
                         << "; shapes are only folded when static";
    dims.push_back(shape[i]);
  }
  ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(), dims,
                                    {(int64_t)dims.size()},
                                    ctx.builder().getIntegerType(64)));
  return success();
}

LogicalResult convertSize(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (!typeOf(*x).hasStaticShape())
    return ctx.error() << "'" << ctx.node.input(0)
                       << "' has dynamic dims; Size is only folded when static";
  ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(),
                                    {typeOf(*x).getNumElements()}, {},
                                    ctx.builder().getIntegerType(64)));
  return success();
}

LogicalResult convertConstantOfShape(NodeContext &ctx) {
  FailureOr<Ints> shape = ctx.constantInts(0, "shape");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return ctx.error() << "shape has a negative dim " << d;
  if (!checkedProduct(*shape) || *checkedProduct(*shape) > (int64_t(1) << 59))
    return ctx.error() << "the shape has too many elements";
  MLIRContext *context = ctx.builder().getContext();
  Attribute element = FloatAttr::get(Float32Type::get(context), 0.0);
  Type elementType = Float32Type::get(context);
  if (const onnx::AttributeProto *value = ctx.attribute("value")) {
    std::string error;
    std::optional<DenseElementsAttr> v =
        decodeTensor(context, value->t(), error);
    if (!v)
      return ctx.error() << "attribute 'value' " << error;
    if (v->getNumElements() != 1)
      return ctx.unsupportedAttribute("value", "must hold one element");
    elementType = v->getElementType();
    element = *v->getValues<Attribute>().begin();
    if (heldElementTypeOf(context, value->t().data_type()))
      ctx.markOutputHeld(0, value->t().data_type());
  }
  ctx.setConstantOutput(
      0, DenseElementsAttr::get(RankedTensorType::get(*shape, elementType),
                                element));
  return success();
}

LogicalResult convertReshape(NodeContext &ctx) {
  FailureOr<int64_t> allowZero = ctx.getInt("allowzero", 0);
  FailureOr<Ints> spec = ctx.constantInts(1, "shape");
  if (failed(allowZero) || failed(spec))
    return failure();
  if (std::optional<DenseElementsAttr> known = ctx.constantInput(0);
      known && isFoldableInts(known)) {
    FailureOr<Ints> shape =
        reshapeShape(ctx, known->getType().getShape(), *spec, *allowZero);
    if (failed(shape))
      return failure();
    ctx.setConstantOutput(0, known->reshape(known->getType().clone(*shape)));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Ints> shape =
      reshapeShape(ctx, typeOf(*x).getShape(), *spec, *allowZero);
  if (failed(shape))
    return failure();
  ctx.setOutput(0, reshape(ctx, *x, *shape));
  return success();
}

LogicalResult convertFlatten(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = ctx.getInt("axis", 1);
  if (failed(axis))
    return failure();
  if (*axis < -rank || *axis > rank)
    return ctx.error() << "axis " << *axis << " is out of range for rank "
                       << rank;
  int64_t a = *axis < 0 ? *axis + rank : *axis;
  auto product = [&](int64_t lo, int64_t hi) -> std::optional<int64_t> {
    if (llvm::any_of(shape.slice(lo, hi - lo), ShapedType::isDynamic))
      return ShapedType::kDynamic;
    return checkedProduct(shape.slice(lo, hi - lo));
  };
  std::optional<int64_t> outer = product(0, a), inner = product(a, rank);
  if (!outer || !inner)
    return ctx.error() << "the element count overflows";
  ctx.setOutput(0, reshape(ctx, *x, {*outer, *inner}));
  return success();
}

LogicalResult convertTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  Ints reversed(rank);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  FailureOr<Ints> perm = ctx.getInts("perm", reversed);
  if (failed(perm))
    return failure();
  FailureOr<Value> y = transpose(ctx, *x, *perm);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// DepthToSpace (modes DCR and CRD) and SpaceToDepth on NCHW: a reshape to
/// rank 6, a transpose and a reshape back. Channel and spatial dims must be
/// static (the batch may be dynamic).
LogicalResult convertDepthSpace(NodeContext &ctx, bool toSpace) {
  if (failed(ctx.checkKnownAttributes(
          toSpace ? ArrayRef<StringRef>{"blocksize", "mode"}
                  : ArrayRef<StringRef>{"blocksize"})))
    return failure();
  FailureOr<int64_t> blocksize = ctx.getInt("blocksize", 0);
  FailureOr<std::string> mode = ctx.getString("mode", "DCR");
  FailureOr<Value> x = ctx.input(0);
  if (failed(blocksize) || failed(mode) || failed(x))
    return failure();
  if (*blocksize <= 0 || *blocksize > (int64_t(1) << 16))
    return ctx.unsupportedAttribute("blocksize", "must be positive, got " +
                                                     Twine(*blocksize));
  if (*mode != "DCR" && *mode != "CRD")
    return ctx.unsupportedAttribute("mode", "must be DCR or CRD, got '" +
                                                *mode + "'");
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  if (shape.size() != 4 || llvm::any_of(shape.drop_front(), [](int64_t d) {
        return ShapedType::isDynamic(d);
      }))
    return ctx.error() << "expects an NCHW input with static C, H and W, got "
                       << typeOf(*x);
  int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  int64_t bs = *blocksize, bb = bs * bs;
  Ints split, perm, merged;
  if (toSpace) {
    if (c % bb != 0)
      return ctx.error() << "channels " << c << " are not a multiple of "
                         << "blocksize^2 = " << bb;
    if (*mode == "DCR") {
      split = {n, bs, bs, c / bb, h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else {
      split = {n, c / bb, bs, bs, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    }
    merged = {n, c / bb, h * bs, w * bs};
  } else {
    if (h % bs != 0 || w % bs != 0)
      return ctx.error() << "spatial dims " << h << "x" << w
                         << " are not multiples of blocksize " << bs;
    split = {n, c, h / bs, bs, w / bs, bs};
    perm = {0, 3, 5, 1, 2, 4};
    merged = {n, c * bb, h / bs, w / bs};
  }
  FailureOr<Value> moved = transpose(ctx, reshape(ctx, *x, split), perm);
  if (failed(moved))
    return failure();
  ctx.setOutput(0, reshape(ctx, *moved, merged));
  return success();
}

/// EyeLike: ones on diagonal k of a static 2-D shape, known at import.
LogicalResult convertEyeLike(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"dtype", "k"})))
    return failure();
  FailureOr<int64_t> k = ctx.getInt("k", 0);
  FailureOr<Value> x = ctx.input(0);
  if (failed(k) || failed(x))
    return failure();
  auto type = typeOf(*x);
  if (type.getRank() != 2 || !type.hasStaticShape())
    return ctx.error() << "expects a static 2-D input, got " << type;
  Type elementType = type.getElementType();
  if (const onnx::AttributeProto *dtype = ctx.attribute("dtype")) {
    elementType = elementTypeOf(ctx.builder().getContext(), dtype->i());
    if (!elementType)
      return ctx.unsupportedAttribute("dtype", onnxTypeName(dtype->i()) +
                                                   " is not supported");
  }
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  if (!checkedProduct({rows, cols}) ||
      *checkedProduct({rows, cols}) > kMaxComputedConstant)
    return ctx.error() << "the output has too many elements";
  SmallVector<Attribute> elements;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double v = j - i == *k ? 1.0 : 0.0;
      elements.push_back(
          isa<FloatType>(elementType)
              ? Attribute(FloatAttr::get(elementType, v))
              : Attribute(IntegerAttr::get(elementType,
                                           static_cast<int64_t>(v))));
    }
  ctx.setConstantOutput(
      0, DenseElementsAttr::get(RankedTensorType::get({rows, cols}, elementType),
                                elements));
  return success();
}

/// Squeeze and Unsqueeze: reshapes, folded on known values.
LogicalResult convertSqueezeLike(NodeContext &ctx, bool unsqueeze) {
  FailureOr<std::optional<Ints>> axes = axesOf(ctx, 1);
  if (failed(axes))
    return failure();
  std::optional<DenseElementsAttr> known = ctx.constantInput(0);
  Value x;
  ArrayRef<int64_t> in;
  if (known && isFoldableInts(known)) {
    in = known->getType().getShape();
  } else {
    FailureOr<Value> value = ctx.input(0);
    if (failed(value))
      return failure();
    x = *value;
    in = typeOf(x).getShape();
  }
  Ints out;
  if (unsqueeze) {
    if (!*axes)
      return ctx.error() << "axes are missing";
    int64_t rank = in.size() + (*axes)->size();
    SmallVector<bool> inserted(rank, false);
    for (int64_t axis : **axes) {
      FailureOr<int64_t> a = normalizeAxis(ctx, axis, rank);
      if (failed(a))
        return failure();
      if (inserted[*a])
        return ctx.error() << "axis " << axis << " is given twice";
      inserted[*a] = true;
    }
    for (int64_t i = 0, j = 0; i < rank; ++i)
      out.push_back(inserted[i] ? 1 : in[j++]);
  } else {
    int64_t rank = in.size();
    SmallVector<bool> removed(rank, false);
    if (!*axes || (*axes)->empty()) {
      for (int64_t i = 0; i < rank; ++i)
        removed[i] = in[i] == 1;
    } else {
      for (int64_t axis : **axes) {
        FailureOr<int64_t> a = normalizeAxis(ctx, axis, rank);
        if (failed(a))
          return failure();
        if (in[*a] != 1 && !ShapedType::isDynamic(in[*a]))
          return ctx.error()
                 << "cannot squeeze axis " << axis << " of size " << in[*a];
        removed[*a] = true;
      }
    }
    for (int64_t i = 0; i < rank; ++i)
      if (!removed[i])
        out.push_back(in[i]);
  }
  if (!x) {
    ctx.setConstantOutput(0, known->reshape(known->getType().clone(out)));
    return success();
  }
  ctx.setOutput(0, reshape(ctx, x, out));
  return success();
}

LogicalResult convertConcat(NodeContext &ctx) {
  const onnx::AttributeProto *axisAttr = ctx.attribute("axis");
  if (!axisAttr)
    return ctx.error() << "attribute 'axis' is missing";
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  if (failed(axis))
    return failure();
  // Known 1-D integer tensors (shape arithmetic) fold.
  bool allKnown = ctx.numInputs() > 0;
  Ints folded;
  Type foldedType;
  for (unsigned i = 0; i < ctx.numInputs() && allKnown; ++i) {
    std::optional<DenseElementsAttr> known = ctx.constantInput(i);
    allKnown = isFoldableInts(known) && known->getType().getRank() == 1 &&
               (!foldedType || foldedType == known->getElementType());
    if (allKnown) {
      foldedType = known->getElementType();
      Ints v = toInts(*known);
      folded.append(v.begin(), v.end());
    }
  }
  if (allKnown) {
    ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(), folded,
                                      {(int64_t)folded.size()}, foldedType));
    return success();
  }
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    FailureOr<Value> x = ctx.input(i);
    if (failed(x))
      return failure();
    inputs.push_back(*x);
  }
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, typeOf(inputs[0]).getRank());
  if (failed(a))
    return failure();
  FailureOr<Value> y = inputs.size() == 1
                           ? FailureOr<Value>(inputs[0])
                           : ctx.create<ConcatOp>(ValueRange(inputs), *a);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertSlice(NodeContext &ctx) {
  FailureOr<Ints> starts = ctx.constantInts(1, "starts"),
                  ends = ctx.constantInts(2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  if (starts->size() != ends->size())
    return ctx.error() << "starts and ends differ in length";
  std::optional<DenseElementsAttr> known = ctx.constantInput(0);
  bool fold = isFoldableInts(known) && known->getType().getRank() == 1;
  Value x;
  ArrayRef<int64_t> shape;
  if (fold) {
    shape = known->getType().getShape();
  } else {
    FailureOr<Value> value = ctx.input(0);
    if (failed(value))
      return failure();
    x = *value;
    shape = typeOf(x).getShape();
  }
  int64_t rank = shape.size();
  Ints axes(starts->size()), steps(starts->size(), 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (ctx.hasInput(3)) {
    FailureOr<Ints> a = ctx.constantInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  }
  if (ctx.hasInput(4)) {
    FailureOr<Ints> s = ctx.constantInts(4, "steps");
    if (failed(s))
      return failure();
    steps = *s;
  }
  if (axes.size() != starts->size() || steps.size() != starts->size())
    return ctx.error() << "starts, ends, axes and steps differ in length";
  Ints start(rank, 0), limit(rank, -1), strides(rank, 1);
  for (int64_t d = 0; d < rank; ++d)
    if (!ShapedType::isDynamic(shape[d]))
      limit[d] = shape[d];
  // Axes sliced backwards: the indices they keep, in order (a gather after
  // the slice, which leaves those axes whole).
  SmallVector<std::pair<int64_t, Ints>> backwards;
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, axes[i], rank);
    if (failed(axis))
      return failure();
    int64_t s = (*starts)[i], e = (*ends)[i], step = steps[i];
    if (step == 0)
      return ctx.error() << "step 0 (of axis " << *axis << ") is invalid";
    int64_t dim = shape[*axis];
    if (step < 0) {
      if (ShapedType::isDynamic(dim))
        return ctx.error() << "a negative step on dynamic dim " << *axis
                           << " is not supported";
      // ONNX: start clamped into [0, dim - 1] and end into [-1, dim - 1],
      // each counted from the end when negative.
      // (Starts and ends are at most 2^62 from zero here: no overflow.)
      s = std::clamp<int64_t>(s, -(int64_t(1) << 62), int64_t(1) << 62);
      e = std::clamp<int64_t>(e, -(int64_t(1) << 62), int64_t(1) << 62);
      if (s < 0)
        s += dim;
      if (e < 0)
        e += dim;
      Ints kept;
      if (dim > 0) {
        s = std::clamp<int64_t>(s, 0, dim - 1);
        e = std::clamp<int64_t>(e, -1, dim - 1);
        for (int64_t k = s; k > e; k += step)
          kept.push_back(k);
      }
      if (kept.empty())
        limit[*axis] = 0;
      else
        backwards.push_back({*axis, std::move(kept)});
      continue;
    }
    if (ShapedType::isDynamic(dim)) {
      // rlx.slice on a dynamic dim: negative starts count from the end, a
      // limit of -1 is the end and below -1 counts from the end too.
      if (step != 1)
        return ctx.error() << "a step other than 1 on dynamic dim " << *axis
                           << " is not supported";
      // Beyond 2^62 from either end is the whole dim either way.
      s = std::clamp<int64_t>(s, -(int64_t(1) << 62), int64_t(1) << 62);
      e = std::clamp<int64_t>(e, -(int64_t(1) << 62), int64_t(1) << 62);
      start[*axis] = s;
      limit[*axis] = e >= (int64_t(1) << 62) ? -1 : e < 0 ? e - 1 : e;
      if (e == 0)
        limit[*axis] = 0;
      continue;
    }
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    start[*axis] = s;
    limit[*axis] = std::max(e, s);
    strides[*axis] = step;
  }
  if (fold) {
    Ints values = toInts(*known), out;
    if (!backwards.empty()) {
      for (int64_t i : backwards.front().second)
        out.push_back(values[i]);
    } else {
      for (int64_t i = start[0]; i < limit[0]; i += strides[0])
        out.push_back(values[i]);
    }
    ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(), out,
                                      {(int64_t)out.size()},
                                      known->getElementType()));
    return success();
  }
  FailureOr<Value> y = ctx.create<SliceOp>(x, start, limit, strides);
  if (failed(y))
    return failure();
  for (auto &[axis, kept] : backwards) {
    Value indices = ctx.importer.materialize(
        intsAttr(ctx.builder().getContext(), kept, {(int64_t)kept.size()},
                 ctx.builder().getIntegerType(64)),
        ctx.loc);
    if (failed(y = ctx.create<GatherOp>(*y, indices, uint64_t(axis))))
      return failure();
  }
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertGather(NodeContext &ctx) {
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  if (failed(axis))
    return failure();
  std::optional<DenseElementsAttr> data = ctx.constantInput(0),
                                   indices = ctx.constantInput(1);
  // Shape arithmetic: Gather from a known shape.
  if (isFoldableInts(data) && indices && isFoldableInts(indices) &&
      data->getType().getRank() == 1) {
    Ints d = toInts(*data), out;
    for (int64_t i : toInts(*indices)) {
      if (i < -(int64_t)d.size() || i >= (int64_t)d.size())
        return ctx.error() << "index " << i << " is out of range";
      out.push_back(d[i < 0 ? i + d.size() : i]);
    }
    ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(), out,
                                      indices->getType().getShape(),
                                      data->getElementType()));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, typeOf(*x).getRank());
  if (failed(a))
    return failure();
  Value index;
  int64_t dim = typeOf(*x).getDimSize(*a);
  if (indices && isa<IntegerType>(indices->getElementType()) &&
      !ShapedType::isDynamic(dim)) {
    // Known indices: negative ones count from the end (rlx.gather clamps).
    Ints v = toInts(*indices);
    for (int64_t &i : v) {
      if (i < -dim || i >= dim)
        return ctx.error() << "index " << i << " is out of range for a dim of "
                           << dim;
      if (i < 0)
        i += dim;
    }
    index = ctx.importer.materialize(intsAttr(ctx.builder().getContext(), v,
                                              indices->getType().getShape(),
                                              ctx.builder().getIntegerType(64)),
                                     ctx.loc);
  } else {
    FailureOr<Value> i = ctx.input(1);
    if (failed(i))
      return failure();
    index = *i;
    // Indices known at run time, or a dynamic dim: a negative index counts
    // from the end, which rlx.gather (it clamps) needs spelled out, with
    // the dim's size counted at run time when it is dynamic.
    bool knownNonNegative =
        indices && isa<IntegerType>(indices->getElementType()) &&
        llvm::all_of(toInts(*indices), [](int64_t i) { return i >= 0; });
    if (!knownNonNegative) {
      Type indexType = typeOf(index).getElementType();
      Value zero = scalar(ctx, indexType, 0);
      FailureOr<Value> size =
          ShapedType::isDynamic(dim) ? dimSize(ctx, *x, *a, indexType)
                                     : FailureOr<Value>(scalar(ctx, indexType, dim));
      FailureOr<Value> negative = ctx.create<CompareOp>("lt", index, zero);
      FailureOr<Value> wrapped =
          failed(size) ? size : ctx.create<AddOp>(index, *size);
      if (failed(negative) || failed(wrapped))
        return failure();
      FailureOr<Value> fixed = ctx.create<SelectOp>(*negative, *wrapped, index);
      if (failed(fixed))
        return failure();
      index = *fixed;
    }
  }
  FailureOr<Value> y = ctx.create<GatherOp>(*x, index, *a);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertExpand(NodeContext &ctx) {
  FailureOr<Ints> spec = ctx.constantInts(1, "shape");
  FailureOr<Value> x = ctx.input(0);
  if (failed(spec) || failed(x))
    return failure();
  ArrayRef<int64_t> in = typeOf(*x).getShape();
  size_t rank = std::max(in.size(), spec->size());
  Ints out(rank), dims;
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    int64_t b =
        i < rank - spec->size() ? 1 : (*spec)[i - (rank - spec->size())];
    if (a != 1 && b != 1 && a != b && !ShapedType::isDynamic(a))
      return ctx.error() << "cannot expand dim " << i << " of size " << a
                         << " to " << b;
    out[i] = a == 1 ? b : a;
  }
  for (size_t i = 0; i < in.size(); ++i)
    dims.push_back(rank - in.size() + i);
  auto type = RankedTensorType::get(out, typeOf(*x).getElementType());
  ctx.setOutput(
      0, type == x->getType()
             ? *x
             : BroadcastInDimOp::create(ctx.builder(), ctx.loc, type, *x, dims)
                   .getResult());
  return success();
}

LogicalResult convertSplit(NodeContext &ctx) {
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  FailureOr<Value> x = ctx.input(0);
  if (failed(axis) || failed(x))
    return failure();
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, shape.size());
  if (failed(a))
    return failure();
  int64_t dim = shape[*a];
  if (ShapedType::isDynamic(dim))
    return ctx.error() << "splitting dynamic dim " << *a << " is not supported";
  Ints sizes;
  if (ctx.hasInput(1)) {
    FailureOr<Ints> split = ctx.constantInts(1, "split");
    if (failed(split))
      return failure();
    sizes = *split;
  } else {
    int64_t n = ctx.node.output_size();
    if (dim % n != 0)
      return ctx.error() << "dim " << dim << " does not split into " << n
                         << " equal parts";
    sizes.assign(n, dim / n);
  }
  int64_t total = 0;
  for (int64_t size : sizes)
    if (size < 0 || __builtin_add_overflow(total, size, &total))
      return ctx.error() << "split sizes must be non-negative";
  if ((int64_t)sizes.size() != ctx.node.output_size() || total != dim)
    return ctx.error() << "split sizes do not add up to dim " << dim;
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    Ints start(shape.size(), 0), limit(shape.size(), -1),
        strides(shape.size(), 1);
    for (size_t d = 0; d < shape.size(); ++d)
      if (!ShapedType::isDynamic(shape[d]))
        limit[d] = shape[d];
    start[*a] = offset;
    limit[*a] = offset + size;
    offset += size;
    FailureOr<Value> y = ctx.create<SliceOp>(*x, start, limit, strides);
    if (failed(y))
      return failure();
    ctx.setOutput(i, *y);
  }
  return success();
}

/// Edge and reflect padding: along each padded dim (static), a gather of
/// the source index of every output position, i in [-low, size + high)
/// read from clamp(i) (edge) or from i reflected at both ends without
/// repeating them (reflect; periodic, so pads beyond the size reflect
/// again, as NumPy's do).
FailureOr<Value> padByIndices(NodeContext &ctx, Value x, ArrayRef<int64_t> low,
                              ArrayRef<int64_t> high, bool reflect) {
  for (int64_t d = 0, rank = low.size(); d < rank; ++d) {
    if (low[d] == 0 && high[d] == 0)
      continue;
    int64_t size = typeOf(x).getDimSize(d);
    if (ShapedType::isDynamic(size))
      return ctx.error() << (reflect ? "reflect" : "edge")
                         << " padding of dynamic dim " << d
                         << " is not supported";
    if (size == 0)
      return ctx.error() << (reflect ? "reflect" : "edge")
                         << " padding of an empty dim (" << d
                         << ") has nothing to repeat";
    if (size + low[d] + high[d] > (int64_t(1) << 24))
      return ctx.error() << "the padded dim " << d << " is too large";
    Ints sources;
    for (int64_t i = -low[d]; i < size + high[d]; ++i) {
      if (!reflect || size == 1) {
        sources.push_back(std::clamp<int64_t>(i, 0, size - 1));
        continue;
      }
      int64_t period = 2 * (size - 1);
      int64_t j = ((i % period) + period) % period;
      sources.push_back(j < size ? j : period - j);
    }
    Value index = ctx.importer.materialize(
        intsAttr(ctx.builder().getContext(), sources,
                 {static_cast<int64_t>(sources.size())},
                 ctx.builder().getIntegerType(64)),
        ctx.loc);
    FailureOr<Value> gathered = ctx.create<GatherOp>(x, index, d);
    if (failed(gathered))
      return failure();
    x = *gathered;
  }
  return x;
}

LogicalResult convertPad(NodeContext &ctx) {
  FailureOr<std::string> mode = ctx.getString("mode", "constant");
  FailureOr<Ints> pads = ctx.constantInts(1, "pads");
  FailureOr<Value> x = ctx.input(0);
  if (failed(mode) || failed(pads) || failed(x))
    return failure();
  if (*mode != "constant" && *mode != "edge" && *mode != "reflect")
    return ctx.unsupportedAttribute("mode", "'" + *mode +
                                                "' padding is not supported "
                                                "(constant, edge, reflect)");
  if (ctx.hasInput(3))
    return ctx.error() << "input 3 (axes) is not supported";
  int64_t rank = typeOf(*x).getRank();
  if ((int64_t)pads->size() != 2 * rank)
    return ctx.error() << "pads has " << pads->size() << " values, expected "
                       << 2 * rank;
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return ctx.error() << "negative pads are not supported";
  if (llvm::any_of(*pads, [](int64_t p) { return p > (int64_t(1) << 32); }))
    return ctx.error() << "pads above 2^32 are not supported";
  Ints low(pads->begin(), pads->begin() + rank),
      high(pads->begin() + rank, pads->end()), interior(rank, 0);
  if (*mode != "constant") {
    FailureOr<Value> y = padByIndices(ctx, *x, low, high, *mode == "reflect");
    if (failed(y))
      return failure();
    ctx.setOutput(0, *y);
    return success();
  }
  Type elementType = typeOf(*x).getElementType();
  Value value = scalar(ctx, elementType, 0.0);
  if (ctx.hasInput(2)) {
    FailureOr<Value> given = ctx.input(2);
    if (failed(given))
      return failure();
    value = reshape(ctx, *given, {});
  }
  FailureOr<Value> y = ctx.create<PadOp>(*x, value, low, high, interior);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Tile: x broadcast into [r0, d0, r1, d1, ...] and merged to
/// [r0 * d0, r1 * d1, ...] (static dims).
LogicalResult convertTile(NodeContext &ctx) {
  FailureOr<Ints> repeats = ctx.constantInts(1, "repeats");
  FailureOr<Value> x = ctx.input(0);
  if (failed(repeats) || failed(x))
    return failure();
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  if (repeats->size() != shape.size())
    return ctx.error() << "repeats has " << repeats->size()
                       << " values for rank " << shape.size();
  if (llvm::all_of(*repeats, [](int64_t r) { return r == 1; })) {
    ctx.setOutput(0, *x);
    return success();
  }
  if (!typeOf(*x).hasStaticShape())
    return ctx.error() << "tiling a value with dynamic dims is not supported";
  Ints expanded, dims, merged;
  for (size_t i = 0; i < shape.size(); ++i) {
    if ((*repeats)[i] < 0)
      return ctx.error() << "repeats has a negative value";
    expanded.push_back((*repeats)[i]);
    expanded.push_back(shape[i]);
    dims.push_back(2 * i + 1);
    std::optional<int64_t> size = checkedArith('*', (*repeats)[i], shape[i]);
    if (!size)
      return ctx.error() << "the tiled size overflows";
    merged.push_back(*size);
  }
  auto type = RankedTensorType::get(expanded, typeOf(*x).getElementType());
  Value y = BroadcastInDimOp::create(ctx.builder(), ctx.loc, type, *x, dims);
  ctx.setOutput(0, reshape(ctx, y, merged));
  return success();
}

/// Range with known start, limit and delta: a constant.
LogicalResult convertRange(NodeContext &ctx) {
  std::optional<DenseElementsAttr> start = ctx.constantInput(0),
                                   limit = ctx.constantInput(1),
                                   delta = ctx.constantInput(2);
  if (!start || !limit || !delta || start->getNumElements() != 1 ||
      limit->getNumElements() != 1 || delta->getNumElements() != 1)
    return ctx.error() << "start, limit and delta must be scalars known at "
                          "import time";
  Type elementType = start->getElementType();
  auto value = [](DenseElementsAttr a) {
    return isa<FloatType>(a.getElementType())
               ? (*a.getValues<APFloat>().begin()).convertToDouble()
               : static_cast<double>(
                     (*a.getValues<APInt>().begin()).getSExtValue());
  };
  double s = value(*start), l = value(*limit), d = value(*delta);
  if (d == 0)
    return ctx.error() << "delta is 0";
  double count = std::max(std::ceil((l - s) / d), 0.0);
  if (!(count <= double(kMaxComputedConstant)))
    return ctx.error() << "the range has too many elements (" << count << ")";
  int64_t n = static_cast<int64_t>(count);
  auto type = RankedTensorType::get({n}, elementType);
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat v(s + i * d);
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    ctx.setConstantOutput(0, DenseElementsAttr::get(type, values));
    return success();
  }
  Ints values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(static_cast<int64_t>(s) + i * static_cast<int64_t>(d));
  ctx.setConstantOutput(
      0, intsAttr(ctx.builder().getContext(), values, {n}, elementType));
  return success();
}

} // namespace

void addShapeOps(llvm::StringMap<OpConverter> &t) {
  t["Tile"] = convertTile;
  t["Range"] = convertRange;
  t["Constant"] = convertConstant;
  t["Shape"] = convertShape;
  t["Size"] = convertSize;
  t["ConstantOfShape"] = convertConstantOfShape;
  t["Reshape"] = convertReshape;
  t["Flatten"] = convertFlatten;
  t["Transpose"] = convertTranspose;
  t["Squeeze"] = [](NodeContext &c) { return convertSqueezeLike(c, false); };
  t["Unsqueeze"] = [](NodeContext &c) { return convertSqueezeLike(c, true); };
  t["Concat"] = convertConcat;
  t["Slice"] = convertSlice;
  t["Gather"] = convertGather;
  t["Expand"] = convertExpand;
  t["DepthToSpace"] = [](NodeContext &c) { return convertDepthSpace(c, true); };
  t["SpaceToDepth"] = [](NodeContext &c) {
    return convertDepthSpace(c, false);
  };
  t["EyeLike"] = convertEyeLike;
  t["Split"] = convertSplit;
  t["Pad"] = convertPad;
}

} // namespace mlir::rlx::onnx_import
