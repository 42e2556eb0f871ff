//===- RLXTraits.h - Native traits of rlx ops -------------------*- C++ -*-===//
///
/// \file
/// BroadcastingShape: the result shape of an elementwise op is the NumPy
/// broadcast of its operand shapes. One verifier for all of them.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_RLXTRAITS_H
#define RLX_DIALECTS_RLX_IR_RLXTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::rlx {
/// Verifies the BroadcastingShape trait; defined in RLXOps.cpp.
mlir::LogicalResult verifyBroadcastingShape(mlir::Operation *op);
} // namespace mlir::rlx

namespace mlir::OpTrait::rlx {

template <typename ConcreteType>
class BroadcastingShape
    : public TraitBase<ConcreteType, BroadcastingShape> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::rlx::verifyBroadcastingShape(op);
  }
};

} // namespace mlir::OpTrait::rlx

#endif // RLX_DIALECTS_RLX_IR_RLXTRAITS_H
