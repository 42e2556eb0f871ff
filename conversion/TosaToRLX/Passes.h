//===- Passes.h - TOSA import -----------------------------------*- C++ -*-===//
///
/// \file
/// Declaration and registration of convert-tosa-to-rlx.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_TOSATORLX_PASSES_H
#define RLX_CONVERSION_TOSATORLX_PASSES_H

#include "dialects/RLX/IR/RLXDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rlx {

#define GEN_PASS_DECL
#include "conversion/TosaToRLX/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "conversion/TosaToRLX/Passes.h.inc"

} // namespace mlir::rlx

#endif // RLX_CONVERSION_TOSATORLX_PASSES_H
