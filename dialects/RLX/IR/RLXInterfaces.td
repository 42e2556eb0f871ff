//===- RLXInterfaces.td - rlx op interfaces -----------------*- tablegen -*-===//
//
// The differentiation rules of rlx ops and the common view of transform
// markers. The autodiff passes never switch on an op's kind: they ask each op
// for its VJP, JVP or batching rule, and each marker for its callee and
// leaves.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXINTERFACES_TD
#define RLX_DIALECT_RLXINTERFACES_TD

include "mlir/IR/OpBase.td"

def RLX_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::rlx";
  let description = [{
    An op that knows its derivative rules, both built from rlx ops so that
    derivatives of derivatives work:

    - `buildVJP`: given one adjoint per result (null where a result has
      none), appends one adjoint per operand to `operandAdjoints` (null where
      an operand gets none: an integer operand, a condition).
    - `buildJVP`: given one tangent per operand (null = zero), appends one
      tangent per result (null = zero).

    Adjoints and tangents have the type of the value they belong to; rules
    reduce broadcast dims back to an operand's shape. A rule that looks up
    functions (a custom rule's fwd, bwd or jvp) does so in `symbols`, the
    caller's symbol tables.
  }];
  let methods = [
    InterfaceMethod<"Builds the operand adjoints from the result adjoints.",
      "::mlir::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$resultAdjoints,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints,
           "::mlir::SymbolTableCollection &":$symbols)>,
    InterfaceMethod<"Builds the result tangents from the operand tangents.",
      "::mlir::LogicalResult", "buildJVP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$operandTangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$resultTangents,
           "::mlir::SymbolTableCollection &":$symbols)>
  ];
}

def RLX_BatchableOpInterface : OpInterface<"BatchableOpInterface"> {
  let cppNamespace = "::mlir::rlx";
  let description = [{
    An op that knows its batching rule for vmap. Batched values carry the
    batch dim in front (dim 0); `batched[i]` says whether operand i does.
    `buildBatched` appends the op's results computed for every example at
    once, each batched (batch dim in front). Called only when at least one
    operand is batched. A rule that looks up or adds functions (a batched
    custom rule maps its callee, fwd and bwd) does so through `symbols`, the
    caller's symbol tables, so that the caller sees every function it adds.
  }];
  let methods = [
    InterfaceMethod<"Builds the batched results from (partly) batched operands.",
      "::mlir::LogicalResult", "buildBatched",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$operands,
           "::mlir::ArrayRef<bool>":$batched,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results,
           "::mlir::SymbolTableCollection &":$symbols)>
  ];
}

def RLX_TransformMarkerOpInterface : OpInterface<"TransformMarkerOpInterface"> {
  let cppNamespace = "::mlir::rlx";
  let description = [{
    A marker: an op that stands for a transform (a derivative, a batching)
    of the function it names, applied to `args`. The marker passes expand a
    marker once its callee reaches no marker, so markers compose in any
    nesting; what is common to all of them (callee, arguments, leaves) is
    asked through this interface.
  }];
  let methods = [
    InterfaceMethod<"The function the marker transforms.",
      "::mlir::FlatSymbolRefAttr", "getCalleeAttr">,
    InterfaceMethod<"The arguments the callee is applied to.",
      "::mlir::Operation::operand_range", "getArgs">,
    InterfaceMethod<"The callee, resolved in `symbols` (null if none).",
      "::mlir::func::FuncOp", "resolveCallee",
      (ins "::mlir::SymbolTableCollection &":$symbols), [{}], [{
        return symbols.lookupNearestSymbolFrom<::mlir::func::FuncOp>(
            $_op, $_op.getCalleeAttr());
      }]>,
    InterfaceMethod<[{
        What the marker differentiates with respect to, inputs first, then
        params (none for vmap). Emits an error at the marker and fails on a
        bad leaf.
      }],
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::rlx::Leaf>>", "getLeaves",
      (ins "::mlir::func::FuncOp":$callee,
           "::mlir::SymbolTableCollection &":$symbols)>
  ];
}

#endif // RLX_DIALECT_RLXINTERFACES_TD
