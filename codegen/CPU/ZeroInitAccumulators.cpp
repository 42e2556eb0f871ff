//===- ZeroInitAccumulators.cpp - Products that start from zero -----------===//
///
/// \file
/// See ZeroInitAccumulators.h. Three steps of rlx-cpu-vectorize-matmul:
/// the whole fill goes and its matmul is marked (before any rewrite of the
/// matmul), each register tile of a marked matmul fills its own C tile
/// (at tiling), and after the schedule's hoisting the vectorized tile fill
/// and the read of the same tile meet as `store zeros; read` in front of
/// the reduction loop, which forwardZeroTiles folds into zeros.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/ZeroInitAccumulators.h"
#include "codegen/CPU/PackMatmul.h"
#include "codegen/CPU/Tiling.h"
#include "codegen/Common/BufferAliases.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

bool isF32(Value v) { return getElementTypeOrSelf(v.getType()).isF32(); }

/// An f32 product the matmul pass tiles by register tiles: its C tile then
/// lives in registers across the reduction, where zeros can start it.
bool isF32Product(Operation *op) {
  if (isPrepackedF32Matmul(op))
    return true;
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return linalgOp.hasPureBufferSemantics() &&
         llvm::all_of(op->getOperands(), isF32);
}

/// The next op after `op` in its block that is not free of memory effects.
Operation *nextMemoryOp(Operation *op) {
  Operation *next = op->getNextNode();
  while (next && isMemoryEffectFree(next))
    next = next->getNextNode();
  return next;
}

/// Whether `a` and `b` compute the same value: the same value, or the same
/// side-effect-free op (same attributes) of operands that are. Indices of
/// the same tile come out of alias folding as separate affine.apply ops of
/// the same loop variables when one of the accesses sits in an scf.if.
bool sameValue(Value a, Value b, int depth = 0) {
  if (a == b)
    return true;
  if (depth > 8)
    return false;
  auto resultA = dyn_cast<OpResult>(a), resultB = dyn_cast<OpResult>(b);
  if (!resultA || !resultB ||
      resultA.getResultNumber() != resultB.getResultNumber())
    return false;
  Operation *opA = resultA.getOwner(), *opB = resultB.getOwner();
  if (opA->getName() != opB->getName() ||
      opA->getAttrDictionary() != opB->getAttrDictionary() ||
      opA->getNumRegions() || opB->getNumRegions() ||
      !isMemoryEffectFree(opA) ||
      opA->getNumOperands() != opB->getNumOperands())
    return false;
  for (auto [x, y] : llvm::zip(opA->getOperands(), opB->getOperands()))
    if (!sameValue(x, y, depth + 1))
      return false;
  return true;
}

bool sameOptionalValue(Value a, Value b) {
  return (!a && !b) || (a && b && sameValue(a, b));
}

/// Whether the two transfers access the same elements of the same buffer
/// as the same vector.
template <typename A, typename B> bool sameAccess(A a, B b) {
  if (a.getBase() != b.getBase() || a.getVectorType() != b.getVectorType() ||
      a.getPermutationMap() != b.getPermutationMap() ||
      a.getInBoundsAttr() != b.getInBoundsAttr() ||
      !sameOptionalValue(a.getMask(), b.getMask()) ||
      a.getIndices().size() != b.getIndices().size())
    return false;
  for (auto [x, y] : llvm::zip(a.getIndices(), b.getIndices()))
    if (!sameValue(x, y))
      return false;
  return true;
}

bool isZeroSplat(Value v) { return matchPattern(v, m_PosZeroFloat()); }

/// Whether `loop`'s body writes no memory and reads nothing of `buffer`'s
/// allocation: the values its reduction carries are then the tile's only
/// copy between the read before it and the write after it.
bool leavesBufferAlone(scf::ForOp loop, Value buffer) {
  Value root = rootBuffer(buffer);
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (isMemoryEffectFree(op) || isa<scf::YieldOp>(op))
      return WalkResult::advance();
    Value read;
    if (auto transfer = dyn_cast<vector::TransferReadOp>(op))
      read = transfer.getBase();
    else if (auto load = dyn_cast<vector::LoadOp>(op))
      read = load.getBase();
    else if (auto load = dyn_cast<memref::LoadOp>(op))
      read = load.getMemRef();
    else if (op->getNumRegions())
      return WalkResult::advance(); // Its ops are walked too.
    if (!read || rootBuffer(read) == root)
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// `value`'s definition, and those of its operands, cloned before `loop`
/// where they lie inside it (none may be its induction variable or touch
/// memory); null when one does.
Value cloneBefore(OpBuilder &b, Value value, scf::ForOp loop,
                  IRMapping &mapping) {
  if (mapping.contains(value))
    return mapping.lookup(value);
  if (!loop->isAncestor(value.getParentRegion()->getParentOp()))
    return value;
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumRegions() || !isMemoryEffectFree(def))
    return {};
  for (Value operand : def->getOperands())
    if (!cloneBefore(b, operand, loop, mapping))
      return {};
  b.clone(*def, mapping);
  return mapping.lookup(value);
}

} // namespace

void mlir::rlx::markZeroInitMatmuls(ModuleOp module) {
  SmallVector<linalg::FillOp> fills;
  module.walk([&](linalg::FillOp fill) { fills.push_back(fill); });
  for (linalg::FillOp fill : fills) {
    if (!fill.hasPureBufferSemantics() ||
        !isZeroSplat(fill.getDpsInputOperand(0)->get()))
      continue;
    Value c = fill.getDpsInitOperand(0)->get();
    Operation *next = nextMemoryOp(fill);
    if (!isF32(c) || !next || !isF32Product(next))
      continue;
    auto matmul = cast<linalg::LinalgOp>(next);
    if (matmul.getDpsInitOperand(0)->get() != c ||
        llvm::any_of(matmul.getDpsInputs(), [&](Value input) {
          return rootBuffer(input) == rootBuffer(c);
        }))
      continue;
    matmul->setAttr(kZeroInitAttrName, UnitAttr::get(module.getContext()));
    fill->erase();
  }
}

void mlir::rlx::zeroFillTile(RewriterBase &rewriter, Operation *tile,
                             ArrayRef<LoopLikeOpInterface> loops, Value c) {
  tile->removeAttr(kZeroInitAttrName);
  auto reduction = dyn_cast<scf::ForOp>(*loops.back());
  Value cTile = cast<linalg::LinalgOp>(tile).getDpsInitOperand(0)->get();
  OpBuilder::InsertionGuard guard(rewriter);
  Location loc = tile->getLoc();
  IRMapping mapping;
  // The tile's view before its reduction; failing that (a view that
  // depends on the reduction), all of C before the tile loops, as the
  // erased fill did.
  Value view;
  Operation *before = LoopLikeOpInterface(loops.front()).getOperation();
  if (reduction && reduction->isAncestor(tile)) {
    rewriter.setInsertionPoint(reduction);
    if ((view = cloneBefore(rewriter, cTile, reduction, mapping)))
      before = reduction;
  }
  rewriter.setInsertionPoint(before);
  // In the first K block only, where the tiles are inside a loop over them.
  for (Operation *parent = before->getParentOp(); parent;
       parent = parent->getParentOp()) {
    auto blocks = dyn_cast<scf::ForOp>(parent);
    if (!blocks || !blocks->hasAttr(kKBlocksAttrName))
      continue;
    Value first =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                              blocks.getInductionVar(), blocks.getLowerBound());
    auto ifFirst = scf::IfOp::create(rewriter, loc, first);
    rewriter.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
    break;
  }
  if (!view) {
    fillWithZeros(rewriter, loc, c);
    return;
  }
  StringRef mark = cast<MemRefType>(view.getType()).getRank() == 3
                       ? kZeroBatchTileAttrName
                   : tile->hasAttr(kTallTileAttrName) ? kZeroTallTileAttrName
                                                      : kZeroTileAttrName;
  fillWithZeros(rewriter, loc, view)->setAttr(mark, rewriter.getUnitAttr());
}

void mlir::rlx::forwardZeroTiles(ModuleOp module) {
  SmallVector<vector::TransferWriteOp> writes;
  module.walk([&](vector::TransferWriteOp write) {
    if (isZeroSplat(write.getValueToStore()) &&
        isa<MemRefType>(write.getBase().getType()))
      writes.push_back(write);
  });
  for (vector::TransferWriteOp write : writes) {
    // The store, or the scf.if that makes it in the first K block only.
    Operation *anchor = write;
    Value first;
    if (auto ifFirst = dyn_cast<scf::IfOp>(write->getParentOp());
        ifFirst && ifFirst.getNumResults() == 0 &&
        ifFirst.getElseRegion().empty() &&
        llvm::all_of(ifFirst.thenBlock()->without_terminator(),
                     [&](Operation &op) {
                       return &op == write || isMemoryEffectFree(&op);
                     })) {
      anchor = ifFirst;
      first = ifFirst.getCondition();
    }
    auto read = dyn_cast_or_null<vector::TransferReadOp>(nextMemoryOp(anchor));
    if (!read || !sameAccess(write, read) || !isZeroSplat(read.getPadding()) ||
        !read->hasOneUse())
      continue;
    auto loop = dyn_cast<scf::ForOp>(*read->getUsers().begin());
    if (!loop || nextMemoryOp(read) != loop.getOperation())
      continue;
    OpOperand &init = *read->getUses().begin();
    if (init.getOperandNumber() < loop.getNumControlOperands())
      continue;
    Value result = loop.getTiedLoopResult(&init);
    if (!result.hasOneUse())
      continue;
    auto writeBack =
        dyn_cast<vector::TransferWriteOp>(*result.getUsers().begin());
    if (!writeBack || nextMemoryOp(loop) != writeBack.getOperation() ||
        !sameAccess(write, writeBack) ||
        !leavesBufferAlone(loop, write.getBase()))
      continue;
    // The tile is zero where the read happens, and the write after the
    // loop replaces every element the store of zeros wrote.
    OpBuilder b(read);
    Location loc = read.getLoc();
    VectorType type = read.getVectorType();
    auto zeros = [&](OpBuilder &builder) -> Value {
      return arith::ConstantOp::create(
          builder, loc, type,
          DenseElementsAttr::get(type,
                                 builder.getZeroAttr(type.getElementType())));
    };
    Value start;
    if (!first) {
      start = zeros(b);
    } else {
      auto choice = scf::IfOp::create(
          b, loc, first,
          [&](OpBuilder &then, Location) {
            scf::YieldOp::create(then, loc, zeros(then));
          },
          [&](OpBuilder &otherwise, Location) {
            Operation *later = otherwise.clone(*read);
            scf::YieldOp::create(otherwise, loc, later->getResult(0));
          });
      start = choice.getResult(0);
    }
    read.getResult().replaceAllUsesWith(start);
    read->erase();
    anchor->erase();
  }
}

Operation *mlir::rlx::fillWithZeros(OpBuilder &b, Location loc, Value c) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  return linalg::FillOp::create(b, loc, zero, c);
}

void mlir::rlx::restoreZeroFills(ModuleOp module) {
  module.walk([&](Operation *op) {
    op->removeAttr(kKBlocksAttrName);
    if (!op->hasAttr(kZeroInitAttrName))
      return;
    op->removeAttr(kZeroInitAttrName);
    OpBuilder b(op);
    fillWithZeros(b, op->getLoc(),
                  cast<linalg::LinalgOp>(op).getDpsInitOperand(0)->get());
  });
}
