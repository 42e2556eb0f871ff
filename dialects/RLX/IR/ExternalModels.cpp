//===- ExternalModels.cpp - rlx interfaces on upstream ops ----------------===//

#include "dialects/RLX/IR/ExternalModels.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// tensor.cast changes only static-ness: its derivatives cast back.
struct TensorCastModel
    : rlx::DifferentiableOpInterface::ExternalModel<TensorCastModel,
                                                    tensor::CastOp> {
  LogicalResult buildVJP(Operation *op, OpBuilder &b, ArrayRef<Value> adj,
                         SmallVectorImpl<Value> &out) const {
    auto cast = cast_or_null<tensor::CastOp>(op);
    out.push_back(tensor::CastOp::create(b, op->getLoc(),
                                         cast.getSource().getType(), adj[0]));
    return success();
  }
  LogicalResult buildJVP(Operation *op, OpBuilder &b, ArrayRef<Value> tan,
                         SmallVectorImpl<Value> &out) const {
    if (!tan[0]) {
      out.push_back(Value());
      return success();
    }
    out.push_back(tensor::CastOp::create(b, op->getLoc(),
                                         op->getResult(0).getType(), tan[0]));
    return success();
  }
};

} // namespace

void rlx::registerExternalDifferentiationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::CastOp::attachInterface<TensorCastModel>(*ctx);
  });
}
