//===- Passes.h - CPU codegen passes ----------------------------*- C++ -*-===//
///
/// \file
/// Passes specific to the CPU (LLVM) target.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_PASSES_H
#define RLX_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rlx {

#define GEN_PASS_DECL
#include "codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/CPU/Passes.h.inc"

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_PASSES_H
