//===- LowerDynamicExpandShapes.cpp - Work around an upstream crash -------===//
///
/// \file
/// MLIR 22's expand-strided-metadata crashes (a null attribute in
/// dispatchIndexOpFoldResult) on a memref.expand_shape whose reassociation
/// group has more than one dynamic result dim, e.g. ?x2 into ?x?x2, which
/// vmap produces when both the batch and the per-example size are dynamic.
/// Over a contiguous source such a reshape is only new sizes and row-major
/// strides: this pass states them with a memref.reinterpret_cast, which
/// lowers fine. Other expand_shapes are left to the upstream lowering.
///
//===----------------------------------------------------------------------===//

#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXLOWERDYNAMICEXPANDSHAPES
#include "codegen/Common/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

bool hasGroupWithSeveralDynamicDims(memref::ExpandShapeOp op) {
  MemRefType result = op.getResultType();
  for (const ReassociationIndices &group : op.getReassociationIndices()) {
    int dynamic = 0;
    for (int64_t dim : group)
      dynamic += result.isDynamicDim(dim);
    if (dynamic > 1)
      return true;
  }
  return false;
}

struct RLXLowerDynamicExpandShapesPass
    : mlir::rlx::impl::RLXLowerDynamicExpandShapesBase<
          RLXLowerDynamicExpandShapesPass> {
  void runOnOperation() override {
    SmallVector<memref::ExpandShapeOp> candidates;
    getOperation().walk([&](memref::ExpandShapeOp op) {
      if (op.getSrcType().getLayout().isIdentity() &&
          op.getResultType().getLayout().isIdentity() &&
          hasGroupWithSeveralDynamicDims(op))
        candidates.push_back(op);
    });
    for (memref::ExpandShapeOp op : candidates) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
      // Row-major strides of the result: suffix products of the sizes.
      SmallVector<OpFoldResult> strides(sizes.size());
      OpFoldResult stride = b.getIndexAttr(1);
      for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
        strides[d] = stride;
        if (d == 0)
          break;
        auto known = [](OpFoldResult v) { return getConstantIntValue(v); };
        if (known(stride) && known(sizes[d])) {
          stride = b.getIndexAttr(*known(stride) * *known(sizes[d]));
        } else {
          Value lhs = getValueOrCreateConstantIndexOp(b, loc, stride);
          Value rhs = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
          stride = arith::MulIOp::create(b, loc, lhs, rhs).getResult();
        }
      }
      Value cast = memref::ReinterpretCastOp::create(
          b, loc, op.getResultType(), op.getSrc(), b.getIndexAttr(0), sizes,
          strides);
      op.getResult().replaceAllUsesWith(cast);
      op.erase();
    }
  }
};

} // namespace
