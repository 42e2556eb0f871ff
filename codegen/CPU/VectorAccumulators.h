//===- VectorAccumulators.h - Lane-wise reduction accumulators --*- C++ -*-===//
///
/// \file
/// After vectorization a reduction along the innermost loop reduces every
/// vector horizontally into a scalar that lives in memory between
/// iterations: a chain of dependent shuffles, loads and stores per vector.
/// Carrying a vector of partial results through the loop instead, and
/// reducing it horizontally once after the loop, turns that chain into one
/// independent lane-wise operation per vector.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_VECTORACCUMULATORS_H
#define RLX_CODEGEN_CPU_VECTORACCUMULATORS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::rlx {

/// Rewrites every scf.for in `module` whose body reads a loop-invariant
/// accumulator, folds one vector into it with vector.reduction (masked or
/// not) and writes it back, into a loop carrying a vector accumulator.
void promoteReductionAccumulators(mlir::ModuleOp module);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_VECTORACCUMULATORS_H
