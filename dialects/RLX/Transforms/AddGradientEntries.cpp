//===- AddGradientEntries.cpp - FN_grad and FN_value_and_grad entries -----===//
///
/// \file
/// `rlxc --grad=FN` / `--value-and-grad=FN`: a new entry point that
/// differentiates FN with respect to every param, with outputs named so
/// that `rlx-run --outputs` writes gradients keyed by param name.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/MarkerUtils.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXADDGRADIENTENTRIES
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Adds the public function `name(args) -> results` at `b`'s point, with
/// argument and result attributes, whose body returns what `build` makes
/// from the arguments (one marker op).
func::FuncOp addMarkerEntry(
    OpBuilder &b, Location loc, StringRef name, ArrayRef<Type> args,
    ArrayRef<Attribute> argAttrs, ArrayRef<Type> results,
    ArrayRef<Attribute> resultAttrs,
    function_ref<Operation *(OpBuilder &, ValueRange)> build) {
  auto entry =
      func::FuncOp::create(b, loc, name, b.getFunctionType(args, results));
  entry.setAllArgAttrs(argAttrs);
  entry.setAllResultAttrs(resultAttrs);
  Block *body = entry.addEntryBlock();
  OpBuilder eb(body, body->end());
  Operation *marker = build(eb, body->getArguments());
  func::ReturnOp::create(eb, loc, marker->getResults());
  return entry;
}

struct RLXAddGradientEntriesPass
    : mlir::rlx::impl::RLXAddGradientEntriesBase<RLXAddGradientEntriesPass> {
  using Base::Base;

  void runOnOperation() override {
    for (const std::string &name : gradFunctions)
      if (failed(addEntry(name, /*withValue=*/false)))
        return signalPassFailure();
    for (const std::string &name : valueAndGradFunctions)
      if (failed(addEntry(name, /*withValue=*/true)))
        return signalPassFailure();
    for (const std::string &name : perExampleGradFunctions)
      if (failed(addPerExampleEntry(name)))
        return signalPassFailure();
    for (const std::string &name : checkGradFunctions)
      if (failed(addCheckEntries(name)))
        return signalPassFailure();
  }

  LogicalResult addPerExampleEntry(StringRef name) {
    ModuleOp module = getOperation();
    func::FuncOp fn;
    llvm::MapVector<StringRef, RankedTensorType> params;
    if (failed(lookupWithParams(name, fn, params)))
      return failure();
    std::string entryName = (name + "_per_example_grad").str();
    if (module.lookupSymbol(entryName))
      return fn.emitError("cannot add '") << entryName
                                          << "': the name is taken";
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointAfter(fn);
    Location loc = fn.getLoc();
    // The gradient for one example.
    SmallVector<Type> gradTypes;
    for (auto &[param, type] : params)
      gradTypes.push_back(type);
    auto gradFn = func::FuncOp::create(
        b, loc, (name + "__grad_all").str(),
        b.getFunctionType(fn.getArgumentTypes(), gradTypes));
    gradFn.setPrivate();
    {
      Block *body = gradFn.addEntryBlock();
      OpBuilder gb(body, body->end());
      auto grad = GradOp::create(gb, loc, gradTypes, FlatSymbolRefAttr::get(fn),
                                 body->getArguments(),
                                 gb.getDenseI64ArrayAttr({}),
                                 gb.getStringAttr("all"));
      func::ReturnOp::create(gb, loc, grad.getResults());
    }
    // Mapped over a leading batch axis of every input.
    SmallVector<Type> inputs, results;
    SmallVector<Attribute> inAxes, resultAttrs;
    for (Type t : fn.getArgumentTypes()) {
      auto tensor = cast<RankedTensorType>(t);
      SmallVector<int64_t> shape = {ShapedType::kDynamic};
      llvm::append_range(shape, tensor.getShape());
      inputs.push_back(tensor.clone(shape));
      inAxes.push_back(b.getI64IntegerAttr(0));
    }
    for (auto &[param, type] : params) {
      SmallVector<int64_t> shape = {ShapedType::kDynamic};
      llvm::append_range(shape, type.getShape());
      results.push_back(type.clone(shape));
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          "rlx.name", b.getStringAttr("grad." + param.str()))));
    }
    if (inputs.empty())
      return fn.emitError("cannot map '") << name << "': it has no inputs";
    auto entry = func::FuncOp::create(b, loc, entryName,
                                      b.getFunctionType(inputs, results));
    if (ArrayAttr argAttrs = fn.getAllArgAttrs())
      entry.setAllArgAttrs(argAttrs);
    entry.setAllResultAttrs(resultAttrs);
    Block *body = entry.addEntryBlock();
    OpBuilder eb(body, body->end());
    auto vmap = VmapOp::create(
        eb, loc, results, FlatSymbolRefAttr::get(gradFn), body->getArguments(),
        eb.getArrayAttr(inAxes),
        eb.getDenseI64ArrayAttr(SmallVector<int64_t>(results.size(), 0)));
    func::ReturnOp::create(eb, loc, vmap.getResults());
    return success();
  }

  /// The rlx.name of argument or result `i` of `fn`, or the ABI default.
  static std::string argName(func::FuncOp fn, unsigned i) {
    if (auto name = fn.getArgAttrOfType<StringAttr>(i, "rlx.name"))
      return name.str();
    return "arg" + std::to_string(i);
  }
  static std::string resultName(func::FuncOp fn, unsigned i) {
    if (auto name = fn.getResultAttrOfType<StringAttr>(i, "rlx.name"))
      return name.str();
    return "out" + std::to_string(i);
  }

  LogicalResult addCheckEntries(StringRef name) {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    if (!fn || fn.isExternal())
      return module.emitError("cannot check the gradients of '")
             << name << "': no function with a body has that name";
    // Leaves: every float input, then every param.
    SmallVector<int64_t> wrt;
    SmallVector<std::pair<std::string, Type>> leaves;
    for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (tensor && isa<FloatType>(tensor.getElementType())) {
        wrt.push_back(i);
        leaves.push_back({argName(fn, i), type});
      }
    }
    auto params = collectParams(fn, symbols);
    for (auto &[param, type] : params)
      leaves.push_back({param.str(), type});
    if (leaves.empty())
      return fn.emitError("cannot check the gradients of '")
             << name << "': it has no float input and reads no param";
    for (StringRef suffix : {"_jvp", "_vjp"})
      if (module.lookupSymbol((name + suffix).str()))
        return fn.emitError("cannot add '")
               << name << suffix << "': the name is taken";
    Attribute wrtParams =
        params.empty() ? Attribute() : StringAttr::get(&getContext(), "all");
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointAfter(fn);
    Location loc = fn.getLoc();
    auto named = [&](const std::string &text) {
      return b.getDictionaryAttr(
          b.getNamedAttr("rlx.name", b.getStringAttr(text)));
    };
    SmallVector<Attribute> inputAttrs;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      inputAttrs.push_back(named(argName(fn, i)));
    SmallVector<Attribute> outputAttrs;
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      outputAttrs.push_back(named(resultName(fn, i)));

    // FN_jvp(inputs, tangents) -> (outputs, output tangents).
    {
      SmallVector<Type> args(fn.getArgumentTypes());
      SmallVector<Attribute> argAttrs(inputAttrs);
      for (auto &[leaf, type] : leaves) {
        args.push_back(type);
        argAttrs.push_back(named("tangent." + leaf));
      }
      SmallVector<Type> results(fn.getResultTypes());
      llvm::append_range(results, fn.getResultTypes());
      SmallVector<Attribute> resultAttrs(outputAttrs);
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        resultAttrs.push_back(named("tangent." + resultName(fn, i)));
      unsigned n = fn.getNumArguments();
      func::FuncOp entry = addMarkerEntry(
          b, loc, (name + "_jvp").str(), args, argAttrs, results, resultAttrs,
          [&](OpBuilder &eb, ValueRange a) -> Operation * {
            return JVPOp::create(eb, loc, results, FlatSymbolRefAttr::get(fn),
                                 a.take_front(n), a.drop_front(n),
                                 eb.getDenseI64ArrayAttr(wrt), wrtParams);
          });
      b.setInsertionPointAfter(entry);
    }
    // FN_vjp(inputs, cotangents) -> (outputs, leaf adjoints).
    {
      SmallVector<Type> args(fn.getArgumentTypes());
      llvm::append_range(args, fn.getResultTypes());
      SmallVector<Attribute> argAttrs(inputAttrs);
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        argAttrs.push_back(named("cotangent." + resultName(fn, i)));
      SmallVector<Type> results(fn.getResultTypes());
      SmallVector<Attribute> resultAttrs(outputAttrs);
      for (auto &[leaf, type] : leaves) {
        results.push_back(type);
        resultAttrs.push_back(named("grad." + leaf));
      }
      unsigned n = fn.getNumArguments();
      addMarkerEntry(
          b, loc, (name + "_vjp").str(), args, argAttrs, results, resultAttrs,
          [&](OpBuilder &eb, ValueRange a) -> Operation * {
            return VJPOp::create(eb, loc, results, FlatSymbolRefAttr::get(fn),
                                 a.take_front(n), a.drop_front(n),
                                 eb.getDenseI64ArrayAttr(wrt), wrtParams);
          });
    }
    return success();
  }

  /// The function `name` and the params it reads; an error when there is
  /// no such function or it reads no param.
  LogicalResult
  lookupWithParams(StringRef name, func::FuncOp &fn,
                   llvm::MapVector<StringRef, RankedTensorType> &params) {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    fn = module.lookupSymbol<func::FuncOp>(name);
    if (!fn || fn.isExternal())
      return module.emitError("cannot differentiate '")
             << name << "': no function with a body has that name";
    params = collectParams(fn, symbols);
    if (params.empty())
      return fn.emitError("cannot differentiate '")
             << name << "' with respect to its params: it reads none";
    return success();
  }

  LogicalResult addEntry(StringRef name, bool withValue) {
    ModuleOp module = getOperation();
    func::FuncOp fn;
    llvm::MapVector<StringRef, RankedTensorType> params;
    if (failed(lookupWithParams(name, fn, params)))
      return failure();
    std::string entryName =
        (name + (withValue ? "_value_and_grad" : "_grad")).str();
    if (module.lookupSymbol(entryName))
      return fn.emitError("cannot add '")
             << entryName << "': the name is taken";

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointAfter(fn);
    SmallVector<Type> results;
    SmallVector<Attribute> resultAttrs;
    if (withValue) {
      llvm::append_range(results, fn.getResultTypes());
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
            "rlx.name", b.getStringAttr(i == 0 ? "value"
                                               : "aux" + std::to_string(i)))));
    }
    for (auto &[param, type] : params) {
      results.push_back(type);
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          "rlx.name", b.getStringAttr("grad." + param.str()))));
    }
    auto entry = func::FuncOp::create(
        b, fn.getLoc(), entryName,
        b.getFunctionType(fn.getArgumentTypes(), results));
    if (ArrayAttr argAttrs = fn.getAllArgAttrs())
      entry.setAllArgAttrs(argAttrs);
    entry.setAllResultAttrs(resultAttrs);
    Block *body = entry.addEntryBlock();
    b.setInsertionPointToStart(body);
    Operation *marker;
    Attribute all = b.getStringAttr("all");
    if (withValue) {
      auto op = ValueAndGradOp::create(
          b, fn.getLoc(), results, FlatSymbolRefAttr::get(fn), body->getArguments(),
          b.getDenseI64ArrayAttr({}), all,
          fn.getNumResults() > 1 ? b.getUnitAttr() : UnitAttr());
      marker = op;
    } else {
      marker = GradOp::create(b, fn.getLoc(), results,
                              FlatSymbolRefAttr::get(fn), body->getArguments(),
                              b.getDenseI64ArrayAttr({}), all);
    }
    func::ReturnOp::create(b, fn.getLoc(), marker->getResults());
    return success();
  }
};

} // namespace
