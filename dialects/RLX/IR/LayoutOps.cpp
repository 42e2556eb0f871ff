//===- LayoutOps.cpp - rlx.pack_dot_operand and its inverse ---------------===//
///
/// \file
/// Verifiers of the layout ops: the packed type is a function of the
/// unpacked one (DotOperandLayout.h). They run only in the lower phase,
/// after every transform, so they have no differentiation rules.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/DotOperandLayout.h"
#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace mlir::rlx;

/// Checks that `packed` is the packed layout of `unpacked`.
static LogicalResult verifyDotLayout(Operation *op, RankedTensorType unpacked,
                                     RankedTensorType packed) {
  Type stored = dot_layout::storedElementType(unpacked.getElementType());
  if (stored != packed.getElementType())
    return op->emitOpError("expects the packed tensor to hold ")
           << unpacked.getElementType() << " as " << stored << ", got "
           << packed.getElementType();
  if (unpacked.getRank() < 2 || !unpacked.hasStaticShape())
    return op->emitOpError("expects an unpacked tensor of static shape and "
                           "rank 2 or more, got ")
           << unpacked;
  auto [k, n] = dot_layout::asMatrix(unpacked.getShape());
  RankedTensorType expected =
      dot_layout::packedType(k, n, unpacked.getElementType());
  if (packed != expected)
    return op->emitOpError("expects the packed layout of ")
           << unpacked << " (as [" << k << ", " << n << "]) to be " << expected
           << ", got " << packed;
  return success();
}

LogicalResult PackDotOperandOp::verify() {
  return verifyDotLayout(*this, getB().getType(), getType());
}

LogicalResult UnpackDotOperandOp::verify() {
  return verifyDotLayout(*this, getType(), getPacked().getType());
}
