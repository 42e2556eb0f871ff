//===- CollectiveSchedule.h - Where collectives start and end ---*- C++ -*-===//
///
/// \file
/// A collective lowered by rlx-lower-collectives is started where it stands
/// and waited for before the first op that reads its result. For that
/// window to cover compute (a data-parallel step's gradient all-reduce
/// running while the rest of the backward pass computes), each collective
/// moves up to just after the last op computing its operand, together with
/// the light ops between (reshapes, concatenations, elementwise ops: a
/// bucket's gradients are concatenated after the whole backward pass), and
/// the light ops reading its result move down to just before the first op
/// that needs theirs. No matmul, transpose or reduction moves: compute
/// keeps its order, and memory its peak.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_ABI_COLLECTIVESCHEDULE_H
#define RLX_CODEGEN_ABI_COLLECTIVESCHEDULE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"

namespace mlir::rlx {

/// Reorders the blocks holding `collectives` (in program order) as the file
/// comment says. Collectives keep their order among themselves and stay
/// after every op with side effects that came before them.
void scheduleCollectives(ArrayRef<Operation *> collectives);

/// The op of `collective`'s block before which its wait goes: the first
/// op after it that reads its result, or its operand or a value the
/// operand is a reshape of (a later op could otherwise write that buffer
/// in place while the collective still reads it); else the terminator;
/// null in a block without one and nothing reading after the collective.
Operation *waitPointOf(Operation *collective);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_ABI_COLLECTIVESCHEDULE_H
