//===- VectorAccumulators.cpp - Lane-wise reduction accumulators ----------===//

#include "codegen/CPU/VectorAccumulators.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;

namespace {

/// One accumulator update found in a loop body: read, extract, reduce
/// (possibly under a mask), insert or broadcast, write.
struct AccumulatorUpdate {
  vector::TransferReadOp read;
  vector::ExtractOp extract;
  vector::ReductionOp reduction;
  vector::MaskOp mask; ///< null when the reduction is not masked
  Operation *repack;   ///< vector.insert or vector.broadcast of the result
  vector::TransferWriteOp write;
};

/// The value a lane contributes when it must not change the result.
std::optional<TypedAttr> neutralElement(vector::CombiningKind kind,
                                        Type elementType) {
  using K = vector::CombiningKind;
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case K::ADD:
      return FloatAttr::get(floatType, 0.0);
    case K::MUL:
      return FloatAttr::get(floatType, 1.0);
    case K::MAXNUMF:
    case K::MAXIMUMF:
      return FloatAttr::get(floatType, APFloat::getInf(sem, /*Negative=*/true));
    case K::MINNUMF:
    case K::MINIMUMF:
      return FloatAttr::get(floatType, APFloat::getInf(sem));
    default:
      return std::nullopt;
    }
  }
  auto intType = dyn_cast<IntegerType>(elementType);
  if (!intType)
    return std::nullopt;
  unsigned width = intType.getWidth();
  switch (kind) {
  case K::ADD:
  case K::OR:
  case K::XOR:
  case K::MAXUI:
    return IntegerAttr::get(intType, APInt::getZero(width));
  case K::MUL:
    return IntegerAttr::get(intType, APInt(width, 1));
  case K::AND:
  case K::MINUI:
    return IntegerAttr::get(intType, APInt::getAllOnes(width));
  case K::MAXSI:
    return IntegerAttr::get(intType, APInt::getSignedMinValue(width));
  case K::MINSI:
    return IntegerAttr::get(intType, APInt::getSignedMaxValue(width));
  default:
    return std::nullopt;
  }
}

template <typename OpTy> OpTy soleUser(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  return dyn_cast<OpTy>(*value.getUsers().begin());
}

/// Matches the update chain that starts at `read`, directly in `loop`'s
/// body, with the accumulator's buffer and indices invariant in the loop.
std::optional<AccumulatorUpdate> matchUpdate(scf::ForOp loop,
                                             vector::TransferReadOp read) {
  if (read->getParentOp() != loop || read.getMask() ||
      !loop.isDefinedOutsideOfLoop(read.getBase()) ||
      !llvm::all_of(read.getIndices(), [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return std::nullopt;
  AccumulatorUpdate update{read, nullptr, nullptr, nullptr, nullptr, nullptr};
  update.extract = soleUser<vector::ExtractOp>(read.getResult());
  if (!update.extract || update.extract.getResult().getType() !=
                             read.getVectorType().getElementType())
    return std::nullopt;
  update.reduction = soleUser<vector::ReductionOp>(update.extract.getResult());
  if (!update.reduction || update.reduction.getAcc() != update.extract ||
      update.reduction.getVector() == update.extract.getResult())
    return std::nullopt;
  Value reduced = update.reduction.getDest();
  update.mask = dyn_cast<vector::MaskOp>(update.reduction->getParentOp());
  if (update.mask) {
    if (update.mask->getParentOp() != loop || update.mask.getPassthru())
      return std::nullopt;
    reduced = update.mask.getResult(0);
  } else if (update.reduction->getParentOp() != loop) {
    return std::nullopt;
  }
  if (!reduced.hasOneUse())
    return std::nullopt;
  update.repack = *reduced.getUsers().begin();
  if (!isa<vector::InsertOp, vector::BroadcastOp>(update.repack) ||
      update.repack->getResult(0).getType() != read.getVectorType())
    return std::nullopt;
  update.write = soleUser<vector::TransferWriteOp>(update.repack->getResult(0));
  if (!update.write || update.write->getParentOp() != loop ||
      update.write.getMask() || update.write.getBase() != read.getBase() ||
      !llvm::equal(update.write.getIndices(), read.getIndices()))
    return std::nullopt;
  return update;
}

/// Carries a vector of partial results through `loop` in place of the
/// update's scalar accumulator; returns the loop that replaces `loop`.
FailureOr<scf::ForOp> promote(RewriterBase &rewriter, scf::ForOp loop,
             AccumulatorUpdate update) {
  vector::CombiningKind kind = update.reduction.getKind();
  auto vectorType = cast<VectorType>(update.reduction.getVector().getType());
  std::optional<TypedAttr> neutral =
      neutralElement(kind, vectorType.getElementType());
  if (!neutral || vectorType.isScalable())
    return failure();
  Location loc = update.reduction.getLoc();

  // The accumulator's value before the loop, and the lane-wise identity.
  rewriter.setInsertionPoint(loop);
  Operation *initialRead = rewriter.clone(*update.read);
  IRMapping initialMapping;
  initialMapping.map(update.read.getResult(), initialRead->getResult(0));
  Value initial =
      rewriter.clone(*update.extract, initialMapping)->getResult(0);
  Value identity = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(vectorType, *neutral));

  Value contribution = update.reduction.getVector();
  Value mask = update.mask ? update.mask.getMask() : Value();
  auto newYield = [&](OpBuilder &b, Location yieldLoc,
                      ArrayRef<BlockArgument> partials) -> SmallVector<Value> {
    Value lanes = contribution;
    if (mask)
      lanes = arith::SelectOp::create(b, yieldLoc, mask, lanes, identity);
    return {vector::makeArithReduction(b, yieldLoc, kind, lanes, partials[0])};
  };
  FailureOr<LoopLikeOpInterface> widened =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(rewriter, ValueRange{identity},
                                       /*replaceInitOperandUsesInLoop=*/false,
                                       newYield);
  if (failed(widened))
    return failure();
  Operation *newLoop = widened->getOperation();

  // One horizontal reduction after the loop, written back once.
  rewriter.setInsertionPointAfter(newLoop);
  Value total = vector::ReductionOp::create(
      rewriter, loc, kind, newLoop->getResults().back(), initial);
  IRMapping finalMapping;
  finalMapping.map(update.mask ? update.mask.getResult(0)
                               : update.reduction.getDest(),
                   total);
  Operation *repacked = rewriter.clone(*update.repack, finalMapping);
  finalMapping.map(update.repack->getResult(0), repacked->getResult(0));
  rewriter.clone(*update.write, finalMapping);

  rewriter.eraseOp(update.write);
  rewriter.eraseOp(update.repack);
  rewriter.eraseOp(update.mask ? update.mask.getOperation()
                               : update.reduction.getOperation());
  rewriter.eraseOp(update.extract);
  rewriter.eraseOp(update.read);
  return cast<scf::ForOp>(newLoop);
}

} // namespace

void mlir::rlx::promoteReductionAccumulators(ModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  IRRewriter rewriter(module.getContext());
  for (scf::ForOp loop : loops) {
    // Each promotion replaces the loop; look again in the new one.
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
        std::optional<AccumulatorUpdate> update = matchUpdate(loop, read);
        if (!update)
          continue;
        FailureOr<scf::ForOp> widened = promote(rewriter, loop, *update);
        if (failed(widened))
          continue;
        loop = *widened;
        changed = true;
        break;
      }
    }
  }
}
