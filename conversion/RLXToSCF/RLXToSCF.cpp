//===- RLXToSCF.cpp - rlx loops and branches to scf -----------------------===//
///
/// \file
/// convert-rlx-to-scf: every rlx.scan, rlx.while and rlx.switch becomes the
/// scf op of its kind with its body functions cloned into the regions.
/// On GPU targets the scf ops stay host code around the bodies' kernels
/// (rlx-gpu-map-kernels, which downloads a condition or an index the host
/// branches on). Bodies may hold loops themselves: the pass repeats until
/// none is left (bodies form a DAG, so this ends; a recursive body is an
/// error).
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToSCF/Passes.h"
#include "dialects/RLX/IR/ControlFlow.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_CONVERTRLXTOSCF
#include "conversion/RLXToSCF/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Clones `fn`'s body at the builder with its arguments bound to `args`;
/// returns what it returns.
FailureOr<SmallVector<Value>> inlineBody(OpBuilder &b, Operation *op,
                                         func::FuncOp fn, ValueRange args) {
  if (!fn || fn.isExternal() || !fn.getBody().hasOneBlock())
    return op->emitOpError("cannot be lowered: its body functions need a "
                           "single-block body");
  IRMapping mapping;
  Block &body = fn.getBody().front();
  mapping.map(body.getArguments(), args);
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  SmallVector<Value> results;
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

/// The sizes of `value`'s dims, as index values (constants where static).
SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, value, d)
                                           .getResult())
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return sizes;
}

/// The size of dim `d` of `v`, a value inside a scan body, computed before
/// the loop: followed back through elementwise and broadcasting ops (whose
/// dynamic dims never broadcast) to a body argument, whose size is that of
/// the scan operand it binds. Fails when the size is made inside the body.
FailureOr<Value> sizeBeforeLoop(OpBuilder &b, Location loc, Value v, int64_t d,
                                ScanOp scan) {
  const unsigned C = scan.getConsts().size(), K = scan.getInit().size();
  for (int depth = 0; depth < 10000; ++depth) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      unsigned i = arg.getArgNumber();
      Value outer = scan->getOperand(i);
      return tensor::DimOp::create(b, loc, outer, i < C + K ? d : d + 1)
          .getResult();
    }
    Operation *def = v.getDefiningOp();
    if (!def || !(def->hasTrait<OpTrait::SameOperandsAndResultShape>() ||
                  def->hasTrait<OpTrait::SameOperandsAndResultType>() ||
                  def->hasTrait<OpTrait::rlx::BroadcastingShape>() ||
                  isa<tensor::CastOp, SelectOp, CastOp>(def)))
      return failure();
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    Value next;
    for (Value operand : def->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type)
        continue;
      int64_t od = d - (rank - type.getRank());
      if (od >= 0 && type.isDynamicDim(od)) {
        next = operand;
        d = od;
        break;
      }
    }
    if (!next)
      return failure();
    v = next;
  }
  return failure();
}

LogicalResult lowerScan(ScanOp op, SymbolTableCollection &symbols) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  auto body = symbols.lookupNearestSymbolFrom<func::FuncOp>(op, op.getBodyAttr());
  if (!body || body.isExternal() || !body.getBody().hasOneBlock())
    return op.emitOpError("cannot be lowered: its body needs a single-block "
                          "function");
  const unsigned K = op.getInit().size();
  Value length;
  int64_t steps = op.getStaticLength();
  if (!ShapedType::isDynamic(steps))
    length = arith::ConstantIndexOp::create(b, loc, steps);
  else
    length = tensor::DimOp::create(b, loc, op.getXs()[0], 0);
  // The stacked outputs, filled in place step by step. Their dynamic dims
  // are known before the loop when they follow from the scan's operands;
  // otherwise the first step runs before the loop and gives them.
  auto ret = body.getBody().front().getTerminator();
  SmallVector<Value> init(op.getInit());
  bool peel = false;
  for (auto [j, y] : llvm::enumerate(op.getYs())) {
    auto type = cast<RankedTensorType>(y.getType());
    SmallVector<Value> dynamic;
    if (type.isDynamicDim(0))
      dynamic.push_back(length);
    for (int64_t d = 1; d < type.getRank() && !peel; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      FailureOr<Value> size =
          sizeBeforeLoop(b, loc, ret->getOperand(K + j), d - 1, op);
      if (failed(size))
        peel = true;
      else
        dynamic.push_back(*size);
    }
    if (!peel)
      init.push_back(tensor::EmptyOp::create(b, loc, type, dynamic));
  }
  if (peel)
    init.resize(K);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // The step run at iteration i: i, or counted from the end with reverse.
  auto stepAt = [&](OpBuilder &lb, Location l, Value i) -> Value {
    if (!op.getReverse())
      return i;
    return arith::SubIOp::create(
        lb, l, arith::SubIOp::create(lb, l, length, one), i);
  };
  // The body at step `step`: slices in, the next carry and the step's
  // outputs out.
  auto runBody = [&](OpBuilder &lb, Location l, Value step,
                     ValueRange carries) -> SmallVector<Value> {
    SmallVector<Value> args(op.getConsts());
    llvm::append_range(args, carries);
    for (Value x : op.getXs()) {
      auto type = cast<RankedTensorType>(x.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), lb.getIndexAttr(0));
      offsets[0] = step;
      SmallVector<OpFoldResult> sizes = sizesOf(lb, l, x);
      sizes[0] = lb.getIndexAttr(1);
      SmallVector<OpFoldResult> strides(type.getRank(), lb.getIndexAttr(1));
      args.push_back(tensor::ExtractSliceOp::create(
          lb, l, sliceType(type), x, offsets, sizes, strides));
    }
    // The body was checked above: a single block, so this cannot fail.
    return *inlineBody(lb, op, body, args);
  };
  // The step's outputs inserted at `step` of the stacked ones.
  auto insertOutputs = [&](OpBuilder &lb, Location l, Value step,
                           ValueRange outs, ValueRange stacked) {
    SmallVector<Value> next(outs.take_front(K));
    for (auto [j, into] : llvm::enumerate(stacked)) {
      Value slice = outs[K + j];
      auto type = cast<RankedTensorType>(into.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), lb.getIndexAttr(0));
      offsets[0] = step;
      SmallVector<OpFoldResult> sizes = {lb.getIndexAttr(1)};
      llvm::append_range(sizes, sizesOf(lb, l, slice));
      SmallVector<OpFoldResult> strides(type.getRank(), lb.getIndexAttr(1));
      next.push_back(tensor::InsertSliceOp::create(lb, l, slice, into, offsets,
                                                   sizes, strides));
    }
    return next;
  };
  auto emitStep = [&](OpBuilder &lb, Location l, Value i,
                      SmallVector<Value> iter) -> SmallVector<Value> {
    Value step = stepAt(lb, l, i);
    SmallVector<Value> outs =
        runBody(lb, l, step, ArrayRef<Value>(iter).take_front(K));
    return insertOutputs(lb, l, step, outs, ArrayRef<Value>(iter).drop_front(K));
  };
  // Iterations begin..length: `unroll` steps per iteration of the main
  // loop, the rest one by one.
  int64_t unroll = std::max<int64_t>(1, op.getUnroll());
  if (!ShapedType::isDynamic(steps))
    unroll = std::min(unroll, std::max<int64_t>(1, steps));
  auto emitLoops = [&](OpBuilder &lb, Location l, Value begin,
                       ValueRange iterInit) -> SmallVector<Value> {
    const bool fromStart = begin == zero;
    Value mainEnd = length;
    if (unroll > 1) {
      Value k = arith::ConstantIndexOp::create(lb, l, unroll);
      Value count =
          fromStart ? length : arith::SubIOp::create(lb, l, length, begin);
      mainEnd = arith::SubIOp::create(lb, l, length,
                                      arith::RemSIOp::create(lb, l, count, k));
    }
    auto main = scf::ForOp::create(
        lb, l, begin, mainEnd,
        unroll > 1 ? arith::ConstantIndexOp::create(lb, l, unroll).getResult()
                   : one,
        iterInit, [&](OpBuilder &fb, Location fl, Value i, ValueRange iter) {
          SmallVector<Value> values(iter);
          for (int64_t u = 0; u < unroll; ++u) {
            Value at = u == 0 ? i
                              : arith::AddIOp::create(
                                    fb, fl, i,
                                    arith::ConstantIndexOp::create(fb, fl, u))
                                    .getResult();
            values = emitStep(fb, fl, at, values);
          }
          scf::YieldOp::create(fb, fl, values);
        });
    if (unroll == 1 || (fromStart && !ShapedType::isDynamic(steps) &&
                        steps % unroll == 0))
      return SmallVector<Value>(main.getResults());
    auto rest = scf::ForOp::create(
        lb, l, mainEnd, length, one, main.getResults(),
        [&](OpBuilder &fb, Location fl, Value i, ValueRange iter) {
          scf::YieldOp::create(fb, fl,
                               emitStep(fb, fl, i, SmallVector<Value>(iter)));
        });
    return SmallVector<Value>(rest.getResults());
  };
  SmallVector<Value> results;
  if (!peel) {
    results = emitLoops(b, loc, zero, init);
  } else {
    // With no step at all, the stacked outputs are empty along dim 0 and
    // their other dynamic dims are 0.
    Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                      length, zero);
    auto branch = scf::IfOp::create(
        b, loc, any,
        [&](OpBuilder &tb, Location tl) {
          Value step = stepAt(tb, tl, zero);
          SmallVector<Value> outs = runBody(tb, tl, step, init);
          SmallVector<Value> stacked;
          for (auto [j, y] : llvm::enumerate(op.getYs())) {
            auto type = cast<RankedTensorType>(y.getType());
            SmallVector<OpFoldResult> sizes = {OpFoldResult(length)};
            llvm::append_range(sizes, sizesOf(tb, tl, outs[K + j]));
            SmallVector<Value> dynamic;
            for (auto [d, size] : llvm::enumerate(sizes))
              if (type.isDynamicDim(d))
                dynamic.push_back(getValueOrCreateConstantIndexOp(tb, tl, size));
            stacked.push_back(tensor::EmptyOp::create(tb, tl, type, dynamic));
          }
          SmallVector<Value> first = insertOutputs(tb, tl, step, outs, stacked);
          scf::YieldOp::create(tb, tl, emitLoops(tb, tl, one, first));
        },
        [&](OpBuilder &eb, Location el) {
          SmallVector<Value> none(init);
          for (Value y : op.getYs()) {
            auto type = cast<RankedTensorType>(y.getType());
            SmallVector<Value> dynamic(type.getNumDynamicDims(), zero);
            none.push_back(tensor::EmptyOp::create(eb, el, type, dynamic));
          }
          scf::YieldOp::create(eb, el, none);
        });
    results.assign(branch.getResults().begin(), branch.getResults().end());
  }
  op->replaceAllUsesWith(results);
  op->erase();
  return success();
}

LogicalResult lowerWhile(WhileOp op, SymbolTableCollection &symbols) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  auto cond = symbols.lookupNearestSymbolFrom<func::FuncOp>(op, op.getCondAttr());
  auto body = symbols.lookupNearestSymbolFrom<func::FuncOp>(op, op.getBodyAttr());
  TypeRange types = op.getResultTypes();
  auto loop = scf::WhileOp::create(b, loc, types, op.getInit());
  SmallVector<Location> locs(types.size(), loc);
  Block *before = b.createBlock(&loop.getBefore(), {}, types, locs);
  SmallVector<Value> args(op.getConsts());
  llvm::append_range(args, before->getArguments());
  FailureOr<SmallVector<Value>> flag = inlineBody(b, op, cond, args);
  if (failed(flag))
    return failure();
  Value keepGoing = tensor::ExtractOp::create(b, loc, flag->front(), {});
  scf::ConditionOp::create(b, loc, keepGoing, before->getArguments());
  Block *after = b.createBlock(&loop.getAfter(), {}, types, locs);
  args.assign(op.getConsts().begin(), op.getConsts().end());
  llvm::append_range(args, after->getArguments());
  FailureOr<SmallVector<Value>> next = inlineBody(b, op, body, args);
  if (failed(next))
    return failure();
  scf::YieldOp::create(b, loc, *next);
  op->replaceAllUsesWith(loop.getResults());
  op->erase();
  return success();
}

LogicalResult lowerSwitch(SwitchOp op, SymbolTableCollection &symbols) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  Value index = tensor::ExtractOp::create(b, loc, op.getIndex(), {});
  if (index.getType().isInteger(1))
    index = arith::ExtUIOp::create(b, loc, b.getI32Type(), index);
  // Clamped into [0, N-1], as JAX's switch does.
  int64_t last = static_cast<int64_t>(op.getBranches().size()) - 1;
  index = arith::MaxSIOp::create(
      b, loc, index, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  index = arith::MinSIOp::create(
      b, loc, index, arith::ConstantIntOp::create(b, loc, b.getI32Type(), last));
  index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  SmallVector<int64_t> cases;
  for (int64_t k = 0; k < last; ++k)
    cases.push_back(k);
  auto sw = scf::IndexSwitchOp::create(b, loc, op.getResultTypes(), index,
                                       cases, cases.size());
  auto fill = [&](Region &region, Attribute name) -> LogicalResult {
    Block *block = b.createBlock(&region);
    b.setInsertionPointToEnd(block);
    auto fn = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        op, cast<FlatSymbolRefAttr>(name));
    FailureOr<SmallVector<Value>> results = inlineBody(b, op, fn, op.getArgs());
    if (failed(results))
      return failure();
    scf::YieldOp::create(b, loc, *results);
    return success();
  };
  for (int64_t k = 0; k < last; ++k)
    if (failed(fill(sw.getCaseRegions()[k], op.getBranches()[k])))
      return failure();
  if (failed(fill(sw.getDefaultRegion(), op.getBranches()[last])))
    return failure();
  op->replaceAllUsesWith(sw.getResults());
  op->erase();
  return success();
}

struct ConvertRLXToSCFPass
    : mlir::rlx::impl::ConvertRLXToSCFBase<ConvertRLXToSCFPass> {
  using ConvertRLXToSCFBase::ConvertRLXToSCFBase;

  void runOnOperation() override {
    SymbolTableCollection symbols;
    // Each round lowers the loops present; bodies cloned into regions bring
    // their own loops for the next round. Bodies nest no deeper than the
    // number of functions unless one reaches itself.
    size_t maxRounds = 1;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      (void)fn, ++maxRounds;
    for (size_t round = 0;; ++round) {
      SmallVector<Operation *> loops;
      getOperation().walk([&](Operation *op) {
        if (isa<ScanOp, WhileOp, SwitchOp>(op))
          loops.push_back(op);
      });
      if (loops.empty())
        return;
      if (round == maxRounds) {
        loops.front()->emitOpError(
            "cannot be lowered: its body reaches itself (recursion)");
        return signalPassFailure();
      }
      for (Operation *op : loops) {
        LogicalResult lowered =
            TypeSwitch<Operation *, LogicalResult>(op)
                .Case([&](ScanOp scan) { return lowerScan(scan, symbols); })
                .Case([&](WhileOp loop) { return lowerWhile(loop, symbols); })
                .Case([&](SwitchOp sw) { return lowerSwitch(sw, symbols); });
        if (failed(lowered))
          return signalPassFailure();
      }
    }
  }
};

} // namespace
