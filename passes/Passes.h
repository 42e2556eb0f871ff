//===- Passes.h - rlx passes ------------------------------------*- C++ -*-===//
///
/// \file
/// Declarations and registration of the passes over the rlx dialect.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_PASSES_PASSES_H
#define RLX_PASSES_PASSES_H

#include "dialects/RLX/IR/RLXDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace rlx {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace rlx

#endif // RLX_PASSES_PASSES_H
