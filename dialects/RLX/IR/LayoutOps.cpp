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
  Type element = unpacked.getElementType();
  RankedTensorType expected = dot_layout::packedType(k, n, element);
  // i8 also in groups of 1 (a block-scaled weight's codes).
  RankedTensorType single = dot_layout::packedType(k, n, element, 1);
  bool i8 = element.isInteger(8);
  if (packed == expected || (i8 && packed == single))
    return success();
  InFlightDiagnostic diag = op->emitOpError("expects the packed layout of ")
                            << unpacked << " (as [" << k << ", " << n
                            << "]) to be " << expected;
  if (i8)
    diag << " (or " << single << " in groups of 1)";
  return diag << ", got " << packed;
}

LogicalResult PackDotOperandOp::verify() {
  return verifyDotLayout(*this, getB().getType(), getType());
}

LogicalResult UnpackDotOperandOp::verify() {
  return verifyDotLayout(*this, getType(), getPacked().getType());
}
