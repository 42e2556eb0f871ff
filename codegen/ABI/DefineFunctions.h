//===- DefineFunctions.h - Artifact-side functions from MLIR text -*- C++ -*-===//
///
/// \file
/// Passes that give the artifact its own definitions of functions the
/// lowerings only declare (allocation, hooks into the runtime) write them
/// as LLVM-dialect text; this merges such text into a module.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_ABI_DEFINEFUNCTIONS_H
#define RLX_CODEGEN_ABI_DEFINEFUNCTIONS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::rlx {

/// Parses `source` (LLVM-dialect globals and functions) and moves its
/// symbols into `module`. A declaration in `module` gives way to a
/// definition of the same name; a symbol `module` already defines (an
/// earlier pass's definition) or a repeated declaration stays. `what` names
/// the functions in the error when `source` does not parse.
mlir::LogicalResult defineFunctions(mlir::ModuleOp module,
                                    llvm::StringRef source,
                                    llvm::StringRef what);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_ABI_DEFINEFUNCTIONS_H
