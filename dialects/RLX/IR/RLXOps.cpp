//===- RLXOps.cpp - rlx op verifiers --------------------------------------===//
///
/// \file
/// Verifiers of the rlx ops. Every shape error is reported here, at the op's
/// location, so that no later pass meets a malformed op.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/ShapeUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace rlx;

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

static std::string formatArray(ArrayRef<int64_t> values) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleave(values, os, ",");
  os << "]";
  return text;
}

LogicalResult rlx::verifyBroadcastingShape(Operation *op) {
  SmallVector<int64_t> shape;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      return op->emitOpError("expects ranked tensor operands");
    std::optional<SmallVector<int64_t>> next =
        broadcastShapes(shape, type.getShape());
    if (!next)
      return op->emitOpError("expects operand shapes that broadcast, got ")
             << formatShape(shape) << " and " << formatShape(type.getShape());
    shape = *next;
  }
  ArrayRef<int64_t> resultShape = shapeOf(op->getResult(0));
  if (resultShape != ArrayRef<int64_t>(shape))
    return op->emitOpError("expects result shape ")
           << formatShape(shape) << " (the broadcast of the operands), got "
           << formatShape(resultShape);
  return success();
}

/// Checks that `axis` lies in [0, rank).
static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank,
                                StringRef what = "axis") {
  if (axis < 0 || axis >= rank)
    return op->emitOpError("expects ")
           << what << " in [0, " << rank << "), got " << axis;
  return success();
}

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  if (getName().empty())
    return emitOpError("expects a non-empty parameter name");
  if (!getType().hasStaticShape())
    return emitOpError("expects a static shape for parameter '")
           << getName() << "', got " << formatShape(getType().getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult GeluOp::verify() {
  if (getApproximate() != "tanh" && getApproximate() != "erf")
    return emitOpError("expects approximate = \"tanh\" or \"erf\", got \"")
           << getApproximate() << "\"";
  return success();
}

LogicalResult CompareOp::verify() {
  static constexpr StringLiteral directions[] = {"eq", "ne", "lt",
                                                 "le", "gt", "ge"};
  if (!llvm::is_contained(directions, getDirection()))
    return emitOpError("expects direction eq, ne, lt, le, gt or ge, got \"")
           << getDirection() << "\"";
  return success();
}

LogicalResult SelectOp::verify() {
  Type elementType = getType().getElementType();
  if (getOnTrue().getType().getElementType() != elementType ||
      getOnFalse().getType().getElementType() != elementType)
    return emitOpError("expects on_true, on_false and result of one element "
                       "type");
  return success();
}

LogicalResult CastOp::verify() {
  if (getX().getType().getShape() != getType().getShape())
    return emitOpError("expects the result shape to equal the operand shape ")
           << formatShape(getX().getType().getShape()) << ", got "
           << formatShape(getType().getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = getRhs().getType().getShape();
  if (getLhs().getType().getElementType() !=
          getRhs().getType().getElementType() ||
      getType().getElementType() != getLhs().getType().getElementType())
    return emitOpError("expects operands and result of one element type");
  if (lhs.size() < 2 || rhs.size() < 2)
    return emitOpError("expects operands of rank 2 or more, got ")
           << formatShape(lhs) << " and " << formatShape(rhs);
  int64_t k = lhs.back(), k2 = rhs[rhs.size() - 2];
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(k2) && k != k2)
    return emitOpError("expects contracting dims to match: lhs ")
           << formatShape(lhs) << " has K = " << k << ", rhs "
           << formatShape(rhs) << " has K = " << k2;
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!batch)
    return emitOpError("expects batch dims that broadcast, got ")
           << formatShape(lhs.drop_back(2)) << " and "
           << formatShape(rhs.drop_back(2));
  SmallVector<int64_t> expected = *batch;
  expected.push_back(lhs[lhs.size() - 2]);
  expected.push_back(rhs.back());
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("expects result shape ")
           << formatShape(expected) << ", got "
           << formatShape(getType().getShape());
  return success();
}

/// Checks the attributes shared by conv2d and pooling and the output size.
static LogicalResult verifyWindowOp(Operation *op, RankedTensorType input,
                                    ArrayRef<int64_t> window,
                                    ArrayRef<int64_t> strides,
                                    ArrayRef<int64_t> padding,
                                    ArrayRef<int64_t> dilations,
                                    int64_t channels, RankedTensorType result) {
  if (input.getRank() != 4)
    return op->emitOpError("expects an NHWC input of rank 4, got ")
           << formatShape(input.getShape());
  if (window.size() != 2 || strides.size() != 2 || dilations.size() != 2)
    return op->emitOpError("expects 2 window sizes, 2 strides and 2 "
                           "dilations");
  if (padding.size() != 4)
    return op->emitOpError("expects padding [top, bottom, left, right], got ")
           << formatArray(padding);
  if (llvm::any_of(window, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v < 1; }))
    return op->emitOpError("expects positive window sizes, strides and "
                           "dilations");
  if (llvm::any_of(padding, [](int64_t v) { return v < 0; }))
    return op->emitOpError("expects non-negative padding, got ")
           << formatArray(padding);
  ArrayRef<int64_t> in = input.getShape();
  SmallVector<int64_t> expected = {
      in[0],
      slidingWindowExtent(in[1], padding[0], padding[1], window[0], strides[0],
                          dilations[0]),
      slidingWindowExtent(in[2], padding[2], padding[3], window[1], strides[1],
                          dilations[1]),
      channels};
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError("expects result shape ")
           << formatShape(expected) << ", got "
           << formatShape(result.getShape());
  return success();
}

LogicalResult Conv2DOp::verify() {
  auto input = getInput().getType();
  auto filter = getFilter().getType();
  if (input.getElementType() != filter.getElementType() ||
      input.getElementType() != getType().getElementType())
    return emitOpError("expects input, filter and result of one element type");
  if (filter.getRank() != 4)
    return emitOpError("expects an HWIO filter of rank 4, got ")
           << formatShape(filter.getShape());
  if (!filter.hasStaticShape())
    return emitOpError("expects a static filter shape, got ")
           << formatShape(filter.getShape());
  int64_t groups = getGroups();
  if (groups < 1)
    return emitOpError("expects groups >= 1, got ") << groups;
  if (input.getRank() == 4) {
    int64_t c = input.getDimSize(3), fc = filter.getDimSize(2);
    if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(fc) &&
        c != fc * groups)
      return emitOpError("expects input channels ")
             << c << " = filter input channels " << fc << " x groups "
             << groups;
  }
  int64_t f = filter.getDimSize(3);
  if (!ShapedType::isDynamic(f) && f % groups != 0)
    return emitOpError("expects filter output channels ")
           << f << " divisible by groups " << groups;
  SmallVector<int64_t> window = {filter.getDimSize(0), filter.getDimSize(1)};
  return verifyWindowOp(*this, input, window, getStrides(), getPadding(),
                        getDilations(), f, getType());
}

static LogicalResult verifyPool(Operation *op, RankedTensorType input,
                                ArrayRef<int64_t> window,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> padding,
                                RankedTensorType result) {
  if (input.getElementType() != result.getElementType())
    return op->emitOpError("expects input and result of one element type");
  if (input.getRank() == 4 && window.size() == 2 && padding.size() == 4 &&
      (padding[0] >= window[0] || padding[1] >= window[0] ||
       padding[2] >= window[1] || padding[3] >= window[1]))
    return op->emitOpError("expects padding smaller than the window, got ")
           << formatArray(padding);
  int64_t channels = input.getRank() == 4 ? input.getDimSize(3) : 0;
  return verifyWindowOp(op, input, window, strides, padding, {1, 1}, channels,
                        result);
}

LogicalResult MaxPool2DOp::verify() {
  return verifyPool(*this, getInput().getType(), getWindow(), getStrides(),
                    getPadding(), getType());
}

LogicalResult AvgPool2DOp::verify() {
  return verifyPool(*this, getInput().getType(), getWindow(), getStrides(),
                    getPadding(), getType());
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult verifyReduction(Operation *op, RankedTensorType input,
                                     ArrayRef<int64_t> axes, bool keepdims,
                                     RankedTensorType result) {
  if (input.getElementType() != result.getElementType())
    return op->emitOpError("expects input and result of one element type");
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t axis : axes) {
    if (failed(verifyAxis(op, axis, input.getRank(), "axes")))
      return failure();
    if (!seen.insert(axis).second)
      return op->emitOpError("expects distinct axes, got ")
             << formatArray(axes);
  }
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (!seen.contains(d))
      expected.push_back(input.getDimSize(d));
    else if (keepdims)
      expected.push_back(1);
  }
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError("expects result shape ")
           << formatShape(expected) << ", got "
           << formatShape(result.getShape());
  return success();
}

LogicalResult SumOp::verify() {
  return verifyReduction(*this, getX().getType(), getAxes(), getKeepdims(),
                         getType());
}
LogicalResult MeanOp::verify() {
  if (!isa<FloatType>(getType().getElementType()))
    return emitOpError("expects a floating-point tensor");
  return verifyReduction(*this, getX().getType(), getAxes(), getKeepdims(),
                         getType());
}
LogicalResult MaxOp::verify() {
  return verifyReduction(*this, getX().getType(), getAxes(), getKeepdims(),
                         getType());
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = getX().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expects operand and result of one element type");
  int64_t inDynamic = in.getNumDynamicDims(), outDynamic = out.getNumDynamicDims();
  if (inDynamic == 0 && outDynamic == 0) {
    if (in.getNumElements() != out.getNumElements())
      return emitOpError("expects the same number of elements, got ")
             << formatShape(in.getShape()) << " (" << in.getNumElements()
             << ") and " << formatShape(out.getShape()) << " ("
             << out.getNumElements() << ")";
    return success();
  }
  if (inDynamic == 0)
    return emitOpError("expects a static result for a static operand, got ")
           << formatShape(out.getShape());
  if (outDynamic != 1)
    return emitOpError("expects exactly one dynamic result dim for a dynamic "
                       "operand, got ")
           << formatShape(out.getShape());
  return success();
}

/// Checks that `perm` is a permutation of [0, rank).
static LogicalResult verifyPermutation(Operation *op, ArrayRef<int64_t> perm,
                                       int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank)
    return op->emitOpError("expects a permutation of ")
           << rank << " dims, got " << formatArray(perm);
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return op->emitOpError("expects a permutation of [0, ")
             << rank << "), got " << formatArray(perm);
    seen[p] = true;
  }
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = getX().getType();
  if (in.getElementType() != getType().getElementType())
    return emitOpError("expects operand and result of one element type");
  if (failed(verifyPermutation(*this, getPermutation(), in.getRank())))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t p : getPermutation())
    expected.push_back(in.getDimSize(p));
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("expects result shape ")
           << formatShape(expected) << ", got "
           << formatShape(getType().getShape());
  return success();
}

LogicalResult BroadcastInDimOp::verify() {
  auto in = getX().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expects operand and result of one element type");
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOpError("expects one broadcast dimension per operand dim (")
           << in.getRank() << "), got " << formatArray(dims);
  SmallVector<bool> mapped(out.getRank(), false);
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank() || mapped[d])
      return emitOpError("expects distinct broadcast dimensions in [0, ")
             << out.getRank() << "), got " << formatArray(dims);
    mapped[d] = true;
    int64_t from = in.getDimSize(i), to = out.getDimSize(d);
    if (from != 1 && from != to)
      return emitOpError("expects operand dim ")
             << i << " (" << formatShape({from}) << ") to be 1 or equal result dim "
             << d << " (" << formatShape({to}) << ")";
  }
  for (int64_t d = 0; d < out.getRank(); ++d)
    if (!mapped[d] && out.isDynamicDim(d))
      return emitOpError("expects result dim ")
             << d << " to be static: no operand dim gives its size";
  return success();
}

LogicalResult SliceOp::verify() {
  auto in = getX().getType();
  if (in.getElementType() != getType().getElementType())
    return emitOpError("expects operand and result of one element type");
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(getStart().size()) != rank ||
      static_cast<int64_t>(getLimit().size()) != rank ||
      static_cast<int64_t>(getStrides().size()) != rank)
    return emitOpError("expects start, limit and strides with one entry per "
                       "dim (")
           << rank << ")";
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = in.getDimSize(d), start = getStart()[d],
            limit = getLimit()[d], stride = getStrides()[d];
    if (stride < 1)
      return emitOpError("expects positive strides, got ")
             << formatArray(getStrides());
    if (ShapedType::isDynamic(size)) {
      if (stride != 1)
        return emitOpError("expects stride 1 on dynamic dim ") << d;
      expected.push_back(ShapedType::kDynamic);
      continue;
    }
    if (limit == -1)
      limit = size;
    if (start < 0 || start > limit || limit > size)
      return emitOpError("expects 0 <= start <= limit <= size on dim ")
             << d << ", got start " << start << ", limit " << limit
             << ", size " << size;
    expected.push_back((limit - start + stride - 1) / stride);
  }
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("expects result shape ")
           << formatShape(expected) << ", got "
           << formatShape(getType().getShape());
  return success();
}

LogicalResult PadOp::verify() {
  auto in = getX().getType();
  auto value = getPaddingValue().getType();
  if (in.getElementType() != getType().getElementType() ||
      value.getElementType() != in.getElementType())
    return emitOpError("expects operand, padding value and result of one "
                       "element type");
  if (value.getRank() != 0)
    return emitOpError("expects a rank-0 padding value, got ")
           << formatShape(value.getShape());
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(getLow().size()) != rank ||
      static_cast<int64_t>(getHigh().size()) != rank ||
      static_cast<int64_t>(getInterior().size()) != rank)
    return emitOpError("expects low, high and interior with one entry per "
                       "dim (")
           << rank << ")";
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t lo = getLow()[d], hi = getHigh()[d], inner = getInterior()[d];
    if (lo < 0 || hi < 0 || inner < 0)
      return emitOpError("expects non-negative padding on dim ") << d;
    int64_t size = in.getDimSize(d);
    if (ShapedType::isDynamic(size)) {
      if (lo || hi || inner)
        return emitOpError("expects no padding on dynamic dim ") << d;
      expected.push_back(size);
      continue;
    }
    expected.push_back(lo + size + std::max<int64_t>(size - 1, 0) * inner + hi);
  }
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("expects result shape ")
           << formatShape(expected) << ", got "
           << formatShape(getType().getShape());
  return success();
}

LogicalResult ConcatOp::verify() {
  int64_t rank = getType().getRank();
  if (failed(verifyAxis(*this, getAxis(), rank)))
    return failure();
  SmallVector<int64_t> expected(getType().getShape());
  int64_t total = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getRank() != rank)
      return emitOpError("expects every input of rank ")
             << rank << ", input " << i << " is "
             << formatShape(type.getShape());
    for (int64_t d = 0; d < rank; ++d) {
      if (d == getAxis())
        continue;
      if (type.getDimSize(d) != getType().getDimSize(d))
        return emitOpError("expects input ")
               << i << " " << formatShape(type.getShape())
               << " to match the result "
               << formatShape(getType().getShape()) << " on dim " << d;
    }
    int64_t size = type.getDimSize(getAxis());
    total = ShapedType::isDynamic(total) || ShapedType::isDynamic(size)
                ? ShapedType::kDynamic
                : total + size;
  }
  if (getType().getDimSize(getAxis()) != total)
    return emitOpError("expects result dim ")
           << getAxis() << " to be " << formatShape({total}) << ", got "
           << formatShape({getType().getDimSize(getAxis())});
  return success();
}

LogicalResult GatherOp::verify() {
  auto in = getX().getType();
  if (in.getElementType() != getType().getElementType())
    return emitOpError("expects operand and result of one element type");
  if (failed(verifyAxis(*this, getAxis(), in.getRank())))
    return failure();
  SmallVector<int64_t> expected(in.getShape().take_front(getAxis()));
  llvm::append_range(expected, getIndices().getType().getShape());
  llvm::append_range(expected, in.getShape().drop_front(getAxis() + 1));
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("expects result shape ")
           << formatShape(expected) << ", got "
           << formatShape(getType().getShape());
  return success();
}

#define GET_OP_CLASSES
#include "dialects/RLX/IR/RLXOps.cpp.inc"
