//===- ScanResiduals.cpp - Per-step residuals for scan's reverse mode ------===//
///
/// \file
/// rlx-scan-residuals: scan's VJP rule runs the body's VJP in a backward
/// scan over the carry each step started from (and the step's xs), so the
/// backward loop recomputes the step's forward values. This pass moves that
/// recomputation into the forward loop and stores what the backward loop
/// reads of it, per step, as JAX's scan does:
///
///  1. In a backward scan tagged `rlx.primal_xs` (by the VJP rule), the ops
///     that depend on those xs and on consts only, never on the carry (the
///     adjoints) nor through an rlx.optimization_barrier (what remat
///     recomputes on purpose), move into a carry-less map scan over the
///     primal xs; the values the rest of the body reads from them become
///     stacked residuals, read back as extra xs.
///  2. That map is fused into the forward scan producing its xs (the
///     stacking scan of the rule): same length, its xs being the forward
///     scan's stacked outputs or its own xs, its consts available there.
///     The residuals are then computed by the forward sweep itself; CSE in
///     the fused body merges them with the step's own ops.
///  3. Stacked outputs nobody reads and xs a body never reads are dropped
///     from every scan, so the start carries no longer read are not kept.
///
/// Memory becomes the residuals of every step instead of one carry per
/// step; remat inside the body, or checkpoint_every, still trades it back
/// for recomputation because the barrier pins the recomputed ops.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/ControlFlow.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXSCANRESIDUALS
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

func::FuncOp bodyOf(ScanOp scan, SymbolTableCollection &symbols) {
  return symbols.lookupNearestSymbolFrom<func::FuncOp>(scan,
                                                       scan.getBodyAttr());
}

/// Erases the ops of `fn` nothing reads, last first, so that the arguments
/// only they read show as unused.
void eraseDeadOps(func::FuncOp fn) {
  SmallVector<Operation *> ops;
  for (Operation &op : fn.front().without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
}

/// The result types of a scan of `body` with `numCarries` carries over
/// `length` steps.
SmallVector<Type> scanResultTypes(func::FuncOp body, size_t numCarries,
                                  int64_t length) {
  TypeRange results = body.getResultTypes();
  SmallVector<Type> types(results.take_front(numCarries));
  for (Type t : results.drop_front(numCarries))
    types.push_back(stackedType(t, length));
  return types;
}

ScanOp createScan(OpBuilder &b, ScanOp like, func::FuncOp body,
                  ValueRange consts, ValueRange init, ValueRange xs,
                  int64_t length) {
  return ScanOp::create(b, like.getLoc(),
                        scanResultTypes(body, init.size(), length),
                        FlatSymbolRefAttr::get(body), consts, init, xs,
                        like.getLengthAttr(), like.getReverseAttr(),
                        like.getUnrollAttr(), like.getCheckpointEveryAttr());
}

/// Step 1: the backward body's carry-independent part as a map scan.
/// Returns the map, or null when nothing moves.
ScanOp hoistPrimalPart(ScanOp scan, ArrayRef<int64_t> primalXs,
                       SymbolTableCollection &symbols) {
  func::FuncOp body = bodyOf(scan, symbols);
  if (!body || body.isExternal())
    return {};
  const size_t C = scan.getConsts().size(), K = scan.getInit().size(),
               X = scan.getXs().size();
  Block &entry = body.front();
  // Stepped: computed from a primal slice and consts. Varying: reads the
  // carry, a non-primal slice, or passes a barrier or an effect.
  llvm::DenseSet<Value> stepped, varying;
  for (size_t k = 0; k < K; ++k)
    varying.insert(entry.getArgument(C + k));
  for (size_t x = 0; x < X; ++x)
    (llvm::is_contained(primalXs, static_cast<int64_t>(x)) ? stepped : varying)
        .insert(entry.getArgument(C + K + x));
  llvm::SetVector<Operation *> hoisted;
  for (Operation &op : entry.without_terminator()) {
    bool reads = llvm::any_of(op.getOperands(),
                              [&](Value v) { return varying.contains(v); });
    if (reads || op.getNumRegions() || !isMemoryEffectFree(&op)) {
      varying.insert(op.result_begin(), op.result_end());
      continue;
    }
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return stepped.contains(v); })) {
      stepped.insert(op.result_begin(), op.result_end());
      hoisted.insert(&op);
    }
  }
  llvm::SetVector<Value> residuals;
  for (Operation *op : hoisted)
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (!hoisted.contains(user))
          residuals.insert(r);
  if (residuals.empty())
    return {};

  // The map: (consts, primal slices) -> residuals, from clones of the moved
  // ops and of the consts-only ops they read.
  SmallVector<Value> primalOperands;
  SmallVector<Type> mapInputs(body.getArgumentTypes().take_front(C));
  for (int64_t x : primalXs) {
    primalOperands.push_back(scan.getXs()[x]);
    mapInputs.push_back(entry.getArgument(C + K + x).getType());
  }
  SmallVector<Type> residualTypes;
  for (Value r : residuals)
    residualTypes.push_back(r.getType());
  func::FuncOp map = newBodyFunction(
      symbols, scan, body.getSymName(), "residuals", mapInputs, residualTypes,
      [&](OpBuilder &fb, ValueRange a) {
        IRMapping mapping;
        for (size_t c = 0; c < C; ++c)
          mapping.map(entry.getArgument(c), a[c]);
        for (auto [i, x] : llvm::enumerate(primalXs))
          mapping.map(entry.getArgument(C + K + x), a[C + i]);
        // In block order, so operands are cloned before their users.
        llvm::SetVector<Operation *> needed(hoisted.begin(), hoisted.end());
        for (size_t i = 0; i < needed.size(); ++i)
          for (Value v : needed[i]->getOperands())
            if (Operation *def = v.getDefiningOp())
              needed.insert(def);
        for (Operation &op : entry.without_terminator())
          if (needed.contains(&op))
            fb.clone(op, mapping);
        SmallVector<Value> out;
        for (Value r : residuals)
          out.push_back(mapping.lookup(r));
        return out;
      });

  // The backward body reading the residuals as extra slices.
  SmallVector<Type> inputs(body.getArgumentTypes());
  llvm::append_range(inputs, residualTypes);
  func::FuncOp reduced = newBodyFunction(
      symbols, scan, body.getSymName(), "with_residuals", inputs,
      body.getResultTypes(), [&](OpBuilder &fb, ValueRange a) {
        IRMapping mapping;
        for (BlockArgument arg : entry.getArguments())
          mapping.map(arg, a[arg.getArgNumber()]);
        for (auto [i, r] : llvm::enumerate(residuals))
          mapping.map(r, a[entry.getNumArguments() + i]);
        for (Operation &op : entry.without_terminator())
          if (!hoisted.contains(&op))
            fb.clone(op, mapping);
        SmallVector<Value> out;
        for (Value v : entry.getTerminator()->getOperands())
          out.push_back(mapping.lookupOrDefault(v));
        return out;
      });

  OpBuilder b(scan);
  const int64_t length = scan.getStaticLength();
  auto mapScan =
      ScanOp::create(b, scan.getLoc(), scanResultTypes(map, 0, length),
                     FlatSymbolRefAttr::get(map), scan.getConsts(),
                     ValueRange(), primalOperands, scan.getLengthAttr(),
                     b.getBoolAttr(false), scan.getUnrollAttr(), IntegerAttr());
  SmallVector<Value> xs(scan.getXs());
  llvm::append_range(xs, mapScan.getResults());
  ScanOp replacement = createScan(b, scan, reduced, scan.getConsts(),
                                  scan.getInit(), xs, length);
  scan.replaceAllUsesWith(replacement.getResults());
  scan.erase();
  return mapScan;
}

/// Step 2: the map computed by the scan producing its xs. Fails when no
/// scan produces them all.
LogicalResult fuseIntoProducer(ScanOp map, SymbolTableCollection &symbols) {
  auto producer = [&]() -> ScanOp {
    for (Value x : map.getXs())
      if (auto scan = x.getDefiningOp<ScanOp>())
        return scan;
    return {};
  }();
  // A tagged producer is itself rewritten later: leave the map standalone.
  if (!producer || producer->hasAttr(kPrimalXsAttrName) ||
      producer->getBlock() != map->getBlock() ||
      producer.getStaticLength() != map.getStaticLength())
    return failure();
  func::FuncOp pBody = bodyOf(producer, symbols),
               mBody = bodyOf(map, symbols);
  if (!pBody || !mBody || pBody.isExternal() || mBody.isExternal())
    return failure();
  const size_t PC = producer.getConsts().size(),
               PK = producer.getInit().size(),
               PX = producer.getXs().size(), MC = map.getConsts().size();
  // Where each map slice comes from: a producer output or a producer slice.
  SmallVector<std::pair<bool, unsigned>> sources;
  for (Value x : map.getXs()) {
    auto result = dyn_cast<OpResult>(x);
    if (result && result.getOwner() == producer &&
        result.getResultNumber() >= PK) {
      sources.push_back({true, result.getResultNumber() - PK});
      continue;
    }
    auto it = llvm::find(producer.getXs(), x);
    if (it == producer.getXs().end())
      return failure();
    sources.push_back(
        {false, static_cast<unsigned>(it - producer.getXs().begin())});
  }
  DominanceInfo dominance(producer->getParentOp());
  if (!llvm::all_of(map.getConsts(), [&](Value c) {
        return dominance.properlyDominates(c, producer);
      }))
    return failure();

  // The map's consts the producer already takes are read from its own
  // arguments (so CSE sees the same values); the others are appended.
  SmallVector<Value> consts(producer.getConsts());
  SmallVector<unsigned> constPositions;
  for (Value c : map.getConsts()) {
    auto it = llvm::find(consts, c);
    constPositions.push_back(it - consts.begin());
    if (it == consts.end())
      consts.push_back(c);
  }
  const size_t NC = consts.size();
  SmallVector<Type> inputs;
  for (Value c : consts)
    inputs.push_back(c.getType());
  llvm::append_range(inputs, pBody.getArgumentTypes().drop_front(PC));
  SmallVector<Type> results(pBody.getResultTypes());
  llvm::append_range(results, mBody.getResultTypes());
  func::FuncOp fused = newBodyFunction(
      symbols, producer, pBody.getSymName(), "and_residuals", inputs, results,
      [&](OpBuilder &fb, ValueRange a) {
        IRMapping mapping;
        Block &pEntry = pBody.front(), &mEntry = mBody.front();
        for (size_t c = 0; c < PC; ++c)
          mapping.map(pEntry.getArgument(c), a[c]);
        for (size_t i = 0; i < PK + PX; ++i)
          mapping.map(pEntry.getArgument(PC + i), a[NC + i]);
        for (Operation &op : pEntry.without_terminator())
          fb.clone(op, mapping);
        SmallVector<Value> out;
        for (Value v : pEntry.getTerminator()->getOperands())
          out.push_back(mapping.lookupOrDefault(v));
        for (size_t c = 0; c < MC; ++c)
          mapping.map(mEntry.getArgument(c), a[constPositions[c]]);
        for (auto [i, source] : llvm::enumerate(sources))
          mapping.map(mEntry.getArgument(MC + i),
                      source.first ? out[PK + source.second]
                                   : a[NC + PK + source.second]);
        for (Operation &op : mEntry.without_terminator())
          fb.clone(op, mapping);
        for (Value v : mEntry.getTerminator()->getOperands())
          out.push_back(mapping.lookupOrDefault(v));
        return out;
      });
  if (auto base = pBody->getAttr(kExtendsAttrName))
    fused->setAttr(kExtendsAttrName, base);
  // The map's ops repeat what the step computes: merge them, drop the rest.
  IRRewriter rewriter(fused.getContext());
  DominanceInfo fusedDominance(fused);
  eliminateCommonSubExpressions(rewriter, fusedDominance, fused);
  // A loop the step runs and its residual-stacking copy become one.
  RewritePatternSet patterns(fused.getContext());
  ScanOp::getCanonicalizationPatterns(patterns, fused.getContext());
  (void)applyPatternsGreedily(fused, std::move(patterns));
  eraseDeadOps(fused);

  OpBuilder b(producer);
  ScanOp replacement =
      createScan(b, producer, fused, consts, producer.getInit(),
                 producer.getXs(), producer.getStaticLength());
  const size_t P = producer->getNumResults();
  producer.replaceAllUsesWith(replacement.getResults().take_front(P));
  map.replaceAllUsesWith(replacement.getResults().drop_front(P));
  map.erase();
  producer.erase();
  return success();
}

/// Step 3: drops the stacked outputs nobody reads and the xs the body never
/// reads. Returns whether the scan changed.
bool pruneScan(ScanOp scan, SymbolTableCollection &symbols) {
  func::FuncOp body = bodyOf(scan, symbols);
  if (!body || body.isExternal())
    return false;
  const size_t C = scan.getConsts().size(), K = scan.getInit().size();
  Block &entry = body.front();
  llvm::BitVector deadYs(body.getNumResults()), unusedArgs(body.getNumArguments());
  for (auto [i, y] : llvm::enumerate(scan.getYs()))
    if (y.use_empty())
      deadYs.set(K + i);
  for (size_t i = C + K; i < entry.getNumArguments(); ++i)
    if (entry.getArgument(i).use_empty())
      unusedArgs.set(i);
  // A scan of a dynamic length keeps an x to count its steps by.
  if (!scan.getLength() && ShapedType::isDynamic(scan.getStaticLength()) &&
      unusedArgs.count() == scan.getXs().size() && !scan.getXs().empty())
    unusedArgs.reset(C + K);
  if (deadYs.none() && unusedArgs.none())
    return false;

  SmallVector<Type> inputs, results;
  for (auto [i, t] : llvm::enumerate(body.getArgumentTypes()))
    if (!unusedArgs.test(i))
      inputs.push_back(t);
  for (auto [i, t] : llvm::enumerate(body.getResultTypes()))
    if (!deadYs.test(i))
      results.push_back(t);
  func::FuncOp pruned = newBodyFunction(
      symbols, scan, body.getSymName(), "pruned", inputs, results,
      [&](OpBuilder &fb, ValueRange a) {
        IRMapping mapping;
        for (size_t i = 0, j = 0; i < entry.getNumArguments(); ++i)
          if (!unusedArgs.test(i))
            mapping.map(entry.getArgument(i), a[j++]);
        for (Operation &op : entry.without_terminator())
          fb.clone(op, mapping);
        SmallVector<Value> out;
        for (auto [i, v] : llvm::enumerate(entry.getTerminator()->getOperands()))
          if (!deadYs.test(i))
            out.push_back(mapping.lookupOrDefault(v));
        return out;
      });
  if (auto base = body->getAttr(kExtendsAttrName))
    pruned->setAttr(kExtendsAttrName, base);
  eraseDeadOps(pruned);
  SmallVector<Value> xs;
  for (auto [i, x] : llvm::enumerate(scan.getXs()))
    if (!unusedArgs.test(C + K + i))
      xs.push_back(x);
  OpBuilder b(scan);
  // Without xs left, the length attribute counts the steps.
  IntegerAttr length = scan.getLengthAttr();
  if (!length && xs.empty())
    length = b.getI64IntegerAttr(scan.getStaticLength());
  auto replacement = ScanOp::create(
      b, scan.getLoc(), scanResultTypes(pruned, K, scan.getStaticLength()),
      FlatSymbolRefAttr::get(pruned), scan.getConsts(), scan.getInit(), xs,
      length, scan.getReverseAttr(), scan.getUnrollAttr(),
      scan.getCheckpointEveryAttr());
  for (size_t i = 0, j = 0; i < scan->getNumResults(); ++i)
    if (!deadYs.test(i))
      scan->getResult(i).replaceAllUsesWith(replacement->getResult(j++));
  scan.erase();
  return true;
}

/// Nesting deeper than this keeps recomputing (correct, only slower).
constexpr int kMaxRounds = 64;

struct RLXScanResidualsPass
    : mlir::rlx::impl::RLXScanResidualsBase<RLXScanResidualsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    // Inner loops first: a backward scan nested in another's body is
    // handled before that body's primal part moves (with it) elsewhere.
    // Each round handles the scans whose bodies hold no tagged scan; clones
    // of a tagged scan (a fused body holding one) get their own round.
    for (int round = 0; round < kMaxRounds; ++round) {
      SmallVector<ScanOp> tagged;
      module.walk([&](ScanOp scan) {
        if (scan->hasAttr(kPrimalXsAttrName))
          tagged.push_back(scan);
      });
      if (tagged.empty())
        break;
      llvm::DenseSet<Operation *> bodiesWithTagged;
      for (ScanOp scan : tagged)
        bodiesWithTagged.insert(scan->getParentOfType<func::FuncOp>());
      bool progress = false;
      for (ScanOp scan : tagged) {
        func::FuncOp body = bodyOf(scan, symbols);
        if (body && bodiesWithTagged.contains(body))
          continue; // its body still holds a tagged scan
        auto primal = scan->getAttrOfType<DenseI64ArrayAttr>(kPrimalXsAttrName);
        scan->removeAttr(kPrimalXsAttrName);
        progress = true;
        if (ScanOp map = hoistPrimalPart(scan, primal.asArrayRef(), symbols))
          (void)fuseIntoProducer(map, symbols);
      }
      if (!progress) // bodies naming each other: leave the rest as they are
        break;
    }
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<ScanOp> scans;
      module.walk([&](ScanOp scan) { scans.push_back(scan); });
      for (ScanOp scan : llvm::reverse(scans))
        changed |= pruneScan(scan, symbols);
    }
  }
};

} // namespace
