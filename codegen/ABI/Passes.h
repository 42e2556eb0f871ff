//===- Passes.h - artifact ABI passes ---------------------------*- C++ -*-===//
///
/// \file
/// Passes that turn entry points into the artifact ABI (docs/abi.md).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_ABI_PASSES_H
#define RLX_CODEGEN_ABI_PASSES_H

#include "rlx/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rlx {

/// The artifact ABI version the compiler writes (rlx/abi.h).
constexpr uint32_t kArtifactABIVersion = RLX_ABI_VERSION;

/// The symbol an entry point's code gets inside the artifact: reserved, so
/// it cannot collide with libc or libm.
inline std::string implSymbolName(llvm::StringRef entryName) {
  return (RLX_IMPL_SYMBOL_PREFIX + entryName).str();
}

/// The exported symbol the runtime calls for an entry point.
inline std::string entrySymbolName(llvm::StringRef entryName) {
  return (RLX_ENTRY_SYMBOL_PREFIX + entryName).str();
}

/// On an entry point whose weight-only computations moved to another entry
/// point (rlx-prepare-params): that entry point's name. Its outputs are the
/// params the entry point reads under reserved names.
inline constexpr llvm::StringLiteral kPrepareAttrName = "rlx.prepare";

/// The ABI name of a dtype (`f32`, `i1`, ...), or "" when unsupported.
std::string dtypeName(mlir::Type elementType);

#define GEN_PASS_DECL
#include "codegen/ABI/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/ABI/Passes.h.inc"

} // namespace mlir::rlx

#endif // RLX_CODEGEN_ABI_PASSES_H
