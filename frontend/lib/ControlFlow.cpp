//===- ControlFlow.cpp - scan, while_loop, fori_loop, cond, switch_ -------===//
///
/// \file
/// Each body is traced in a Scope nested in the caller's: tensors of the
/// caller it uses become captures, passed to the op as consts (the leading
/// body arguments). The op is built in the innermost scope of its operands,
/// so loops nest inside bodies.
///
//===----------------------------------------------------------------------===//

#include "TraceIR.h"

#include "rlx/frontend/ControlFlow.h"
#include "rlx/frontend/Ops.h"

#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir::rlx;

namespace rlx {
namespace {

using detail::builderOf;
using detail::commonScope;
using detail::checked;
using detail::DiagnosticCapture;
using detail::toMLIR;
using detail::valueOf;

[[noreturn]] void fail(const std::string &op, const std::string &message,
                       SourceLoc loc) {
  throw Error("rlx::" + op + ": " + message + loc.suffix());
}

/// One input per tensor of `like` (with `shape` applied to each shape).
std::vector<Tensor> inputsLike(Scope &inner, const std::string &prefix,
                               const std::vector<Tensor> &like, bool dropLead,
                               SourceLoc loc) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < like.size(); ++i) {
    Shape shape = like[i].shape();
    if (dropLead)
      shape.erase(shape.begin());
    inputs.push_back(inner.input(prefix + std::to_string(i), shape,
                                 like[i].dtype(), loc));
  }
  return inputs;
}

std::vector<Tensor> adoptAll(Scope &s, const std::vector<Tensor> &xs,
                             SourceLoc loc) {
  std::vector<Tensor> out;
  for (const Tensor &x : xs)
    out.push_back(s.adopt(x, loc));
  return out;
}

/// Checks that `got` has the types of `want`, naming `what`.
void requireTypes(const std::string &op, const std::string &what,
                  const std::vector<Tensor> &got,
                  const std::vector<TensorType> &want, SourceLoc loc) {
  if (got.size() != want.size())
    fail(op,
         what + ": " + std::to_string(got.size()) + " values, expected " +
             std::to_string(want.size()),
         loc);
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i].valid())
      fail(op, what + " " + std::to_string(i) + " is an empty Tensor", loc);
    if (got[i].type() != want[i])
      fail(op,
           what + " " + std::to_string(i) + " is " + got[i].type().str() +
               ", expected " + want[i].str(),
           loc);
  }
}

std::vector<TensorType> typesOf(const std::vector<Tensor> &xs) {
  std::vector<TensorType> types;
  for (const Tensor &x : xs)
    types.push_back(x.type());
  return types;
}

/// Every capture of `scopes`, in order of first appearance; each scope's
/// capture arguments are then put in that order.
std::vector<Tensor> unifyCaptures(const std::vector<Scope *> &scopes) {
  std::vector<Tensor> all;
  for (Scope *s : scopes)
    for (const Tensor &c : s->captures())
      if (std::none_of(all.begin(), all.end(), [&](const Tensor &t) {
            return t.value() == c.value();
          }))
        all.push_back(c);
  for (Scope *s : scopes)
    s->order_captures(all);
  return all;
}

llvm::SmallVector<mlir::Value> valuesOf(Scope &s,
                                        const std::vector<Tensor> &xs) {
  llvm::SmallVector<mlir::Value> values;
  for (const Tensor &x : xs)
    values.push_back(valueOf(s.adopt(x)));
  return values;
}

mlir::FlatSymbolRefAttr symbol(Scope &s, const Func &f) {
  return mlir::FlatSymbolRefAttr::get(detail::sharedContext().get(),
                                      s.calleeRef(f));
}

std::vector<Tensor> scanImpl(const std::string &op, const ScanBody &body,
                             const std::vector<Tensor> &init,
                             const std::vector<Tensor> &xs,
                             const ScanOptions &options, SourceLoc loc) {
  std::vector<Tensor> operands = init;
  operands.insert(operands.end(), xs.begin(), xs.end());
  Scope &outer = commonScope(op, operands, loc);
  if (options.unroll < 1)
    fail(op, "unroll must be >= 1, got " + std::to_string(options.unroll),
         loc);
  int64_t length = options.length;
  for (size_t j = 0; j < xs.size(); ++j) {
    if (xs[j].rank() == 0)
      fail(op, "xs " + std::to_string(j) + " has no leading dim to scan over",
           loc);
    int64_t d = xs[j].dim(0);
    if (d == dyn)
      continue;
    if (length >= 0 && d != length)
      fail(op,
           "xs " + std::to_string(j) + " has " + std::to_string(d) +
               " steps, expected " + std::to_string(length) +
               (options.length >= 0 ? " (the length)" : " (the other xs)"),
           loc);
    length = d;
  }
  if (xs.empty() && options.length < 0)
    fail(op, "needs a length when it scans no xs", loc);
  if (options.length < -1)
    fail(op, "the length must be >= 0", loc);

  Scope inner("scan_body", outer);
  std::vector<Tensor> carry = inputsLike(inner, "carry.", init, false, loc);
  std::vector<Tensor> slices = inputsLike(inner, "x.", xs, true, loc);
  ScanStep step = body(inner, carry, slices);
  std::vector<TensorType> carryTypes = typesOf(init);
  requireTypes(op, "the body's carry", step.carry, carryTypes, loc);
  for (const Tensor &y : step.ys)
    if (!y.valid())
      fail(op, "a step output is an empty Tensor", loc);
  std::vector<Tensor> results = step.carry;
  results.insert(results.end(), step.ys.begin(), step.ys.end());
  results = adoptAll(inner, results, loc);
  for (size_t i = 0; i < results.size(); ++i)
    results[i] = results[i].named("out" + std::to_string(i));
  std::vector<Tensor> consts = unifyCaptures({&inner});
  Func f(inner.finish(results));

  llvm::SmallVector<mlir::Type> types;
  for (const TensorType &t : carryTypes)
    types.push_back(toMLIR(t));
  int64_t steps = xs.empty() || options.length >= 0 ? options.length
                                                     : xs.front().dim(0);
  if (steps < 0)
    steps = length >= 0 ? length : dyn;
  for (const Tensor &y : step.ys) {
    Shape shape = y.shape();
    shape.insert(shape.begin(), steps);
    types.push_back(toMLIR(TensorType{y.dtype(), shape}));
  }
  DiagnosticCapture capture;
  mlir::OpBuilder b = builderOf(outer);
  auto scanOp = ScanOp::create(
      b, toMLIR(loc), types, symbol(outer, f), valuesOf(outer, consts),
      valuesOf(outer, init), valuesOf(outer, xs),
      options.length >= 0 ? b.getI64IntegerAttr(options.length)
                          : mlir::IntegerAttr(),
      b.getBoolAttr(options.reverse), b.getI64IntegerAttr(options.unroll),
      options.checkpoint_every > 1
          ? b.getI64IntegerAttr(options.checkpoint_every)
          : mlir::IntegerAttr());
  return checked(outer, scanOp, capture, op, loc);
}

} // namespace

ScanResult scan(const ScanBody &body, const std::vector<Tensor> &init,
                const std::vector<Tensor> &xs, const ScanOptions &options,
                SourceLoc loc) {
  std::vector<Tensor> results = scanImpl("scan", body, init, xs, options, loc);
  ScanResult r;
  r.carry.assign(results.begin(), results.begin() + init.size());
  r.ys.assign(results.begin() + init.size(), results.end());
  return r;
}

std::vector<Tensor> fori_loop(int64_t lower, int64_t upper,
                              const ForiBody &body,
                              const std::vector<Tensor> &init, SourceLoc loc) {
  if (upper < lower)
    fail("fori_loop",
         "upper (" + std::to_string(upper) + ") is below lower (" +
             std::to_string(lower) + ")",
         loc);
  Scope &outer = commonScope("fori_loop", init, loc);
  // The counter is one more carry (an integer: no derivative flows).
  std::vector<Tensor> withCounter = {
      outer.scalar(static_cast<double>(lower), DType::i32, loc)};
  withCounter.insert(withCounter.end(), init.begin(), init.end());
  ScanOptions options;
  options.length = upper - lower;
  auto step = [&](Scope &s, const std::vector<Tensor> &carry,
                  const std::vector<Tensor> &) {
    std::vector<Tensor> state(carry.begin() + 1, carry.end());
    std::vector<Tensor> next = body(s, carry[0], state);
    requireTypes("fori_loop", "the body's carry", next, typesOf(init), loc);
    ScanStep out;
    out.carry.push_back(add(carry[0], s.scalar(1, DType::i32, loc), loc));
    out.carry.insert(out.carry.end(), next.begin(), next.end());
    return out;
  };
  std::vector<Tensor> results =
      scanImpl("fori_loop", step, withCounter, {}, options, loc);
  return std::vector<Tensor>(results.begin() + 1, results.end());
}

std::vector<Tensor> while_loop(const LoopCond &cond, const LoopBody &body,
                               const std::vector<Tensor> &init, SourceLoc loc) {
  Scope &outer = commonScope("while_loop", init, loc);
  std::vector<TensorType> carryTypes = typesOf(init);
  Scope condScope("while_cond", outer), bodyScope("while_body", outer);
  std::vector<Tensor> condIn = inputsLike(condScope, "carry.", init, false, loc);
  Tensor flag = cond(condScope, condIn);
  requireTypes("while_loop", "the condition", {flag},
               {TensorType{DType::i1, {}}}, loc);
  std::vector<Tensor> bodyIn = inputsLike(bodyScope, "carry.", init, false, loc);
  std::vector<Tensor> next = body(bodyScope, bodyIn);
  requireTypes("while_loop", "the body's carry", next, carryTypes, loc);
  flag = condScope.adopt(flag, loc);
  next = adoptAll(bodyScope, next, loc);
  std::vector<Tensor> consts = unifyCaptures({&condScope, &bodyScope});
  Func condFn(condScope.finish({flag}));
  Func bodyFn(bodyScope.finish(next));
  llvm::SmallVector<mlir::Type> types;
  for (const TensorType &t : carryTypes)
    types.push_back(toMLIR(t));
  DiagnosticCapture capture;
  mlir::OpBuilder b = builderOf(outer);
  auto loop = WhileOp::create(b, toMLIR(loc), types, symbol(outer, condFn),
                              symbol(outer, bodyFn), valuesOf(outer, consts),
                              valuesOf(outer, init));
  return checked(outer, loop, capture, "while_loop", loc);
}

std::vector<Tensor> switch_(const Tensor &index,
                            const std::vector<Branch> &branches,
                            const std::vector<Tensor> &operands,
                            SourceLoc loc) {
  std::vector<Tensor> all = {index};
  all.insert(all.end(), operands.begin(), operands.end());
  Scope &outer = commonScope("switch_", all, loc);
  if (branches.empty())
    fail("switch_", "needs at least one branch", loc);
  if (index.rank() != 0 ||
      (index.dtype() != DType::i32 && index.dtype() != DType::i1))
    fail("switch_",
         "the index must be a rank-0 i32 (or an i1 for cond), got " +
             index.type().str(),
         loc);
  std::vector<std::unique_ptr<Scope>> scopes;
  std::vector<std::vector<Tensor>> results;
  for (size_t k = 0; k < branches.size(); ++k) {
    scopes.push_back(
        std::make_unique<Scope>("branch" + std::to_string(k), outer));
    std::vector<Tensor> in =
        inputsLike(*scopes.back(), "arg.", operands, false, loc);
    std::vector<Tensor> out = branches[k](*scopes.back(), in);
    if (k > 0)
      requireTypes("switch_",
                   "branch " + std::to_string(k) + "'s result", out,
                   typesOf(results.front()), loc);
    else if (out.empty())
      fail("switch_", "a branch returns nothing", loc);
    results.push_back(adoptAll(*scopes.back(), out, loc));
  }
  std::vector<Scope *> raw;
  for (auto &s : scopes)
    raw.push_back(s.get());
  // Captures come after the operands here: a switch has no consts segment.
  std::vector<Tensor> consts = unifyCaptures(raw);
  llvm::SmallVector<mlir::Attribute> symbols;
  for (size_t k = 0; k < branches.size(); ++k) {
    std::vector<Tensor> named = results[k];
    for (size_t i = 0; i < named.size(); ++i)
      named[i] = named[i].named("out" + std::to_string(i));
    symbols.push_back(symbol(outer, Func(scopes[k]->finish(named))));
  }
  std::vector<Tensor> args = consts;
  args.insert(args.end(), operands.begin(), operands.end());
  llvm::SmallVector<mlir::Type> types;
  for (const Tensor &r : results.front())
    types.push_back(toMLIR(r.type()));
  DiagnosticCapture capture;
  mlir::OpBuilder b = builderOf(outer);
  auto op = SwitchOp::create(b, toMLIR(loc), types, valueOf(outer.adopt(index)),
                             b.getArrayAttr(symbols), valuesOf(outer, args));
  return checked(outer, op, capture, "switch_", loc);
}

std::vector<Tensor> cond(const Tensor &pred, const Branch &on_true,
                         const Branch &on_false,
                         const std::vector<Tensor> &operands, SourceLoc loc) {
  if (!pred.valid() || pred.rank() != 0 || pred.dtype() != DType::i1)
    fail("cond",
         "the predicate must be a rank-0 i1, got " +
             (pred.valid() ? pred.type().str() : std::string("an empty Tensor")),
         loc);
  // An i1 index picks the first branch for false.
  return switch_(pred, {on_false, on_true}, operands, loc);
}

} // namespace rlx
