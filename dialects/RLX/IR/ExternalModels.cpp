//===- ExternalModels.cpp - rlx interfaces on upstream ops ----------------===//

#include "dialects/RLX/IR/ExternalModels.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// tensor.cast changes only static-ness: its derivatives cast back.
struct TensorCastModel
    : mlir::rlx::DifferentiableOpInterface::ExternalModel<TensorCastModel,
                                                    tensor::CastOp> {
  LogicalResult buildVJP(Operation *op, OpBuilder &b, ArrayRef<Value> adj,
                         SmallVectorImpl<Value> &out,
                         SymbolTableCollection &) const {
    auto cast = cast_or_null<tensor::CastOp>(op);
    out.push_back(tensor::CastOp::create(b, op->getLoc(),
                                         cast.getSource().getType(), adj[0]));
    return success();
  }
  LogicalResult buildJVP(Operation *op, OpBuilder &b, ArrayRef<Value> tan,
                         SmallVectorImpl<Value> &out,
                         SymbolTableCollection &) const {
    if (!tan[0]) {
      out.push_back(Value());
      return success();
    }
    out.push_back(tensor::CastOp::create(b, op->getLoc(),
                                         op->getResult(0).getType(), tan[0]));
    return success();
  }
};

/// tensor.cast batches to the same cast with the batch dim in front.
struct TensorCastBatchModel
    : mlir::rlx::BatchableOpInterface::ExternalModel<TensorCastBatchModel,
                                               tensor::CastOp> {
  LogicalResult buildBatched(Operation *op, OpBuilder &b,
                             ArrayRef<Value> operands, ArrayRef<bool>,
                             SmallVectorImpl<Value> &results,
                             SymbolTableCollection &) const {
    auto from = cast<RankedTensorType>(operands[0].getType());
    auto to = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> shape = {from.getDimSize(0)};
    llvm::append_range(shape, to.getShape());
    results.push_back(
        tensor::CastOp::create(b, op->getLoc(), to.clone(shape), operands[0]));
    return success();
  }
};

} // namespace

void mlir::rlx::registerExternalDifferentiationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::CastOp::attachInterface<TensorCastModel, TensorCastBatchModel>(
        *ctx);
  });
}
