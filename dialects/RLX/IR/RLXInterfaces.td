//===- RLXInterfaces.td - rlx op interfaces -----------------*- tablegen -*-===//
//
// The differentiation rules of rlx ops. The autodiff pass never switches on
// an op's kind: it asks each op for its VJP or JVP.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXINTERFACES_TD
#define RLX_DIALECT_RLXINTERFACES_TD

include "mlir/IR/OpBase.td"

def RLX_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::rlx";
  let description = [{
    An op that knows its derivative rules, both built from rlx ops so that
    derivatives of derivatives work:

    - `buildVJP`: given one adjoint per result (null where a result has
      none), appends one adjoint per operand to `operandAdjoints` (null where
      an operand gets none: an integer operand, a condition).
    - `buildJVP`: given one tangent per operand (null = zero), appends one
      tangent per result (null = zero).

    Adjoints and tangents have the type of the value they belong to; rules
    reduce broadcast dims back to an operand's shape.
  }];
  let methods = [
    InterfaceMethod<"Builds the operand adjoints from the result adjoints.",
      "::mlir::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$resultAdjoints,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints)>,
    InterfaceMethod<"Builds the result tangents from the operand tangents.",
      "::mlir::LogicalResult", "buildJVP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$operandTangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$resultTangents)>
  ];
}

#endif // RLX_DIALECT_RLXINTERFACES_TD
