//===- Passes.h - rlx control flow to scf -----------------------*- C++ -*-===//
///
/// \file
/// Declaration and registration of convert-rlx-to-scf.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_RLXTOSCF_PASSES_H
#define RLX_CONVERSION_RLXTOSCF_PASSES_H

#include "dialects/RLX/IR/RLXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rlx {

#define GEN_PASS_DECL
#include "conversion/RLXToSCF/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "conversion/RLXToSCF/Passes.h.inc"

} // namespace mlir::rlx

#endif // RLX_CONVERSION_RLXTOSCF_PASSES_H
