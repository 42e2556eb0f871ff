//===- Autodiff.cpp - Expanding differentiation markers -------------------===//
///
/// \file
/// rlx-autodiff: every grad, value_and_grad, vjp, jvp and hvp marker becomes
/// plain rlx ops at its position. The callee is first flattened into a
/// scratch function (calls inlined, its own markers expanded: innermost
/// first, so markers compose), then cloned at the marker as the forward
/// sweep. Reverse mode walks the clones backwards asking each op for its VJP;
/// forward mode asks each clone for its JVP as it is made. Rules come from
/// DifferentiableOpInterface and BatchableOpInterface; nothing here knows an
/// op's kind. The pass owns one SymbolTableCollection: its lookups, the
/// functions it adds and those rules add (a batched custom_vjp's mapped fwd
/// and bwd) all go through it. A marker whose callee reaches a recursive
/// function is an error naming the cycle; without one, expansion ends.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/MarkerUtils.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace rlx {
#define GEN_PASS_DEF_RLXAUTODIFF
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace rlx

using namespace mlir;
using namespace rlx;

namespace {

bool isMarker(Operation *op) { return isa<TransformMarkerOpInterface>(op); }

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

/// Fails at each marker whose callee reaches a recursive function: flattening
/// would inline or expand it forever. Without one, expansion ends: the
/// functions form a DAG through the names they use, and every marker that
/// expanding a marker emits (a rule's, or one a flattened callee held) names
/// a function below the one the expanded marker named; functions the
/// expansion adds only name functions below the marker's callee.
LogicalResult checkNoRecursion(ModuleOp module,
                               SymbolTableCollection &symbols) {
  CycleFinder finder(symbols);
  WalkResult result = module.walk([&](Operation *op) {
    if (!isMarker(op))
      return WalkResult::advance();
    auto name = op->getAttrOfType<FlatSymbolRefAttr>("callee");
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(op, name);
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

class Expander {
public:
  Expander(ModuleOp module) : module(module) {}

  /// Expands every marker in `func`, innermost first. Rules may emit
  /// markers (remat's VJP is a vjp marker): repeat until none is left. This
  /// ends because checkNoRecursion held: a marker a rule emits names a
  /// function below the one whose expansion emitted it.
  LogicalResult expandAllIn(func::FuncOp func) {
    while (true) {
      SmallVector<Operation *> markers;
      func.walk([&](Operation *op) {
        if (isMarker(op))
          markers.push_back(op);
      });
      if (markers.empty())
        return success();
      for (Operation *marker : markers)
        if (failed(expand(marker)))
          return failure();
    }
  }

  /// The module's symbol tables: every lookup of the expansion, and every
  /// function it or a rule adds, goes through them.
  SymbolTableCollection &getSymbols() { return symbols; }

private:
  /// A private copy of `callee` with every call inlined and every marker
  /// expanded.
  FailureOr<func::FuncOp> flatten(func::FuncOp callee) {
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto flat = cast<func::FuncOp>(b.clone(*callee));
    flat.setPrivate();
    flat.setSymName(
        (callee.getSymName() + "__rlx_ad_" + Twine(counter++)).str());
    symbols.getSymbolTable(module).insert(flat);
    scratch.push_back(flat);
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
    if (failed(expandAllIn(flat)))
      return failure();
    if (failed(makeRematParamsExplicit(flat)))
      return failure();
    if (!flat.getBody().hasOneBlock())
      return callee.emitError("cannot differentiate @")
             << callee.getSymName() << ": control flow is not supported yet";
    return flat;
  }

  /// A remat's VJP differentiates its callee w.r.t. its operands; params the
  /// callee reads must be operands too, or their adjoints would be lost.
  /// Each such remat gets a flattened callee that takes them as arguments.
  LogicalResult makeRematParamsExplicit(func::FuncOp func) {
    SmallVector<RematOp> remats;
    func.walk([&](RematOp op) { remats.push_back(op); });
    for (RematOp remat : remats) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          remat, remat.getCalleeAttr());
      if (!callee || collectParams(callee, symbols).empty())
        continue;
      FailureOr<func::FuncOp> flat = flatten(callee);
      if (failed(flat))
        return failure();
      // The remat (a call once expanded) refers to it: not scratch.
      kept.insert(*flat);
      // Param reads of the flat callee become trailing arguments.
      llvm::MapVector<StringRef, SmallVector<ParamOp>> reads;
      flat->walk([&](ParamOp op) { reads[op.getName()].push_back(op); });
      OpBuilder b(remat);
      SmallVector<Value> operands(remat.getArgs());
      for (auto &[name, ops] : reads) {
        unsigned index = flat->getNumArguments();
        if (failed(flat->insertArgument(index, ops.front().getType(), {},
                                        ops.front().getLoc())))
          return remat.emitOpError("cannot pass param '") << name << "'";
        for (ParamOp op : ops) {
          op.getResult().replaceAllUsesWith(flat->getArgument(index));
          op.erase();
        }
        operands.push_back(ParamOp::create(b, remat.getLoc(),
                                           flat->getArgumentTypes()[index],
                                           b.getStringAttr(name)));
      }
      auto explicitRemat =
          RematOp::create(b, remat.getLoc(), remat.getResultTypes(),
                          FlatSymbolRefAttr::get(*flat), operands);
      remat->replaceAllUsesWith(explicitRemat.getResults());
      remat.erase();
    }
    return success();
  }

  LogicalResult inlineCall(func::CallOp call) {
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

  /// The forward sweep: `flat`'s body cloned before `at`, its arguments
  /// bound to `args`. Leaf inputs get a fresh identity (tensor.cast) so that
  /// the same value passed twice keeps two adjoints.
  struct Forward {
    SmallVector<Operation *> ops;     ///< clones, in order
    SmallVector<Value> inputs;        ///< per flat argument
    SmallVector<Value> results;       ///< per flat result
    llvm::StringMap<SmallVector<Value>> params; ///< per param name
  };

  Forward cloneForward(func::FuncOp flat, ValueRange args,
                       ArrayRef<Leaf> leaves, OpBuilder &b,
                       function_ref<LogicalResult(Operation *, Operation *)>
                           onClone,
                       LogicalResult &status) {
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
    status = success();
    for (Operation &op : body.without_terminator()) {
      Operation *clone = b.clone(op, mapping);
      fwd.ops.push_back(clone);
      if (auto param = dyn_cast<ParamOp>(clone))
        fwd.params[param.getName()].push_back(param.getResult());
      if (onClone && failed(onClone(&op, clone))) {
        status = failure();
        return fwd;
      }
    }
    for (Value v : body.getTerminator()->getOperands())
      fwd.results.push_back(mapping.lookupOrDefault(v));
    return fwd;
  }

  /// Reverse mode: adjoints of the leaves given seeds on the results.
  FailureOr<SmallVector<Value>>
  reverse(const Forward &fwd, ArrayRef<Value> seeds, ArrayRef<Leaf> leaves,
          OpBuilder &b, Location loc) {
    llvm::DenseMap<Value, Value> adjoints;
    ad::RuleBuilder rb{b, loc};
    auto accumulate = [&](Value v, Value adj) {
      Value &slot = adjoints[v];
      slot = slot ? ad::add(rb, slot, adj) : adj;
    };
    for (auto [result, seed] : llvm::zip(fwd.results, seeds))
      if (seed)
        accumulate(result, seed);
    for (Operation *op : llvm::reverse(fwd.ops)) {
      SmallVector<Value> resultAdjoints;
      bool any = false;
      for (Value r : op->getResults()) {
        resultAdjoints.push_back(adjoints.lookup(r));
        any |= static_cast<bool>(resultAdjoints.back());
      }
      if (!any)
        continue;
      auto rule = dyn_cast<DifferentiableOpInterface>(op);
      if (!rule)
        return op->emitOpError("has no VJP rule: it cannot be differentiated");
      for (Value &adj : resultAdjoints)
        if (!adj)
          adj = ad::zerosLike({b, op->getLoc()}, op->getResult(
                                                     &adj - resultAdjoints.data()));
      SmallVector<Value> operandAdjoints;
      OpBuilder::InsertionGuard guard(b);
      if (failed(rule.buildVJP(b, resultAdjoints, operandAdjoints, symbols)))
        return failure();
      for (auto [operand, adj] :
           llvm::zip(op->getOperands(), operandAdjoints))
        if (adj)
          accumulate(operand, adj);
    }
    SmallVector<Value> out;
    for (const Leaf &leaf : leaves) {
      Value total;
      if (leaf.isParam) {
        for (Value p : fwd.params.lookup(leaf.paramName))
          if (Value adj = adjoints.lookup(p))
            total = total ? ad::add(rb, total, adj) : adj;
        if (!total)
          total = ad::zerosLike(rb, zerosSource(leaf, fwd, b, loc));
      } else {
        Value input = fwd.inputs[leaf.input];
        total = adjoints.lookup(input);
        if (!total)
          total = ad::zerosLike(rb, input);
      }
      out.push_back(total);
    }
    return out;
  }

  /// A value of the leaf's (static) type to shape zeros after.
  Value zerosSource(const Leaf &leaf, const Forward &fwd, OpBuilder &b,
                    Location loc) {
    auto params = fwd.params.lookup(leaf.paramName);
    if (!params.empty())
      return params.front();
    return ParamOp::create(b, loc, leaf.type, b.getStringAttr(leaf.paramName));
  }

  /// vmap: the flattened callee rebuilt op by op with batching rules;
  /// batched values carry the batch in front until the results are placed.
  LogicalResult expandVmap(VmapOp vmap) {
    auto callee = vmap.resolveCallee(symbols);
    if (!callee)
      return vmap.emitOpError("cannot resolve its callee");
    FailureOr<func::FuncOp> flat = flatten(callee);
    if (failed(flat))
      return failure();
    OpBuilder b(vmap);
    ad::RuleBuilder rb{b, vmap.getLoc()};
    IRMapping mapping;
    llvm::DenseSet<Value> batched;
    Value anyBatched;
    Block &body = flat->getBody().front();
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      Value v = vmap.getArgs()[i];
      if (auto axisAttr = dyn_cast<IntegerAttr>(vmap.getInAxes()[i])) {
        int64_t rank = ad::tensorType(v).getRank();
        int64_t axis = axisAttr.getInt() < 0 ? axisAttr.getInt() + rank
                                             : axisAttr.getInt();
        if (axis != 0) {
          SmallVector<int64_t> perm = {axis};
          for (int64_t d = 0; d < rank; ++d)
            if (d != axis)
              perm.push_back(d);
          v = ad::transpose(rb, v, perm);
        }
        batched.insert(v);
        anyBatched = v;
      }
      mapping.map(arg, v);
    }
    for (Operation &op : body.without_terminator()) {
      SmallVector<Value> operands;
      SmallVector<bool> isBatched;
      for (Value operand : op.getOperands()) {
        operands.push_back(mapping.lookupOrDefault(operand));
        isBatched.push_back(batched.contains(operands.back()));
      }
      if (!llvm::is_contained(isBatched, true)) {
        b.clone(op, mapping);
        continue;
      }
      auto rule = dyn_cast<BatchableOpInterface>(&op);
      if (!rule)
        return op.emitOpError("has no batching rule: it cannot be vmapped");
      SmallVector<Value> results;
      if (failed(rule.buildBatched(b, operands, isBatched, results, symbols)))
        return failure();
      for (auto [old, now] : llvm::zip(op.getResults(), results)) {
        mapping.map(old, now);
        batched.insert(now);
      }
    }
    SmallVector<Value> replacements;
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      Value v = mapping.lookupOrDefault(value);
      if (!batched.contains(v))
        v = ad::broadcastToBatch(rb, v, anyBatched);
      int64_t rank = ad::tensorType(v).getRank();
      int64_t axis = vmap.getOutAxes()[i];
      if (axis < 0)
        axis += rank;
      if (axis != 0) {
        SmallVector<int64_t> perm;
        for (int64_t d = 1; d <= axis; ++d)
          perm.push_back(d);
        perm.push_back(0);
        for (int64_t d = axis + 1; d < rank; ++d)
          perm.push_back(d);
        v = ad::transpose(rb, v, perm);
      }
      replacements.push_back(ad::reshapeTo(
          rb, v, cast<RankedTensorType>(vmap.getResult(i).getType())));
    }
    vmap->replaceAllUsesWith(replacements);
    vmap.erase();
    return success();
  }

  /// A private scratch function `name(types) -> results` whose body `build`
  /// fills (given the entry block arguments) and returns.
  func::FuncOp scratchFunction(StringRef name, TypeRange inputs,
                               TypeRange results, Location loc,
                               function_ref<SmallVector<Value>(
                                   OpBuilder &, ValueRange)> build) {
    OpBuilder mb(module.getBodyRegion());
    mb.setInsertionPointToEnd(module.getBody());
    auto fn = func::FuncOp::create(
        mb, loc, (name + "__rlx_" + Twine(counter++)).str(),
        mb.getFunctionType(inputs, results));
    fn.setPrivate();
    symbols.getSymbolTable(module).insert(fn);
    scratch.push_back(fn);
    Block *body = fn.addEntryBlock();
    OpBuilder b(body, body->end());
    func::ReturnOp::create(b, loc, build(b, body->getArguments()));
    return fn;
  }

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
  LogicalResult expandJacobian(Operation *op) {
    Location loc = op->getLoc();
    auto calleeName = op->getAttrOfType<FlatSymbolRefAttr>("callee");
    auto callee =
        symbols.lookupNearestSymbolFrom<func::FuncOp>(op, calleeName);
    int64_t wrt = op->getAttrOfType<IntegerAttr>("wrt").getInt();
    ValueRange args = op->getOperands();
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
    if (isa<HessianOp>(op)) {
      // The gradient as a function, then its forward-mode Jacobian.
      func::FuncOp gradFn = scratchFunction(
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
    } else if (isa<JacfwdOp>(op)) {
      SmallVector<Type> types(argTypes);
      types.push_back(in);
      func::FuncOp jvpFn = scratchFunction(
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
      func::FuncOp vjpFn = scratchFunction(
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

  LogicalResult expand(Operation *marker) {
    if (auto vmap = dyn_cast<VmapOp>(marker))
      return expandVmap(vmap);
    if (isa<JacfwdOp, JacrevOp, HessianOp>(marker))
      return expandJacobian(marker);
    auto info = cast<TransformMarkerOpInterface>(marker);
    func::FuncOp callee = info.resolveCallee(symbols);
    if (!callee)
      return marker->emitOpError("cannot resolve its callee");
    if (auto hvp = dyn_cast<HVPOp>(marker))
      return expandHVP(hvp, callee);
    FailureOr<SmallVector<Leaf>> leaves = info.getLeaves(callee, symbols);
    if (failed(leaves))
      return failure();
    FailureOr<func::FuncOp> flat = flatten(callee);
    if (failed(flat))
      return failure();
    OpBuilder b(marker);
    Location loc = marker->getLoc();
    ad::RuleBuilder rb{b, loc};

    if (auto jvp = dyn_cast<JVPOp>(marker))
      return expandJVP(jvp, *flat, *leaves);

    LogicalResult status = success();
    Forward fwd = cloneForward(*flat, info.getArgs(), *leaves, b, nullptr, status);
    SmallVector<Value> seeds(fwd.results.size());
    SmallVector<Value> replacements;
    if (auto vjp = dyn_cast<VJPOp>(marker)) {
      llvm::copy(vjp.getCotangents(), seeds.begin());
      llvm::append_range(replacements, fwd.results);
    } else {
      seeds[0] = ad::add(rb, ad::zerosLike(rb, fwd.results[0]),
                         ad::scalarLike(rb, fwd.results[0], 1));
      if (isa<ValueAndGradOp>(marker))
        llvm::append_range(replacements, fwd.results);
    }
    FailureOr<SmallVector<Value>> grads =
        reverse(fwd, seeds, *leaves, b, loc);
    if (failed(grads))
      return failure();
    llvm::append_range(replacements, *grads);
    marker->replaceAllUsesWith(replacements);
    marker->erase();
    return success();
  }

  LogicalResult expandJVP(JVPOp jvp, func::FuncOp flat,
                          ArrayRef<Leaf> leaves) {
    OpBuilder b(jvp);
    Location loc = jvp.getLoc();
    llvm::DenseMap<Value, Value> tangents;
    llvm::StringMap<Value> paramTangents;
    // Input leaves: a fresh identity each, seeded before any op is cloned,
    // so the same value passed twice keeps two tangents.
    SmallVector<Value> args(jvp.getArgs().begin(), jvp.getArgs().end());
    for (auto [leaf, t] : llvm::zip(leaves, jvp.getTangents())) {
      if (leaf.isParam) {
        paramTangents[leaf.paramName] = t;
        continue;
      }
      Value identity = tensor::CastOp::create(
          b, loc, args[leaf.input].getType(), args[leaf.input]);
      args[leaf.input] = identity;
      tangents[identity] = t;
    }
    auto onClone = [&](Operation *, Operation *clone) -> LogicalResult {
      if (auto param = dyn_cast<ParamOp>(clone)) {
        if (Value t = paramTangents.lookup(param.getName()))
          tangents[param.getResult()] = t;
        return success();
      }
      SmallVector<Value> operandTangents;
      bool any = false;
      for (Value operand : clone->getOperands()) {
        operandTangents.push_back(tangents.lookup(operand));
        any |= static_cast<bool>(operandTangents.back());
      }
      if (!any)
        return success();
      auto rule = dyn_cast<DifferentiableOpInterface>(clone);
      if (!rule)
        return clone->emitOpError(
            "has no JVP rule: it cannot be differentiated");
      SmallVector<Value> resultTangents;
      if (failed(rule.buildJVP(b, operandTangents, resultTangents, symbols)))
        return failure();
      for (auto [r, t] : llvm::zip(clone->getResults(), resultTangents))
        if (t)
          tangents[r] = t;
      return success();
    };
    LogicalResult status = success();
    Forward fwd = cloneForward(flat, args, /*leaves=*/{}, b, onClone, status);
    if (failed(status))
      return failure();
    SmallVector<Value> replacements(fwd.results);
    ad::RuleBuilder rb{b, loc};
    for (Value r : fwd.results) {
      Value t = tangents.lookup(r);
      replacements.push_back(t ? t : ad::zerosLike(rb, r));
    }
    jvp->replaceAllUsesWith(replacements);
    jvp.erase();
    return success();
  }

  /// hvp(f) = jvp(grad f): a scratch function returning the gradient, then
  /// a jvp marker over it, expanded in place.
  LogicalResult expandHVP(HVPOp hvp, func::FuncOp callee) {
    FailureOr<SmallVector<Leaf>> leaves = hvp.getLeaves(callee, symbols);
    if (failed(leaves))
      return failure();
    OpBuilder mb(module.getBodyRegion());
    mb.setInsertionPointToEnd(module.getBody());
    Location loc = hvp.getLoc();
    SmallVector<Type> gradTypes(hvp.getResultTypes());
    auto gradFn = func::FuncOp::create(
        mb, loc, (callee.getSymName() + "__rlx_hvp_" + Twine(counter++)).str(),
        mb.getFunctionType(callee.getArgumentTypes(), gradTypes));
    gradFn.setPrivate();
    symbols.getSymbolTable(module).insert(gradFn);
    scratch.push_back(gradFn);
    Block *body = gradFn.addEntryBlock();
    OpBuilder b(body, body->end());
    auto grad = GradOp::create(b, loc, gradTypes,
                               FlatSymbolRefAttr::get(callee),
                               body->getArguments(), hvp.getWrtAttr(),
                               hvp.getWrtParamsAttr());
    func::ReturnOp::create(b, loc, grad.getResults());
    // The jvp's results: the gradients, then their tangents.
    SmallVector<Type> jvpTypes(gradTypes);
    llvm::append_range(jvpTypes, gradTypes);
    OpBuilder hb(hvp);
    auto jvp = JVPOp::create(hb, loc, jvpTypes, FlatSymbolRefAttr::get(gradFn),
                             hvp.getArgs(), hvp.getTangents(), hvp.getWrtAttr(),
                             hvp.getWrtParamsAttr());
    hvp->replaceAllUsesWith(jvp.getResults().drop_front(gradTypes.size()));
    hvp.erase();
    return expand(jvp);
  }

  ModuleOp module;
  SymbolTableCollection symbols;
  SmallVector<func::FuncOp> scratch;
  llvm::DenseSet<Operation *> kept;
  unsigned counter = 0;

public:
  void eraseScratch() {
    for (func::FuncOp f : llvm::reverse(scratch))
      if (!kept.contains(f))
        symbols.getSymbolTable(module).erase(f);
    scratch.clear();
  }
};

/// Outside differentiation, custom_vjp, custom_jvp and remat are calls.
void lowerCustomRuleOpsToCalls(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<CustomVJPOp, CustomJVPOp, RematOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    auto callee = op->getAttrOfType<FlatSymbolRefAttr>("callee");
    auto call = func::CallOp::create(b, op->getLoc(), callee,
                                     op->getResultTypes(), op->getOperands());
    op->replaceAllUsesWith(call.getResults());
    op->erase();
  }
}

struct RLXAutodiffPass : rlx::impl::RLXAutodiffBase<RLXAutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Expander expander(module);
    if (failed(checkNoRecursion(module, expander.getSymbols())))
      return signalPassFailure();
    // Rules may add functions holding markers (a batched custom_vjp maps
    // its fwd and bwd): repeat over the module until no marker is left
    // (this ends for the reason expandAllIn does).
    while (true) {
      SmallVector<func::FuncOp> withMarkers;
      for (func::FuncOp func : module.getOps<func::FuncOp>())
        if (func.walk([](Operation *op) {
                  return isMarker(op) ? WalkResult::interrupt()
                                      : WalkResult::advance();
                })
                .wasInterrupted())
          withMarkers.push_back(func);
      if (withMarkers.empty())
        break;
      for (func::FuncOp func : withMarkers) {
        if (failed(expander.expandAllIn(func))) {
          expander.eraseScratch();
          return signalPassFailure();
        }
      }
    }
    expander.eraseScratch();
    lowerCustomRuleOpsToCalls(module);
  }
};

} // namespace
