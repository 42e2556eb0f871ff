//===- CollectiveSchedule.cpp - Where collectives start and end -----------===//

#include "codegen/ABI/CollectiveSchedule.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/RLXTraits.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Ops that may move within their block: pure, and without regions (a
/// region may read values of the block that its operands do not show).
bool isMovable(Operation *op) {
  return op->getNumRegions() == 0 && isPure(op) &&
         !op->hasTrait<OpTrait::IsTerminator>();
}

/// Ops that move data or compute elementwise: moving one up only makes its
/// result live a little longer. Everything else (a matmul, a transpose, a
/// reduction) keeps its place, so that starting a collective early never
/// pulls compute earlier, nor with it the memory its result holds (the
/// transposed activations of a backward pass into the forward pass).
bool isLight(Operation *op) {
  return isa<ReshapeOp, ConcatOp, SliceOp, CastOp, BitcastOp, BroadcastInDimOp,
             ConstantOp>(op) ||
         op->hasTrait<OpTrait::rlx::BroadcastingShape>() ||
         op->hasTrait<OpTrait::SameOperandsAndResultType>();
}

/// The op of `block` defining `value`, or null (a block argument, or a
/// value from outside the block).
Operation *definerIn(Block *block, Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getBlock() == block ? def : nullptr;
}

/// The later of two ops of one block (null: the block's start).
Operation *later(Operation *a, Operation *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return a->isBeforeInBlock(b) ? b : a;
}

/// Moves `op` to just after `after` (null: the block's start).
void placeAfter(Operation *op, Operation *after) {
  if (after)
    op->moveAfter(after);
  else
    op->moveBefore(&op->getBlock()->front());
}

/// `collective` and the light ops computing its operand (the reshapes and
/// concatenation of a gradient bucket, traced after the whole backward
/// pass), each moved up to just after the last op it needs, but not above
/// the last other op computing the operand (which stays), nor above the
/// last op with side effects before the collective (the previous
/// collective among them).
void hoist(Operation *collective) {
  Block *block = collective->getBlock();
  // The light ops reached from the collective through light ops; the other
  // ops they read (the frontier) stay, and nothing moves above the last.
  llvm::SetVector<Operation *> light;
  Operation *anchor = nullptr;
  SmallVector<Operation *> worklist = {collective};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands()) {
      Operation *def = definerIn(block, operand);
      if (!def)
        continue;
      if (isMovable(def) && isLight(def)) {
        if (light.insert(def))
          worklist.push_back(def);
      } else {
        anchor = later(anchor, def);
      }
    }
  }
  for (Operation *op = collective->getPrevNode(); op; op = op->getPrevNode())
    if (!isMovable(op)) {
      anchor = later(anchor, op);
      break;
    }
  SmallVector<Operation *> order = light.takeVector();
  llvm::sort(order,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  order.push_back(collective);
  for (Operation *op : order) {
    Operation *after = anchor;
    for (Value operand : op->getOperands())
      after = later(after, definerIn(block, operand));
    // Only up: an op already above the anchor stays.
    if (after && !after->isBeforeInBlock(op))
      continue;
    if (after != op->getPrevNode())
      placeAfter(op, after);
  }
}

/// The first op of `from`'s block after `from` that reads `value` (or holds
/// an op that does), or `current` (null: the block's end) when none comes
/// before it.
Operation *firstAfter(Operation *from, Value value, Operation *current) {
  Block *block = from->getBlock();
  for (Operation *user : value.getUsers()) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && inBlock != from && from->isBeforeInBlock(inBlock) &&
        (!current || inBlock->isBeforeInBlock(current)))
      current = inBlock;
  }
  return current;
}

/// The light ops reading `collective`'s results (transitively), each moved
/// down to just before the first op that reads what it computes.
void sinkReaders(Operation *collective) {
  Block *block = collective->getBlock();
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> worklist = {collective};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (user->getBlock() == block && isMovable(user) && isLight(user) &&
            slice.insert(user))
          worklist.push_back(user);
  }
  SmallVector<Operation *> order = slice.takeVector();
  llvm::sort(order,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : order) {
    if (op->use_empty())
      continue;
    Operation *first =
        block->mightHaveTerminator() ? block->getTerminator() : nullptr;
    for (Value result : op->getResults())
      first = firstAfter(op, result, first);
    if (first && op->getNextNode() != first)
      op->moveBefore(first);
  }
}

} // namespace

void mlir::rlx::scheduleCollectives(ArrayRef<Operation *> collectives) {
  for (Operation *collective : collectives)
    hoist(collective);
  for (Operation *collective : llvm::reverse(collectives))
    sinkReaders(collective);
}

Operation *mlir::rlx::waitPointOf(Operation *collective) {
  Block *block = collective->getBlock();
  Operation *point =
      block->mightHaveTerminator() ? block->getTerminator() : nullptr;
  for (Value result : collective->getResults())
    point = firstAfter(collective, result, point);
  // The operand and what it is a reshape of share its buffer.
  for (Value value = collective->getNumOperands() ? collective->getOperand(0)
                                                  : Value();
       value;) {
    point = firstAfter(collective, value, point);
    auto reshape = value.getDefiningOp<ReshapeOp>();
    value = reshape ? reshape.getOperand() : Value();
  }
  return point;
}
