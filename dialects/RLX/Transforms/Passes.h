//===- Passes.h - rlx transforms --------------------------------*- C++ -*-===//
///
/// \file
/// Declarations and registration of the passes over the rlx dialect.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_TRANSFORMS_PASSES_H
#define RLX_DIALECTS_RLX_TRANSFORMS_PASSES_H

#include "dialects/RLX/IR/RLXDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rlx {

#define GEN_PASS_DECL
#include "dialects/RLX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/RLX/Transforms/Passes.h.inc"

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_TRANSFORMS_PASSES_H
