//===- ExpandVmap.cpp - Expanding vmap markers ----------------------------===//
///
/// \file
/// rlx-expand-vmap: each vmap marker whose callee reaches no marker becomes
/// one batched program at its position: the flattened callee is rebuilt op
/// by op with batching rules (BatchableOpInterface); batched values carry
/// the batch in front until the results are placed at their out_axes. Ops
/// with no batched operand are cloned as they are. Rules may add functions
/// holding markers (a batched custom_vjp maps its fwd and bwd): rlx-autodiff
/// expands them in a later round.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/Transforms/MarkerExpansion.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXEXPANDVMAP
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

class ExpandVmap {
public:
  explicit ExpandVmap(MarkerExpansion &expansion)
      : expansion(expansion), symbols(expansion.getSymbols()) {}

  LogicalResult expand(VmapOp vmap) {
    auto callee = vmap.resolveCallee(symbols);
    if (!callee)
      return vmap.emitOpError("cannot resolve its callee");
    FailureOr<func::FuncOp> flat = expansion.flatten(callee);
    if (failed(flat))
      return failure();
    OpBuilder b(vmap);
    ad::RuleBuilder rb{b, vmap.getLoc()};
    IRMapping mapping;
    llvm::DenseSet<Value> batched;
    Value anyBatched;
    Block &body = flat->getBody().front();
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      Value v = vmap.getArgs()[i];
      if (auto axisAttr = dyn_cast<IntegerAttr>(vmap.getInAxes()[i])) {
        int64_t rank = ad::tensorType(v).getRank();
        int64_t axis = axisAttr.getInt() < 0 ? axisAttr.getInt() + rank
                                             : axisAttr.getInt();
        if (axis != 0) {
          SmallVector<int64_t> perm = {axis};
          for (int64_t d = 0; d < rank; ++d)
            if (d != axis)
              perm.push_back(d);
          v = ad::transpose(rb, v, perm);
        }
        batched.insert(v);
        anyBatched = v;
      }
      mapping.map(arg, v);
    }
    for (Operation &op : body.without_terminator()) {
      SmallVector<Value> operands;
      SmallVector<bool> isBatched;
      for (Value operand : op.getOperands()) {
        operands.push_back(mapping.lookupOrDefault(operand));
        isBatched.push_back(batched.contains(operands.back()));
      }
      if (!llvm::is_contained(isBatched, true)) {
        b.clone(op, mapping);
        continue;
      }
      auto rule = dyn_cast<BatchableOpInterface>(&op);
      if (!rule)
        return op.emitOpError("has no batching rule: it cannot be vmapped");
      SmallVector<Value> results;
      if (failed(rule.buildBatched(b, operands, isBatched, results, symbols)))
        return failure();
      for (auto [old, now] : llvm::zip(op.getResults(), results)) {
        mapping.map(old, now);
        batched.insert(now);
      }
    }
    SmallVector<Value> replacements;
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      Value v = mapping.lookupOrDefault(value);
      if (!batched.contains(v))
        v = ad::broadcastToBatch(rb, v, anyBatched);
      int64_t rank = ad::tensorType(v).getRank();
      int64_t axis = vmap.getOutAxes()[i];
      if (axis < 0)
        axis += rank;
      if (axis != 0) {
        SmallVector<int64_t> perm;
        for (int64_t d = 1; d <= axis; ++d)
          perm.push_back(d);
        perm.push_back(0);
        for (int64_t d = axis + 1; d < rank; ++d)
          perm.push_back(d);
        v = ad::transpose(rb, v, perm);
      }
      replacements.push_back(ad::reshapeTo(
          rb, v, cast<RankedTensorType>(vmap.getResult(i).getType())));
    }
    vmap->replaceAllUsesWith(replacements);
    vmap.erase();
    return success();
  }

private:
  MarkerExpansion &expansion;
  SymbolTableCollection &symbols;
};

struct RLXExpandVmapPass : mlir::rlx::impl::RLXExpandVmapBase<RLXExpandVmapPass> {
  void runOnOperation() override {
    MarkerExpansion expansion(getOperation());
    if (failed(checkNoRecursion(getOperation(), expansion.getSymbols())))
      return signalPassFailure();
    ExpandVmap expandVmap(expansion);
    for (TransformMarkerOpInterface marker : expansion.readyMarkers<VmapOp>())
      if (failed(expandVmap.expand(cast<VmapOp>(*marker))))
        return signalPassFailure();
  }
};

} // namespace
