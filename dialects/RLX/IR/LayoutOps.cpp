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
  if (packed == expected)
    return success();
  // Groups of 1 (the f32 kernel's panels, i8 among a block-scaled weight's
  // codes) may also be 16 columns wide, an AVX2 register tile's width.
  bool single = element.isInteger(8) || dot_layout::groupSize(element) == 1;
  RankedTensorType narrow =
      dot_layout::packedType(k, n, element, 1, dot_layout::kAVX2PanelColumns);
  if (single &&
      (packed == dot_layout::packedType(k, n, element, 1) || packed == narrow))
    return success();
  InFlightDiagnostic diag = op->emitOpError("expects the packed layout of ")
                            << unpacked << " (as [" << k << ", " << n
                            << "]) to be " << expected;
  if (single)
    diag << " (or " << dot_layout::packedType(k, n, element, 1) << " or "
         << narrow << " in groups of 1)";
  return diag << ", got " << packed;
}

LogicalResult PackDotOperandOp::verify() {
  return verifyDotLayout(*this, getB().getType(), getType());
}

LogicalResult UnpackDotOperandOp::verify() {
  return verifyDotLayout(*this, getType(), getPacked().getType());
}
