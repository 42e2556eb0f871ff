//===- RandomRules.cpp - Autodiff and vmap rules of the random ops --------===//
///
/// \file
/// DifferentiableOpInterface and BatchableOpInterface of rlx.random_bits,
/// random_uniform, random_normal, random_truncated_normal, random_split and
/// random_fold_in. A key is integer data: it gets no adjoint, and a sample is
/// a constant with respect to differentiation (no tangent), as in JAX.
/// Batching is where keys differ from other data: the leading dims of a key
/// are batch dims, so a batched key is just a key with one more leading dim,
/// one key per lane.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::ad;

namespace {

/// A sampler or split over a batched key: the same op with the batch dim in
/// front of its result.
LogicalResult batchOverKey(Operation *op, OpBuilder &builder,
                           ArrayRef<Value> operands,
                           SmallVectorImpl<Value> &results) {
  int64_t batch = tensorType(operands[0]).getDimSize(0);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> shape = {batch};
  llvm::append_range(shape, type.getShape());
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addTypes(type.clone(shape));
  state.addAttributes(op->getAttrs());
  Operation *batched = builder.create(state);
  if (failed(mlir::verify(batched)))
    return failure();
  llvm::append_range(results, batched->getResults());
  return success();
}

} // namespace

#define RLX_RANDOM_RULES(OpTy)                                                 \
  LogicalResult OpTy::buildVJP(OpBuilder &, ArrayRef<Value>,                   \
                               SmallVectorImpl<Value> &out,                    \
                               SymbolTableCollection &) {                      \
    out.append(getOperation()->getNumOperands(), Value());                     \
    return success();                                                          \
  }                                                                            \
  LogicalResult OpTy::buildJVP(OpBuilder &, ArrayRef<Value>,                   \
                               SmallVectorImpl<Value> &out,                    \
                               SymbolTableCollection &) {                      \
    out.push_back(Value());                                                    \
    return success();                                                          \
  }
RLX_RANDOM_RULES(RandomBitsOp)
RLX_RANDOM_RULES(RandomUniformOp)
RLX_RANDOM_RULES(RandomNormalOp)
RLX_RANDOM_RULES(RandomTruncatedNormalOp)
RLX_RANDOM_RULES(RandomSplitOp)
RLX_RANDOM_RULES(RandomFoldInOp)
#undef RLX_RANDOM_RULES

#define RLX_KEY_BATCH(OpTy)                                                    \
  LogicalResult OpTy::buildBatched(OpBuilder &builder,                         \
                                   ArrayRef<Value> operands, ArrayRef<bool>,   \
                                   SmallVectorImpl<Value> &results,            \
                                   SymbolTableCollection &) {                  \
    return batchOverKey(*this, builder, operands, results);                    \
  }
RLX_KEY_BATCH(RandomBitsOp)
RLX_KEY_BATCH(RandomUniformOp)
RLX_KEY_BATCH(RandomNormalOp)
RLX_KEY_BATCH(RandomTruncatedNormalOp)
RLX_KEY_BATCH(RandomSplitOp)
#undef RLX_KEY_BATCH

/// The key's batch dims and the data broadcast: the batched operand gets
/// unit dims after its batch dim so that it lines up with the other.
LogicalResult RandomFoldInOp::buildBatched(OpBuilder &builder,
                                           ArrayRef<Value> operands,
                                           ArrayRef<bool> batched,
                                           SmallVectorImpl<Value> &results,
                                           SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  int64_t rank = getType().getRank(); // the unbatched result: [batch..., 2]
  Value key = batched[0] ? alignBatched(b, operands[0], rank) : operands[0];
  Value data =
      batched[1] ? alignBatched(b, operands[1], rank - 1) : operands[1];
  results.push_back(RandomFoldInOp::create(builder, getLoc(), key, data));
  return success();
}
