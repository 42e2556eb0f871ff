//===- ControlFlowOps.cpp - Verifiers of scan, while and switch -----------===//
///
/// \file
/// The op verifiers check what the operands and attributes fix (segment
/// shapes, scan lengths, result types); the symbol verifiers check the
/// bodies against them, naming the body, the position and both types, so
/// that a body that changes its carry's type or a branch that returns
/// something else is caught where it is written.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/ControlFlow.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Checks that `name` is a function with a body taking `args` and returning
/// `results`, naming the first difference.
LogicalResult checkFunction(Operation *op, SymbolTableCollection &symbols,
                            FlatSymbolRefAttr name, StringRef role,
                            TypeRange args, TypeRange results,
                            StringRef resultsWhat) {
  auto fn = symbols.lookupNearestSymbolFrom<func::FuncOp>(op, name);
  if (!fn || fn.isExternal())
    return op->emitOpError("expects ")
           << role << " '" << name.getValue()
           << "' to name a function with a body";
  if (fn.getNumArguments() != args.size())
    return op->emitOpError("expects ")
           << role << " @" << name.getValue() << " to take " << args.size()
           << " arguments, it takes " << fn.getNumArguments();
  for (auto [i, want, got] : llvm::enumerate(args, fn.getArgumentTypes()))
    if (want != got)
      return op->emitOpError("expects argument ")
             << i << " of " << role << " @" << name.getValue() << " to be "
             << want << ", got " << got;
  if (fn.getNumResults() != results.size())
    return op->emitOpError("expects ")
           << role << " @" << name.getValue() << " to return "
           << results.size() << " values (" << resultsWhat << "), it returns "
           << fn.getNumResults();
  for (auto [i, want, got] : llvm::enumerate(results, fn.getResultTypes()))
    if (want != got)
      return op->emitOpError("expects result ")
             << i << " of " << role << " @" << name.getValue() << " to be "
             << want << " (" << resultsWhat << "), got " << got;
  return success();
}

SmallVector<Type> concat(std::initializer_list<TypeRange> parts) {
  SmallVector<Type> all;
  for (TypeRange part : parts)
    llvm::append_range(all, part);
  return all;
}

} // namespace

RankedTensorType mlir::rlx::sliceType(Type stacked) {
  auto t = cast<RankedTensorType>(stacked);
  return t.clone(t.getShape().drop_front());
}

RankedTensorType mlir::rlx::stackedType(Type slice, int64_t length) {
  auto t = cast<RankedTensorType>(slice);
  SmallVector<int64_t> shape = {length};
  llvm::append_range(shape, t.getShape());
  return t.clone(shape);
}

func::FuncOp mlir::rlx::newBodyFunction(
    SymbolTableCollection &symbols, Operation *anchor, StringRef base,
    StringRef suffix, TypeRange inputs, TypeRange results,
    function_ref<SmallVector<Value>(OpBuilder &, ValueRange)> build) {
  auto module = anchor->getParentOfType<ModuleOp>();
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  Location loc = anchor->getLoc();
  auto fn = func::FuncOp::create(mb, loc, (base + "__" + suffix).str(),
                                 mb.getFunctionType(inputs, results));
  fn.setPrivate();
  symbols.getSymbolTable(module).insert(fn);
  Block *body = fn.addEntryBlock();
  OpBuilder b(body, body->end());
  func::ReturnOp::create(b, loc, build(b, body->getArguments()));
  return fn;
}

//===----------------------------------------------------------------------===//
// scan
//===----------------------------------------------------------------------===//

int64_t ScanOp::getStaticLength() {
  if (std::optional<int64_t> length = getLength())
    return *length;
  for (Value x : getXs()) {
    int64_t d = cast<RankedTensorType>(x.getType()).getDimSize(0);
    if (!ShapedType::isDynamic(d))
      return d;
  }
  return ShapedType::kDynamic;
}

LogicalResult ScanOp::verify() {
  if (getUnroll() < 1)
    return emitOpError("expects unroll >= 1, got ") << getUnroll();
  if (std::optional<int64_t> every = getCheckpointEvery()) {
    if (*every < 1)
      return emitOpError("expects checkpoint_every >= 1, got ") << *every;
    if (ShapedType::isDynamic(getStaticLength()))
      return emitOpError("expects a static number of steps with "
                         "checkpoint_every (give the length attribute)");
  }
  std::optional<int64_t> length = getLength();
  if (length && *length < 0)
    return emitOpError("expects a non-negative length, got ") << *length;
  if (!length && getXs().empty())
    return emitOpError("expects a length attribute when it scans no xs");
  int64_t known = length ? *length : ShapedType::kDynamic;
  for (auto [i, x] : llvm::enumerate(getXs())) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() == 0)
      return emitOpError("expects xs ") << i << " to have a leading dim to "
                                        << "scan over, got " << type;
    int64_t d = type.getDimSize(0);
    if (ShapedType::isDynamic(d))
      continue;
    if (!ShapedType::isDynamic(known) && d != known)
      return emitOpError("expects every xs to have ")
             << known << " steps (the " << (length ? "length" : "first xs")
             << "), xs " << i << " has " << d;
    known = d;
  }
  if (getNumResults() < getInit().size())
    return emitOpError("expects a result per init, got ")
           << getNumResults() << " results for " << getInit().size()
           << " inits";
  for (auto [i, init, result] :
       llvm::enumerate(getInit().getTypes(), getCarries().getTypes()))
    if (init != result)
      return emitOpError("expects result ")
             << i << " (the final carry) to have the init's type " << init
             << ", got " << result;
  int64_t steps = getStaticLength();
  for (auto [i, y] : llvm::enumerate(getYs().getTypes())) {
    auto type = cast<RankedTensorType>(y);
    if (type.getRank() == 0 ||
        (!type.isDynamicDim(0) && !ShapedType::isDynamic(steps) &&
         type.getDimSize(0) != steps))
      return emitOpError("expects stacked output ")
             << i << " to have a leading dim of "
             << (ShapedType::isDynamic(steps) ? std::string("?")
                                              : std::to_string(steps))
             << " (the number of steps), got " << y;
  }
  return success();
}

LogicalResult ScanOp::verifySymbolUses(SymbolTableCollection &symbols) {
  SmallVector<Type> slices, ySlices;
  for (Type t : getXs().getTypes())
    slices.push_back(sliceType(t));
  for (Type t : getYs().getTypes())
    ySlices.push_back(sliceType(t));
  return checkFunction(
      *this, symbols, getBodyAttr(), "body",
      concat({getConsts().getTypes(), getInit().getTypes(), slices}),
      concat({getInit().getTypes(), ySlices}),
      "the carry, then one slice per stacked output");
}

namespace {

/// Replaces a scan with the prefix of a scan of a body that extends it.
struct MergeIntoExtendedScan : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    Block *block = op->getBlock();
    for (Operation &other : *block) {
      auto ext = dyn_cast<ScanOp>(other);
      if (!ext || ext == op || !extends(ext, op))
        continue;
      // Everything `ext` reads must be available where `op` is.
      if (!llvm::all_of(ext->getOperands(), [&](Value v) {
            Operation *def = v.getDefiningOp();
            return !def || def->getBlock() != block ||
                   def->isBeforeInBlock(op) ;
          }))
        continue;
      if (op->isBeforeInBlock(ext))
        rewriter.moveOpBefore(ext, op);
      SmallVector<Value> replacements(
          ext.getCarries().take_front(op.getInit().size()));
      llvm::append_range(replacements,
                         ext.getYs().take_front(op.getYs().size()));
      rewriter.replaceOp(op, replacements);
      return success();
    }
    return failure();
  }

  static bool extends(ScanOp ext, ScanOp op) {
    auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        ext, ext.getBodyAttr());
    auto base = fn ? fn->getAttrOfType<FlatSymbolRefAttr>(kExtendsAttrName)
                   : FlatSymbolRefAttr();
    if (!base || base != op.getBodyAttr() ||
        ext.getLength() != op.getLength() ||
        ext.getReverse() != op.getReverse())
      return false;
    auto prefix = [](ValueRange longer, ValueRange shorter) {
      return longer.size() >= shorter.size() &&
             llvm::equal(longer.take_front(shorter.size()), shorter);
    };
    return prefix(ext.getConsts(), op.getConsts()) &&
           prefix(ext.getInit(), op.getInit()) &&
           prefix(ext.getXs(), op.getXs()) &&
           ext.getYs().size() >= op.getYs().size();
  }
};

} // namespace

void ScanOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<MergeIntoExtendedScan>(context);
}

//===----------------------------------------------------------------------===//
// while
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::verify() {
  if (TypeRange(getInit().getTypes()) != getResultTypes())
    return emitOpError("expects its results to have the init's types");
  return success();
}

LogicalResult WhileOp::verifySymbolUses(SymbolTableCollection &symbols) {
  SmallVector<Type> args =
      concat({getConsts().getTypes(), getInit().getTypes()});
  Type flag = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (failed(checkFunction(*this, symbols, getCondAttr(), "cond", args, flag,
                           "the condition, a tensor<i1>")))
    return failure();
  return checkFunction(*this, symbols, getBodyAttr(), "body", args,
                       getInit().getTypes(), "the next carry");
}

//===----------------------------------------------------------------------===//
// switch
//===----------------------------------------------------------------------===//

LogicalResult SwitchOp::verify() {
  auto index = cast<RankedTensorType>(getIndex().getType());
  if (index.getRank() != 0)
    return emitOpError("expects a rank-0 index, got ") << index;
  if (getBranches().empty())
    return emitOpError("expects at least one branch");
  if (index.getElementType().isInteger(1) && getBranches().size() != 2)
    return emitOpError("expects two branches for an i1 index, got ")
           << getBranches().size();
  return success();
}

LogicalResult SwitchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  for (auto [i, branch] : llvm::enumerate(getBranches()))
    if (failed(checkFunction(*this, symbols, cast<FlatSymbolRefAttr>(branch),
                             "branch " + std::to_string(i),
                             getArgs().getTypes(), getResultTypes(),
                             "the switch's results")))
      return failure();
  return success();
}
