//===- VectorizeMatmul.cpp - Register-tiled, vectorized matmul ------------===//
///
/// \file
/// The schedule that shared/TOOLCHAIN.md measured at ~115 GFLOP/s on 512^3
/// f32 (one core): tile m x n x 1, vectorize, outer products, fold memref
/// aliases (the hoisting refuses subview users), hoist the C tile out of the
/// k loop. It is written as a transform-dialect script so every step is an
/// upstream, tested transformation.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

namespace rlx {
#define GEN_PASS_DEF_RLXCPUVECTORIZEMATMUL
#include "codegen/CPU/Passes.h.inc"
} // namespace rlx

using namespace mlir;
using namespace rlx;

namespace {

constexpr const char *kScheduleTemplate = R"mlir(
module attributes {{transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}) {
    %mm = transform.structured.match ops{{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %l0, %l1, %l2 = transform.structured.tile_using_for %mm
        tile_sizes [{0}, {1}, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %tiled vector_sizes [{0}, {1}, 1] {{create_named_contraction} : !transform.any_op
    %bmm = transform.structured.match ops{{["linalg.batch_matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %btiled, %b0, %b1, %b2, %b3 = transform.structured.tile_using_for %bmm
        tile_sizes [1, {0}, {1}, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %btiled vector_sizes [1, {0}, {1}, 1] {{create_named_contraction} : !transform.any_op
    %funcs = transform.structured.match ops{{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_masks
    } : !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.memref.fold_memref_alias_ops
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %hoisted = transform.structured.hoist_redundant_vector_transfers %funcs
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
)mlir";

/// Copies matmul inputs that are memref.expand_shape views into their own
/// buffers. Folding memref aliases (which the schedule needs to hoist the C
/// tile) does not terminate on transfers through an expand_shape in MLIR
/// 22; an O(n^2) copy in front of an O(n^3) matmul is the cheap way out.
void copyExpandedInputs(ModuleOp module) {
  SmallVector<linalg::LinalgOp> matmuls;
  module.walk([&](Operation *op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
      matmuls.push_back(cast<linalg::LinalgOp>(op));
  });
  for (linalg::LinalgOp matmul : matmuls) {
    for (OpOperand *input : matmul.getDpsInputOperands()) {
      Value view = input->get();
      if (!view.getDefiningOp<memref::ExpandShapeOp>())
        continue;
      auto type = cast<MemRefType>(view.getType());
      OpBuilder b(matmul);
      Location loc = matmul.getLoc();
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          sizes.push_back(memref::DimOp::create(b, loc, view, d));
      auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
      Value buffer = memref::AllocOp::create(b, loc, bufferType, sizes);
      memref::CopyOp::create(b, loc, view, buffer);
      input->set(buffer);
      b.setInsertionPointAfter(matmul);
      memref::DeallocOp::create(b, loc, buffer);
    }
  }
}

struct RLXCPUVectorizeMatmulPass
    : rlx::impl::RLXCPUVectorizeMatmulBase<RLXCPUVectorizeMatmulPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool hasMatmul = false;
    module.walk([&](Operation *op) {
      hasMatmul |= isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
    });
    if (!hasMatmul)
      return;
    copyExpandedInputs(module);
    std::string script =
        llvm::formatv(kScheduleTemplate, tileM.getValue(), tileN.getValue())
            .str();
    OwningOpRef<ModuleOp> schedule =
        parseSourceString<ModuleOp>(script, &getContext());
    if (!schedule) {
      module.emitError("failed to parse the matmul schedule");
      return signalPassFailure();
    }
    auto entry = schedule->lookupSymbol<transform::NamedSequenceOp>(
        "__transform_main");
    if (failed(transform::applyTransformNamedSequence(
            module, entry, *schedule, transform::TransformOptions())))
      signalPassFailure();
  }
};

} // namespace
