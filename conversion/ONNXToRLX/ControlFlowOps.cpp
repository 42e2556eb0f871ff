//===- ControlFlowOps.cpp - ONNX If, Loop and Scan ------------------------===//
///
/// \file
/// ONNX control flow onto rlx's (RLXControlFlow.td). Each subgraph becomes
/// a private function beside @main (`main__<node>_<attribute>`), imported
/// node by node like the main graph (GraphImporter::enterSubgraph); the
/// enclosing graphs' values it reads are its leading arguments, passed as
/// the op's consts.
///
/// - If: rlx.switch on the condition; both branches take what either reads.
///   A condition known at import imports the branch taken in place.
/// - Loop: an rlx.scan when the trip count is known at import and the
///   condition stays true (PyTorch's `for` loops; the scan outputs are its
///   stacked outputs), else an rlx.while on (iteration, condition, carried
///   values), which cannot have scan outputs (their length is unknown until
///   the loop ends, and rlx tensors are sized before it starts).
/// - Scan: an rlx.scan over its scan inputs, their axes moved to the front
///   and the outputs' moved back, reversed by its directions.
///
/// A carried value must keep its type from step to step (rlx carries have
/// one type); a body that changes it is an error naming the node.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::rlx::onnx_import {
namespace {

/// The largest trip count a Loop is imported with as an rlx.scan (a static
/// length); beyond it (PyTorch writes INT64_MAX for `while` loops), an
/// rlx.while.
constexpr int64_t kMaxStaticTrips = int64_t(1) << 31;

/// One subgraph of `ctx`'s node (attribute `attrName`) imported into a
/// private function: its block arguments are the captures (inserted at the
/// front as the subgraph reads them) followed by what addArgument adds.
class SubgraphFunction {
public:
  SubgraphFunction(NodeContext &ctx, StringRef attrName,
                   const onnx::GraphProto &graph)
      : ctx(ctx), importer(ctx.importer), graph(graph), attrName(attrName) {
    MLIRContext *context = ctx.builder().getContext();
    OpBuilder detached(context);
    std::string label = ctx.node.name().empty()
                            ? ctx.node.op_type() + std::to_string(ctx.index)
                            : ctx.node.name();
    fn = func::FuncOp::create(detached, ctx.loc,
                              "main__" + label + "_" + attrName.str(),
                              FunctionType::get(context, {}, {}));
    fn.setPrivate();
    // The symbol table makes the name unique.
    SymbolTable(importer.module).insert(fn);
    block = fn.addEntryBlock();
    outerPrefix = importer.errorPrefix;
    std::string prefix;
    llvm::raw_string_ostream os(prefix);
    os << outerPrefix << "node " << ctx.index << " ";
    if (!ctx.node.name().empty())
      os << "'" << ctx.node.name() << "' ";
    os << "(" << ctx.opType() << "), " << attrName << ": ";
    importer.enterSubgraph(block, prefix);
    inside = true;
  }
  ~SubgraphFunction() {
    if (inside)
      importer.exitSubgraph();
  }

  /// An error naming the node (not the subgraph's node being imported).
  InFlightDiagnostic error() {
    std::string inner = std::move(importer.errorPrefix);
    importer.errorPrefix = outerPrefix;
    InFlightDiagnostic diag = ctx.error();
    importer.errorPrefix = std::move(inner);
    diag << attrName << ": ";
    return diag;
  }

  /// A block argument of `type` after those added so far, with the dim
  /// symbols of `like` (the value it will be bound to).
  Value addArgument(Type type, Value like = {}) {
    BlockArgument arg = block->addArgument(type, ctx.loc);
    if (like)
      importer.dimSymbols[arg] = SmallVector<int64_t>(importer.symbolsOf(like));
    return arg;
  }
  /// Binds the subgraph's input `i` to `value` / to a known value.
  void bind(unsigned i, Value value) {
    importer.values[graph.input(i).name()] = value;
  }
  void bindConstant(unsigned i, DenseElementsAttr value) {
    importer.constants[graph.input(i).name()] = value;
  }

  /// Imports the nodes and returns the graph's outputs.
  FailureOr<SmallVector<Value>> importBody() {
    if (graph.sparse_initializer_size() > 0)
      return error() << "sparse initializers are not supported";
    // A subgraph's initializers are known values of its own scope.
    for (const onnx::TensorProto &tensor : graph.initializer()) {
      std::string why;
      std::optional<DenseElementsAttr> value =
          decodeTensor(ctx.builder().getContext(), tensor, why);
      if (!value)
        return error() << "initializer '" << tensor.name() << "' " << why;
      importer.constants[tensor.name()] = *value;
    }
    if (failed(importer.importNodes(graph, block)))
      return failure();
    SmallVector<Value> outputs;
    for (const onnx::ValueInfoProto &output : graph.output()) {
      std::string inner = std::move(importer.errorPrefix);
      importer.errorPrefix = outerPrefix;
      FailureOr<Value> value = importer.lookup(output.name(), ctx);
      importer.errorPrefix = std::move(inner);
      if (failed(value))
        return failure();
      outputs.push_back(*value);
    }
    return outputs;
  }

  /// Returns `results` from the function and leaves the subgraph; the
  /// captures are then known.
  func::FuncOp finish(ValueRange results) {
    func::ReturnOp::create(importer.builder, ctx.loc, results);
    fn.setFunctionType(FunctionType::get(
        fn.getContext(), block->getArgumentTypes(), results.getTypes()));
    captures = importer.exitSubgraph();
    inside = false;
    return fn;
  }

  /// Leaves the subgraph and erases the function (to import it again
  /// another way).
  void abandon() {
    if (inside)
      importer.exitSubgraph();
    inside = false;
    // Forget the dim symbols of its values: a value built later may reuse
    // the address of one.
    fn.walk([&](Operation *op) {
      for (Value v : op->getResults())
        importer.dimSymbols.erase(v);
      for (Region &region : op->getRegions())
        for (Block &b : region)
          for (Value v : b.getArguments())
            importer.dimSymbols.erase(v);
    });
    fn.erase();
  }

  NodeContext &ctx;
  GraphImporter &importer;
  const onnx::GraphProto &graph;
  std::string attrName;
  std::string outerPrefix;
  func::FuncOp fn;
  Block *block = nullptr;
  /// The enclosing values read inside (after finish).
  SmallVector<Value> captures;
  bool inside = false;
};

/// The graph attribute `name` of `ctx`'s node, or an error.
FailureOr<const onnx::GraphProto *> graphAttribute(NodeContext &ctx,
                                                   StringRef name) {
  const onnx::AttributeProto *attr = ctx.attribute(name);
  if (!attr)
    return ctx.error() << "attribute '" << name << "' is missing";
  if (attr->type() != onnx::AttributeProto::GRAPH || !attr->has_g())
    return ctx.error() << "attribute '" << name << "' must be a graph";
  return &attr->g();
}

RankedTensorType scalarType(OpBuilder &b, Type elementType) {
  return RankedTensorType::get({}, elementType);
}

/// `value` (one element of `elementType`) as a rank-0 tensor, or an error
/// naming `what`.
FailureOr<Value> asScalar(NodeContext &ctx, Value value, Type elementType,
                          const Twine &what) {
  auto type = typeOf(value);
  if (type.getElementType() != elementType || !type.hasStaticShape() ||
      type.getNumElements() != 1)
    return ctx.error() << what << " must be one " << elementType
                       << " element, got " << type;
  return reshape(ctx, value, {});
}

/// True when `value` is a constant whose elements are all true.
bool isAlwaysTrue(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!attr || !attr.getElementType().isInteger(1))
    return false;
  return llvm::all_of(attr.getValues<bool>(), [](bool b) { return b; });
}

/// Checks that a body keeps the carried values' types.
LogicalResult checkCarried(SubgraphFunction &body, ValueRange next,
                           TypeRange carried, unsigned firstOutput) {
  for (auto [j, value, type] : llvm::enumerate(next, carried))
    if (value.getType() != type)
      return body.error() << "output " << firstOutput + j << " ('"
                          << body.graph.output(firstOutput + j).name()
                          << "') has type " << value.getType()
                          << " but the value it carries has type " << type
                          << ": a carried value must keep its type";
  return success();
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

/// An If whose condition is known at import (exporters test static shapes:
/// `if x.size(0) > 1`): the branch taken is imported in place, so its
/// values known at import stay known and the other branch, which may not
/// even type-check for these shapes, is never built.
LogicalResult inlineBranch(NodeContext &ctx, const onnx::GraphProto &branch) {
  GraphImporter &importer = ctx.importer;
  if (branch.input_size() != 0)
    return ctx.error() << "a branch takes no inputs, it has "
                       << branch.input_size();
  if (branch.output_size() != ctx.node.output_size())
    return ctx.error() << "the branch taken has " << branch.output_size()
                       << " outputs for the node's " << ctx.node.output_size();
  if (branch.sparse_initializer_size() > 0)
    return ctx.error() << "sparse initializers are not supported";
  for (const onnx::TensorProto &tensor : branch.initializer()) {
    std::string why;
    std::optional<DenseElementsAttr> value =
        decodeTensor(ctx.builder().getContext(), tensor, why);
    if (!value)
      return ctx.error() << "initializer '" << tensor.name() << "' " << why;
    importer.constants[tensor.name()] = *value;
  }
  // Its nodes' errors name the If too.
  std::string outer = importer.errorPrefix;
  llvm::raw_string_ostream os(importer.errorPrefix);
  os << "node " << ctx.index << " ";
  if (!ctx.node.name().empty())
    os << "'" << ctx.node.name() << "' ";
  os << "(If), the branch taken: ";
  LogicalResult imported =
      importer.importNodes(branch, importer.builder.getInsertionBlock());
  importer.errorPrefix = outer;
  if (failed(imported))
    return failure();
  for (auto [i, output] : llvm::enumerate(branch.output())) {
    const std::string &name = output.name();
    if (!ctx.hasOutput(i))
      continue;
    if (auto v = importer.values.find(name); v != importer.values.end())
      ctx.setOutput(i, v->second);
    else if (auto c = importer.constants.find(name);
             c != importer.constants.end())
      ctx.setConstantOutput(i, c->second);
    else if (auto sym = importer.symbolicShapes.find(name);
             sym != importer.symbolicShapes.end())
      importer.symbolicShapes[ctx.node.output(i)] = sym->second;
    else {
      FailureOr<Value> value = importer.lookup(name, ctx);
      if (failed(value))
        return failure();
      ctx.setOutput(i, *value);
    }
  }
  return success();
}

LogicalResult convertIf(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"then_branch", "else_branch"})))
    return failure();
  FailureOr<const onnx::GraphProto *> thenGraph =
      graphAttribute(ctx, "then_branch");
  FailureOr<const onnx::GraphProto *> elseGraph =
      graphAttribute(ctx, "else_branch");
  if (failed(thenGraph) || failed(elseGraph))
    return failure();
  if (std::optional<DenseElementsAttr> known = ctx.constantInput(0)) {
    if (!known->getElementType().isInteger(1) || known->getNumElements() != 1)
      return ctx.error() << "input 0 (cond) must be one i1 element, got "
                         << known->getType();
    return inlineBranch(ctx, *known->getValues<bool>().begin() ? **thenGraph
                                                               : **elseGraph);
  }
  FailureOr<Value> condInput = ctx.input(0);
  if (failed(condInput))
    return failure();
  FailureOr<Value> cond = asScalar(ctx, *condInput, ctx.builder().getI1Type(),
                                   "input 0 (cond)");
  if (failed(cond))
    return failure();

  SmallVector<func::FuncOp> branches;
  SmallVector<SmallVector<Value>> captures;
  SmallVector<TypeRange> outputTypes;
  for (auto [name, graph] : {std::pair{"then_branch", *thenGraph},
                             std::pair{"else_branch", *elseGraph}}) {
    SubgraphFunction branch(ctx, name, *graph);
    if (graph->input_size() != 0)
      return branch.error() << "a branch takes no inputs, it has "
                            << graph->input_size();
    FailureOr<SmallVector<Value>> outputs = branch.importBody();
    if (failed(outputs))
      return failure();
    if (static_cast<int>(outputs->size()) != ctx.node.output_size())
      return branch.error() << "it has " << outputs->size()
                            << " outputs for the node's "
                            << ctx.node.output_size();
    branches.push_back(branch.finish(*outputs));
    captures.push_back(branch.captures);
  }
  func::FuncOp thenFn = branches[0], elseFn = branches[1];
  for (auto [i, onTrue, onFalse] :
       llvm::enumerate(thenFn.getResultTypes(), elseFn.getResultTypes()))
    if (onTrue != onFalse)
      return ctx.error() << "output " << i << " has type " << onTrue
                         << " in then_branch and " << onFalse
                         << " in else_branch; rlx branches return one type";

  // Every branch takes the captures of both: then's, then else's.
  for (Value v : captures[1])
    thenFn.front().addArgument(v.getType(), ctx.loc);
  for (auto [i, v] : llvm::enumerate(captures[0]))
    elseFn.front().insertArgument(i, v.getType(), ctx.loc);
  for (func::FuncOp fn : branches)
    fn.setFunctionType(FunctionType::get(fn.getContext(),
                                         fn.front().getArgumentTypes(),
                                         fn.getResultTypes()));
  SmallVector<Value> args(captures[0]);
  llvm::append_range(args, captures[1]);
  OpBuilder &b = ctx.builder();
  // An i1 index picks the first branch for false.
  auto op = SwitchOp::create(
      b, ctx.loc, thenFn.getResultTypes(), *cond,
      b.getArrayAttr({FlatSymbolRefAttr::get(elseFn),
                      FlatSymbolRefAttr::get(thenFn)}),
      args);
  for (auto [i, result] : llvm::enumerate(op.getResults()))
    ctx.setOutput(i, result);
  return success();
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

/// A Loop's operands and body, checked.
struct LoopParts {
  const onnx::GraphProto *body = nullptr;
  SmallVector<Value> init;
  unsigned numScanOutputs = 0;
  std::optional<Value> tripCount, cond;
  std::optional<int64_t> staticTrips;
  /// For a trip count that is a dynamic dim (`range(x.size(1))`): a 1-D
  /// tensor of that many elements, scanned so the rlx.scan has its length.
  std::optional<Value> stepCarrier;
  bool condStartsTrue = true;
};

/// The stacked type of a scan output whose step gives `slice`.
RankedTensorType stackedType(Type slice, int64_t length) {
  auto type = cast<RankedTensorType>(slice);
  SmallVector<int64_t> shape = {length};
  llvm::append_range(shape, type.getShape());
  return type.clone(shape);
}

/// A Loop whose trip count is known (or a dynamic dim) and whose condition
/// stays true, as an rlx.scan carrying the iteration number. Returns false
/// (having built nothing) when the body's condition is not always true.
FailureOr<bool> convertLoopAsScan(NodeContext &ctx, LoopParts &loop) {
  OpBuilder &b = ctx.builder();
  Type i64 = scalarType(b, b.getI64Type());
  SubgraphFunction body(ctx, "body", *loop.body);
  Value iteration = body.addArgument(i64);
  body.bind(0, iteration);
  // The condition is true on entry to every step.
  body.bindConstant(
      1, DenseElementsAttr::get(scalarType(b, b.getI1Type()), true));
  SmallVector<Value> carried;
  for (auto [j, init] : llvm::enumerate(loop.init)) {
    carried.push_back(body.addArgument(init.getType(), init));
    body.bind(2 + j, carried.back());
  }
  // The carrier's slice: the body does not read it.
  if (loop.stepCarrier)
    body.addArgument(scalarType(b, typeOf(*loop.stepCarrier).getElementType()));
  FailureOr<SmallVector<Value>> outputs = body.importBody();
  if (failed(outputs))
    return failure();
  if (!isAlwaysTrue((*outputs)[0])) {
    body.abandon();
    return false;
  }
  ArrayRef<Value> next = ArrayRef<Value>(*outputs).slice(1, loop.init.size());
  ArrayRef<Value> ys = ArrayRef<Value>(*outputs).drop_front(1 + loop.init.size());
  if (failed(checkCarried(body, next, ValueRange(loop.init).getTypes(), 1)))
    return failure();
  FailureOr<Value> nextIteration =
      ctx.create<AddOp>(iteration, scalar(ctx, b.getI64Type(), 1));
  if (failed(nextIteration))
    return failure();
  SmallVector<Value> results = {*nextIteration};
  llvm::append_range(results, next);
  llvm::append_range(results, ys);
  func::FuncOp fn = body.finish(results);

  SmallVector<Type> resultTypes = {i64};
  llvm::append_range(resultTypes, ValueRange(loop.init).getTypes());
  int64_t length =
      loop.staticTrips ? *loop.staticTrips : ShapedType::kDynamic;
  for (Value y : ys)
    resultTypes.push_back(stackedType(y.getType(), length));
  SmallVector<Value> init = {scalar(ctx, b.getI64Type(), 0)};
  llvm::append_range(init, loop.init);
  SmallVector<Value> xs;
  if (loop.stepCarrier)
    xs.push_back(*loop.stepCarrier);
  auto scan = ScanOp::create(
      b, ctx.loc, resultTypes, FlatSymbolRefAttr::get(fn), body.captures, init,
      xs, loop.staticTrips ? b.getI64IntegerAttr(*loop.staticTrips) : IntegerAttr(),
      b.getBoolAttr(false), b.getI64IntegerAttr(1), IntegerAttr());
  for (auto [i, result] : llvm::enumerate(scan.getResults().drop_front()))
    ctx.setOutput(i, result);
  return true;
}

/// A Loop as an rlx.while on (iteration, condition, carried values): the
/// consts are the captures, then the trip count when there is one.
LogicalResult convertLoopAsWhile(NodeContext &ctx, LoopParts &loop) {
  if (loop.numScanOutputs > 0)
    return ctx.error() << "a Loop with scan outputs needs a trip count known "
                          "at import (at most "
                       << kMaxStaticTrips
                       << ") and a condition that stays true: the number of "
                          "steps must be known before the loop runs";
  if (!loop.tripCount && !loop.cond)
    return ctx.error() << "a Loop without a trip count or a condition never "
                          "ends";
  OpBuilder &b = ctx.builder();
  Type i64 = scalarType(b, b.getI64Type());
  Type flag = scalarType(b, b.getI1Type());
  SubgraphFunction body(ctx, "body", *loop.body);
  if (loop.tripCount)
    body.addArgument(i64);
  Value iteration = body.addArgument(i64);
  Value condition = body.addArgument(flag);
  body.bind(0, iteration);
  body.bind(1, condition);
  for (auto [j, init] : llvm::enumerate(loop.init))
    body.bind(2 + j, body.addArgument(init.getType(), init));
  FailureOr<SmallVector<Value>> outputs = body.importBody();
  if (failed(outputs))
    return failure();
  ArrayRef<Value> next = ArrayRef<Value>(*outputs).drop_front();
  if (failed(checkCarried(body, next, ValueRange(loop.init).getTypes(), 1)))
    return failure();
  FailureOr<Value> nextCondition = asScalar(
      ctx, (*outputs)[0], b.getI1Type(), "the body's output 0 (cond)");
  FailureOr<Value> nextIteration =
      ctx.create<AddOp>(iteration, scalar(ctx, b.getI64Type(), 1));
  if (failed(nextCondition) || failed(nextIteration))
    return failure();
  SmallVector<Value> results = {*nextIteration, *nextCondition};
  llvm::append_range(results, next);
  func::FuncOp bodyFn = body.finish(results);

  // The condition: cond && iteration < trip count, over the same arguments.
  OpBuilder detached(b.getContext());
  auto condFn = func::FuncOp::create(
      detached, ctx.loc, bodyFn.getSymName().str() + "_cond",
      FunctionType::get(b.getContext(), bodyFn.getArgumentTypes(), {flag}));
  condFn.setPrivate();
  SymbolTable(ctx.importer.module).insert(condFn);
  Block *condBlock = condFn.addEntryBlock();
  unsigned first = body.captures.size();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(condBlock);
    Value keepGoing = condBlock->getArgument(first + (loop.tripCount ? 2 : 1));
    if (loop.tripCount) {
      FailureOr<Value> below =
          ctx.create<CompareOp>("lt", condBlock->getArgument(first + 1),
                                condBlock->getArgument(first));
      if (failed(below))
        return failure();
      FailureOr<Value> both = ctx.create<SelectOp>(
          keepGoing, *below, scalar(ctx, b.getI1Type(), 0));
      if (failed(both))
        return failure();
      keepGoing = *both;
    }
    func::ReturnOp::create(b, ctx.loc, keepGoing);
  }

  SmallVector<Value> consts(body.captures);
  if (loop.tripCount)
    consts.push_back(*loop.tripCount);
  SmallVector<Value> init = {scalar(ctx, b.getI64Type(), 0),
                             loop.cond ? *loop.cond
                                       : scalar(ctx, b.getI1Type(), 1)};
  llvm::append_range(init, loop.init);
  auto op = WhileOp::create(b, ctx.loc, ValueRange(init).getTypes(),
                            FlatSymbolRefAttr::get(condFn),
                            FlatSymbolRefAttr::get(bodyFn), consts, init);
  for (auto [i, result] : llvm::enumerate(op.getResults().drop_front(2)))
    ctx.setOutput(i, result);
  return success();
}

LogicalResult convertLoop(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"body"})))
    return failure();
  FailureOr<const onnx::GraphProto *> body = graphAttribute(ctx, "body");
  if (failed(body))
    return failure();
  LoopParts loop;
  loop.body = *body;
  if (ctx.numInputs() < 2)
    return ctx.error() << "expects inputs M and cond (either may be empty)";
  unsigned numCarried = ctx.numInputs() - 2;
  if (loop.body->input_size() != static_cast<int>(numCarried + 2))
    return ctx.error() << "body: it takes " << loop.body->input_size()
                       << " inputs, expected " << numCarried + 2
                       << " (iteration, cond and the carried values)";
  if (loop.body->output_size() < static_cast<int>(numCarried + 1))
    return ctx.error() << "body: it has " << loop.body->output_size()
                       << " outputs, expected at least " << numCarried + 1
                       << " (cond and the carried values)";
  loop.numScanOutputs = loop.body->output_size() - 1 - numCarried;
  if (ctx.node.output_size() > static_cast<int>(numCarried + loop.numScanOutputs))
    return ctx.error() << "it has " << ctx.node.output_size()
                       << " outputs, its body gives "
                       << numCarried + loop.numScanOutputs;
  for (unsigned j = 0; j < numCarried; ++j) {
    FailureOr<Value> init = ctx.input(2 + j);
    if (failed(init))
      return failure();
    loop.init.push_back(*init);
  }
  OpBuilder &b = ctx.builder();
  // M and cond as rank-0 values; known ones as constants (an initializer
  // read here must not become a weight).
  auto scalarInput = [&](unsigned i, Type elementType,
                         const Twine &what) -> FailureOr<Value> {
    std::optional<DenseElementsAttr> known = ctx.constantInput(i);
    FailureOr<Value> value =
        known ? FailureOr<Value>(ctx.importer.materialize(*known, ctx.loc))
              : ctx.input(i);
    if (failed(value))
      return failure();
    return asScalar(ctx, *value, elementType, what);
  };
  if (std::optional<SymbolicShape> m = symbolicInput(ctx, 0);
      m && m->elements.size() == 1 && !m->elements[0].known() &&
      m->elements[0].source) {
    FailureOr<Value> carrier =
        dimCarrier(ctx, m->elements[0].source, m->elements[0].dim);
    if (failed(carrier))
      return failure();
    loop.stepCarrier = *carrier;
  }
  if (ctx.hasInput(0)) {
    FailureOr<Value> trips =
        scalarInput(0, b.getI64Type(), "input 0 (M, the trip count)");
    if (failed(trips))
      return failure();
    loop.tripCount = *trips;
    if (std::optional<DenseElementsAttr> known = ctx.constantInput(0))
      loop.staticTrips = toInts(*known)[0];
  }
  if (ctx.hasInput(1)) {
    FailureOr<Value> cond = scalarInput(1, b.getI1Type(), "input 1 (cond)");
    if (failed(cond))
      return failure();
    loop.cond = *cond;
    std::optional<DenseElementsAttr> known = ctx.constantInput(1);
    loop.condStartsTrue = known && llvm::all_of(known->getValues<bool>(),
                                                [](bool v) { return v; });
  }
  if (((loop.staticTrips && *loop.staticTrips >= 0 &&
        *loop.staticTrips <= kMaxStaticTrips) ||
       loop.stepCarrier) &&
      loop.condStartsTrue) {
    FailureOr<bool> scanned = convertLoopAsScan(ctx, loop);
    if (failed(scanned) || *scanned)
      return scanned;
  }
  return convertLoopAsWhile(ctx, loop);
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

LogicalResult convertScan(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes(
          {"body", "num_scan_inputs", "scan_input_axes",
           "scan_input_directions", "scan_output_axes",
           "scan_output_directions"})))
    return failure();
  FailureOr<const onnx::GraphProto *> bodyGraph = graphAttribute(ctx, "body");
  FailureOr<int64_t> numScanInputs = ctx.getInt("num_scan_inputs", -1);
  if (failed(bodyGraph) || failed(numScanInputs))
    return failure();
  if (*numScanInputs < 1 || *numScanInputs > ctx.numInputs())
    return ctx.unsupportedAttribute(
        "num_scan_inputs", "must be between 1 and the number of inputs, got " +
                               Twine(*numScanInputs));
  unsigned numStates = ctx.numInputs() - *numScanInputs;
  const onnx::GraphProto &graph = **bodyGraph;
  if (graph.input_size() != static_cast<int>(ctx.numInputs()))
    return ctx.error() << "body: it takes " << graph.input_size()
                       << " inputs, expected " << ctx.numInputs()
                       << " (the states, then one slice per scan input)";
  if (graph.output_size() < static_cast<int>(numStates))
    return ctx.error() << "body: it has " << graph.output_size()
                       << " outputs, fewer than the " << numStates
                       << " states";
  unsigned numScanOutputs = graph.output_size() - numStates;
  auto listOf = [&](StringRef name, int64_t size)
      -> FailureOr<SmallVector<int64_t>> {
    FailureOr<SmallVector<int64_t>> list =
        ctx.getInts(name, SmallVector<int64_t>(size, 0));
    if (failed(list))
      return failure();
    if (static_cast<int64_t>(list->size()) != size) {
      (void)ctx.unsupportedAttribute(name, "has " + Twine(list->size()) +
                                               " values for " + Twine(size));
      return failure();
    }
    return list;
  };
  FailureOr<SmallVector<int64_t>> inAxes =
      listOf("scan_input_axes", *numScanInputs);
  FailureOr<SmallVector<int64_t>> inDirections =
      listOf("scan_input_directions", *numScanInputs);
  FailureOr<SmallVector<int64_t>> outAxes =
      listOf("scan_output_axes", numScanOutputs);
  FailureOr<SmallVector<int64_t>> outDirections =
      listOf("scan_output_directions", numScanOutputs);
  if (failed(inAxes) || failed(inDirections) || failed(outAxes) ||
      failed(outDirections))
    return failure();
  for (StringRef name : {"scan_input_directions", "scan_output_directions"})
    for (int64_t d : name == "scan_input_directions" ? *inDirections
                                                     : *outDirections)
      if (d != 0 && d != 1)
        return ctx.unsupportedAttribute(name, "directions are 0 or 1, got " +
                                                  Twine(d));
  // rlx.scan reads every xs in one direction.
  if (!llvm::all_equal(*inDirections))
    return ctx.unsupportedAttribute(
        "scan_input_directions",
        "scan inputs read in different directions are not supported");
  bool reverse = (*inDirections)[0] == 1;

  SmallVector<Value> states, xs;
  for (unsigned j = 0; j < numStates; ++j) {
    FailureOr<Value> state = ctx.input(j);
    if (failed(state))
      return failure();
    states.push_back(*state);
  }
  int64_t length = ShapedType::kDynamic;
  for (int64_t j = 0; j < *numScanInputs; ++j) {
    FailureOr<Value> x = ctx.input(numStates + j);
    if (failed(x))
      return failure();
    int64_t rank = typeOf(*x).getRank();
    if (rank == 0)
      return ctx.error() << "scan input " << j << " is a scalar";
    FailureOr<int64_t> axis =
        normalizeAxis(ctx, (*inAxes)[j], rank, "scan_input_axes value");
    if (failed(axis))
      return failure();
    Value front = *x;
    if (*axis != 0) {
      SmallVector<int64_t> perm = {*axis};
      for (int64_t d = 0; d < rank; ++d)
        if (d != *axis)
          perm.push_back(d);
      FailureOr<Value> moved = transpose(ctx, *x, perm);
      if (failed(moved))
        return failure();
      front = *moved;
    }
    int64_t steps = typeOf(front).getDimSize(0);
    if (!ShapedType::isDynamic(steps)) {
      if (!ShapedType::isDynamic(length) && length != steps)
        return ctx.error() << "scan inputs have " << length << " and "
                           << steps << " steps";
      length = steps;
    }
    xs.push_back(front);
  }

  OpBuilder &b = ctx.builder();
  SubgraphFunction body(ctx, "body", graph);
  for (auto [j, state] : llvm::enumerate(states))
    body.bind(j, body.addArgument(state.getType(), state));
  for (auto [j, x] : llvm::enumerate(xs)) {
    auto type = typeOf(x);
    body.bind(numStates + j,
              body.addArgument(type.clone(type.getShape().drop_front())));
  }
  FailureOr<SmallVector<Value>> outputs = body.importBody();
  if (failed(outputs))
    return failure();
  ArrayRef<Value> next = ArrayRef<Value>(*outputs).take_front(numStates);
  ArrayRef<Value> ys = ArrayRef<Value>(*outputs).drop_front(numStates);
  if (failed(checkCarried(body, next, ValueRange(states).getTypes(), 0)))
    return failure();
  func::FuncOp fn = body.finish(*outputs);

  SmallVector<Type> resultTypes(ValueRange(states).getTypes());
  for (Value y : ys)
    resultTypes.push_back(stackedType(y.getType(), length));
  auto scan = ScanOp::create(b, ctx.loc, resultTypes, FlatSymbolRefAttr::get(fn),
                             body.captures, states, xs, IntegerAttr(),
                             b.getBoolAttr(reverse), b.getI64IntegerAttr(1),
                             IntegerAttr());
  for (auto [j, result] : llvm::enumerate(scan.getCarries()))
    ctx.setOutput(j, result);
  for (auto [k, stacked] : llvm::enumerate(scan.getYs())) {
    Value y = stacked;
    // rlx.scan stores step i's output at i whichever way it runs; ONNX
    // stores it at the end it counts from.
    if (((*outDirections)[k] == 1) != reverse) {
      if (ShapedType::isDynamic(length))
        return ctx.unsupportedAttribute(
            "scan_output_directions",
            "an output stacked against the scan's direction needs a number "
            "of steps known at import");
      SmallVector<int64_t> reversed;
      for (int64_t i = length - 1; i >= 0; --i)
        reversed.push_back(i);
      Value indices = ctx.importer.materialize(
          intsAttr(b.getContext(), reversed, {length}, b.getI64Type()),
          ctx.loc);
      FailureOr<Value> flipped = ctx.create<GatherOp>(y, indices, uint64_t(0));
      if (failed(flipped))
        return failure();
      y = *flipped;
    }
    int64_t rank = typeOf(y).getRank();
    FailureOr<int64_t> axis =
        normalizeAxis(ctx, (*outAxes)[k], rank, "scan_output_axes value");
    if (failed(axis))
      return failure();
    if (*axis != 0) {
      SmallVector<int64_t> perm;
      for (int64_t d = 1; d <= *axis; ++d)
        perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = *axis + 1; d < rank; ++d)
        perm.push_back(d);
      FailureOr<Value> moved = transpose(ctx, y, perm);
      if (failed(moved))
        return failure();
      y = *moved;
    }
    ctx.setOutput(numStates + k, y);
  }
  return success();
}

} // namespace

void addControlFlowOps(llvm::StringMap<OpConverter> &t) {
  t["If"] = convertIf;
  t["Loop"] = convertLoop;
  t["Scan"] = convertScan;
}

} // namespace mlir::rlx::onnx_import
