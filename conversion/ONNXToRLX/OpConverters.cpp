//===- OpConverters.cpp - ONNX ops to rlx ops -----------------------------===//
///
/// \file
/// The op table of the ONNX importer: one converter per ONNX op type (of
/// opset kONNXImportOpset, the one every model is converted to). Each reads
/// the node through its NodeContext and builds rlx ops with the checked
/// builders, so operands an rlx op rejects are an error naming the node.
/// Layout: ONNX convolutions and pools are NCHW, rlx's are NHWC with HWIO
/// filters, so they are wrapped in transposes (the simplifier folds pairs of
/// them between consecutive convolutions).
///
/// Integer tensors known at import time (shape arithmetic: Shape, Gather,
/// Concat, Unsqueeze, ...) are folded here, so `Reshape` sees a constant
/// shape however the exporter computed it, as long as the dims are static.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/GraphImporter.h"

#include <cmath>
#include <numeric>

namespace mlir::rlx::onnx_import {
namespace {

using Ints = SmallVector<int64_t>;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// `axis` in [-rank, rank) made non-negative, or an error.
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank,
                                 StringRef what = "axis") {
  if (axis < -rank || axis >= rank)
    return ctx.error() << what << " " << axis << " is out of range for rank "
                       << rank;
  return axis < 0 ? axis + rank : axis;
}

/// A rank-0 constant of `elementType` holding `value`.
Value scalar(NodeContext &ctx, Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element;
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    APFloat v(value);
    bool lost;
    v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    element = FloatAttr::get(floatType, v);
  } else {
    element = IntegerAttr::get(elementType, static_cast<int64_t>(value));
  }
  return ctx.importer.materialize(DenseElementsAttr::get(type, element),
                                  ctx.loc);
}

Value reshape(NodeContext &ctx, Value x, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, typeOf(x).getElementType());
  if (type == x.getType())
    return x;
  return ReshapeOp::create(ctx.builder(), ctx.loc, type, x);
}

FailureOr<Value> transpose(NodeContext &ctx, Value x, ArrayRef<int64_t> perm) {
  return ctx.create<TransposeOp>(x, perm);
}

/// A DenseElementsAttr of i64 with `shape`.
DenseElementsAttr intsAttr(MLIRContext *context, ArrayRef<int64_t> values,
                           ArrayRef<int64_t> shape, Type elementType) {
  auto type = RankedTensorType::get(shape, elementType);
  SmallVector<APInt> elements;
  unsigned width = elementType.getIntOrFloatBitWidth();
  for (int64_t v : values)
    elements.push_back(APInt(width, static_cast<uint64_t>(v), true));
  return DenseElementsAttr::get(type, elements);
}

/// True when `attr` holds integers (not i1) small enough to fold.
bool isFoldableInts(const std::optional<DenseElementsAttr> &attr) {
  return attr && isa<IntegerType>(attr->getElementType()) &&
         !attr->getElementType().isInteger(1) && attr->getNumElements() <= 4096;
}

/// The NumPy broadcast of two static shapes, or nullopt.
std::optional<Ints> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Ints result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    result[i] = da == 1 ? db : da;
  }
  return result;
}

/// The row-major index into `shape` (right-aligned against `outShape`,
/// broadcasting its size-1 dims) of element `linear` of `outShape`.
int64_t broadcastIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> outShape,
                       int64_t linear) {
  int64_t index = 0, stride = 1;
  for (int64_t i = outShape.size() - 1, j = shape.size() - 1; j >= 0;
       --i, --j) {
    int64_t coord = linear % outShape[i];
    linear /= outShape[i];
    if (shape[j] != 1)
      index += coord * stride;
    stride *= shape[j];
  }
  return index;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult convertUnary(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> y = ctx.create<OpTy>(*x);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Folds an integer binary op on two known operands.
template <typename Fn>
bool foldIntBinary(NodeContext &ctx, Fn fn) {
  std::optional<DenseElementsAttr> a = ctx.constantInput(0),
                                   b = ctx.constantInput(1);
  if (!isFoldableInts(a) || !isFoldableInts(b) ||
      a->getElementType() != b->getElementType())
    return false;
  ArrayRef<int64_t> sa = a->getType().getShape(), sb = b->getType().getShape();
  std::optional<Ints> shape = broadcastShapes(sa, sb);
  if (!shape)
    return false;
  Ints va = toInts(*a), vb = toInts(*b), out;
  int64_t count = ShapedType::getNumElements(*shape);
  for (int64_t i = 0; i < count; ++i) {
    int64_t x = va[broadcastIndex(sa, *shape, i)];
    int64_t y = vb[broadcastIndex(sb, *shape, i)];
    std::optional<int64_t> r = fn(x, y);
    if (!r)
      return false;
    out.push_back(*r);
  }
  ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(), out, *shape,
                                    a->getElementType()));
  return true;
}

template <typename OpTy, typename Fold>
LogicalResult convertBinary(NodeContext &ctx, Fold fold) {
  if (foldIntBinary(ctx, fold))
    return success();
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = ctx.create<OpTy>(*a, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Min, Max, Sum, Mean: variadic, folded pairwise.
template <typename OpTy>
LogicalResult convertVariadic(NodeContext &ctx, bool mean = false) {
  if (ctx.numInputs() == 0)
    return ctx.error() << "needs at least one input";
  FailureOr<Value> acc = ctx.input(0);
  if (failed(acc))
    return failure();
  for (unsigned i = 1; i < ctx.numInputs(); ++i) {
    FailureOr<Value> next = ctx.input(i);
    if (failed(next) || failed(acc = ctx.create<OpTy>(*acc, *next)))
      return failure();
  }
  if (mean && ctx.numInputs() > 1) {
    Value n = scalar(ctx, typeOf(*acc).getElementType(), ctx.numInputs());
    if (failed(acc = ctx.create<DivOp>(*acc, n)))
      return failure();
  }
  ctx.setOutput(0, *acc);
  return success();
}

LogicalResult convertPow(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  // Small constant exponents as products: rlx.pow is exp(y log x), NaN for
  // the negative bases that x^2 of a centered value (LayerNorm) meets.
  if (std::optional<DenseElementsAttr> e = ctx.constantInput(1);
      e && e->isSplat()) {
    double v = isa<FloatType>(e->getElementType())
                   ? e->getSplatValue<APFloat>().convertToDouble()
                   : static_cast<double>(e->getSplatValue<APInt>().getSExtValue());
    FailureOr<Value> y = failure();
    if (v == 1.0)
      y = *x;
    else if (v == 2.0)
      y = ctx.create<MulOp>(*x, *x);
    else if (v == 3.0) {
      FailureOr<Value> sq = ctx.create<MulOp>(*x, *x);
      if (failed(sq))
        return failure();
      y = ctx.create<MulOp>(*sq, *x);
    } else if (v == 0.5)
      y = ctx.create<SqrtOp>(*x);
    else if (v == -0.5)
      y = ctx.create<RsqrtOp>(*x);
    else if (v == -1.0)
      y = ctx.create<DivOp>(scalar(ctx, elementType, 1.0), *x);
    if (succeeded(y)) {
      ctx.setOutput(0, *y);
      return success();
    }
  }
  FailureOr<Value> e = ctx.input(1);
  if (failed(e))
    return failure();
  Value exponent = *e;
  if (typeOf(exponent).getElementType() != elementType)
    exponent = CastOp::create(
        ctx.builder(), ctx.loc,
        RankedTensorType::get(typeOf(exponent).getShape(), elementType),
        exponent);
  FailureOr<Value> y = ctx.create<PowOp>(*x, exponent);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertReciprocal(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> y = ctx.create<DivOp>(
      scalar(ctx, typeOf(*x).getElementType(), 1.0), *x);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertLeakyRelu(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 0.01f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(alpha) || failed(x))
    return failure();
  Type elementType = typeOf(*x).getElementType();
  Value zero = scalar(ctx, elementType, 0.0);
  FailureOr<Value> positive = ctx.create<CompareOp>("gt", *x, zero);
  FailureOr<Value> scaled =
      ctx.create<MulOp>(*x, scalar(ctx, elementType, *alpha));
  if (failed(positive) || failed(scaled))
    return failure();
  FailureOr<Value> y = ctx.create<SelectOp>(*positive, *x, *scaled);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// HardSigmoid: max(0, min(1, alpha x + beta)).
FailureOr<Value> hardSigmoid(NodeContext &ctx, Value x, double alpha,
                             double beta) {
  Type elementType = typeOf(x).getElementType();
  FailureOr<Value> y = ctx.create<MulOp>(x, scalar(ctx, elementType, alpha));
  if (failed(y) ||
      failed(y = ctx.create<AddOp>(*y, scalar(ctx, elementType, beta))) ||
      failed(y = ctx.create<MinimumOp>(*y, scalar(ctx, elementType, 1.0))))
    return failure();
  return ctx.create<MaximumOp>(*y, scalar(ctx, elementType, 0.0));
}

LogicalResult convertHardSigmoid(NodeContext &ctx) {
  FailureOr<float> alpha = ctx.getFloat("alpha", 0.2f),
                   beta = ctx.getFloat("beta", 0.5f);
  FailureOr<Value> x = ctx.input(0);
  if (failed(alpha) || failed(beta) || failed(x))
    return failure();
  FailureOr<Value> y = hardSigmoid(ctx, *x, *alpha, *beta);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertHardSwish(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> gate = hardSigmoid(ctx, *x, 1.0 / 6.0, 0.5);
  if (failed(gate))
    return failure();
  FailureOr<Value> y = ctx.create<MulOp>(*x, *gate);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertClip(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Value y = *x;
  if (ctx.hasInput(1)) {
    FailureOr<Value> lo = ctx.input(1);
    FailureOr<Value> r = failed(lo) ? FailureOr<Value>(failure()) : ctx.create<MaximumOp>(y, *lo);
    if (failed(r))
      return failure();
    y = *r;
  }
  if (ctx.hasInput(2)) {
    FailureOr<Value> hi = ctx.input(2);
    FailureOr<Value> r = failed(hi) ? FailureOr<Value>(failure()) : ctx.create<MinimumOp>(y, *hi);
    if (failed(r))
      return failure();
    y = *r;
  }
  ctx.setOutput(0, y);
  return success();
}

template <const char *Direction>
LogicalResult convertCompare(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = ctx.create<CompareOp>(Direction, *a, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}
constexpr char kEq[] = "eq", kLt[] = "lt", kLe[] = "le", kGt[] = "gt",
               kGe[] = "ge";

LogicalResult convertNot(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> y = ctx.create<CompareOp>(
      "eq", *x, scalar(ctx, ctx.builder().getI1Type(), 0));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// And: a ? b : false; Or: a ? true : b.
LogicalResult convertLogical(NodeContext &ctx, bool isAnd) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  Value constant = scalar(ctx, ctx.builder().getI1Type(), isAnd ? 0 : 1);
  FailureOr<Value> y = isAnd ? ctx.create<SelectOp>(*a, *b, constant)
                             : ctx.create<SelectOp>(*a, constant, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertWhere(NodeContext &ctx) {
  FailureOr<Value> c = ctx.input(0), a = ctx.input(1), b = ctx.input(2);
  if (failed(c) || failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = ctx.create<SelectOp>(*c, *a, *b);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertCast(NodeContext &ctx) {
  const onnx::AttributeProto *to = ctx.attribute("to");
  if (!to || to->type() != onnx::AttributeProto::INT)
    return ctx.error() << "attribute 'to' (an int) is missing";
  Type elementType = elementTypeOf(ctx.builder().getContext(), to->i());
  if (!elementType)
    return ctx.unsupportedAttribute(
        "to", "casting to " + onnxTypeName(to->i()) + " is not supported");
  std::optional<DenseElementsAttr> known = ctx.constantInput(0);
  if (isFoldableInts(known) && isa<IntegerType>(elementType) &&
      !elementType.isInteger(1)) {
    ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(),
                                      toInts(*known),
                                      known->getType().getShape(),
                                      elementType));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (typeOf(*x).getElementType() == elementType) {
    ctx.setOutput(0, *x);
    return success();
  }
  ctx.setOutput(0, CastOp::create(ctx.builder(), ctx.loc,
                                  typeOf(*x).clone(elementType), *x));
  return success();
}

LogicalResult convertIdentity(NodeContext &ctx) {
  if (std::optional<DenseElementsAttr> known = ctx.constantInput(0);
      known && !ctx.importer.initializers.count(ctx.node.input(0))) {
    ctx.setConstantOutput(0, *known);
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, *x);
  return success();
}

/// Dropout at inference: the identity (its mask output unsupported).
LogicalResult convertDropout(NodeContext &ctx) {
  if (std::optional<DenseElementsAttr> training = ctx.constantInput(2);
      training && !training->getValues<APInt>().empty() &&
      !(*training->getValues<APInt>().begin()).isZero())
    return ctx.error() << "training_mode must be false (inference import)";
  if (ctx.hasInput(2) && !ctx.constantInput(2))
    return ctx.error() << "training_mode must be known at import time";
  if (failed(ctx.expectUnusedOutputsFrom(1)))
    return failure();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, *x);
  return success();
}

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
  } else if (name == "value_float") {
    ctx.setConstantOutput(0, DenseElementsAttr::get(
                                 RankedTensorType::get({}, b.getF32Type()),
                                 attr.f()));
  } else if (name == "value_floats") {
    SmallVector<float> v(attr.floats().begin(), attr.floats().end());
    ctx.setConstantOutput(
        0, DenseElementsAttr::get(
               RankedTensorType::get({(int64_t)v.size()}, b.getF32Type()),
               ArrayRef<float>(v)));
  } else if (name == "value_int") {
    ctx.setConstantOutput(0, intsAttr(context, {attr.i()}, {},
                                      b.getIntegerType(64)));
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
  MLIRContext *context = ctx.builder().getContext();
  Attribute element = FloatAttr::get(Float32Type::get(context), 0.0);
  Type elementType = Float32Type::get(context);
  if (const onnx::AttributeProto *value = ctx.attribute("value")) {
    std::string error;
    std::optional<DenseElementsAttr> v = decodeTensor(context, value->t(), error);
    if (!v)
      return ctx.error() << "attribute 'value' " << error;
    if (v->getNumElements() != 1)
      return ctx.unsupportedAttribute("value", "must hold one element");
    elementType = v->getElementType();
    element = *v->getValues<Attribute>().begin();
  }
  ctx.setConstantOutput(
      0, DenseElementsAttr::get(RankedTensorType::get(*shape, elementType),
                                element));
  return success();
}

} // namespace

/// The result shape of ONNX Reshape: 0 copies the input dim (unless
/// allowzero), -1 takes what is left, a dynamic entry (a symbolic shape's
/// unknown element) is a dynamic dim. -1 is static when the input dims it
/// covers are: those not copied into their own place by a 0.
FailureOr<SmallVector<int64_t>> reshapeShape(NodeContext &ctx,
                                             ArrayRef<int64_t> in,
                                             ArrayRef<int64_t> spec,
                                             bool allowZero) {
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
  if (inferred >= 0) {
    int64_t rest = 1, known = 1;
    bool inferable = true;
    for (size_t i = 0; i < in.size(); ++i) {
      if (copied(i))
        continue;
      if (ShapedType::isDynamic(in[i]))
        inferable = false;
      else
        rest *= in[i];
    }
    for (auto [i, d] : llvm::enumerate(out)) {
      if (static_cast<int64_t>(i) == inferred || copied(i))
        continue;
      if (ShapedType::isDynamic(d))
        inferable = false;
      else
        known *= d;
    }
    if (inferable) {
      if (known == 0 || rest % known != 0)
        return ctx.error() << "cannot reshape " << rest << " elements to the "
                           << "requested shape";
      out[inferred] = rest / known;
    }
  }
  if (llvm::none_of(in, ShapedType::isDynamic) &&
      llvm::none_of(out, ShapedType::isDynamic) &&
      ShapedType::getNumElements(out) != ShapedType::getNumElements(in))
    return ctx.error() << "cannot reshape " << ShapedType::getNumElements(in)
                       << " elements to " << ShapedType::getNumElements(out);
  return out;
}

namespace {

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
  auto product = [&](int64_t lo, int64_t hi) {
    int64_t p = 1;
    for (int64_t i = lo; i < hi; ++i) {
      if (ShapedType::isDynamic(shape[i]))
        return ShapedType::kDynamic;
      p *= shape[i];
    }
    return p;
  };
  ctx.setOutput(0, reshape(ctx, *x, {product(0, a), product(a, rank)}));
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

/// The axes of Squeeze/Unsqueeze/Reduce*: the input (opset 13+) or the
/// attribute of older opsets.
FailureOr<std::optional<Ints>> axesOf(NodeContext &ctx, unsigned input) {
  if (ctx.attribute("axes")) {
    FailureOr<Ints> axes = ctx.getInts("axes", {});
    if (failed(axes))
      return failure();
    return std::optional<Ints>(*axes);
  }
  if (!ctx.hasInput(input))
    return std::optional<Ints>();
  FailureOr<Ints> axes = ctx.constantInts(input, "axes");
  if (failed(axes))
    return failure();
  return std::optional<Ints>(*axes);
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
          return ctx.error() << "cannot squeeze axis " << axis << " of size "
                             << in[*a];
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
  FailureOr<Value> y =
      inputs.size() == 1 ? FailureOr<Value>(inputs[0])
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
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, axes[i], rank);
    if (failed(axis))
      return failure();
    int64_t s = (*starts)[i], e = (*ends)[i], step = steps[i];
    if (step <= 0)
      return ctx.error() << "step " << step
                         << " is not supported (only positive steps)";
    int64_t dim = shape[*axis];
    if (ShapedType::isDynamic(dim)) {
      // rlx.slice on a dynamic dim: negative starts count from the end, a
      // limit of -1 is the end and below -1 counts from the end too.
      if (step != 1)
        return ctx.error() << "a step other than 1 on dynamic dim " << *axis
                           << " is not supported";
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
    for (int64_t i = start[0]; i < limit[0]; i += strides[0])
      out.push_back(values[i]);
    ctx.setConstantOutput(0, intsAttr(ctx.builder().getContext(), out,
                                      {(int64_t)out.size()},
                                      known->getElementType()));
    return success();
  }
  FailureOr<Value> y = ctx.create<SliceOp>(x, start, limit, strides);
  if (failed(y))
    return failure();
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
    index = ctx.importer.materialize(
        intsAttr(ctx.builder().getContext(), v, indices->getType().getShape(),
                 ctx.builder().getIntegerType(64)),
        ctx.loc);
  } else {
    FailureOr<Value> i = ctx.input(1);
    if (failed(i))
      return failure();
    index = *i;
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
    int64_t b = i < rank - spec->size() ? 1 : (*spec)[i - (rank - spec->size())];
    if (a != 1 && b != 1 && a != b && !ShapedType::isDynamic(a))
      return ctx.error() << "cannot expand dim " << i << " of size " << a
                         << " to " << b;
    out[i] = a == 1 ? b : a;
  }
  for (size_t i = 0; i < in.size(); ++i)
    dims.push_back(rank - in.size() + i);
  auto type = RankedTensorType::get(out, typeOf(*x).getElementType());
  ctx.setOutput(0, type == x->getType()
                       ? *x
                       : BroadcastInDimOp::create(ctx.builder(), ctx.loc, type,
                                                  *x, dims)
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
  if ((int64_t)sizes.size() != ctx.node.output_size() ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim)
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

LogicalResult convertPad(NodeContext &ctx) {
  FailureOr<std::string> mode = ctx.getString("mode", "constant");
  FailureOr<Ints> pads = ctx.constantInts(1, "pads");
  FailureOr<Value> x = ctx.input(0);
  if (failed(mode) || failed(pads) || failed(x))
    return failure();
  if (*mode != "constant")
    return ctx.unsupportedAttribute("mode", "'" + *mode +
                                                "' padding is not supported "
                                                "(only constant)");
  if (ctx.hasInput(3))
    return ctx.error() << "input 3 (axes) is not supported";
  int64_t rank = typeOf(*x).getRank();
  if ((int64_t)pads->size() != 2 * rank)
    return ctx.error() << "pads has " << pads->size() << " values, expected "
                       << 2 * rank;
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return ctx.error() << "negative pads are not supported";
  Ints low(pads->begin(), pads->begin() + rank),
      high(pads->begin() + rank, pads->end()), interior(rank, 0);
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
// Convolution and pooling (NCHW in ONNX, NHWC in rlx)
//===----------------------------------------------------------------------===//

/// The 2-D window attributes shared by Conv and the pools, as rlx wants
/// them: padding [top, bottom, left, right].
struct Window {
  Ints kernel, strides, dilations, padding;
};

/// Reads kernel_shape (or `kernel` when given), strides, dilations, pads
/// and auto_pad; SAME_* padding needs static spatial dims.
FailureOr<Window> readWindow(NodeContext &ctx, ArrayRef<int64_t> inShape,
                             ArrayRef<int64_t> kernel) {
  Window w;
  FailureOr<Ints> k = ctx.getInts("kernel_shape", kernel);
  FailureOr<Ints> s = ctx.getInts("strides", {1, 1});
  FailureOr<Ints> d = ctx.getInts("dilations", {1, 1});
  FailureOr<Ints> p = ctx.getInts("pads", {0, 0, 0, 0});
  FailureOr<std::string> autoPad = ctx.getString("auto_pad", "NOTSET");
  if (failed(k) || failed(s) || failed(d) || failed(p) || failed(autoPad))
    return failure();
  if (k->size() != 2 || s->size() != 2 || d->size() != 2 || p->size() != 4)
    return ctx.error() << "only 2-D windows are supported (kernel_shape, "
                          "strides, dilations of 2, pads of 4)";
  w.kernel = *k;
  w.strides = *s;
  w.dilations = *d;
  // ONNX pads: [h_begin, w_begin, h_end, w_end].
  w.padding = {(*p)[0], (*p)[2], (*p)[1], (*p)[3]};
  if (*autoPad == "VALID") {
    w.padding = {0, 0, 0, 0};
  } else if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      int64_t size = inShape[2 + i];
      if (ShapedType::isDynamic(size))
        return ctx.unsupportedAttribute(
            "auto_pad", "SAME padding needs static spatial dims");
      int64_t out = (size + w.strides[i] - 1) / w.strides[i];
      int64_t total = std::max<int64_t>(
          (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 -
              size,
          0);
      int64_t small = total / 2, large = total - small;
      w.padding[2 * i] = *autoPad == "SAME_UPPER" ? small : large;
      w.padding[2 * i + 1] = *autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (*autoPad != "NOTSET") {
    return ctx.unsupportedAttribute("auto_pad", "unknown value '" + *autoPad +
                                                    "'");
  }
  return w;
}

LogicalResult convertConv(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"auto_pad", "dilations", "group",
                                       "kernel_shape", "pads", "strides"})))
    return failure();
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  FailureOr<int64_t> group = ctx.getInt("group", 1);
  if (failed(x) || failed(w) || failed(group))
    return failure();
  if (typeOf(*x).getRank() != 4 || typeOf(*w).getRank() != 4)
    return ctx.error() << "only 2-D convolutions (rank-4 input and weight) "
                          "are supported";
  ArrayRef<int64_t> wShape = typeOf(*w).getShape();
  FailureOr<Window> window =
      readWindow(ctx, typeOf(*x).getShape(), {wShape[2], wShape[3]});
  if (failed(window))
    return failure();
  if (window->kernel[0] != wShape[2] || window->kernel[1] != wShape[3])
    return ctx.unsupportedAttribute("kernel_shape",
                                    "differs from the weight's spatial dims");
  FailureOr<Value> input = transpose(ctx, *x, {0, 2, 3, 1});
  FailureOr<Value> filter = transpose(ctx, *w, {2, 3, 1, 0});
  if (failed(input) || failed(filter))
    return failure();
  FailureOr<Value> y = ctx.create<Conv2DOp>(
      *input, *filter, ArrayRef<int64_t>(window->strides),
      ArrayRef<int64_t>(window->padding), ArrayRef<int64_t>(window->dilations),
      static_cast<uint64_t>(*group));
  if (failed(y) || failed(y = transpose(ctx, *y, {0, 3, 1, 2})))
    return failure();
  if (ctx.hasInput(2)) {
    FailureOr<Value> bias = ctx.input(2);
    if (failed(bias))
      return failure();
    Value b = reshape(ctx, *bias, {typeOf(*bias).getDimSize(0), 1, 1});
    if (failed(y = ctx.create<AddOp>(*y, b)))
      return failure();
  }
  ctx.setOutput(0, *y);
  return success();
}

/// ceil_mode: the extra bottom/right padding that makes floor division give
/// the ceil of ONNX's output size.
FailureOr<Ints> ceilPadding(NodeContext &ctx, ArrayRef<int64_t> inShape,
                            const Window &w) {
  Ints extra(2, 0);
  for (int i = 0; i < 2; ++i) {
    int64_t size = inShape[2 + i];
    if (ShapedType::isDynamic(size))
      return ctx.unsupportedAttribute("ceil_mode",
                                      "needs static spatial dims");
    int64_t span = size + w.padding[2 * i] + w.padding[2 * i + 1] -
                   (w.kernel[i] - 1) * w.dilations[i] - 1;
    int64_t out = (span + w.strides[i] - 1) / w.strides[i] + 1;
    extra[i] = std::max<int64_t>((out - 1) * w.strides[i] - span, 0);
  }
  return extra;
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
  if (typeOf(*x).getRank() != 4)
    return ctx.error() << "only 2-D pooling (rank-4 input) is supported";
  if (!ctx.attribute("kernel_shape"))
    return ctx.error() << "attribute 'kernel_shape' is missing";
  FailureOr<Window> w = readWindow(ctx, typeOf(*x).getShape(), {});
  FailureOr<int64_t> ceilMode = ctx.getInt("ceil_mode", 0),
                     includePad = ctx.getInt("count_include_pad", 0);
  if (failed(w) || failed(ceilMode) || failed(includePad))
    return failure();
  if (w->dilations != Ints{1, 1})
    return ctx.unsupportedAttribute("dilations",
                                    "dilated pooling is not supported");
  if (*ceilMode) {
    FailureOr<Ints> extra = ceilPadding(ctx, typeOf(*x).getShape(), *w);
    if (failed(extra))
      return failure();
    if (!isMax && ((*extra)[0] || (*extra)[1]))
      return ctx.unsupportedAttribute(
          "ceil_mode", "average pooling whose last window overhangs the "
                       "input is not supported");
    w->padding[1] += (*extra)[0];
    w->padding[3] += (*extra)[1];
  }
  FailureOr<Value> input = transpose(ctx, *x, {0, 2, 3, 1});
  if (failed(input))
    return failure();
  FailureOr<Value> y =
      isMax ? ctx.create<MaxPool2DOp>(*input, ArrayRef<int64_t>(w->kernel),
                                      ArrayRef<int64_t>(w->strides),
                                      ArrayRef<int64_t>(w->padding))
            : ctx.create<AvgPool2DOp>(*input, ArrayRef<int64_t>(w->kernel),
                                      ArrayRef<int64_t>(w->strides),
                                      ArrayRef<int64_t>(w->padding));
  if (failed(y))
    return failure();
  bool padded = llvm::any_of(w->padding, [](int64_t p) { return p != 0; });
  if (!isMax && padded && !*includePad) {
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
        ones, ArrayRef<int64_t>(w->kernel), ArrayRef<int64_t>(w->strides),
        ArrayRef<int64_t>(w->padding));
    if (failed(count) || failed(y = ctx.create<DivOp>(*y, *count)))
      return failure();
  }
  if (failed(y = transpose(ctx, *y, {0, 3, 1, 2})))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

template <typename OpTy>
LogicalResult convertGlobalPool(NodeContext &ctx) {
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
  if (failed(x) || failed(scale) || failed(bias) || failed(mean) ||
      failed(var))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (rank < 2)
    return ctx.error() << "input must have rank 2 or more";
  Type elementType = typeOf(*x).getElementType();
  // y = x * a + b with a = scale / sqrt(var + eps), b = bias - mean * a,
  // computed on the [C] vectors.
  FailureOr<Value> a = ctx.create<AddOp>(*var, scalar(ctx, elementType, *epsilon));
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

LogicalResult convertLayerNorm(NodeContext &ctx) {
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<float> epsilon = ctx.getFloat("epsilon", 1e-5f);
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1);
  if (failed(axis) || failed(epsilon) || failed(x) || failed(scale))
    return failure();
  if (failed(ctx.expectUnusedOutputsFrom(1)))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, rank);
  if (failed(a))
    return failure();
  Ints axes;
  for (int64_t i = *a; i < rank; ++i)
    axes.push_back(i);
  Type elementType = typeOf(*x).getElementType();
  FailureOr<Value> mean = ctx.create<MeanOp>(*x, axes, true);
  if (failed(mean))
    return failure();
  FailureOr<Value> d = ctx.create<SubOp>(*x, *mean);
  if (failed(d))
    return failure();
  FailureOr<Value> var = ctx.create<MulOp>(*d, *d);
  if (failed(var) || failed(var = ctx.create<MeanOp>(*var, axes, true)) ||
      failed(var = ctx.create<AddOp>(*var, scalar(ctx, elementType, *epsilon))) ||
      failed(var = ctx.create<RsqrtOp>(*var)))
    return failure();
  FailureOr<Value> y = ctx.create<MulOp>(*d, *var);
  if (failed(y) || failed(y = ctx.create<MulOp>(*y, *scale)))
    return failure();
  if (ctx.hasInput(2)) {
    FailureOr<Value> bias = ctx.input(2);
    if (failed(bias) || failed(y = ctx.create<AddOp>(*y, *bias)))
      return failure();
  }
  ctx.setOutput(0, *y);
  return success();
}

template <typename OpTy>
LogicalResult convertSoftmax(NodeContext &ctx) {
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

enum class Reduction { Sum, Mean, Max, Min, L2, SumSquare };

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

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

llvm::StringMap<OpConverter> buildTable() {
  llvm::StringMap<OpConverter> t;
  // Elementwise.
  t["Add"] = [](NodeContext &c) {
    return convertBinary<AddOp>(c, [](int64_t a, int64_t b) {
      return std::optional<int64_t>(a + b);
    });
  };
  t["Sub"] = [](NodeContext &c) {
    return convertBinary<SubOp>(c, [](int64_t a, int64_t b) {
      return std::optional<int64_t>(a - b);
    });
  };
  t["Mul"] = [](NodeContext &c) {
    return convertBinary<MulOp>(c, [](int64_t a, int64_t b) {
      return std::optional<int64_t>(a * b);
    });
  };
  t["Div"] = [](NodeContext &c) {
    return convertBinary<DivOp>(c, [](int64_t a, int64_t b) {
      return b == 0 ? std::nullopt : std::optional<int64_t>(a / b);
    });
  };
  t["Pow"] = convertPow;
  t["Max"] = [](NodeContext &c) { return convertVariadic<MaximumOp>(c); };
  t["Min"] = [](NodeContext &c) { return convertVariadic<MinimumOp>(c); };
  t["Sum"] = [](NodeContext &c) { return convertVariadic<AddOp>(c); };
  t["Mean"] = [](NodeContext &c) { return convertVariadic<AddOp>(c, true); };
  t["Neg"] = convertUnary<NegOp>;
  t["Abs"] = convertUnary<AbsOp>;
  t["Exp"] = convertUnary<ExpOp>;
  t["Log"] = convertUnary<LogOp>;
  t["Sqrt"] = convertUnary<SqrtOp>;
  t["Tanh"] = convertUnary<TanhOp>;
  t["Erf"] = convertUnary<ErfOp>;
  t["Sigmoid"] = convertUnary<SigmoidOp>;
  t["Relu"] = convertUnary<ReluOp>;
  t["Reciprocal"] = convertReciprocal;
  t["LeakyRelu"] = convertLeakyRelu;
  t["HardSigmoid"] = convertHardSigmoid;
  t["HardSwish"] = convertHardSwish;
  t["Clip"] = convertClip;
  t["Equal"] = convertCompare<kEq>;
  t["Less"] = convertCompare<kLt>;
  t["LessOrEqual"] = convertCompare<kLe>;
  t["Greater"] = convertCompare<kGt>;
  t["GreaterOrEqual"] = convertCompare<kGe>;
  t["Not"] = convertNot;
  t["And"] = [](NodeContext &c) { return convertLogical(c, true); };
  t["Or"] = [](NodeContext &c) { return convertLogical(c, false); };
  t["Where"] = convertWhere;
  t["Cast"] = convertCast;
  t["Identity"] = convertIdentity;
  t["Dropout"] = convertDropout;
  // Constants and shapes.
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
  t["Split"] = convertSplit;
  t["Pad"] = convertPad;
  // Contractions, convolution, pooling.
  t["MatMul"] = convertMatMul;
  t["Gemm"] = convertGemm;
  t["Conv"] = convertConv;
  t["MaxPool"] = [](NodeContext &c) { return convertPool(c, true); };
  t["AveragePool"] = [](NodeContext &c) { return convertPool(c, false); };
  t["GlobalAveragePool"] = convertGlobalPool<MeanOp>;
  t["GlobalMaxPool"] = convertGlobalPool<MaxOp>;
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
  t["ReduceL2"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::L2);
  };
  t["ReduceSumSquare"] = [](NodeContext &c) {
    return convertReduce(c, Reduction::SumSquare);
  };
  return t;
}

} // namespace

const llvm::StringMap<OpConverter> &opConverters() {
  static const llvm::StringMap<OpConverter> table = buildTable();
  return table;
}

} // namespace mlir::rlx::onnx_import
