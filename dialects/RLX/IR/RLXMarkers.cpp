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
using namespace mlir::rlx;

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

LogicalResult VmapOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(*this,
                                                              getCalleeAttr());
  if (!callee || callee.isExternal())
    return emitOpError("expects '")
           << getCallee() << "' to name a function with a body";
  if (callee.getNumArguments() != getArgs().size())
    return emitOpError("expects ")
           << callee.getNumArguments() << " arguments for @" << getCallee()
           << ", got " << getArgs().size();
  if (getInAxes().size() != getArgs().size())
    return emitOpError("expects one in_axes entry per argument (")
           << getArgs().size() << "), got " << getInAxes().size();
  int64_t batch = 0; // 0: none seen yet
  bool mapped = false;
  for (auto [i, entry, arg] : llvm::enumerate(getInAxes(), getArgs())) {
    if (isa<UnitAttr>(entry)) {
      if (arg.getType() != callee.getArgumentTypes()[i])
        return emitOpError("expects unmapped input ")
               << i << " of type " << callee.getArgumentTypes()[i] << ", got "
               << arg.getType();
      continue;
    }
    auto axisAttr = dyn_cast<IntegerAttr>(entry);
    if (!axisAttr)
      return emitOpError("expects in_axes entries to be an axis or unit, "
                         "input ")
             << i << " has " << entry;
    auto type = cast<RankedTensorType>(arg.getType());
    int64_t axis = axisAttr.getInt();
    if (axis < -type.getRank() || axis >= type.getRank())
      return emitOpError("expects the in_axes of input ")
             << i << " in [" << -type.getRank() << ", " << type.getRank()
             << "), got " << axis;
    if (axis < 0)
      axis += type.getRank();
    mapped = true;
    SmallVector<int64_t> perExample(type.getShape());
    perExample.erase(perExample.begin() + axis);
    if (type.clone(perExample) != callee.getArgumentTypes()[i])
      return emitOpError("expects input ")
             << i << " without its mapped axis " << axis << " to have type "
             << callee.getArgumentTypes()[i] << ", got " << type;
    int64_t size = type.getDimSize(axis);
    if (!ShapedType::isDynamic(size)) {
      if (batch > 0 && size != batch)
        return emitOpError("expects mapped sizes to agree, input ")
               << i << " maps " << size << " but an earlier input maps "
               << batch;
      batch = size;
    }
  }
  if (!mapped)
    return emitOpError("expects at least one mapped input");
  if (getOutAxes().size() != callee.getNumResults())
    return emitOpError("expects one out_axes entry per result (")
           << callee.getNumResults() << "), got " << getOutAxes().size();
  if (getNumResults() != callee.getNumResults())
    return emitOpError("expects ")
           << callee.getNumResults() << " results, got " << getNumResults();
  for (auto [i, type, axis] :
       llvm::enumerate(callee.getResultTypes(), getOutAxes())) {
    auto t = cast<RankedTensorType>(type);
    int64_t rank = t.getRank() + 1;
    if (axis < -rank || axis >= rank)
      return emitOpError("expects the out_axes of result ")
             << i << " in [" << -rank << ", " << rank << "), got " << axis;
    int64_t at = axis < 0 ? axis + rank : axis;
    auto got = cast<RankedTensorType>(getResult(i).getType());
    SmallVector<int64_t> shape(t.getShape());
    shape.insert(shape.begin() + at, batch > 0 ? batch : ShapedType::kDynamic);
    bool ok = got.getElementType() == t.getElementType() &&
              got.getRank() == rank;
    for (int64_t d = 0; ok && d < rank; ++d)
      ok = got.getDimSize(d) == shape[d] ||
           (d == at && ShapedType::isDynamic(got.getDimSize(d)));
    if (!ok)
      return emitOpError("expects result ")
             << i << " of type " << t.clone(shape) << ", got " << got;
  }
  return success();
}

/// Checks a Jacobian marker: one static float result, a static float input
/// at `wrt`, and the result type `prefix ++ shape(input)`.
static LogicalResult verifyJacobian(Operation *op, FlatSymbolRefAttr name,
                                    ValueRange args, int64_t wrt,
                                    Type resultType, bool hessian,
                                    SymbolTableCollection &symbols) {
  FailureOr<func::FuncOp> callee = checkCallee(op, name, args, symbols);
  if (failed(callee))
    return failure();
  if (callee->getNumResults() != 1)
    return op->emitOpError("expects @") << name.getValue()
                                        << " to return one value";
  if (wrt < 0 || wrt >= static_cast<int64_t>(args.size()))
    return op->emitOpError("expects wrt in [0, ")
           << args.size() << "), got " << wrt;
  auto in = cast<RankedTensorType>(args[wrt].getType());
  auto out = cast<RankedTensorType>(callee->getResultTypes()[0]);
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return op->emitOpError("expects static shapes for a Jacobian, got ")
           << in << " and " << out;
  if (!isa<FloatType>(in.getElementType()) ||
      !isa<FloatType>(out.getElementType()))
    return op->emitOpError("expects a float input and result");
  if (hessian && out.getNumElements() != 1)
    return op->emitOpError("expects a one-element result for a Hessian, got ")
           << out;
  SmallVector<int64_t> shape(hessian ? in.getShape() : out.getShape());
  llvm::append_range(shape, in.getShape());
  auto expected = RankedTensorType::get(shape, out.getElementType());
  if (resultType != expected)
    return op->emitOpError("expects result type ")
           << expected << ", got " << resultType;
  return success();
}

LogicalResult JacfwdOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyJacobian(*this, getCalleeAttr(), getArgs(), getWrt(),
                        getType(), false, symbols);
}
LogicalResult JacrevOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyJacobian(*this, getCalleeAttr(), getArgs(), getWrt(),
                        getType(), false, symbols);
}
LogicalResult HessianOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyJacobian(*this, getCalleeAttr(), getArgs(), getWrt(),
                        getType(), true, symbols);
}

//===----------------------------------------------------------------------===//
// TransformMarkerOpInterface: the leaves
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Leaf>> GradOp::getLeaves(func::FuncOp callee,
                                               SymbolTableCollection &symbols) {
  return resolveLeaves(*this, callee, getWrt(), getWrtParamsAttr(), symbols);
}
FailureOr<SmallVector<Leaf>>
ValueAndGradOp::getLeaves(func::FuncOp callee, SymbolTableCollection &symbols) {
  return resolveLeaves(*this, callee, getWrt(), getWrtParamsAttr(), symbols);
}
FailureOr<SmallVector<Leaf>> VJPOp::getLeaves(func::FuncOp callee,
                                              SymbolTableCollection &symbols) {
  return resolveLeaves(*this, callee, getWrt(), getWrtParamsAttr(), symbols);
}
FailureOr<SmallVector<Leaf>> JVPOp::getLeaves(func::FuncOp callee,
                                              SymbolTableCollection &symbols) {
  return resolveLeaves(*this, callee, getWrt(), getWrtParamsAttr(), symbols);
}
FailureOr<SmallVector<Leaf>> HVPOp::getLeaves(func::FuncOp callee,
                                              SymbolTableCollection &symbols) {
  return resolveLeaves(*this, callee, getWrt(), getWrtParamsAttr(), symbols);
}
/// vmap maps, it differentiates nothing.
FailureOr<SmallVector<Leaf>> VmapOp::getLeaves(func::FuncOp,
                                               SymbolTableCollection &) {
  return SmallVector<Leaf>();
}
/// A Jacobian's one leaf is input `wrt`.
FailureOr<SmallVector<Leaf>> JacfwdOp::getLeaves(func::FuncOp callee,
                                                 SymbolTableCollection &symbols) {
  int64_t wrt = getWrt();
  return resolveLeaves(*this, callee, wrt, nullptr, symbols);
}
FailureOr<SmallVector<Leaf>> JacrevOp::getLeaves(func::FuncOp callee,
                                                 SymbolTableCollection &symbols) {
  int64_t wrt = getWrt();
  return resolveLeaves(*this, callee, wrt, nullptr, symbols);
}
FailureOr<SmallVector<Leaf>>
HessianOp::getLeaves(func::FuncOp callee, SymbolTableCollection &symbols) {
  int64_t wrt = getWrt();
  return resolveLeaves(*this, callee, wrt, nullptr, symbols);
}
