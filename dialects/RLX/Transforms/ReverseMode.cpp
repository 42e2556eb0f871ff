//===- ReverseMode.cpp - Expanding grad, value_and_grad and vjp -----------===//
///
/// \file
/// rlx-reverse-mode: each grad, value_and_grad and vjp marker whose callee
/// reaches no marker becomes plain rlx ops at its position. The flattened
/// callee is cloned as the forward sweep, then the clones are walked
/// backwards asking each for its VJP (DifferentiableOpInterface); adjoints
/// of values used more than once are summed. Rules may emit markers
/// (remat's VJP is a vjp of its callee): rlx-autodiff expands them in a
/// later round.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/Transforms/MarkerExpansion.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXREVERSEMODE
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

class ReverseMode {
public:
  explicit ReverseMode(MarkerExpansion &expansion)
      : expansion(expansion), symbols(expansion.getSymbols()) {}

  LogicalResult expand(TransformMarkerOpInterface marker) {
    func::FuncOp callee = marker.resolveCallee(symbols);
    if (!callee)
      return marker->emitOpError("cannot resolve its callee");
    FailureOr<SmallVector<Leaf>> leaves = marker.getLeaves(callee, symbols);
    if (failed(leaves))
      return failure();
    FailureOr<func::FuncOp> flat = expansion.flatten(callee);
    if (failed(flat))
      return failure();
    OpBuilder b(marker);
    Location loc = marker.getLoc();
    ad::RuleBuilder rb{b, loc};
    FailureOr<MarkerExpansion::Forward> fwd =
        expansion.cloneForward(*flat, marker.getArgs(), *leaves, b);
    if (failed(fwd))
      return failure();
    // vjp seeds its cotangents; grad and value_and_grad seed one on their
    // (first) result.
    SmallVector<Value> seeds(fwd->results.size());
    SmallVector<Value> replacements;
    if (auto vjp = dyn_cast<VJPOp>(*marker)) {
      llvm::copy(vjp.getCotangents(), seeds.begin());
      llvm::append_range(replacements, fwd->results);
    } else {
      seeds[0] = ad::add(rb, ad::zerosLike(rb, fwd->results[0]),
                         ad::scalarLike(rb, fwd->results[0], 1));
      if (isa<ValueAndGradOp>(*marker))
        llvm::append_range(replacements, fwd->results);
    }
    FailureOr<SmallVector<Value>> grads = reverse(*fwd, seeds, *leaves, b, loc);
    if (failed(grads))
      return failure();
    llvm::append_range(replacements, *grads);
    marker->replaceAllUsesWith(replacements);
    marker->erase();
    return success();
  }

private:
  /// Adjoints of the leaves given seeds on the results.
  FailureOr<SmallVector<Value>> reverse(const MarkerExpansion::Forward &fwd,
                                        ArrayRef<Value> seeds,
                                        ArrayRef<Leaf> leaves, OpBuilder &b,
                                        Location loc) {
    llvm::DenseMap<Value, Value> adjoints;
    ad::RuleBuilder rb{b, loc};
    auto accumulate = [&](Value v, Value adj) {
      Value &slot = adjoints[v];
      slot = slot ? ad::add(rb, slot, adj) : adj;
    };
    for (auto [result, seed] : llvm::zip(fwd.results, seeds))
      if (seed)
        accumulate(result, seed);
    for (Operation *op : llvm::reverse(fwd.ops)) {
      SmallVector<Value> resultAdjoints;
      bool any = false;
      for (Value r : op->getResults()) {
        resultAdjoints.push_back(adjoints.lookup(r));
        any |= static_cast<bool>(resultAdjoints.back());
      }
      if (!any)
        continue;
      auto rule = dyn_cast<DifferentiableOpInterface>(op);
      if (!rule)
        return op->emitOpError("has no VJP rule: it cannot be differentiated");
      for (auto [i, adj] : llvm::enumerate(resultAdjoints))
        if (!adj)
          adj = ad::zerosLike({b, op->getLoc()}, op->getResult(i));
      SmallVector<Value> operandAdjoints;
      OpBuilder::InsertionGuard guard(b);
      if (failed(rule.buildVJP(b, resultAdjoints, operandAdjoints, symbols)))
        return failure();
      for (auto [operand, adj] : llvm::zip(op->getOperands(), operandAdjoints))
        if (adj)
          accumulate(operand, adj);
    }
    SmallVector<Value> out;
    for (const Leaf &leaf : leaves) {
      Value total;
      if (leaf.isParam) {
        for (Value p : fwd.params.lookup(leaf.paramName))
          if (Value adj = adjoints.lookup(p))
            total = total ? ad::add(rb, total, adj) : adj;
        if (!total)
          total = ad::zerosLike(rb, zerosSource(leaf, fwd, b, loc));
      } else {
        Value input = fwd.inputs[leaf.input];
        total = adjoints.lookup(input);
        if (!total)
          total = ad::zerosLike(rb, input);
      }
      out.push_back(total);
    }
    return out;
  }

  /// A value of the leaf's (static) type to shape zeros after.
  Value zerosSource(const Leaf &leaf, const MarkerExpansion::Forward &fwd,
                    OpBuilder &b, Location loc) {
    auto params = fwd.params.lookup(leaf.paramName);
    if (!params.empty())
      return params.front();
    return ParamOp::create(b, loc, leaf.type, b.getStringAttr(leaf.paramName));
  }

  MarkerExpansion &expansion;
  SymbolTableCollection &symbols;
};

struct RLXReverseModePass
    : mlir::rlx::impl::RLXReverseModeBase<RLXReverseModePass> {
  void runOnOperation() override {
    MarkerExpansion expansion(getOperation());
    if (failed(checkNoRecursion(getOperation(), expansion.getSymbols())))
      return signalPassFailure();
    ReverseMode reverseMode(expansion);
    for (TransformMarkerOpInterface marker :
         expansion.readyMarkers<GradOp, ValueAndGradOp, VJPOp>())
      if (failed(reverseMode.expand(marker)))
        return signalPassFailure();
  }
};

} // namespace
