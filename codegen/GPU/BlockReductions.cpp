//===- BlockReductions.cpp - Full reductions on a whole workgroup ---------===//
///
/// \file
/// A reduction over every dim of its input (a loss, a norm, a sum of all
/// elements) has no parallel dim, so the loop mapping would give it one
/// thread. Here such a `linalg.generic` whose body folds into the output
/// with one associative op that has a neutral element (add, mul, max, min)
/// becomes a launch of one block: each thread folds a strided share of the
/// iterations into a private partial (starting from the neutral element),
/// the partials are combined by a tree in workgroup memory, and thread 0
/// folds the result into the output's initial value. The order of the
/// additions changes; the result is the same up to rounding.
///
//===----------------------------------------------------------------------===//

#include "codegen/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUBLOCKREDUCTIONS
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The op that folds a value into the output argument, if the body is
/// `yield combine(f(inputs), out)` with `out` used only there and `combine`
/// having a neutral element.
Operation *matchCombiner(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() == 0 || op.getNumReductionLoops() != op.getNumLoops())
    return nullptr;
  auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!out || out.getRank() != 0)
    return nullptr;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return nullptr;
  Operation *combiner = yield.getOperand(0).getDefiningOp();
  BlockArgument outArg = body.getArgument(op.getNumDpsInputs());
  if (!combiner || combiner->getNumOperands() != 2 ||
      combiner->getNumResults() != 1 || !outArg.hasOneUse() ||
      outArg.getUses().begin()->getOwner() != combiner ||
      !arith::getNeutralElement(combiner))
    return nullptr;
  // The body is cloned into plain loops, where linalg.index has no meaning.
  if (!body.getOps<linalg::IndexOp>().empty())
    return nullptr;
  return combiner;
}

struct RLXGPUBlockReductionsPass
    : mlir::rlx::impl::RLXGPUBlockReductionsBase<RLXGPUBlockReductionsPass> {
  using Base::Base;

  /// `combiner` applied to (lhs, rhs) in place of (its value operand, out).
  Value combine(OpBuilder &b, Operation *combiner, Value outArg, Value lhs,
                Value rhs) {
    IRMapping mapping;
    for (Value operand : combiner->getOperands())
      mapping.map(operand, operand == outArg ? rhs : lhs);
    return b.clone(*combiner, mapping)->getResult(0);
  }

  void lower(linalg::GenericOp op, Operation *combiner) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Block &body = op.getRegion().front();
    Value outArg = body.getArgument(op.getNumDpsInputs());
    Type element = outArg.getType();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };

    // Trip counts and their product, on the host.
    SmallVector<Value> trips;
    Value total = index(1);
    for (Range range : cast<linalg::LinalgOp>(op.getOperation())
                           .createLoopRanges(b, loc)) {
      Value size = getValueOrCreateConstantIndexOp(b, loc, range.size);
      trips.push_back(size);
      total = arith::MulIOp::create(b, loc, total, size);
    }
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto partialsType =
        MemRefType::get({blockSize}, element, AffineMap(), workgroup);
    Value one = index(1);
    auto launch = gpu::LaunchOp::create(
        b, loc, one, one, one, index(blockSize), one, one,
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/ValueRange{},
        /*workgroupAttributions=*/TypeRange{partialsType});
    Block &kernel = launch.getBody().front();
    b.setInsertionPointToEnd(&kernel);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&kernel);
    Value partials = launch.getWorkgroupAttributions()[0];
    Value tid = launch.getThreadIds().x;
    Value neutral = arith::ConstantOp::create(
        b, loc, *arith::getNeutralElement(combiner));

    // Each thread: iterations tid, tid + block, ... folded into a partial.
    auto share = scf::ForOp::create(b, loc, tid, total, index(blockSize),
                                    ValueRange{neutral});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(share.getBody());
      Value rest = share.getInductionVar();
      int64_t rank = trips.size();
      SmallVector<Value> ivs(rank);
      for (int64_t d = rank - 1; d >= 0; --d) {
        ivs[d] = d == 0 ? rest
                        : arith::RemSIOp::create(b, loc, rest, trips[d])
                              .getResult();
        if (d > 0)
          rest = arith::DivSIOp::create(b, loc, rest, trips[d]);
      }
      IRMapping mapping;
      for (OpOperand *input : op.getDpsInputOperands()) {
        AffineMap map = op.getMatchingIndexingMap(input);
        Value value = input->get();
        if (auto memref = dyn_cast<MemRefType>(value.getType())) {
          SmallVector<Value> indices;
          for (unsigned r = 0; r < map.getNumResults(); ++r)
            indices.push_back(affine::AffineApplyOp::create(
                b, loc, map.getSubMap({r}), ivs));
          value = memref::LoadOp::create(b, loc, value, indices);
        }
        mapping.map(body.getArgument(input->getOperandNumber()), value);
      }
      mapping.map(outArg, share.getRegionIterArgs()[0]);
      for (Operation &nested : body.without_terminator())
        b.clone(nested, mapping);
      scf::YieldOp::create(b, loc, mapping.lookup(combiner->getResult(0)));
    }
    memref::StoreOp::create(b, loc, share.getResult(0), partials,
                            ValueRange{tid});
    gpu::BarrierOp::create(b, loc);
    // A tree over the partials in workgroup memory.
    for (int64_t stride = blockSize / 2; stride >= 1; stride /= 2) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           tid, index(stride));
      auto step = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(step.thenBlock());
        Value other = arith::AddIOp::create(b, loc, tid, index(stride));
        Value mine = memref::LoadOp::create(b, loc, partials, ValueRange{tid});
        Value theirs =
            memref::LoadOp::create(b, loc, partials, ValueRange{other});
        memref::StoreOp::create(b, loc,
                                combine(b, combiner, outArg, mine, theirs),
                                partials, ValueRange{tid});
      }
      gpu::BarrierOp::create(b, loc);
    }
    // Thread 0 folds the sum into the output's initial value.
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        index(0));
    auto finish = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    b.setInsertionPointToStart(finish.thenBlock());
    Value out = op.getDpsInits()[0];
    Value initial = memref::LoadOp::create(b, loc, out, ValueRange{});
    Value sum = memref::LoadOp::create(b, loc, partials, ValueRange{index(0)});
    memref::StoreOp::create(b, loc, combine(b, combiner, outArg, sum, initial),
                            out, ValueRange{});
    op->erase();
  }

  void runOnOperation() override {
    if (blockSize < 2 || (blockSize & (blockSize - 1))) {
      getOperation().emitError("block-size must be a power of two >= 2");
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::GenericOp, Operation *>> work;
    getOperation().walk([&](linalg::GenericOp op) {
      if (Operation *combiner = matchCombiner(op))
        work.push_back({op, combiner});
    });
    for (auto [op, combiner] : work)
      lower(op, combiner);
  }
};

} // namespace
