//===- MarkerExpansion.cpp - What the marker expansions share -------------===//
///
/// \file
/// Readiness, the recursion check, flattening, the forward sweep and scratch
/// functions, shared by rlx-reverse-mode, rlx-forward-mode, rlx-expand-vmap
/// and rlx-expand-jacobians.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/Transforms/MarkerExpansion.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The functions `fn` names anywhere in its body: callees of calls,
/// markers and custom rules, and the rules' fwd, bwd and jvp.
SmallVector<func::FuncOp> namedFunctions(func::FuncOp fn,
                                         SymbolTableCollection &symbols) {
  SmallVector<func::FuncOp> named;
  if (auto uses = SymbolTable::getSymbolUses(&fn.getBody()))
    for (const SymbolTable::SymbolUse &use : *uses)
      if (auto target = symbols.lookupNearestSymbolFrom<func::FuncOp>(
              use.getUser(), use.getSymbolRef()))
        named.push_back(target);
  return named;
}

/// Finds functions that reach themselves through the functions they name.
class CycleFinder {
public:
  explicit CycleFinder(SymbolTableCollection &symbols) : symbols(symbols) {}

  /// A cycle reachable from `fn`, its first function repeated at its end;
  /// empty when there is none.
  SmallVector<func::FuncOp> find(func::FuncOp fn) {
    auto [it, isNew] = visited.try_emplace(fn, /*done=*/false);
    if (!isNew) {
      if (it->second)
        return {};
      SmallVector<func::FuncOp> cycle(llvm::find(path, fn), path.end());
      cycle.push_back(fn);
      return cycle;
    }
    path.push_back(fn);
    for (func::FuncOp next : namedFunctions(fn, symbols))
      if (SmallVector<func::FuncOp> cycle = find(next); !cycle.empty())
        return cycle;
    path.pop_back();
    visited[fn] = true;
    return {};
  }

private:
  SymbolTableCollection &symbols;
  llvm::DenseMap<Operation *, bool> visited; ///< true once fully explored
  SmallVector<func::FuncOp> path;
};

} // namespace

LogicalResult mlir::rlx::checkNoRecursion(ModuleOp module,
                                    SymbolTableCollection &symbols) {
  CycleFinder finder(symbols);
  WalkResult result = module.walk([&](Operation *op) {
    auto marker = dyn_cast<TransformMarkerOpInterface>(op);
    if (!marker)
      return WalkResult::advance();
    func::FuncOp callee = marker.resolveCallee(symbols);
    if (!callee)
      return WalkResult::advance(); // the expansion reports it
    SmallVector<func::FuncOp> cycle = finder.find(callee);
    if (cycle.empty())
      return WalkResult::advance();
    std::string path;
    for (func::FuncOp fn : cycle)
      path += (path.empty() ? "@" : " -> @") + fn.getSymName().str();
    InFlightDiagnostic diag = op->emitOpError("cannot transform @")
                              << callee.getSymName() << ": ";
    if (cycle.front() == callee)
      diag << "it is recursive (" << path << ")";
    else
      diag << "it reaches recursive @" << cycle.front().getSymName() << " ("
           << path << ")";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

bool mlir::rlx::hasMarkers(ModuleOp module) {
  return module
      .walk([](TransformMarkerOpInterface) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Whether `fn` holds a marker or names a function that reaches one. The
/// names form a DAG below every marker's callee (checkNoRecursion); a
/// function being explored counts as marker-free so that a cycle elsewhere
/// does not loop.
bool MarkerExpansion::reachesMarker(func::FuncOp fn) {
  auto [it, isNew] = reaches.try_emplace(fn, false);
  if (!isNew)
    return it->second;
  bool result =
      fn.walk([](TransformMarkerOpInterface) { return WalkResult::interrupt(); })
          .wasInterrupted() ||
      llvm::any_of(namedFunctions(fn, symbols),
                   [&](func::FuncOp next) { return reachesMarker(next); });
  reaches[fn] = result;
  return result;
}

SmallVector<TransformMarkerOpInterface>
MarkerExpansion::readyMarkers(function_ref<bool(Operation *)> ofKind) {
  SmallVector<TransformMarkerOpInterface> ready;
  module.walk([&](TransformMarkerOpInterface marker) {
    if (!ofKind(marker))
      return;
    func::FuncOp callee = marker.resolveCallee(symbols);
    // An unresolved callee is ready: its expansion reports it.
    if (!callee || !reachesMarker(callee))
      ready.push_back(marker);
  });
  return ready;
}

FailureOr<func::FuncOp> MarkerExpansion::flatten(func::FuncOp callee) {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  auto flat = cast<func::FuncOp>(b.clone(*callee));
  flat.setPrivate();
  flat->removeAttr(kScratchAttrName);
  flat.setSymName((callee.getSymName() + "__rlx_ad_" + Twine(counter++)).str());
  symbols.getSymbolTable(module).insert(flat);
  flattened.push_back(flat);
  // Ends: calls do not recurse (checkNoRecursion).
  while (true) {
    SmallVector<func::CallOp> calls;
    flat.walk([&](func::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      break;
    for (func::CallOp call : calls)
      if (failed(inlineCall(call)))
        return failure();
  }
  if (failed(makeBodyParamsExplicit(flat)))
    return failure();
  if (!flat.getBody().hasOneBlock())
    return callee.emitError("cannot differentiate @")
           << callee.getSymName() << ": control flow is not supported yet";
  return flat;
}

/// Flattened copies of `bodies` (kept: the rebuilt op names them) taking
/// `params` as arguments from `position` on, in order, instead of reading
/// them.
FailureOr<SmallVector<func::FuncOp>> MarkerExpansion::withParamArguments(
    ArrayRef<func::FuncOp> bodies,
    const llvm::MapVector<StringRef, RankedTensorType> &params,
    unsigned position) {
  SmallVector<func::FuncOp> flats;
  for (func::FuncOp body : bodies) {
    FailureOr<func::FuncOp> flat = flatten(body);
    if (failed(flat))
      return failure();
    kept.insert(*flat);
    llvm::StringMap<SmallVector<ParamOp>> reads;
    flat->walk([&](ParamOp op) { reads[op.getName()].push_back(op); });
    for (auto [j, param] : llvm::enumerate(params)) {
      unsigned index = position + j;
      if (failed(flat->insertArgument(index, param.second, {}, body.getLoc())))
        return body.emitOpError("cannot take param '") << param.first << "'";
      for (ParamOp op : reads.lookup(param.first)) {
        op.getResult().replaceAllUsesWith(flat->getArgument(index));
        op.erase();
      }
    }
    flats.push_back(*flat);
  }
  return flats;
}

/// The params `bodies` read (through calls and nested loops), in order.
static llvm::MapVector<StringRef, RankedTensorType>
paramsOf(ArrayRef<func::FuncOp> bodies, SymbolTableCollection &symbols) {
  llvm::MapVector<StringRef, RankedTensorType> all;
  for (func::FuncOp body : bodies)
    for (auto &[name, type] : collectParams(body, symbols))
      all.insert({name, type});
  return all;
}

/// Differentiating an op that calls functions (remat, a loop, a branch)
/// differentiates its callees w.r.t. its operands; params the callees read
/// must be operands too, or their adjoints would be lost. Each such op is
/// rebuilt over flattened callees that take them as arguments: after a
/// remat's arguments, after a loop's consts, after a switch's arguments.
LogicalResult MarkerExpansion::makeBodyParamsExplicit(func::FuncOp func) {
  SmallVector<Operation *> users;
  func.walk([&](Operation *op) {
    if (isa<RematOp, ScanOp, WhileOp, SwitchOp>(op))
      users.push_back(op);
  });
  for (Operation *op : users) {
    auto lookup = [&](Attribute name) {
      return symbols.lookupNearestSymbolFrom<func::FuncOp>(
          op, cast<FlatSymbolRefAttr>(name));
    };
    SmallVector<func::FuncOp> bodies;
    unsigned position = 0;
    if (auto remat = dyn_cast<RematOp>(op)) {
      bodies.push_back(lookup(remat.getCalleeAttr()));
      position = remat.getArgs().size();
    } else if (auto scan = dyn_cast<ScanOp>(op)) {
      bodies.push_back(lookup(scan.getBodyAttr()));
      position = scan.getConsts().size();
    } else if (auto loop = dyn_cast<WhileOp>(op)) {
      bodies.push_back(lookup(loop.getCondAttr()));
      bodies.push_back(lookup(loop.getBodyAttr()));
      position = loop.getConsts().size();
    } else {
      auto sw = cast<SwitchOp>(op);
      for (Attribute branch : sw.getBranches())
        bodies.push_back(lookup(branch));
      position = sw.getArgs().size();
    }
    if (llvm::is_contained(bodies, func::FuncOp()))
      continue; // the verifier reports it
    llvm::MapVector<StringRef, RankedTensorType> params =
        paramsOf(bodies, symbols);
    if (params.empty())
      continue;
    FailureOr<SmallVector<func::FuncOp>> flats =
        withParamArguments(bodies, params, position);
    if (failed(flats))
      return failure();
    OpBuilder b(op);
    SmallVector<Value> reads;
    for (auto &[name, type] : params)
      reads.push_back(
          ParamOp::create(b, op->getLoc(), type, b.getStringAttr(name)));
    auto ref = [](func::FuncOp fn) { return FlatSymbolRefAttr::get(fn); };
    Operation *rebuilt;
    if (auto remat = dyn_cast<RematOp>(op)) {
      SmallVector<Value> operands(remat.getArgs());
      llvm::append_range(operands, reads);
      rebuilt = RematOp::create(b, op->getLoc(), op->getResultTypes(),
                                ref((*flats)[0]), operands);
    } else if (auto scan = dyn_cast<ScanOp>(op)) {
      SmallVector<Value> consts(scan.getConsts());
      llvm::append_range(consts, reads);
      rebuilt = ScanOp::create(b, op->getLoc(), op->getResultTypes(),
                               ref((*flats)[0]), consts, scan.getInit(),
                               scan.getXs(), scan.getLengthAttr(),
                               scan.getReverseAttr(), scan.getUnrollAttr(),
                               scan.getCheckpointEveryAttr());
    } else if (auto loop = dyn_cast<WhileOp>(op)) {
      SmallVector<Value> consts(loop.getConsts());
      llvm::append_range(consts, reads);
      rebuilt = WhileOp::create(b, op->getLoc(), op->getResultTypes(),
                                ref((*flats)[0]), ref((*flats)[1]), consts,
                                loop.getInit());
    } else {
      auto sw = cast<SwitchOp>(op);
      SmallVector<Value> args(sw.getArgs());
      llvm::append_range(args, reads);
      SmallVector<Attribute> branches;
      for (func::FuncOp flat : *flats)
        branches.push_back(ref(flat));
      rebuilt = SwitchOp::create(b, op->getLoc(), op->getResultTypes(),
                                 sw.getIndex(), b.getArrayAttr(branches), args);
    }
    op->replaceAllUsesWith(rebuilt->getResults());
    op->erase();
  }
  return success();
}

LogicalResult MarkerExpansion::inlineCall(func::CallOp call) {
  auto target = symbols.lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!target || target.isExternal() || !target.getBody().hasOneBlock())
    return call.emitOpError("cannot be differentiated through: its callee "
                            "needs a single-block body");
  OpBuilder b(call);
  IRMapping mapping;
  Block &body = target.getBody().front();
  mapping.map(body.getArguments(), call.getOperands());
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [result, value] : llvm::zip(call.getResults(), ret.getOperands()))
    result.replaceAllUsesWith(mapping.lookup(value));
  call.erase();
  return success();
}

FailureOr<MarkerExpansion::Forward>
MarkerExpansion::cloneForward(func::FuncOp flat, ValueRange args,
                              ArrayRef<Leaf> leaves, OpBuilder &b,
                              function_ref<LogicalResult(Operation *)> onClone) {
  Forward fwd;
  IRMapping mapping;
  Block &body = flat.getBody().front();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Value v = args[i];
    unsigned index = i;
    bool isLeaf = llvm::any_of(leaves, [&](const Leaf &l) {
      return !l.isParam && l.input == index;
    });
    if (isLeaf)
      v = tensor::CastOp::create(b, v.getLoc(), v.getType(), v);
    mapping.map(arg, v);
    fwd.inputs.push_back(v);
  }
  for (Operation &op : body.without_terminator()) {
    Operation *clone = b.clone(op, mapping);
    fwd.ops.push_back(clone);
    if (auto param = dyn_cast<ParamOp>(clone))
      fwd.params[param.getName()].push_back(param.getResult());
    if (onClone && failed(onClone(clone)))
      return failure();
  }
  for (Value v : body.getTerminator()->getOperands())
    fwd.results.push_back(mapping.lookupOrDefault(v));
  return fwd;
}

func::FuncOp MarkerExpansion::scratchFunction(
    StringRef name, TypeRange inputs, TypeRange results, Location loc,
    function_ref<SmallVector<Value>(OpBuilder &, ValueRange)> build) {
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(mb, loc,
                                 (name + "__rlx_" + Twine(counter++)).str(),
                                 mb.getFunctionType(inputs, results));
  fn.setPrivate();
  fn->setAttr(kScratchAttrName, mb.getUnitAttr());
  symbols.getSymbolTable(module).insert(fn);
  Block *body = fn.addEntryBlock();
  OpBuilder b(body, body->end());
  func::ReturnOp::create(b, loc, build(b, body->getArguments()));
  return fn;
}

void MarkerExpansion::eraseFlattened() {
  for (func::FuncOp f : llvm::reverse(flattened))
    if (!kept.contains(f))
      symbols.getSymbolTable(module).erase(f);
  flattened.clear();
}
