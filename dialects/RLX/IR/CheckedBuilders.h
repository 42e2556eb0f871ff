//===- CheckedBuilders.h - Building rlx ops from outside inputs -*- C++ -*-===//
///
/// \file
/// `createChecked<OpTy>(b, loc, args...)`: the inferring builder
/// `OpTy::create(b, loc, args...)` for operands that come from outside the
/// compiler (an imported model, a traced program). The generated builder
/// aborts when the op's shape rule rejects its operands; this one reports the
/// rule's error at `loc` and builds nothing.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_CHECKEDBUILDERS_H
#define RLX_DIALECTS_RLX_IR_CHECKEDBUILDERS_H

#include "mlir/IR/Builders.h"

namespace mlir::rlx {

/// Builds an `OpTy` (an op with InferTypeOpInterface) from the arguments of
/// its builders, without the result types, or reports why its shape rule
/// rejects them at `loc` and returns failure.
template <typename OpTy, typename... Args>
mlir::FailureOr<OpTy> createChecked(mlir::OpBuilder &b, mlir::Location loc,
                                    Args &&...args) {
  mlir::MLIRContext *context = b.getContext();
  mlir::OperationState state(loc, OpTy::getOperationName());
  OpTy::build(b, state, mlir::TypeRange(), std::forward<Args>(args)...);
  llvm::SmallVector<mlir::Type, 1> types;
  if (mlir::failed(OpTy::inferReturnTypes(
          context, loc, state.operands, state.attributes.getDictionary(context),
          state.getRawProperties(), state.regions, types)))
    return mlir::failure();
  state.addTypes(types);
  return mlir::cast<OpTy>(b.create(state));
}

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_IR_CHECKEDBUILDERS_H
