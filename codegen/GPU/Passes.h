//===- Passes.h - GPU codegen passes ----------------------------*- C++ -*-===//
///
/// \file
/// Passes shared by the GPU targets (CUDA, ROCm, Vulkan).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_GPU_PASSES_H
#define RLX_CODEGEN_GPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rlx {

#define GEN_PASS_DECL
#include "codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/GPU/Passes.h.inc"

} // namespace mlir::rlx

#endif // RLX_CODEGEN_GPU_PASSES_H
