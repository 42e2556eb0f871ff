//===- LinearizeCollapses.cpp - Products' inputs as linear views ----------===//
///
/// \file
/// See LinearizeCollapses.h.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/LinearizeCollapses.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// The product of `factors`, folded to a constant where they all are.
OpFoldResult product(OpBuilder &b, Location loc,
                     ArrayRef<OpFoldResult> factors) {
  AffineExpr expr = b.getAffineConstantExpr(1);
  for (size_t i = 0; i < factors.size(); ++i)
    expr = expr * b.getAffineSymbolExpr(i);
  return affine::makeComposedFoldedAffineApply(
      b, loc, AffineMap::get(0, factors.size(), expr), factors);
}

} // namespace

void mlir::rlx::linearizeCollapsedInputs(
    ModuleOp module, llvm::function_ref<bool(Operation *)> isProduct) {
  llvm::SetVector<memref::CollapseShapeOp> inputViews;
  llvm::DenseSet<Operation *> outputViews;
  module.walk([&](linalg::LinalgOp op) {
    if (!isProduct(op) || !op.hasPureBufferSemantics())
      return;
    for (OpOperand &operand : op->getOpOperands()) {
      bool init = op.isDpsInit(&operand);
      for (Value v = operand.get();
           auto view = v.getDefiningOp<ViewLikeOpInterface>();
           v = view.getViewSource()) {
        auto collapse = dyn_cast<memref::CollapseShapeOp>(*view);
        if (collapse && init)
          outputViews.insert(collapse);
        else if (collapse)
          inputViews.insert(collapse);
      }
    }
  });
  for (memref::CollapseShapeOp collapse : inputViews) {
    if (outputViews.contains(collapse) ||
        !collapse.getSrcType().getLayout().isIdentity())
      continue;
    OpBuilder b(collapse);
    Location loc = collapse.getLoc();
    SmallVector<OpFoldResult> sourceSizes =
        memref::getMixedSizes(b, loc, collapse.getSrc());
    SmallVector<OpFoldResult> sizes;
    for (const ReassociationIndices &group :
         collapse.getReassociationIndices()) {
      SmallVector<OpFoldResult> factors;
      for (int64_t d : group)
        factors.push_back(sourceSizes[d]);
      sizes.push_back(product(b, loc, factors));
    }
    SmallVector<OpFoldResult> strides;
    for (size_t d = 0; d < sizes.size(); ++d)
      strides.push_back(product(b, loc, ArrayRef(sizes).drop_front(d + 1)));
    auto linear = memref::ReinterpretCastOp::create(
        b, loc, collapse.getResultType(), collapse.getSrc(), b.getIndexAttr(0),
        sizes, strides);
    collapse.getResult().replaceAllUsesWith(linear.getResult());
    collapse.erase();
  }
}
