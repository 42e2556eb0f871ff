//===- AddGradientEntries.cpp - FN_grad and FN_value_and_grad entries -----===//
///
/// \file
/// `rlxc --grad=FN` / `--value-and-grad=FN`: a new entry point that
/// differentiates FN with respect to every param, with outputs named so
/// that `rlx-run --outputs` writes gradients keyed by param name.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/MarkerUtils.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace rlx {
#define GEN_PASS_DEF_RLXADDGRADIENTENTRIES
#include "passes/Passes.h.inc"
} // namespace rlx

using namespace mlir;
using namespace rlx;

namespace {

struct RLXAddGradientEntriesPass
    : rlx::impl::RLXAddGradientEntriesBase<RLXAddGradientEntriesPass> {
  using Base::Base;

  void runOnOperation() override {
    for (const std::string &name : gradFunctions)
      if (failed(addEntry(name, /*withValue=*/false)))
        return signalPassFailure();
    for (const std::string &name : valueAndGradFunctions)
      if (failed(addEntry(name, /*withValue=*/true)))
        return signalPassFailure();
  }

  LogicalResult addEntry(StringRef name, bool withValue) {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    if (!fn || fn.isExternal())
      return module.emitError("cannot differentiate '")
             << name << "': no function with a body has that name";
    auto params = collectParams(fn, symbols);
    if (params.empty())
      return fn.emitError("cannot differentiate '")
             << name << "' with respect to its params: it reads none";
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
