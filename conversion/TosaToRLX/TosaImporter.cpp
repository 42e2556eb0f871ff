//===- TosaImporter.cpp - In-order TOSA import with control flow ----------===//
///
/// \file
/// Program order matters twice: rlx result types are inferred from converted
/// operands (and may be more static than TOSA's), and an outlined body's
/// arguments take the types of the converted values the control-flow op
/// passes, so its ops are imported after those values and before the op's
/// users. A body's result types are known only once it is imported, so the
/// rlx op is built last and checked against them (branches agree, a loop
/// body keeps its carry's types).
///
//===----------------------------------------------------------------------===//

#include "conversion/TosaToRLX/TosaImporter.h"

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::rlx;

/// Checks that every type of `types` is a ranked tensor of integers or
/// floats, as the rlx control-flow ops and their bodies take.
static LogicalResult checkTensorTypes(Operation *op, TypeRange types,
                                      StringRef what) {
  for (Type type : types) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType || !tensorType.getElementType().isIntOrFloat())
      return op->emitOpError("expects ")
             << what << " to be ranked tensors of integers or floats, got "
             << type;
  }
  return success();
}

/// Whether `value` comes from a constant that a body can clone rather than
/// take as an argument.
static bool isClonableConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         def->hasTrait<OpTrait::ConstantLike>();
}

/// The values the regions of `op` use from outside, constants excepted: the
/// bodies' leading arguments.
static FailureOr<SmallVector<Value>> capturedValues(Operation *op) {
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(op->getRegions(), used);
  SmallVector<Value> captures;
  for (Value value : used)
    if (!isClonableConstant(value))
      captures.push_back(value);
  if (failed(checkTensorTypes(op, ValueRange(captures).getTypes(),
                              "the values its regions use from outside")))
    return failure();
  return captures;
}

/// Whether `type` is a tensor of one i1, the form TOSA conditions take.
static bool isOneFlag(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  return tensorType && tensorType.getElementType().isInteger(1) &&
         tensorType.hasStaticShape() && tensorType.getNumElements() == 1;
}

/// `flag` (a tensor of one i1) as the `tensor<i1>` rlx takes.
static Value scalarFlag(OpBuilder &builder, Location loc, Value flag) {
  if (cast<RankedTensorType>(flag.getType()).getRank() == 0)
    return flag;
  auto type = RankedTensorType::get({}, builder.getI1Type());
  return ReshapeOp::create(builder, loc, type, flag);
}

TosaImporter::TosaImporter(ModuleOp module,
                           const FrozenRewritePatternSet &patterns)
    : module(module), symbols(module), applicator(patterns),
      rewriter(module.getContext()) {
  applicator.applyDefaultCostModel();
}

LogicalResult TosaImporter::importRegion(Region &region) {
  bool imported = true;
  for (Block &block : region)
    for (Operation &op : llvm::make_early_inc_range(block))
      imported &= succeeded(importOp(&op));
  return success(imported);
}

LogicalResult TosaImporter::importOp(Operation *op) {
  if (auto ifOp = dyn_cast<tosa::IfOp>(op))
    return importIf(ifOp);
  if (auto whileOp = dyn_cast<tosa::WhileOp>(op))
    return importWhile(whileOp);
  bool imported = true;
  for (Region &region : op->getRegions())
    imported &= succeeded(importRegion(region));
  rewriter.setInsertionPoint(op);
  // A pattern that fails has reported why; the pass reports ops left over.
  (void)applicator.matchAndRewrite(op, rewriter);
  return success(imported);
}

FailureOr<func::FuncOp> TosaImporter::outline(Operation *op, Region &region,
                                              StringRef suffix,
                                              ArrayRef<Value> captures,
                                              ValueRange inputs) {
  auto enclosing = op->getParentOfType<func::FuncOp>();
  if (!enclosing)
    return op->emitOpError("expects to be inside a func.func");
  Block &entry = region.front();
  if (entry.getNumArguments() != inputs.size())
    return op->emitOpError("expects regions taking one argument per input, "
                           "got ")
           << entry.getNumArguments() << " for " << inputs.size();
  if (!isa<tosa::YieldOp>(entry.getTerminator()))
    return op->emitOpError("expects regions ending in tosa.yield");

  // The function goes after the top-level op holding `op` and the functions
  // outlined from it before; the symbol table makes its name unique.
  Operation *top = op;
  while (top->getParentOp() != module)
    top = top->getParentOp();
  Operation *&previous = lastOutlined[top];
  Operation *after = previous ? previous : top;
  OpBuilder detached(context());
  auto fn = func::FuncOp::create(detached, op->getLoc(),
                                 (enclosing.getSymName() + "__" + suffix).str(),
                                 FunctionType::get(context(), {}, {}));
  fn.setPrivate();
  symbols.insert(fn, std::next(after->getIterator()));
  previous = fn;
  // Read before the move: afterwards the outer values are in no ancestor.
  llvm::SetVector<Value> outside;
  getUsedValuesDefinedAbove(region, outside);
  fn.getBody().takeBody(region);
  Block &block = fn.front();

  for (auto [arg, input] : llvm::zip(block.getArguments(), inputs))
    arg.setType(input.getType());
  for (auto [i, capture] : llvm::enumerate(captures)) {
    BlockArgument arg =
        block.insertArgument(i, capture.getType(), capture.getLoc());
    replaceAllUsesInRegionWith(capture, arg, fn.getBody());
  }
  // The other values from outside are constants: cloned in, so patterns
  // see constant zero points and shapes.
  rewriter.setInsertionPointToStart(&block);
  for (Value value : outside) {
    if (llvm::is_contained(captures, value))
      continue;
    Operation *clone = rewriter.clone(*value.getDefiningOp());
    replaceAllUsesInRegionWith(
        value, clone->getResult(cast<OpResult>(value).getResultNumber()),
        fn.getBody());
  }
  auto yield = cast<tosa::YieldOp>(block.getTerminator());
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<func::ReturnOp>(yield, yield->getOperands());

  LogicalResult imported = importRegion(fn.getBody());
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  fn.setFunctionType(FunctionType::get(context(), block.getArgumentTypes(),
                                       ret.getOperandTypes()));
  if (failed(imported))
    return failure();
  return fn;
}

LogicalResult TosaImporter::importIf(tosa::IfOp op) {
  Value cond = op.getCondition();
  if (!isOneFlag(cond.getType()))
    return op.emitOpError("expects a condition of one i1, got ")
           << cond.getType();
  if (failed(checkTensorTypes(op, op.getInputList().getTypes(), "inputs")) ||
      failed(checkTensorTypes(op, op->getResultTypes(), "results")))
    return failure();
  FailureOr<SmallVector<Value>> captures = capturedValues(op);
  if (failed(captures))
    return failure();
  FailureOr<func::FuncOp> thenFn = outline(
      op, op.getThenGraph(), "cond_if_then", *captures, op.getInputList());
  if (failed(thenFn))
    return failure();
  FailureOr<func::FuncOp> elseFn = outline(
      op, op.getElseGraph(), "cond_if_else", *captures, op.getInputList());
  if (failed(elseFn))
    return failure();

  TypeRange thenTypes = thenFn->getResultTypes();
  TypeRange elseTypes = elseFn->getResultTypes();
  if (thenTypes.size() != op->getNumResults() ||
      elseTypes.size() != op->getNumResults())
    return op.emitOpError("expects both regions to yield ")
           << op->getNumResults() << " values";
  for (auto [i, onTrue, onFalse] : llvm::enumerate(thenTypes, elseTypes))
    if (onTrue != onFalse)
      return op.emitOpError("expects both regions to yield the same types, "
                            "value ")
             << i << " is " << onTrue << " in then_graph and " << onFalse
             << " in else_graph";

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> args(*captures);
  llvm::append_range(args, op.getInputList());
  // An i1 index picks the first branch for false.
  ArrayAttr branches = rewriter.getArrayAttr(
      {FlatSymbolRefAttr::get(context(), elseFn->getSymName()),
       FlatSymbolRefAttr::get(context(), thenFn->getSymName())});
  auto switchOp =
      SwitchOp::create(rewriter, loc, thenTypes,
                       scalarFlag(rewriter, loc, cond), branches, args);
  rewriter.replaceOp(op, switchOp.getResults());
  return success();
}

LogicalResult TosaImporter::importWhile(tosa::WhileOp op) {
  ValueRange init = op.getInputList();
  if (failed(checkTensorTypes(op, init.getTypes(), "inputs")) ||
      failed(checkTensorTypes(op, op->getResultTypes(), "results")))
    return failure();
  FailureOr<SmallVector<Value>> captures = capturedValues(op);
  if (failed(captures))
    return failure();
  FailureOr<func::FuncOp> condFn =
      outline(op, op.getCondGraph(), "while_cond", *captures, init);
  if (failed(condFn))
    return failure();
  FailureOr<func::FuncOp> bodyFn =
      outline(op, op.getBodyGraph(), "while_body", *captures, init);
  if (failed(bodyFn))
    return failure();

  auto ret = cast<func::ReturnOp>(condFn->front().getTerminator());
  if (ret.getNumOperands() != 1 || !isOneFlag(ret.getOperand(0).getType()))
    return op.emitOpError("expects cond_graph to yield one i1, got ")
           << ret.getOperandTypes();
  rewriter.setInsertionPoint(ret);
  ret.setOperand(0, scalarFlag(rewriter, ret.getLoc(), ret.getOperand(0)));
  condFn->setFunctionType(FunctionType::get(
      context(), condFn->getArgumentTypes(), ret.getOperandTypes()));

  TypeRange bodyTypes = bodyFn->getResultTypes();
  if (bodyTypes.size() != init.size())
    return op.emitOpError("expects body_graph to yield ")
           << init.size() << " values, one per input";
  for (auto [i, next, carry] : llvm::enumerate(bodyTypes, init.getTypes()))
    if (next != carry)
      return op.emitOpError("expects body_graph to keep the carry's types, "
                            "value ")
             << i << " is " << next << " for a carry of " << carry;

  rewriter.setInsertionPoint(op);
  auto whileOp = WhileOp::create(
      rewriter, op.getLoc(), init.getTypes(),
      FlatSymbolRefAttr::get(context(), condFn->getSymName()),
      FlatSymbolRefAttr::get(context(), bodyFn->getSymName()), *captures, init);
  rewriter.replaceOp(op, whileOp.getResults());
  return success();
}
