//===- ConvertTosaToRLX.cpp - Import TOSA models into rlx -----------------===//
///
/// \file
/// The convert-tosa-to-rlx pass: rewrites a func + TOSA + ml_program module
/// into the rlx dialect in one pass over the ops in program order (producers
/// before users; tosa.cond_if and tosa.while_loop regions outlined into
/// functions, TosaImporter.h), reports every TOSA op it cannot import at that
/// op's location, then drops what the import leaves dead: shape and
/// zero-point constants, the ml_program globals.
///
//===----------------------------------------------------------------------===//

#include "conversion/TosaToRLX/Passes.h"

#include "conversion/TosaToRLX/TosaImporter.h"
#include "conversion/TosaToRLX/TosaToRLXPatterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_CONVERTTOSATORLX
#include "conversion/TosaToRLX/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

/// rlx result shapes can be more static than TOSA's (a broadcast against a
/// static dim), so a function may return a refined type; its signature
/// follows. Call sites would need the same refinement down their users, so a
/// called function that needs one is an error.
static LogicalResult refineResultTypes(func::FuncOp func, ModuleOp module) {
  std::optional<SmallVector<Type>> returned;
  for (Block &block : func.getBody()) {
    auto ret = block.empty() ? nullptr : dyn_cast<func::ReturnOp>(block.back());
    if (!ret)
      continue;
    SmallVector<Type> types(ret.getOperandTypes());
    if (returned && *returned != types)
      return success(); // The verifier reports the mismatch.
    returned = std::move(types);
  }
  if (!returned || TypeRange(*returned) == func.getResultTypes())
    return success();
  for (auto [refined, declared] : llvm::zip(*returned, func.getResultTypes()))
    if (getElementTypeOrSelf(refined) != getElementTypeOrSelf(declared) ||
        failed(verifyCompatibleShape(refined, declared)))
      return success(); // Not a refinement: the verifier reports it.
  if (!SymbolTable::symbolKnownUseEmpty(func, module))
    return func.emitOpError("expects no calls to a function whose results "
                            "the import refines, from ")
           << func.getResultTypes() << " to " << TypeRange(*returned);
  func.setFunctionType(
      FunctionType::get(func.getContext(), func.getArgumentTypes(), *returned));
  return success();
}

namespace {

struct ConvertTosaToRLXPass
    : mlir::rlx::impl::ConvertTosaToRLXBase<ConvertTosaToRLXPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    mlir::rlx::populateTosaToRLXPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override;

  FrozenRewritePatternSet patterns;
};

} // namespace

void ConvertTosaToRLXPass::runOnOperation() {
  ModuleOp module = getOperation();

  // Mutable globals are state, which rlx does not model.
  bool failedImport = false;
  for (auto global : module.getOps<ml_program::GlobalOp>()) {
    if (global.getIsMutable()) {
      global.emitOpError("expects immutable ml_program globals");
      failedImport = true;
    }
  }
  if (failedImport)
    return signalPassFailure();

  if (failed(mlir::rlx::TosaImporter(module, patterns)
                 .importRegion(module.getBodyRegion())))
    failedImport = true;

  // An op left with a pattern has reported why it failed, as has control
  // flow left over; an op without a pattern is reported here.
  const auto &converted = patterns.getOpSpecificNativePatterns();
  module.walk([&](Operation *op) {
    if (isa<tosa::ConstShapeOp, ml_program::GlobalOp>(op))
      return;
    if (isa<tosa::IfOp, tosa::WhileOp, tosa::YieldOp>(op)) {
      failedImport = true;
      return;
    }
    StringRef dialect = op->getName().getDialectNamespace();
    if (dialect != tosa::TosaDialect::getDialectNamespace() &&
        dialect != ml_program::MLProgramDialect::getDialectNamespace())
      return;
    failedImport = true;
    if (!converted.count(op->getName()))
      op->emitOpError("is not supported by the TOSA import "
                      "(convert-tosa-to-rlx)");
  });

  // Shapes, zero points and shifts were read as constants; drop them, and
  // the globals, once unused.
  module.walk([](Operation *op) {
    if (isa<tosa::ConstShapeOp, mlir::rlx::ConstantOp>(op) && op->use_empty())
      op->erase();
  });
  for (auto global :
       llvm::make_early_inc_range(module.getOps<ml_program::GlobalOp>()))
    if (SymbolTable::symbolKnownUseEmpty(global, module))
      global.erase();
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && failed(refineResultTypes(func, module)))
      failedImport = true;

  if (failedImport)
    signalPassFailure();
}
