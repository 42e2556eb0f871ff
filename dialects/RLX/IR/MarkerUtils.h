//===- MarkerUtils.h - What a transform marker differentiates ---*- C++ -*-===//
///
/// \file
/// The leaves of a differentiating marker (inputs by position, params by
/// name or "all") and the params a function reads, through calls and
/// markers. Shared by the marker verifiers, the autodiff pass and rlxc.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_MARKERUTILS_H
#define RLX_DIALECTS_RLX_IR_MARKERUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::rlx {

/// One thing a marker differentiates with respect to.
struct Leaf {
  bool isParam = false;
  unsigned input = 0;    ///< for inputs: the callee argument
  std::string paramName; ///< for params
  mlir::RankedTensorType type;
};

/// Params read by `func`, by name in order of first use, including those of
/// functions it calls and of the callees of its markers.
llvm::MapVector<llvm::StringRef, mlir::RankedTensorType>
collectParams(mlir::func::FuncOp func, mlir::SymbolTableCollection &symbols);

/// Resolves the leaves of a marker on `callee`. Emits an error at `marker`
/// and fails on a bad position, an unknown param name, a malformed
/// `wrt_params`, a non-float leaf, or no leaf at all.
mlir::FailureOr<llvm::SmallVector<Leaf>>
resolveLeaves(mlir::Operation *marker, mlir::func::FuncOp callee,
              llvm::ArrayRef<int64_t> wrt, mlir::Attribute wrtParams,
              mlir::SymbolTableCollection &symbols);

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_IR_MARKERUTILS_H
