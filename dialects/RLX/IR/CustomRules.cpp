//===- CustomRules.cpp - custom_vjp, custom_jvp, remat, barriers ----------===//
///
/// \file
/// Ops that carry user-given or recomputing derivative rules. Their rules
/// emit calls (inlined by the simplify phase) or a vjp marker (expanded by
/// the autodiff pass, which repeats until no marker is left).
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Checks that `fn` exists and has these argument and result types.
LogicalResult checkSignature(Operation *op, func::FuncOp fn,
                             FlatSymbolRefAttr name, StringRef role,
                             TypeRange args, TypeRange results,
                             bool resultsArePrefix = false) {
  if (!fn || fn.isExternal())
    return op->emitOpError("expects ")
           << role << " '" << name.getValue()
           << "' to name a function with a body";
  if (TypeRange(fn.getArgumentTypes()) != args)
    return op->emitOpError("expects ")
           << role << " @" << name.getValue() << " to take " << args.size()
           << " arguments of the expected types";
  TypeRange got = fn.getResultTypes();
  if (resultsArePrefix ? (got.size() < results.size() ||
                          got.take_front(results.size()) != results)
                       : got != results)
    return op->emitOpError("expects ")
           << role << " @" << name.getValue()
           << " to return the expected types";
  return success();
}

SmallVector<Type> concatTypes(TypeRange a, TypeRange b) {
  SmallVector<Type> all(a);
  llvm::append_range(all, b);
  return all;
}

} // namespace

//===----------------------------------------------------------------------===//
// custom_vjp
//===----------------------------------------------------------------------===//

LogicalResult CustomVJPOp::verifySymbolUses(SymbolTableCollection &symbols) {
  TypeRange args = getArgs().getTypes(), results = getResultTypes();
  if (failed(checkSignature(*this, lookup(symbols, getCalleeAttr()),
                            getCalleeAttr(), "callee", args, results)))
    return failure();
  func::FuncOp fwd = lookup(symbols, getFwdAttr());
  if (failed(checkSignature(*this, fwd, getFwdAttr(), "fwd", args, results,
                            /*resultsArePrefix=*/true)))
    return failure();
  TypeRange residuals = fwd.getResultTypes().drop_front(results.size());
  return checkSignature(*this, lookup(symbols, getBwdAttr()), getBwdAttr(),
                        "bwd", concatTypes(residuals, results), args);
}

LogicalResult CustomVJPOp::buildVJP(OpBuilder &b, ArrayRef<Value> adj,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &symbols) {
  func::FuncOp fwd = lookup(symbols, getFwdAttr());
  // The residuals: what fwd returns after the results.
  auto fwdCall = func::CallOp::create(b, getLoc(), fwd, getArgs());
  SmallVector<Value> bwdArgs(
      fwdCall.getResults().drop_front(getNumResults()));
  for (auto [result, g] : llvm::zip(getResults(), adj))
    bwdArgs.push_back(g ? g : ad::zerosLike({b, getLoc()}, result));
  func::FuncOp bwd = lookup(symbols, getBwdAttr());
  auto bwdCall = func::CallOp::create(b, getLoc(), bwd, bwdArgs);
  llvm::append_range(out, bwdCall.getResults());
  return success();
}

LogicalResult CustomVJPOp::buildJVP(OpBuilder &, ArrayRef<Value>,
                                    SmallVectorImpl<Value> &,
                                    SymbolTableCollection &) {
  return emitOpError("cannot be differentiated in forward mode: it defines "
                     "only a VJP (give a custom_jvp instead)");
}

//===----------------------------------------------------------------------===//
// custom_jvp
//===----------------------------------------------------------------------===//

LogicalResult CustomJVPOp::verifySymbolUses(SymbolTableCollection &symbols) {
  TypeRange args = getArgs().getTypes(), results = getResultTypes();
  if (failed(checkSignature(*this, lookup(symbols, getCalleeAttr()),
                            getCalleeAttr(), "callee", args, results)))
    return failure();
  return checkSignature(*this, lookup(symbols, getJvpAttr()), getJvpAttr(),
                        "jvp", concatTypes(args, args),
                        concatTypes(results, results));
}

LogicalResult CustomJVPOp::buildVJP(OpBuilder &, ArrayRef<Value>,
                                    SmallVectorImpl<Value> &,
                                    SymbolTableCollection &) {
  return emitOpError("cannot be differentiated in reverse mode: it defines "
                     "only a JVP (give a custom_vjp instead)");
}

LogicalResult CustomJVPOp::buildJVP(OpBuilder &b, ArrayRef<Value> tan,
                                    SmallVectorImpl<Value> &out,
                                    SymbolTableCollection &symbols) {
  SmallVector<Value> args(getArgs());
  for (auto [arg, t] : llvm::zip(getArgs(), tan))
    args.push_back(t ? t : ad::zerosLike({b, getLoc()}, arg));
  auto call = func::CallOp::create(b, getLoc(), lookup(symbols, getJvpAttr()),
                                   args);
  llvm::append_range(out, call.getResults().drop_front(getNumResults()));
  return success();
}

//===----------------------------------------------------------------------===//
// remat
//===----------------------------------------------------------------------===//

LogicalResult RematOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return checkSignature(*this, lookup(symbols, getCalleeAttr()),
                        getCalleeAttr(), "callee", getArgs().getTypes(),
                        getResultTypes());
}

LogicalResult RematOp::buildVJP(OpBuilder &b, ArrayRef<Value> adj,
                                SmallVectorImpl<Value> &out,
                                SymbolTableCollection &) {
  // Recompute the callee from barrier'd arguments inside a vjp marker, so
  // the backward sweep does not read the forward sweep's intermediates.
  Location loc = getLoc();
  SmallVector<Value> args, cotangents;
  SmallVector<int64_t> wrt;
  for (auto [i, arg] : llvm::enumerate(getArgs())) {
    args.push_back(OptimizationBarrierOp::create(b, loc, arg));
    if (isa<FloatType>(ad::tensorType(arg).getElementType()))
      wrt.push_back(i);
  }
  for (auto [result, g] : llvm::zip(getResults(), adj))
    cotangents.push_back(g ? g : ad::zerosLike({b, loc}, result));
  if (wrt.empty()) {
    out.append(getNumOperands(), Value());
    return success();
  }
  SmallVector<Type> types(getResultTypes());
  for (int64_t i : wrt)
    types.push_back(getArgs()[i].getType());
  auto vjp = VJPOp::create(b, loc, types, getCalleeAttr(), args, cotangents,
                           b.getDenseI64ArrayAttr(wrt), Attribute());
  out.append(getNumOperands(), Value());
  for (auto [k, i] : llvm::enumerate(wrt))
    out[i] = vjp.getResult(getNumResults() + k);
  return success();
}

LogicalResult RematOp::buildJVP(OpBuilder &b, ArrayRef<Value> tan,
                                SmallVectorImpl<Value> &out,
                                SymbolTableCollection &) {
  // Forward mode keeps nothing across sweeps: a plain jvp of the callee.
  Location loc = getLoc();
  SmallVector<Value> tangents;
  SmallVector<int64_t> wrt;
  for (auto [i, arg] : llvm::enumerate(getArgs())) {
    if (!isa<FloatType>(ad::tensorType(arg).getElementType()))
      continue;
    wrt.push_back(i);
    tangents.push_back(tan[i] ? tan[i] : ad::zerosLike({b, loc}, arg));
  }
  if (wrt.empty()) {
    out.append(getNumResults(), Value());
    return success();
  }
  SmallVector<Type> types(getResultTypes());
  llvm::append_range(types, getResultTypes());
  auto jvp = JVPOp::create(b, loc, types, getCalleeAttr(), getArgs(),
                           tangents, b.getDenseI64ArrayAttr(wrt), Attribute());
  llvm::append_range(out, jvp.getResults().drop_front(getNumResults()));
  return success();
}

//===----------------------------------------------------------------------===//
// optimization_barrier
//===----------------------------------------------------------------------===//

LogicalResult OptimizationBarrierOp::buildVJP(OpBuilder &, ArrayRef<Value> adj,
                                              SmallVectorImpl<Value> &out,
                                              SymbolTableCollection &) {
  out.push_back(adj[0]);
  return success();
}

LogicalResult OptimizationBarrierOp::buildJVP(OpBuilder &, ArrayRef<Value> tan,
                                              SmallVectorImpl<Value> &out,
                                              SymbolTableCollection &) {
  out.push_back(tan[0]);
  return success();
}
