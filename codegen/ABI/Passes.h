//===- Passes.h - artifact ABI passes ---------------------------*- C++ -*-===//
///
/// \file
/// Passes that turn entry points into the artifact ABI (docs/abi.md).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_ABI_PASSES_H
#define RLX_CODEGEN_ABI_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace rlx {

/// The artifact ABI version; the runtime checks it (docs/abi.md).
constexpr uint32_t kArtifactABIVersion = 1;

/// The symbol an entry point's code gets inside the artifact: reserved, so
/// it cannot collide with libc or libm.
inline std::string implSymbolName(llvm::StringRef entryName) {
  return ("rlx_impl_" + entryName).str();
}

/// The ABI name of a dtype (`f32`, `i1`, ...), or "" when unsupported.
std::string dtypeName(mlir::Type elementType);

#define GEN_PASS_DECL
#include "codegen/ABI/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/ABI/Passes.h.inc"

} // namespace rlx

#endif // RLX_CODEGEN_ABI_PASSES_H
