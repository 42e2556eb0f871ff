//===- RLXMarkers.cpp - Verifiers of the transform markers ----------------===//
///
/// \file
/// Markers are checked against their callee (SymbolUserOpInterface): the
/// arguments, the leaves, the cotangents or tangents, and the result types,
/// so the autodiff pass can expand any marker that verifies.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/MarkerUtils.h"
#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace rlx;

namespace {

/// Resolves the callee and checks the arguments against its signature.
FailureOr<func::FuncOp> checkCallee(Operation *op, FlatSymbolRefAttr name,
                                    ValueRange args,
                                    SymbolTableCollection &symbols) {
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(op, name);
  if (!callee || callee.isExternal())
    return op->emitOpError("expects '")
           << name.getValue() << "' to name a function with a body";
  if (callee.getNumArguments() != args.size())
    return op->emitOpError("expects ")
           << callee.getNumArguments() << " arguments for @"
           << name.getValue() << ", got " << args.size();
  for (auto [i, arg, type] :
       llvm::enumerate(args, callee.getArgumentTypes()))
    if (arg.getType() != type)
      return op->emitOpError("expects argument ")
             << i << " of type " << type << ", got " << arg.getType();
  return callee;
}

/// Checks that the differentiated result has exactly one float element.
LogicalResult checkScalarResult(Operation *op, func::FuncOp callee,
                                bool allowAux) {
  if (callee.getNumResults() == 0 ||
      (!allowAux && callee.getNumResults() != 1))
    return op->emitOpError("expects @")
           << callee.getSymName()
           << " to return one value (use has_aux for more, or rlx.vjp)";
  auto type = dyn_cast<RankedTensorType>(callee.getResultTypes()[0]);
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
    return op->emitOpError("expects @")
           << callee.getSymName()
           << " to return a one-element tensor, got "
           << callee.getResultTypes()[0]
           << ": differentiate a non-scalar function with rlx.vjp";
  if (!isa<FloatType>(type.getElementType()))
    return op->emitOpError("expects a floating-point result to differentiate");
  return success();
}

/// Checks that `values` have the types in `expected`, naming `what`.
LogicalResult checkTypes(Operation *op, StringRef what, TypeRange values,
                         ArrayRef<Type> expected) {
  if (values.size() != expected.size())
    return op->emitOpError("expects ")
           << expected.size() << " " << what << ", got " << values.size();
  for (auto [i, got, want] : llvm::enumerate(values, expected))
    if (got != want)
      return op->emitOpError("expects ")
             << what << " " << i << " of type " << want << ", got " << got;
  return success();
}

SmallVector<Type> leafTypes(ArrayRef<Leaf> leaves) {
  SmallVector<Type> types;
  for (const Leaf &leaf : leaves)
    types.push_back(leaf.type);
  return types;
}

} // namespace

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<func::FuncOp> callee =
      checkCallee(*this, getCalleeAttr(), getArgs(), symbols);
  if (failed(callee) || failed(checkScalarResult(*this, *callee, false)))
    return failure();
  auto leaves = resolveLeaves(*this, *callee, getWrt(),
                              getWrtParamsAttr(), symbols);
  if (failed(leaves))
    return failure();
  return checkTypes(*this, "results", getResultTypes(), leafTypes(*leaves));
}

LogicalResult ValueAndGradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<func::FuncOp> callee =
      checkCallee(*this, getCalleeAttr(), getArgs(), symbols);
  if (failed(callee) ||
      failed(checkScalarResult(*this, *callee, getHasAux())))
    return failure();
  auto leaves = resolveLeaves(*this, *callee, getWrt(),
                              getWrtParamsAttr(), symbols);
  if (failed(leaves))
    return failure();
  SmallVector<Type> expected(callee->getResultTypes());
  llvm::append_range(expected, leafTypes(*leaves));
  return checkTypes(*this, "results", getResultTypes(), expected);
}

LogicalResult VJPOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<func::FuncOp> callee =
      checkCallee(*this, getCalleeAttr(), getArgs(), symbols);
  if (failed(callee))
    return failure();
  if (failed(checkTypes(*this, "cotangents", getCotangents().getTypes(),
                        llvm::to_vector(callee->getResultTypes()))))
    return failure();
  auto leaves = resolveLeaves(*this, *callee, getWrt(),
                              getWrtParamsAttr(), symbols);
  if (failed(leaves))
    return failure();
  SmallVector<Type> expected(callee->getResultTypes());
  llvm::append_range(expected, leafTypes(*leaves));
  return checkTypes(*this, "results", getResultTypes(), expected);
}

LogicalResult JVPOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<func::FuncOp> callee =
      checkCallee(*this, getCalleeAttr(), getArgs(), symbols);
  if (failed(callee))
    return failure();
  auto leaves = resolveLeaves(*this, *callee, getWrt(),
                              getWrtParamsAttr(), symbols);
  if (failed(leaves) ||
      failed(checkTypes(*this, "tangents", getTangents().getTypes(),
                        leafTypes(*leaves))))
    return failure();
  SmallVector<Type> expected(callee->getResultTypes());
  llvm::append_range(expected, callee->getResultTypes());
  return checkTypes(*this, "results", getResultTypes(), expected);
}

LogicalResult HVPOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<func::FuncOp> callee =
      checkCallee(*this, getCalleeAttr(), getArgs(), symbols);
  if (failed(callee) || failed(checkScalarResult(*this, *callee, false)))
    return failure();
  auto leaves = resolveLeaves(*this, *callee, getWrt(),
                              getWrtParamsAttr(), symbols);
  if (failed(leaves) ||
      failed(checkTypes(*this, "tangents", getTangents().getTypes(),
                        leafTypes(*leaves))))
    return failure();
  return checkTypes(*this, "results", getResultTypes(), leafTypes(*leaves));
}
