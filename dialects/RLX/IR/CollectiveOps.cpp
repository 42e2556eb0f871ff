//===- CollectiveOps.cpp - Verifiers of the collective ops ----------------===//
///
/// \file
/// all_reduce, all_gather, reduce_scatter, broadcast and axis_index
/// (RLXCollectiveOps.td). all_gather and reduce_scatter scale one dim by
/// the axis size they carry; the verifiers check that dim against it, so a
/// shape error is found where the op is written rather than when the
/// replicas' buffers disagree at run time.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

LogicalResult verifyAxisName(Operation *op, StringRef axis) {
  if (axis.empty())
    return op->emitOpError("expects a non-empty axis name");
  return success();
}

/// all_gather (`scale` = true: the result's `dim` is `axis_size` times the
/// operand's) and reduce_scatter (the operand's is `axis_size` times the
/// result's); every other dim and the element type are equal.
LogicalResult verifyScaledDim(Operation *op, StringRef axis, int64_t dim,
                              int64_t axisSize, bool gather) {
  if (failed(verifyAxisName(op, axis)))
    return failure();
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  if (axisSize < 1)
    return op->emitOpError("expects axis_size >= 1, got ") << axisSize;
  if (in.getRank() == 0)
    return op->emitOpError("expects an operand of rank >= 1");
  if (dim < 0 || dim >= in.getRank())
    return op->emitOpError("expects dim in [0, ")
           << in.getRank() << "), got " << dim;
  if (in.getElementType() != out.getElementType() ||
      in.getRank() != out.getRank())
    return op->emitOpError("expects a result of the operand's rank and "
                           "element type, got ")
           << out << " for " << in;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (d == dim)
      continue;
    if (in.getDimSize(d) != out.getDimSize(d))
      return op->emitOpError("expects result dim ")
             << d << " to equal the operand's (" << in.getDimSize(d)
             << "), got " << out.getDimSize(d);
  }
  // The block side (the smaller one) and the whole side.
  int64_t block = gather ? in.getDimSize(dim) : out.getDimSize(dim);
  int64_t whole = gather ? out.getDimSize(dim) : in.getDimSize(dim);
  if (!gather && !ShapedType::isDynamic(whole) && whole % axisSize != 0)
    return op->emitOpError("expects operand dim ")
           << dim << " (" << whole << ") to divide by axis_size "
           << axisSize;
  if (ShapedType::isDynamic(block) != ShapedType::isDynamic(whole))
    return op->emitOpError("expects dim ")
           << dim << " of operand and result both static or both dynamic";
  if (!ShapedType::isDynamic(block) && whole != block * axisSize)
    return op->emitOpError("expects ")
           << (gather ? "result" : "operand") << " dim " << dim << " to be "
           << axisSize << " x " << block << " = " << block * axisSize
           << ", got " << whole;
  return success();
}

} // namespace

LogicalResult AllReduceOp::verify() {
  if (failed(verifyAxisName(*this, getAxis())))
    return failure();
  StringRef kind = getKind();
  if (kind != "sum" && kind != "mean" && kind != "max" && kind != "min")
    return emitOpError("expects kind sum, mean, max or min, got '")
           << kind << "'";
  if (kind == "mean" && !isa<FloatType>(getType().getElementType()))
    return emitOpError("expects a float tensor for kind 'mean', got ")
           << getType();
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyScaledDim(*this, getAxis(), static_cast<int64_t>(getDim()),
                         static_cast<int64_t>(getAxisSize()), /*gather=*/true);
}

LogicalResult ReduceScatterOp::verify() {
  return verifyScaledDim(*this, getAxis(), static_cast<int64_t>(getDim()),
                         static_cast<int64_t>(getAxisSize()),
                         /*gather=*/false);
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifyAxisName(*this, getAxis())))
    return failure();
  // I64Attr reads back unsigned: compare as signed.
  auto root = static_cast<int64_t>(getRoot());
  if (root < 0)
    return emitOpError("expects root >= 0, got ") << root;
  return success();
}

LogicalResult AxisIndexOp::verify() {
  return verifyAxisName(*this, getAxis());
}
