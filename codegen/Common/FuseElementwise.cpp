//===- FuseElementwise.cpp - Elementwise fusion, no reshape propagation ---===//
///
/// \file
/// Two steps. First, a producer whose result is also needed elsewhere (an
/// optimizer's new moment, both returned and used by the weight update) is
/// merged into its consumer as an extra result, when both are elementwise
/// over the same shape: one loop computes both, where linalg's fusion would
/// either leave two loops or compute the producer twice. Then linalg's
/// elementwise fusion of single-use producers.
///
//===----------------------------------------------------------------------===//

#include "codegen/Common/Passes.h"
#include "dialects/RLX/IR/DotOperandLayout.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXFUSEELEMENTWISE
#include "codegen/Common/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// An all-parallel generic on tensors writing its outputs with the identity
/// map (inputs may broadcast, e.g. a scalar learning rate): the shape every
/// multi-result merge below works on.
bool isPlainElementwise(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isIdentity();
         });
}

/// Merges `producer` into `consumer` when the consumer reads a producer
/// result and the producer's results are also used after the consumer: the
/// new op takes the consumer's other inputs and the producer's inputs, runs
/// the producer's body then the consumer's, and yields the consumer's
/// results followed by the producer results still used elsewhere.
struct MergeSharedProducer : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!isPlainElementwise(consumer))
      return failure();
    for (OpOperand *input : consumer.getDpsInputOperands()) {
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || !isPlainElementwise(producer) ||
          producer.getNumLoops() != consumer.getNumLoops() ||
          producer->getResult(0).getType() !=
              consumer->getResult(0).getType())
        continue;
      // The consumer reads producer results element for element, and every
      // other use of them comes after the consumer in its block (so the
      // merged op's results can replace them); some use is outside, or
      // linalg's own fusion handles it.
      bool aligned = llvm::all_of(
          consumer.getDpsInputOperands(), [&](OpOperand *operand) {
            return operand->get().getDefiningOp() != producer ||
                   consumer.getMatchingIndexingMap(operand).isIdentity();
          });
      bool outsideUse = false, usesAfter = true;
      for (Operation *user : producer->getUsers()) {
        if (user == consumer.getOperation())
          continue;
        outsideUse = true;
        usesAfter &= user->getBlock() == consumer->getBlock() &&
                     consumer->isBeforeInBlock(user);
      }
      // Elementwise bodies do not read their outputs; one that does keeps
      // its own loop (a dropped result's output would have no buffer).
      Block &producerBody = producer.getRegion().front();
      bool readsOutputs = llvm::any_of(
          producerBody.getArguments().drop_front(producer.getNumDpsInputs()),
          [](BlockArgument arg) { return !arg.use_empty(); });
      // A producer result the consumer writes into (an init) cannot also be
      // a result of the merged op.
      bool initFromProducer = llvm::any_of(
          consumer.getDpsInits(),
          [&](Value init) { return init.getDefiningOp() == producer; });
      if (!aligned || !outsideUse || !usesAfter || readsOutputs ||
          initFromProducer)
        continue;
      merge(consumer, producer, rewriter);
      return success();
    }
    return failure();
  }

  void merge(linalg::GenericOp consumer, linalg::GenericOp producer,
             PatternRewriter &rewriter) const {
    // Operands keep the maps they had in their own op.
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : consumer.getDpsInputOperands())
      if (input->get().getDefiningOp() != producer) {
        inputs.push_back(input->get());
        maps.push_back(consumer.getMatchingIndexingMap(input));
      }
    size_t consumerInputs = inputs.size();
    for (OpOperand *input : producer.getDpsInputOperands()) {
      inputs.push_back(input->get());
      maps.push_back(producer.getMatchingIndexingMap(input));
    }
    // Producer results used outside the consumer stay results.
    SmallVector<unsigned> kept;
    for (OpResult result : producer->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return user != consumer.getOperation();
          }))
        kept.push_back(result.getResultNumber());
    SmallVector<Value> inits = consumer.getDpsInits();
    SmallVector<Type> resultTypes(consumer->getResultTypes());
    for (unsigned r : kept) {
      inits.push_back(producer.getDpsInits()[r]);
      resultTypes.push_back(producer->getResult(r).getType());
    }
    AffineMap identity = AffineMap::getMultiDimIdentityMap(
        consumer.getNumLoops(), consumer.getContext());
    maps.append(inits.size(), identity);

    rewriter.setInsertionPoint(consumer);
    Location loc = consumer.getLoc();
    auto merged = linalg::GenericOp::create(
        rewriter, loc, resultTypes, inputs, inits, maps,
        consumer.getIteratorTypesArray());
    Block *body = rewriter.createBlock(&merged.getRegion());
    SmallVector<BlockArgument> args;
    for (Value v : llvm::concat<Value>(inputs, inits))
      args.push_back(body->addArgument(
          cast<ShapedType>(v.getType()).getElementType(), loc));

    // The producer's body (its output arguments are unused, checked above).
    IRMapping mapping;
    Block &producerBody = producer.getRegion().front();
    unsigned producerInputs = producer.getNumDpsInputs();
    for (unsigned i = 0; i < producerInputs; ++i)
      mapping.map(producerBody.getArgument(i), args[consumerInputs + i]);
    for (Operation &op : producerBody.without_terminator())
      rewriter.clone(op, mapping);
    SmallVector<Value> producerValues;
    for (Value v : producerBody.getTerminator()->getOperands())
      producerValues.push_back(mapping.lookupOrDefault(v));

    // The consumer's body; producer results read as the values above.
    Block &consumerBody = consumer.getRegion().front();
    unsigned next = 0;
    for (OpOperand *input : consumer.getDpsInputOperands()) {
      BlockArgument arg = consumerBody.getArgument(input->getOperandNumber());
      if (input->get().getDefiningOp() == producer)
        mapping.map(arg, producerValues[cast<OpResult>(input->get())
                                            .getResultNumber()]);
      else
        mapping.map(arg, args[next++]);
    }
    for (unsigned i = 0; i < consumer.getNumDpsInits(); ++i)
      mapping.map(consumerBody.getArgument(consumer.getNumDpsInputs() + i),
                  args[inputs.size() + i]);
    for (Operation &op : consumerBody.without_terminator())
      rewriter.clone(op, mapping);
    SmallVector<Value> yields;
    for (Value v : consumerBody.getTerminator()->getOperands())
      yields.push_back(mapping.lookupOrDefault(v));
    for (unsigned r : kept)
      yields.push_back(producerValues[r]);
    linalg::YieldOp::create(rewriter, loc, yields);

    unsigned consumerResults = consumer->getNumResults();
    rewriter.replaceOp(consumer,
                       merged->getResults().take_front(consumerResults));
    for (auto [i, r] : llvm::enumerate(kept))
      rewriter.replaceAllUsesWith(producer->getResult(r),
                                  merged->getResult(consumerResults + i));
    rewriter.eraseOp(producer);
  }
};

/// The most operations one fused body may hold. Each fusion clones both
/// bodies into a new op, so fusing a chain of n elementwise ops into one
/// body costs O(n^2) (a 10,000-op chain took 22 s here); past a few hundred
/// operations per element a kernel is bound by arithmetic, and one more
/// pass over memory costs nothing measurable.
constexpr size_t kMaxFusedBodyOps = 256;

/// Whether the bodies of `a` and `b` hold at most `limit` operations
/// together, counting no further than that.
bool bodiesWithin(Operation *a, Operation *b, size_t limit) {
  size_t count = 0;
  for (Operation *op : {a, b})
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        for (Operation &nested : block) {
          (void)nested;
          if (++count > limit)
            return false;
        }
      }
  return true;
}

struct RLXFuseElementwisePass
    : mlir::rlx::impl::RLXFuseElementwiseBase<RLXFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet merges(&getContext());
    merges.add<MergeSharedProducer>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(merges))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    // Fuse a producer only when it has this one use: recomputing a shared
    // producer in every consumer would duplicate work. Bodies stay bounded
    // (kMaxFusedBodyOps), so long chains fuse in linear time.
    // Nothing fuses into a matmul reading a prepacked weight: the CPU
    // kernel takes it as a plain product of two buffers.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !fused->getOwner()->hasAttr(rlx::dot_layout::kPackedRhsAttrName) &&
             bodiesWithin(producer, fused->getOwner(), kMaxFusedBodyOps);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
