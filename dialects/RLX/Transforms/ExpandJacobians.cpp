//===- ExpandJacobians.cpp - jacfwd, jacrev, hessian, hvp as markers ------===//
///
/// \file
/// rlx-expand-jacobians: markers defined by other markers become them, over
/// scratch functions (tagged rlx.autodiff_scratch, erased by rlx-autodiff
/// once unused): jacfwd is a vmap of jvp over a basis of the input, jacrev a
/// vmap of vjp over a basis of the output, hessian the jacfwd of the
/// jacrev, hvp the jvp of the gradient. A local rewrite: the callee is not
/// looked into, so it may hold markers.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/Transforms/MarkerExpansion.h"
#include "dialects/RLX/Transforms/Passes.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXEXPANDJACOBIANS
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

class ExpandJacobians {
public:
  explicit ExpandJacobians(MarkerExpansion &expansion)
      : expansion(expansion), symbols(expansion.getSymbols()) {}

  /// Rewrites every jacfwd, jacrev, hessian and hvp of the module, and those
  /// the rewrites emit (a hessian's jacrev), until none is left.
  LogicalResult run() {
    while (true) {
      SmallVector<Operation *> markers;
      expansion.getModule().walk([&](Operation *op) {
        if (isa<JacfwdOp, JacrevOp, HessianOp, HVPOp>(op))
          markers.push_back(op);
      });
      if (markers.empty())
        return success();
      for (Operation *op : markers) {
        LogicalResult rewritten =
            isa<HVPOp>(op)
                ? expandHVP(cast<HVPOp>(op))
                : expandJacobian(cast<TransformMarkerOpInterface>(op));
        if (failed(rewritten))
          return failure();
      }
    }
  }

private:
  /// Identity basis: `count` one-hot tensors of `shape`, stacked in front.
  Value basis(OpBuilder &b, Location loc, RankedTensorType shape) {
    int64_t n = shape.getNumElements();
    auto type = cast<FloatType>(shape.getElementType());
    SmallVector<APFloat> values(n * n, APFloat::getZero(type.getFloatSemantics()));
    for (int64_t i = 0; i < n; ++i)
      values[i * n + i] = APFloat::getOne(type.getFloatSemantics());
    SmallVector<int64_t> stacked = {n};
    llvm::append_range(stacked, shape.getShape());
    auto stackedType = shape.clone(stacked);
    return ConstantOp::create(b, loc, DenseElementsAttr::get(stackedType, values));
  }

  /// jacfwd = vmap of jvp over a basis of the input; jacrev = vmap of vjp
  /// over a basis of the output; hessian = jacfwd of the gradient (jacrev).
  LogicalResult expandJacobian(TransformMarkerOpInterface op) {
    Location loc = op->getLoc();
    func::FuncOp callee = op.resolveCallee(symbols);
    if (!callee)
      return op->emitOpError("cannot resolve its callee");
    int64_t wrt = op->getAttrOfType<IntegerAttr>("wrt").getInt();
    ValueRange args = op.getArgs();
    auto in = cast<RankedTensorType>(args[wrt].getType());
    auto out = cast<RankedTensorType>(callee.getResultTypes()[0]);
    OpBuilder b(op);
    ad::RuleBuilder rb{b, loc};
    SmallVector<Type> argTypes(callee.getArgumentTypes());
    SmallVector<Attribute> inAxes(args.size(), b.getUnitAttr());
    inAxes.push_back(b.getI64IntegerAttr(0));
    SmallVector<Value> vmapArgs(args.begin(), args.end());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value jac;
    if (isa<HessianOp>(*op)) {
      // The gradient as a function, then its forward-mode Jacobian.
      func::FuncOp gradFn = expansion.scratchFunction(
          callee.getSymName(), argTypes, {in}, loc,
          [&](OpBuilder &fb, ValueRange a) -> SmallVector<Value> {
            SmallVector<int64_t> shape(out.getShape());
            llvm::append_range(shape, in.getShape());
            Value j = JacrevOp::create(fb, loc, in.clone(shape),
                                       FlatSymbolRefAttr::get(callee), a,
                                       fb.getI64IntegerAttr(wrt));
            return {ad::reshapeTo({fb, loc}, j, in)};
          });
      jac = JacfwdOp::create(b, loc, resultType, FlatSymbolRefAttr::get(gradFn),
                             args, b.getI64IntegerAttr(wrt));
    } else if (isa<JacfwdOp>(*op)) {
      SmallVector<Type> types(argTypes);
      types.push_back(in);
      func::FuncOp jvpFn = expansion.scratchFunction(
          callee.getSymName(), types, {out}, loc,
          [&](OpBuilder &fb, ValueRange a) -> SmallVector<Value> {
            auto jvp = JVPOp::create(
                fb, loc, TypeRange{out, out}, FlatSymbolRefAttr::get(callee),
                a.drop_back(), a.take_back(), fb.getDenseI64ArrayAttr({wrt}),
                Attribute());
            return {jvp.getResult(1)};
          });
      vmapArgs.push_back(basis(b, loc, in));
      SmallVector<int64_t> stacked(out.getShape());
      stacked.push_back(in.getNumElements());
      Value columns = VmapOp::create(
          b, loc, TypeRange{out.clone(stacked)}, FlatSymbolRefAttr::get(jvpFn),
          vmapArgs, b.getArrayAttr(inAxes),
          b.getDenseI64ArrayAttr({out.getRank()}))
                          .getResult(0);
      jac = ad::reshapeTo(rb, columns, resultType);
    } else {
      SmallVector<Type> types(argTypes);
      types.push_back(out);
      func::FuncOp vjpFn = expansion.scratchFunction(
          callee.getSymName(), types, {in}, loc,
          [&](OpBuilder &fb, ValueRange a) -> SmallVector<Value> {
            auto vjp = VJPOp::create(
                fb, loc, TypeRange{out, in}, FlatSymbolRefAttr::get(callee),
                a.drop_back(), a.take_back(), fb.getDenseI64ArrayAttr({wrt}),
                Attribute());
            return {vjp.getResult(1)};
          });
      vmapArgs.push_back(basis(b, loc, out));
      SmallVector<int64_t> stacked = {out.getNumElements()};
      llvm::append_range(stacked, in.getShape());
      Value rows = VmapOp::create(
          b, loc, TypeRange{in.clone(stacked)}, FlatSymbolRefAttr::get(vjpFn),
          vmapArgs, b.getArrayAttr(inAxes), b.getDenseI64ArrayAttr({0}))
                       .getResult(0);
      jac = ad::reshapeTo(rb, rows, resultType);
    }
    op->getResult(0).replaceAllUsesWith(jac);
    op->erase();
    return success();
  }

  /// hvp(f) = jvp(grad f): a scratch function returning the gradient, and
  /// a jvp marker over it.
  LogicalResult expandHVP(HVPOp hvp) {
    func::FuncOp callee = hvp.resolveCallee(symbols);
    if (!callee)
      return hvp.emitOpError("cannot resolve its callee");
    Location loc = hvp.getLoc();
    SmallVector<Type> gradTypes(hvp.getResultTypes());
    func::FuncOp gradFn = expansion.scratchFunction(
        (callee.getSymName() + "_hvp").str(), callee.getArgumentTypes(),
        gradTypes, loc, [&](OpBuilder &fb, ValueRange a) -> SmallVector<Value> {
          auto grad = GradOp::create(fb, loc, gradTypes,
                                     FlatSymbolRefAttr::get(callee), a,
                                     hvp.getWrtAttr(), hvp.getWrtParamsAttr());
          return grad.getResults();
        });
    // The jvp's results: the gradients, then their tangents.
    SmallVector<Type> jvpTypes(gradTypes);
    llvm::append_range(jvpTypes, gradTypes);
    OpBuilder b(hvp);
    auto jvp = JVPOp::create(b, loc, jvpTypes, FlatSymbolRefAttr::get(gradFn),
                             hvp.getArgs(), hvp.getTangents(), hvp.getWrtAttr(),
                             hvp.getWrtParamsAttr());
    hvp->replaceAllUsesWith(jvp.getResults().drop_front(gradTypes.size()));
    hvp.erase();
    return success();
  }

  MarkerExpansion &expansion;
  SymbolTableCollection &symbols;
};

struct RLXExpandJacobiansPass
    : mlir::rlx::impl::RLXExpandJacobiansBase<RLXExpandJacobiansPass> {
  void runOnOperation() override {
    MarkerExpansion expansion(getOperation());
    if (failed(ExpandJacobians(expansion).run()))
      return signalPassFailure();
  }
};

} // namespace
