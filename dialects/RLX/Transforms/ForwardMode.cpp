//===- ForwardMode.cpp - Expanding jvp markers ----------------------------===//
///
/// \file
/// rlx-forward-mode: each jvp marker whose callee reaches no marker becomes
/// plain rlx ops at its position: the flattened callee is cloned, and each
/// clone with a tangent on an operand is asked for its JVP
/// (DifferentiableOpInterface) as it is made, in one sweep.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/Transforms/MarkerExpansion.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXFORWARDMODE
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

class ForwardMode {
public:
  explicit ForwardMode(MarkerExpansion &expansion)
      : expansion(expansion), symbols(expansion.getSymbols()) {}

  LogicalResult expand(JVPOp jvp) {
    func::FuncOp callee = jvp.resolveCallee(symbols);
    if (!callee)
      return jvp.emitOpError("cannot resolve its callee");
    FailureOr<SmallVector<Leaf>> leaves = jvp.getLeaves(callee, symbols);
    if (failed(leaves))
      return failure();
    FailureOr<func::FuncOp> flat = expansion.flatten(callee);
    if (failed(flat))
      return failure();
    OpBuilder b(jvp);
    Location loc = jvp.getLoc();
    llvm::DenseMap<Value, Value> tangents;
    llvm::StringMap<Value> paramTangents;
    // Input leaves: a fresh identity each, seeded before any op is cloned,
    // so the same value passed twice keeps two tangents.
    SmallVector<Value> args(jvp.getArgs().begin(), jvp.getArgs().end());
    for (auto [leaf, t] : llvm::zip(*leaves, jvp.getTangents())) {
      if (leaf.isParam) {
        paramTangents[leaf.paramName] = t;
        continue;
      }
      Value identity = tensor::CastOp::create(
          b, loc, args[leaf.input].getType(), args[leaf.input]);
      args[leaf.input] = identity;
      tangents[identity] = t;
    }
    auto onClone = [&](Operation *clone) -> LogicalResult {
      if (auto param = dyn_cast<ParamOp>(clone)) {
        if (Value t = paramTangents.lookup(param.getName()))
          tangents[param.getResult()] = t;
        return success();
      }
      SmallVector<Value> operandTangents;
      bool any = false;
      for (Value operand : clone->getOperands()) {
        operandTangents.push_back(tangents.lookup(operand));
        any |= static_cast<bool>(operandTangents.back());
      }
      if (!any)
        return success();
      auto rule = dyn_cast<DifferentiableOpInterface>(clone);
      if (!rule)
        return clone->emitOpError(
            "has no JVP rule: it cannot be differentiated");
      SmallVector<Value> resultTangents;
      if (failed(rule.buildJVP(b, operandTangents, resultTangents, symbols)))
        return failure();
      for (auto [r, t] : llvm::zip(clone->getResults(), resultTangents))
        if (t)
          tangents[r] = t;
      return success();
    };
    FailureOr<MarkerExpansion::Forward> fwd =
        expansion.cloneForward(*flat, args, /*leaves=*/{}, b, onClone);
    if (failed(fwd))
      return failure();
    SmallVector<Value> replacements(fwd->results);
    ad::RuleBuilder rb{b, loc};
    for (Value r : fwd->results) {
      Value t = tangents.lookup(r);
      replacements.push_back(t ? t : ad::zerosLike(rb, r));
    }
    jvp->replaceAllUsesWith(replacements);
    jvp.erase();
    return success();
  }

private:
  MarkerExpansion &expansion;
  SymbolTableCollection &symbols;
};

struct RLXForwardModePass
    : mlir::rlx::impl::RLXForwardModeBase<RLXForwardModePass> {
  void runOnOperation() override {
    MarkerExpansion expansion(getOperation());
    if (failed(checkNoRecursion(getOperation(), expansion.getSymbols())))
      return signalPassFailure();
    ForwardMode forwardMode(expansion);
    for (TransformMarkerOpInterface marker : expansion.readyMarkers<JVPOp>())
      if (failed(forwardMode.expand(cast<JVPOp>(*marker))))
        return signalPassFailure();
  }
};

} // namespace
