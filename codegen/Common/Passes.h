//===- Passes.h - target-independent codegen --------------------*- C++ -*-===//
///
/// \file
/// Codegen passes every target runs: fusion, reshapes, deallocation and the workspace arena.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_COMMON_PASSES_H
#define RLX_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rlx {

#define GEN_PASS_DECL
#include "codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/Common/Passes.h.inc"

} // namespace mlir::rlx

#endif // RLX_CODEGEN_COMMON_PASSES_H
