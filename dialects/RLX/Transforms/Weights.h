//===- Weights.h - Values fixed once the weights are bound ------*- C++ -*-===//
///
/// \file
/// What int8 quantization and weight prepacking both ask of an operand:
/// is it a weight, computed from params and constants alone, so that
/// rlx-prepare-params can compute what depends on it once per binding?
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_TRANSFORMS_WEIGHTS_H
#define RLX_DIALECTS_RLX_TRANSFORMS_WEIGHTS_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"

namespace mlir::rlx {

/// True when `value` is computed in `block` from params and constants alone
/// by pure, region-free ops: a weight, fixed once the params are bound.
bool isWeight(Value value, Block *block);

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_TRANSFORMS_WEIGHTS_H
