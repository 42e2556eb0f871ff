//===- DimConstraints.h - Run-time equalities of dynamic dims ---*- C++ -*-===//
///
/// \file
/// Compiled code assumes that dynamic dims meeting in an op agree (a `?`
/// added to a `?`, the K of a matmul, a `?` broadcast against a static 4).
/// This analysis finds, for one entry point, which dims of its inputs must be
/// equal to each other or to a static size, so that the runtime can check a
/// call before it runs instead of reading out of bounds.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_ABI_DIMCONSTRAINTS_H
#define RLX_CODEGEN_ABI_DIMCONSTRAINTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <utility>
#include <vector>

namespace mlir::rlx {

/// Input dims (input index, dim index) that must all be equal, and equal to
/// `size` when it is not negative.
struct DimConstraint {
  std::vector<std::pair<unsigned, unsigned>> dims;
  int64_t size = -1;
};

/// The constraints on the dynamic input dims of `func` (an rlx function
/// whose calls are inlined). Dims produced by arithmetic on dynamic dims
/// (concat along a dynamic axis, windows over dynamic sizes, reshapes that
/// scale a dynamic dim) are not expressed; constraints through them are
/// dropped.
std::vector<DimConstraint> inferDimConstraints(mlir::func::FuncOp func);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_ABI_DIMCONSTRAINTS_H
