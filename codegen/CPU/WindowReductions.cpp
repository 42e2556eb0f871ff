//===- WindowReductions.cpp - Pools and depthwise convs in registers ------===//

#include "codegen/CPU/WindowReductions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::rlx;

SmallVector<int64_t> mlir::rlx::windowInnermostOrder(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned loops = iterators.size();
  if (loops < 2 || op.getNumReductionLoops() == 0 ||
      iterators.back() != utils::IteratorType::parallel)
    return {};
  auto isReduction = [&](unsigned d) {
    return iterators[d] == utils::IteratorType::reduction;
  };
  // Some input result sums a parallel and a reduction dim (oh * s + kh).
  bool window = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    return llvm::any_of(
        op.getMatchingIndexingMap(input).getResults(), [&](AffineExpr expr) {
          bool parallel = false, reduction = false;
          expr.walk([&](AffineExpr inner) {
            if (auto dim = dyn_cast<AffineDimExpr>(inner))
              (isReduction(dim.getPosition()) ? reduction : parallel) = true;
          });
          return parallel && reduction;
        });
  });
  if (!window)
    return {};
  SmallVector<int64_t> order;
  for (unsigned d = 0; d < loops; ++d)
    if (!isReduction(d))
      order.push_back(d);
  for (unsigned d = 0; d < loops; ++d)
    if (isReduction(d))
      order.push_back(d);
  return order;
}

namespace {

/// The buffer a chain of views starts from.
Value viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether, in `loop`, nothing but `write` writes memory and nothing but
/// `read` and `write` touches `root`, which is an allocation (so no
/// other buffer aliases it).
bool onlyPairTouches(scf::ForOp loop, Operation *read, Operation *write,
                     Value root) {
  if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(root.getDefiningOp()))
    return false;
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op == read || op == write)
      return WalkResult::advance();
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return isMemoryEffectFree(op) ? WalkResult::advance()
                                    : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Read>(effect.getEffect()))
        return WalkResult::interrupt();
      Value value = effect.getValue();
      if (!value || viewRoot(value) == root)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Whether two index lists are equal: the same values, or equal constants
/// (tiling makes one constant 0 per op).
bool sameIndices(ValueRange a, ValueRange b) {
  return a.size() == b.size() &&
         llvm::all_of(llvm::zip(a, b), [](auto pair) {
           return isEqualConstantIntOrValue(std::get<0>(pair),
                                            std::get<1>(pair));
         });
}

/// A read and write-back pair of one vector in `loop`'s body that the loop
/// can carry instead, if there is one.
std::optional<std::pair<vector::TransferReadOp, vector::TransferWriteOp>>
carriedPair(scf::ForOp loop) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto read = dyn_cast<vector::TransferReadOp>(op);
    if (!read || !isa<MemRefType>(read.getBase().getType()) ||
        llvm::any_of(read->getOperands(), [&](Value v) {
          return !loop.isDefinedOutsideOfLoop(v);
        }))
      continue;
    for (Operation *user : read.getBase().getUsers()) {
      auto write = dyn_cast<vector::TransferWriteOp>(user);
      if (!write || write->getBlock() != loop.getBody() ||
          !read->isBeforeInBlock(write) ||
          !sameIndices(read.getIndices(), write.getIndices()) ||
          write.getVectorType() != read.getVectorType() ||
          write.getMask() != read.getMask() ||
          write.getPermutationMap() != read.getPermutationMap() ||
          write.getInBoundsAttr() != read.getInBoundsAttr())
        continue;
      if (onlyPairTouches(loop, read, write, viewRoot(read.getBase())))
        return std::make_pair(read, write);
    }
  }
  return std::nullopt;
}

} // namespace

void mlir::rlx::hoistWindowAccumulators(RewriterBase &rewriter,
                                        ArrayRef<Operation *> nests) {
  for (Operation *nest : nests) {
    SmallVector<scf::ForOp> loops;
    nest->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    // Post-order: an inner loop's pair reaches the loop around it.
    for (scf::ForOp loop : loops) {
      while (auto pair = carriedPair(loop)) {
        vector::TransferReadOp read = pair->first;
        vector::TransferWriteOp write = pair->second;
        rewriter.moveOpBefore(read, loop);
        auto carried = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
            rewriter, ValueRange{read.getResult()},
            /*replaceInitOperandUsesInLoop=*/true,
            [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
              return SmallVector<Value>{write.getVector()};
            }));
        rewriter.moveOpAfter(write, carried);
        rewriter.modifyOpInPlace(write, [&] {
          write.getValueToStoreMutable().assign(carried.getResults().back());
        });
        loop = carried;
      }
    }
  }
}
