//===- ControlFlow.h - What the control-flow rules share --------*- C++ -*-===//
///
/// \file
/// Helpers for scan, while and switch and their rules: slice and stacked
/// types, and new body functions (the transforms of a loop build new
/// bodies, with markers inside, rather than new regions).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_CONTROLFLOW_H
#define RLX_DIALECTS_RLX_IR_CONTROLFLOW_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::rlx {

/// On a body function derived from another by a transform: `rlx.extends =
/// @f` says that, segment by segment (consts, carry, xs), the derived body
/// takes f's operands first and returns f's results first, computed as f
/// computes them. A scan of f over those prefixes is then the prefix of the
/// derived scan (ScanOp's canonicalization merges them), so the primal loop
/// runs once under reverse and forward mode.
inline constexpr llvm::StringLiteral kExtendsAttrName = "rlx.extends";

/// On a scan built by scan's VJP rule: the positions of its xs that are
/// primal values (the carry each step started from, the step's xs), as
/// opposed to cotangents. rlx-scan-residuals moves what the body computes
/// from them alone into the forward loop and keeps it per step.
inline constexpr llvm::StringLiteral kPrimalXsAttrName = "rlx.primal_xs";

/// A stacked tensor's slice: its type without the leading dim.
mlir::RankedTensorType sliceType(mlir::Type stacked);
/// `slice` stacked `length` times along a new leading dim.
mlir::RankedTensorType stackedType(mlir::Type slice, int64_t length);

/// A new private function `<base>__<suffix>(inputs) -> results` in `anchor`'s
/// module, added through `symbols` (the caller's tables, which must see it;
/// the name is made unique), whose body `build` fills and returns.
mlir::func::FuncOp newBodyFunction(
    mlir::SymbolTableCollection &symbols, mlir::Operation *anchor,
    llvm::StringRef base, llvm::StringRef suffix, mlir::TypeRange inputs,
    mlir::TypeRange results,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &,
                                                      mlir::ValueRange)>
        build);

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_IR_CONTROLFLOW_H
