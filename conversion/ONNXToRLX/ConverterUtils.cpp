//===- ConverterUtils.cpp - What the ONNX op converters share -------------===//
///
/// \file
/// The helpers declared in ConverterUtils.h.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include <climits>
#include <cmath>
#include <limits>
#include <numeric>

namespace mlir::rlx::onnx_import {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// `axis` in [-rank, rank) made non-negative, or an error.
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank,
                                 StringRef what) {
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
  unsigned width = elementType.getIntOrFloatBitWidth();
  // The common widths as raw buffers: one APInt per element made a Resize
  // of 2^24 indices take seconds.
  auto narrowed = [&](auto zero) {
    SmallVector<decltype(zero)> raw(values.begin(), values.end());
    return DenseElementsAttr::get(type, ArrayRef(raw));
  };
  if (elementType.isSignlessInteger()) {
    if (width == 64)
      return DenseElementsAttr::get(type, values);
    if (width == 32)
      return narrowed(int32_t(0));
    if (width == 16)
      return narrowed(int16_t(0));
    if (width == 8)
      return narrowed(int8_t(0));
  }
  SmallVector<APInt> elements;
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

std::optional<int64_t> checkedProduct(ArrayRef<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(product, d, &product))
      return std::nullopt;
  return product;
}

std::optional<int64_t> checkedArith(char op, int64_t a, int64_t b) {
  int64_t r;
  switch (op) {
  case '+':
    return __builtin_add_overflow(a, b, &r) ? std::nullopt
                                            : std::optional<int64_t>(r);
  case '-':
    return __builtin_sub_overflow(a, b, &r) ? std::nullopt
                                            : std::optional<int64_t>(r);
  case '*':
    return __builtin_mul_overflow(a, b, &r) ? std::nullopt
                                            : std::optional<int64_t>(r);
  default:
    if (b == 0 || (a == INT64_MIN && b == -1))
      return std::nullopt;
    return a / b;
  }
}

FailureOr<Value> indicesAlong(NodeContext &ctx, int64_t size, int64_t axis,
                              int64_t rank, Type type) {
  if (size > kMaxComputedConstant)
    return ctx.error() << "dim " << axis << " of size " << size
                       << " is too large for the index constant it needs";
  Ints iota(size), shape(rank, 1);
  std::iota(iota.begin(), iota.end(), 0);
  shape[axis] = size;
  return ctx.importer.materialize(
      intsAttr(ctx.builder().getContext(), iota, shape, type), ctx.loc);
}

Value lowest(NodeContext &ctx, Type elementType) {
  if (isa<FloatType>(elementType))
    return scalar(ctx, elementType, -std::numeric_limits<double>::infinity());
  return scalar(ctx, elementType,
                -std::ldexp(1.0, elementType.getIntOrFloatBitWidth() - 1));
}

} // namespace mlir::rlx::onnx_import
