//===- TosaImporter.h - In-order TOSA import with control flow --*- C++ -*-===//
///
/// \file
/// The driver of the TOSA import: applies the patterns of
/// populateTosaToRLXPatterns to each op in program order, and outlines the
/// regions of `tosa.cond_if` and `tosa.while_loop` into private functions,
/// imported the same way, that `rlx.switch` and `rlx.while` name.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_TOSATORLX_TOSAIMPORTER_H
#define RLX_CONVERSION_TOSATORLX_TOSAIMPORTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::rlx {

/// Imports the ops of a module in program order: producers before users, so
/// the rlx result types the patterns infer reach every user, inside outlined
/// bodies too (a body's arguments take the converted operands' types).
///
/// `tosa.cond_if` becomes `rlx.switch %cond [@else, @then](captures...,
/// inputs...)` and `tosa.while_loop` becomes `rlx.while @cond, @body
/// consts(captures...) init(inputs...)`; the bodies are private functions
/// named `<enclosing function>__cond_if_then` (`_else`, `__while_cond`,
/// `__while_body`), inserted after the enclosing function. Values a region
/// uses from outside become leading arguments (constants are cloned in
/// instead, so patterns still see constant zero points and shapes). Nested
/// control flow is outlined when its enclosing body is imported.
class TosaImporter {
public:
  TosaImporter(ModuleOp module, const FrozenRewritePatternSet &patterns);

  /// Imports every op nested in `region`. Fails when a control-flow op
  /// could not be imported, after reporting why at its location; a TOSA op
  /// a pattern could not convert is left in place (its pattern reported it).
  LogicalResult importRegion(Region &region);

private:
  LogicalResult importOp(Operation *op);
  LogicalResult importIf(tosa::IfOp op);
  LogicalResult importWhile(tosa::WhileOp op);

  /// Moves the single block of `region` into a new private function named
  /// after the function enclosing `op` and `suffix`, taking `captures` then
  /// the block's arguments typed as `inputs`; its terminator becomes a
  /// return. The function's body is then imported and its type set from
  /// what it returns.
  FailureOr<func::FuncOp> outline(Operation *op, Region &region,
                                  StringRef suffix, ArrayRef<Value> captures,
                                  ValueRange inputs);

  MLIRContext *context() { return module.getContext(); }

  ModuleOp module;
  SymbolTable symbols;
  /// The function last outlined from each top-level op, which the next one
  /// follows, so bodies appear in the order of their regions.
  llvm::DenseMap<Operation *, Operation *> lastOutlined;
  PatternApplicator applicator;
  PatternRewriter rewriter;
};

} // namespace mlir::rlx

#endif // RLX_CONVERSION_TOSATORLX_TOSAIMPORTER_H
