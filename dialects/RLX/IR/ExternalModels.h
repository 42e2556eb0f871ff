//===- ExternalModels.h - rlx interfaces on upstream ops --------*- C++ -*-===//
///
/// \file
/// Differentiation rules for the upstream ops that rlx programs contain
/// (tensor.cast, which rules build to change only static-ness).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_EXTERNALMODELS_H
#define RLX_DIALECTS_RLX_IR_EXTERNALMODELS_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::rlx {
void registerExternalDifferentiationModels(mlir::DialectRegistry &registry);
} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_IR_EXTERNALMODELS_H
