//===- MoveHalfFloatsAsI16.cpp - 16-bit float data movement as i16 ------===//
///
/// \file
/// Data movement of bf16 and f16 values (a load or store, plain or masked,
/// a gather or scatter, an element inserted or extracted, a shuffle, a
/// select) runs on i16 values, bitcast at its ends. x86 without native 16-bit floats promotes a bf16 vector to f32 to
/// move its elements, and truncates it back with a call of `__truncsfbf2`
/// per element: a strided read built lane by lane (a transposing
/// `vector.transfer_read`, 32 `insertelement`s) made a mixed-precision
/// MLP step spend 38% of its artifact's time in those calls on Zen 3. The
/// bit patterns move unchanged, so every NaN keeps its payload. LLVM folds
/// the bitcasts between the rewritten ops (a loaded scalar becomes an i16
/// load, a loop-carried vector an i16 phi). Loads and stores too, since
/// LLVM's x86 backend cannot promote the operands of some bf16 accesses: a
/// masked one (a partial vector of a bf16 conv's im2col copy) and the
/// 9-element vectors its SLP vectorizer made of a 3-channel conv's window
/// rows did not compile at all.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUMOVEHALFFLOATSASI16
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The i16 type shaped like `type` when that is a 16-bit float or a vector
/// of them; null otherwise.
Type asI16(Type type) {
  auto i16 = IntegerType::get(type.getContext(), 16);
  if (isa<BFloat16Type, Float16Type>(type))
    return i16;
  if (auto vector = dyn_cast<VectorType>(type))
    if (isa<BFloat16Type, Float16Type>(vector.getElementType()))
      return vector.clone(i16);
  return {};
}

/// A load, store, insertelement, extractelement, shufflevector, select
/// or masked memory access with a bf16 or f16 operand or result, rebuilt on the i16 values of the same bits:
/// each such operand bitcast to i16, each such result bitcast back. The
/// op's attributes (a shuffle's mask) carry over unchanged.
struct MoveLanesAsI16 : RewritePattern {
  explicit MoveLanesAsI16(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::InsertElementOp, LLVM::ExtractElementOp,
             LLVM::ShuffleVectorOp, LLVM::SelectOp, LLVM::MaskedLoadOp,
             LLVM::MaskedStoreOp, LLVM::masked_gather, LLVM::masked_scatter,
             LLVM::masked_expandload, LLVM::masked_compressstore>(op))
      return failure();
    auto halfFloat = [](Type type) { return !!asI16(type); };
    if (llvm::none_of(op->getOperandTypes(), halfFloat) &&
        llvm::none_of(op->getResultTypes(), halfFloat))
      return failure();
    Location loc = op->getLoc();
    IRMapping mapping;
    for (Value operand : op->getOperands())
      if (Type i16 = asI16(operand.getType()))
        mapping.map(operand,
                    LLVM::BitcastOp::create(rewriter, loc, i16, operand));
    Operation *moved = rewriter.clone(*op, mapping);
    SmallVector<Value> results;
    for (OpResult result : moved->getResults()) {
      Type type = result.getType();
      if (Type i16 = asI16(type)) {
        result.setType(i16);
        results.push_back(LLVM::BitcastOp::create(rewriter, loc, type, result));
        continue;
      }
      results.push_back(result);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct RLXCPUMoveHalfFloatsAsI16
    : rlx::impl::RLXCPUMoveHalfFloatsAsI16Base<RLXCPUMoveHalfFloatsAsI16> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MoveLanesAsI16>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
