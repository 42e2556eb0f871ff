//===- ControlFlowRules.cpp - Derivatives of scan, while and switch -------===//
///
/// \file
/// The VJP and JVP rules of the control-flow ops build new loops and
/// branches whose bodies are new functions holding a vjp or jvp marker of
/// the original body; the autodiff rounds expand those markers like any
/// other, so loops nest and derivatives of derivatives work.
///
/// Reverse mode through a scan runs the primal loop once more stacking the
/// carry each step starts from (merged with the primal loop by ScanOp's
/// canonicalization, see kExtendsAttrName), then a loop in the opposite
/// direction whose body recomputes one step and pulls the cotangents back
/// through it: memory is one carry per step, not every intermediate.
/// Adjoints of the consts are accumulated in that loop's carry.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/ControlFlow.h"
#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

bool isFloat(Type t) {
  return isa<FloatType>(cast<RankedTensorType>(t).getElementType());
}

/// The positions of `types` whose element type is a float, offset by `base`.
SmallVector<int64_t> floatPositions(TypeRange types, int64_t base = 0) {
  SmallVector<int64_t> positions;
  for (auto [i, t] : llvm::enumerate(types))
    if (isFloat(t))
      positions.push_back(base + static_cast<int64_t>(i));
  return positions;
}

template <typename Range>
SmallVector<Type> typesAt(Range types, ArrayRef<int64_t> positions,
                          int64_t base = 0) {
  SmallVector<Type> picked;
  for (int64_t p : positions)
    picked.push_back(types[p - base]);
  return picked;
}

func::FuncOp lookupFunction(SymbolTableCollection &symbols, Operation *op,
                            FlatSymbolRefAttr name) {
  return symbols.lookupNearestSymbolFrom<func::FuncOp>(op, name);
}

/// The values of `values` at `positions` (offset by `base`).
SmallVector<Value> valuesAt(ValueRange values, ArrayRef<int64_t> positions,
                            int64_t base = 0) {
  SmallVector<Value> picked;
  for (int64_t p : positions)
    picked.push_back(values[p - base]);
  return picked;
}

/// `v`, or zeros of `like`'s type where it is null.
Value orZeros(OpBuilder &b, Location loc, Value v, Value like) {
  return v ? v : ad::zerosLike({b, loc}, like);
}

/// A function running `scan`'s body `length` steps over the whole of its
/// xs: (consts, carry, xs[length]) -> (carry, ys[length]).
func::FuncOp fixedLengthScan(SymbolTableCollection &symbols, ScanOp scan,
                             func::FuncOp body, int64_t length,
                             StringRef suffix) {
  const size_t C = scan.getConsts().size(), K = scan.getInit().size();
  TypeRange args = body.getArgumentTypes(), results = body.getResultTypes();
  SmallVector<Type> inputs(args.take_front(C + K)), outputs(results.take_front(K));
  for (Type t : args.drop_front(C + K))
    inputs.push_back(stackedType(t, length));
  for (Type t : results.drop_front(K))
    outputs.push_back(stackedType(t, length));
  return newBodyFunction(
      symbols, scan, body.getSymName(), suffix, inputs, outputs,
      [&](OpBuilder &fb, ValueRange a) {
        auto inner = ScanOp::create(
            fb, scan.getLoc(), outputs, scan.getBodyAttr(), a.take_front(C),
            a.slice(C, K), a.drop_front(C + K), fb.getI64IntegerAttr(length),
            scan.getReverseAttr(), scan.getUnrollAttr(), IntegerAttr());
        return SmallVector<Value>(inner.getResults());
      });
}

/// A function whose body is one rlx.remat of `callee`.
func::FuncOp rematOf(SymbolTableCollection &symbols, Operation *anchor,
                     func::FuncOp callee) {
  return newBodyFunction(
      symbols, anchor, callee.getSymName(), "remat", callee.getArgumentTypes(),
      callee.getResultTypes(), [&](OpBuilder &fb, ValueRange a) {
        auto remat = RematOp::create(fb, anchor->getLoc(),
                                     callee.getResultTypes(),
                                     FlatSymbolRefAttr::get(callee), a);
        return SmallVector<Value>(remat.getResults());
      });
}

/// Reverse mode of a scan with checkpoint_every = k: the scan rewritten as
/// an outer scan over length / k chunks whose body is a remat of a k-step
/// scan (plus a remat'd scan of the remaining steps), differentiated by a
/// vjp marker. Reverse mode stacks only the chunks' first carries; each
/// chunk's own k carries live only while its remat is pulled back.
LogicalResult checkpointedVJP(ScanOp op, OpBuilder &b, ArrayRef<Value> adj,
                              SmallVectorImpl<Value> &out,
                              SymbolTableCollection &symbols) {
  Location loc = op.getLoc();
  func::FuncOp body = lookupFunction(symbols, op, op.getBodyAttr());
  const int64_t C = op.getConsts().size(), K = op.getInit().size(),
                Y = op.getYs().size();
  const int64_t length = op.getStaticLength(), k = *op.getCheckpointEvery();
  const int64_t chunks = length / k, rest = length % k;
  func::FuncOp block = rematOf(
      symbols, op, fixedLengthScan(symbols, op, body, k, "chunk"));
  func::FuncOp tail;
  if (rest)
    tail = rematOf(symbols, op, fixedLengthScan(symbols, op, body, rest, "rest"));
  TypeRange results = body.getResultTypes();
  func::FuncOp chunked = newBodyFunction(
      symbols, op, body.getSymName(), "checkpointed", op->getOperandTypes(),
      op->getResultTypes(), [&](OpBuilder &fb, ValueRange a) {
        ad::RuleBuilder rb{fb, loc};
        ValueRange consts = a.take_front(C);
        SmallVector<Value> carry(a.slice(C, K));
        SmallVector<Value> heads, tails;
        for (Value x : a.drop_front(C + K)) {
          auto slice = sliceType(x.getType());
          Value whole = ad::reshapeTo(rb, x, stackedType(slice, length));
          auto rank = static_cast<int64_t>(slice.getRank()) + 1;
          SmallVector<int64_t> zero(rank, 0), end(rank, -1), one(rank, 1);
          if (chunks) {
            Value head = whole;
            if (rest) {
              SmallVector<int64_t> limit = end;
              limit[0] = chunks * k;
              head = SliceOp::create(fb, loc, whole, zero, limit, one);
            }
            heads.push_back(ad::reshapeTo(
                rb, head, stackedType(stackedType(slice, k), chunks)));
          }
          if (rest) {
            SmallVector<int64_t> start = zero;
            start[0] = chunks * k;
            tails.push_back(SliceOp::create(fb, loc, whole, start, end, one));
          }
        }
        SmallVector<Value> headYs, tailYs;
        auto runChunks = [&] {
          if (!chunks)
            return;
          SmallVector<Type> types(results.take_front(K));
          for (Type t : results.drop_front(K))
            types.push_back(stackedType(stackedType(t, k), chunks));
          auto outer = ScanOp::create(
              fb, loc, types, FlatSymbolRefAttr::get(block), consts, carry,
              heads, fb.getI64IntegerAttr(chunks), op.getReverseAttr(),
              op.getUnrollAttr(), IntegerAttr());
          carry.assign(outer.getCarries().begin(), outer.getCarries().end());
          for (auto [y, t] : llvm::zip(outer.getYs(), results.drop_front(K)))
            headYs.push_back(
                ad::reshapeTo(rb, y, stackedType(t, chunks * k)));
        };
        auto runRest = [&] {
          if (!rest)
            return;
          SmallVector<Value> args(consts);
          llvm::append_range(args, carry);
          llvm::append_range(args, tails);
          auto call = RematOp::create(fb, loc, tail.getResultTypes(),
                                      FlatSymbolRefAttr::get(tail), args);
          carry.assign(call.getResults().begin(),
                       call.getResults().begin() + K);
          llvm::append_range(tailYs, call.getResults().drop_front(K));
        };
        // Steps run from the front, or from the back with reverse.
        if (op.getReverse()) {
          runRest();
          runChunks();
        } else {
          runChunks();
          runRest();
        }
        SmallVector<Value> outs(carry);
        for (int64_t y = 0; y < Y; ++y) {
          SmallVector<Value> parts;
          if (chunks)
            parts.push_back(headYs[y]);
          if (rest)
            parts.push_back(tailYs[y]);
          Value stacked = parts.size() == 1
                              ? parts[0]
                              : Value(ConcatOp::create(fb, loc, parts,
                                                       fb.getI64IntegerAttr(0)));
          outs.push_back(ad::reshapeTo(
              rb, stacked, cast<RankedTensorType>(op.getYs()[y].getType())));
        }
        return outs;
      });
  SmallVector<int64_t> wrt = floatPositions(op->getOperandTypes());
  out.assign(op->getNumOperands(), Value());
  if (wrt.empty())
    return success();
  SmallVector<Value> cotangents;
  for (auto [result, g] : llvm::zip(op->getResults(), adj))
    cotangents.push_back(orZeros(b, loc, g, result));
  SmallVector<Type> types(op->getResultTypes());
  for (int64_t i : wrt)
    types.push_back(op->getOperand(i).getType());
  auto vjp = VJPOp::create(b, loc, types, FlatSymbolRefAttr::get(chunked),
                           op->getOperands(), cotangents,
                           b.getDenseI64ArrayAttr(wrt), Attribute());
  for (auto [f, i] : llvm::enumerate(wrt))
    out[i] = vjp.getResult(op->getNumResults() + f);
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// scan
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::buildVJP(OpBuilder &b, ArrayRef<Value> adj,
                               SmallVectorImpl<Value> &out,
                               SymbolTableCollection &symbols) {
  if (std::optional<int64_t> every = getCheckpointEvery())
    if (*every > 1 && getStaticLength() > *every)
      return checkpointedVJP(*this, b, adj, out, symbols);
  Location loc = getLoc();
  func::FuncOp body = lookupFunction(symbols, *this, getBodyAttr());
  const int64_t C = getConsts().size(), K = getInit().size(),
                X = getXs().size(), Y = getYs().size();
  TypeRange constTypes = getConsts().getTypes(),
            carryTypes = getInit().getTypes();
  SmallVector<int64_t> floatConsts = floatPositions(constTypes);
  SmallVector<int64_t> floatCarries = floatPositions(carryTypes);
  SmallVector<Type> xSlices, ySlices;
  for (Type t : getXs().getTypes())
    xSlices.push_back(sliceType(t));
  for (Type t : getYs().getTypes())
    ySlices.push_back(sliceType(t));
  SmallVector<int64_t> floatXs = floatPositions(xSlices);
  // Differentiated body arguments: float consts, carries and xs slices.
  SmallVector<int64_t> wrt(floatConsts);
  for (int64_t k : floatCarries)
    wrt.push_back(C + k);
  for (int64_t x : floatXs)
    wrt.push_back(C + K + x);
  if (wrt.empty()) {
    out.append(getNumOperands(), Value());
    return success();
  }

  // The primal loop stacking the carry each step starts from.
  SmallVector<Type> stackResults(body.getResultTypes());
  llvm::append_range(stackResults, carryTypes);
  func::FuncOp stacking = newBodyFunction(
      symbols, *this, body.getSymName(), "stack", body.getArgumentTypes(),
      stackResults, [&](OpBuilder &fb, ValueRange args) {
        auto call = func::CallOp::create(fb, loc, body, args);
        SmallVector<Value> results(call.getResults());
        llvm::append_range(results, args.slice(C, K));
        return results;
      });
  stacking->setAttr(kExtendsAttrName, getBodyAttr());
  int64_t length = getStaticLength();
  SmallVector<Type> fwdTypes(getResultTypes());
  for (Type t : carryTypes)
    fwdTypes.push_back(stackedType(t, length));
  OpBuilder fwdBuilder(getContext());
  fwdBuilder.setInsertionPointAfter(*this);
  auto fwd = ScanOp::create(fwdBuilder, loc, fwdTypes,
                            FlatSymbolRefAttr::get(stacking), getConsts(),
                            getInit(), getXs(), getLengthAttr(),
                            getReverseAttr(), getUnrollAttr(), IntegerAttr());
  ValueRange startCarries = fwd.getYs().drop_front(Y);

  // The backward body: (consts; carry adjoints, const adjoint sums; the
  // step's start carry, xs slices and ys cotangents) -> (the previous
  // carry adjoints, the sums plus this step's; the xs slice adjoints).
  SmallVector<Type> bwdArgs(constTypes);
  llvm::append_range(bwdArgs, typesAt(carryTypes, floatCarries));
  llvm::append_range(bwdArgs, typesAt(constTypes, floatConsts));
  llvm::append_range(bwdArgs, carryTypes);
  llvm::append_range(bwdArgs, xSlices);
  llvm::append_range(bwdArgs, ySlices);
  SmallVector<Type> bwdResults(typesAt(carryTypes, floatCarries));
  llvm::append_range(bwdResults, typesAt(constTypes, floatConsts));
  llvm::append_range(bwdResults, typesAt(xSlices, floatXs));
  const int64_t FK = floatCarries.size(), FC = floatConsts.size();
  func::FuncOp backward = newBodyFunction(
      symbols, *this, body.getSymName(), "vjp", bwdArgs, bwdResults,
      [&](OpBuilder &fb, ValueRange args) {
        ValueRange consts = args.take_front(C);
        ValueRange carryAdj = args.slice(C, FK);
        ValueRange constSums = args.slice(C + FK, FC);
        ValueRange starts = args.slice(C + FK + FC, K);
        ValueRange slices = args.slice(C + FK + FC + K, X);
        ValueRange yCotangents = args.slice(C + FK + FC + K + X, Y);
        SmallVector<Value> callArgs(consts);
        llvm::append_range(callArgs, starts);
        llvm::append_range(callArgs, slices);
        SmallVector<Value> cotangents;
        for (int64_t k = 0, f = 0; k < K; ++k)
          cotangents.push_back(isFloat(carryTypes[k])
                                   ? carryAdj[f++]
                                   : ad::zerosLike({fb, loc}, starts[k]));
        llvm::append_range(cotangents, yCotangents);
        SmallVector<Type> types(body.getResultTypes());
        for (int64_t p : wrt)
          types.push_back(body.getArgumentTypes()[p]);
        auto vjp = VJPOp::create(fb, loc, types, getBodyAttr(), callArgs,
                                 cotangents, fb.getDenseI64ArrayAttr(wrt),
                                 Attribute());
        ValueRange adjoints = vjp.getResults().drop_front(body.getNumResults());
        SmallVector<Value> results(adjoints.slice(FC, FK));
        for (int64_t f = 0; f < FC; ++f)
          results.push_back(ad::add({fb, loc}, constSums[f], adjoints[f]));
        llvm::append_range(results, adjoints.drop_front(FC + FK));
        return results;
      });

  // Run it in the opposite direction.
  SmallVector<Value> bwdInit;
  for (int64_t k : floatCarries)
    bwdInit.push_back(orZeros(b, loc, adj[k], getCarries()[k]));
  for (int64_t c : floatConsts)
    bwdInit.push_back(ad::zerosLike({b, loc}, getConsts()[c]));
  SmallVector<Value> bwdXs(startCarries);
  llvm::append_range(bwdXs, getXs());
  for (int64_t y = 0; y < Y; ++y)
    bwdXs.push_back(orZeros(b, loc, adj[K + y], getYs()[y]));
  SmallVector<Type> bwdTypes;
  for (Value v : bwdInit)
    bwdTypes.push_back(v.getType());
  for (int64_t x : floatXs)
    bwdTypes.push_back(getXs()[x].getType());
  auto bwd = ScanOp::create(b, loc, bwdTypes, FlatSymbolRefAttr::get(backward),
                            getConsts(), bwdInit, bwdXs, getLengthAttr(),
                            b.getBoolAttr(!getReverse()), getUnrollAttr(),
                            IntegerAttr());
  // The start carries and the xs are primal: rlx-scan-residuals moves what
  // the backward body computes from them into the forward loop.
  bwd->setAttr(kPrimalXsAttrName,
               b.getDenseI64ArrayAttr(llvm::to_vector(llvm::seq<int64_t>(0, K + X))));
  out.assign(getNumOperands(), Value());
  for (auto [f, c] : llvm::enumerate(floatConsts))
    out[c] = bwd.getCarries()[FK + f];
  for (auto [f, k] : llvm::enumerate(floatCarries))
    out[C + k] = bwd.getCarries()[f];
  for (auto [f, x] : llvm::enumerate(floatXs))
    out[C + K + x] = bwd.getYs()[f];
  return success();
}

LogicalResult ScanOp::buildJVP(OpBuilder &b, ArrayRef<Value> tan,
                               SmallVectorImpl<Value> &out,
                               SymbolTableCollection &symbols) {
  Location loc = getLoc();
  func::FuncOp body = lookupFunction(symbols, *this, getBodyAttr());
  const int64_t C = getConsts().size(), K = getInit().size(),
                X = getXs().size(), Y = getYs().size();
  TypeRange args = body.getArgumentTypes(), results = body.getResultTypes();
  SmallVector<int64_t> fc = floatPositions(args.take_front(C));
  SmallVector<int64_t> fk = floatPositions(args.slice(C, K));
  SmallVector<int64_t> fx = floatPositions(args.drop_front(C + K));
  SmallVector<int64_t> fy = floatPositions(results.drop_front(K));
  if (fc.empty() && fk.empty() && fx.empty()) {
    out.append(getNumResults(), Value());
    return success();
  }
  SmallVector<int64_t> wrt(fc);
  for (int64_t k : fk)
    wrt.push_back(C + k);
  for (int64_t x : fx)
    wrt.push_back(C + K + x);
  // (consts, their tangents; carry, its tangents; slices, their tangents)
  // -> (carry, its tangents; step outputs, their tangents).
  SmallVector<Type> jvpArgs(args.take_front(C));
  llvm::append_range(jvpArgs, typesAt(args, fc));
  llvm::append_range(jvpArgs, args.slice(C, K));
  llvm::append_range(jvpArgs, typesAt(args, fk, -C));
  llvm::append_range(jvpArgs, args.drop_front(C + K));
  llvm::append_range(jvpArgs, typesAt(args, fx, -(C + K)));
  SmallVector<Type> jvpResults(results.take_front(K));
  llvm::append_range(jvpResults, typesAt(results, fk));
  llvm::append_range(jvpResults, results.drop_front(K));
  llvm::append_range(jvpResults, typesAt(results, fy, -K));
  const int64_t FC = fc.size(), FK = fk.size(), FX = fx.size();
  func::FuncOp jvpBody = newBodyFunction(
      symbols, *this, body.getSymName(), "jvp", jvpArgs, jvpResults,
      [&](OpBuilder &fb, ValueRange a) {
        SmallVector<Value> primals(a.take_front(C));
        SmallVector<Value> tangents(a.slice(C, FC));
        llvm::append_range(primals, a.slice(C + FC, K));
        llvm::append_range(tangents, a.slice(C + FC + K, FK));
        llvm::append_range(primals, a.slice(C + FC + K + FK, X));
        llvm::append_range(tangents, a.slice(C + FC + K + FK + X, FX));
        SmallVector<Type> types(results);
        llvm::append_range(types, results);
        auto jvp = JVPOp::create(fb, loc, types, getBodyAttr(), primals,
                                 tangents, fb.getDenseI64ArrayAttr(wrt),
                                 Attribute());
        ValueRange outs = jvp.getResults().take_front(K + Y);
        ValueRange dOuts = jvp.getResults().drop_front(K + Y);
        SmallVector<Value> r(outs.take_front(K));
        llvm::append_range(r, valuesAt(dOuts, fk));
        llvm::append_range(r, outs.drop_front(K));
        llvm::append_range(r, valuesAt(dOuts.drop_front(K), fy));
        return r;
      });
  jvpBody->setAttr(kExtendsAttrName, getBodyAttr());
  ValueRange operands = (*this)->getOperands();
  auto tangentAt = [&](int64_t i) {
    return orZeros(b, loc, tan[i], operands[i]);
  };
  SmallVector<Value> consts(getConsts()), init(getInit()), xs(getXs());
  for (int64_t c : fc)
    consts.push_back(tangentAt(c));
  for (int64_t k : fk)
    init.push_back(tangentAt(C + k));
  for (int64_t x : fx)
    xs.push_back(tangentAt(C + K + x));
  // Tangents have their primals' types.
  SmallVector<Type> types(getCarries().getTypes());
  llvm::append_range(types, typesAt(TypeRange(getCarries().getTypes()), fk));
  llvm::append_range(types, getYs().getTypes());
  llvm::append_range(types, typesAt(TypeRange(getYs().getTypes()), fy));
  auto scan = ScanOp::create(b, loc, types, FlatSymbolRefAttr::get(jvpBody),
                             consts, init, xs, getLengthAttr(),
                             getReverseAttr(), getUnrollAttr(),
                             getCheckpointEveryAttr());
  out.assign(getNumResults(), Value());
  for (auto [f, k] : llvm::enumerate(fk))
    out[k] = scan.getCarries()[K + f];
  for (auto [f, y] : llvm::enumerate(fy))
    out[K + y] = scan.getYs()[Y + f];
  return success();
}

//===----------------------------------------------------------------------===//
// while
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::buildVJP(OpBuilder &, ArrayRef<Value>,
                                SmallVectorImpl<Value> &,
                                SymbolTableCollection &) {
  return emitOpError(
      "cannot be differentiated in reverse mode: its number of steps is "
      "known only when it runs; write the loop as rlx.scan (a loop with a "
      "static trip count is one: fori_loop), or use forward mode (jvp)");
}

LogicalResult WhileOp::buildJVP(OpBuilder &b, ArrayRef<Value> tan,
                                SmallVectorImpl<Value> &out,
                                SymbolTableCollection &symbols) {
  Location loc = getLoc();
  func::FuncOp body = lookupFunction(symbols, *this, getBodyAttr());
  func::FuncOp cond = lookupFunction(symbols, *this, getCondAttr());
  const int64_t C = getConsts().size(), K = getInit().size();
  TypeRange args = body.getArgumentTypes();
  SmallVector<int64_t> fc = floatPositions(args.take_front(C));
  SmallVector<int64_t> fk = floatPositions(args.drop_front(C));
  if (fk.empty()) {
    out.append(getNumResults(), Value());
    return success();
  }
  SmallVector<int64_t> wrt(fc);
  for (int64_t k : fk)
    wrt.push_back(C + k);
  SmallVector<Type> jvpArgs(args.take_front(C));
  llvm::append_range(jvpArgs, typesAt(args, fc));
  llvm::append_range(jvpArgs, args.drop_front(C));
  llvm::append_range(jvpArgs, typesAt(args, fk, -C));
  SmallVector<Type> jvpResults(args.drop_front(C));
  llvm::append_range(jvpResults, typesAt(args, fk, -C));
  const int64_t FC = fc.size(), FK = fk.size();
  auto primalsOf = [&](ValueRange a) {
    SmallVector<Value> primals(a.take_front(C));
    llvm::append_range(primals, a.slice(C + FC, K));
    return primals;
  };
  func::FuncOp jvpBody = newBodyFunction(
      symbols, *this, body.getSymName(), "jvp", jvpArgs, jvpResults,
      [&](OpBuilder &fb, ValueRange a) {
        SmallVector<Value> tangents(a.slice(C, FC));
        llvm::append_range(tangents, a.slice(C + FC + K, FK));
        SmallVector<Type> types(body.getResultTypes());
        llvm::append_range(types, body.getResultTypes());
        auto jvp = JVPOp::create(fb, loc, types, getBodyAttr(), primalsOf(a),
                                 tangents, fb.getDenseI64ArrayAttr(wrt),
                                 Attribute());
        SmallVector<Value> r(jvp.getResults().take_front(K));
        llvm::append_range(r, valuesAt(jvp.getResults().drop_front(K), fk));
        return r;
      });
  func::FuncOp jvpCond = newBodyFunction(
      symbols, *this, cond.getSymName(), "jvp", jvpArgs, cond.getResultTypes(),
      [&](OpBuilder &fb, ValueRange a) {
        auto call = func::CallOp::create(fb, loc, cond, primalsOf(a));
        return SmallVector<Value>(call.getResults());
      });
  ValueRange operands = (*this)->getOperands();
  SmallVector<Value> consts(getConsts()), init(getInit());
  for (int64_t c : fc)
    consts.push_back(orZeros(b, loc, tan[c], operands[c]));
  for (int64_t k : fk)
    init.push_back(orZeros(b, loc, tan[C + k], operands[C + k]));
  SmallVector<Type> types;
  for (Value v : init)
    types.push_back(v.getType());
  auto loop = WhileOp::create(b, loc, types, FlatSymbolRefAttr::get(jvpCond),
                              FlatSymbolRefAttr::get(jvpBody), consts, init);
  out.assign(getNumResults(), Value());
  for (auto [f, k] : llvm::enumerate(fk))
    out[k] = loop.getResults()[K + f];
  return success();
}

//===----------------------------------------------------------------------===//
// switch
//===----------------------------------------------------------------------===//

LogicalResult SwitchOp::buildVJP(OpBuilder &b, ArrayRef<Value> adj,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &symbols) {
  Location loc = getLoc();
  TypeRange argTypes = getArgs().getTypes();
  SmallVector<int64_t> wrt = floatPositions(argTypes);
  out.assign(getNumOperands(), Value());
  if (wrt.empty())
    return success();
  // Each branch pulls the cotangents back through itself.
  SmallVector<Type> inputs(argTypes);
  llvm::append_range(inputs, getResultTypes());
  SmallVector<Type> adjointTypes = typesAt(argTypes, wrt);
  SmallVector<Attribute> branches;
  for (Attribute name : getBranches()) {
    auto branchName = cast<FlatSymbolRefAttr>(name);
    func::FuncOp branch = lookupFunction(symbols, *this, branchName);
    func::FuncOp pullback = newBodyFunction(
        symbols, *this, branch.getSymName(), "vjp", inputs, adjointTypes,
        [&](OpBuilder &fb, ValueRange a) {
          SmallVector<Type> types(getResultTypes());
          llvm::append_range(types, adjointTypes);
          auto vjp = VJPOp::create(
              fb, loc, types, branchName, a.take_front(argTypes.size()),
              a.drop_front(argTypes.size()), fb.getDenseI64ArrayAttr(wrt),
              Attribute());
          return SmallVector<Value>(
              vjp.getResults().drop_front(getNumResults()));
        });
    branches.push_back(FlatSymbolRefAttr::get(pullback));
  }
  SmallVector<Value> operands(getArgs());
  for (auto [result, g] : llvm::zip(getResults(), adj))
    operands.push_back(orZeros(b, loc, g, result));
  auto pulled = SwitchOp::create(b, loc, adjointTypes, getIndex(),
                                 b.getArrayAttr(branches), operands);
  for (auto [f, i] : llvm::enumerate(wrt))
    out[1 + i] = pulled.getResult(f);
  return success();
}

LogicalResult SwitchOp::buildJVP(OpBuilder &b, ArrayRef<Value> tan,
                                 SmallVectorImpl<Value> &out,
                                 SymbolTableCollection &symbols) {
  Location loc = getLoc();
  TypeRange argTypes = getArgs().getTypes();
  SmallVector<int64_t> wrt = floatPositions(argTypes);
  SmallVector<int64_t> floatResults = floatPositions(getResultTypes());
  out.assign(getNumResults(), Value());
  if (wrt.empty() || floatResults.empty())
    return success();
  SmallVector<Type> inputs(argTypes);
  llvm::append_range(inputs, typesAt(argTypes, wrt));
  SmallVector<Type> tangentTypes = typesAt(getResultTypes(), floatResults);
  SmallVector<Attribute> branches;
  for (Attribute name : getBranches()) {
    auto branchName = cast<FlatSymbolRefAttr>(name);
    func::FuncOp branch = lookupFunction(symbols, *this, branchName);
    func::FuncOp pushforward = newBodyFunction(
        symbols, *this, branch.getSymName(), "jvp", inputs, tangentTypes,
        [&](OpBuilder &fb, ValueRange a) {
          SmallVector<Type> types(getResultTypes());
          llvm::append_range(types, getResultTypes());
          auto jvp = JVPOp::create(
              fb, loc, types, branchName, a.take_front(argTypes.size()),
              a.drop_front(argTypes.size()), fb.getDenseI64ArrayAttr(wrt),
              Attribute());
          return valuesAt(jvp.getResults().drop_front(getNumResults()),
                          floatResults);
        });
    branches.push_back(FlatSymbolRefAttr::get(pushforward));
  }
  SmallVector<Value> operands(getArgs());
  for (int64_t i : wrt)
    operands.push_back(orZeros(b, loc, tan[1 + i], getArgs()[i]));
  auto pushed = SwitchOp::create(b, loc, tangentTypes, getIndex(),
                                 b.getArrayAttr(branches), operands);
  for (auto [f, r] : llvm::enumerate(floatResults))
    out[r] = pushed.getResult(f);
  return success();
}
