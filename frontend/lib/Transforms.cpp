//===- Transforms.cpp - Func transforms as marker ops ---------------------===//
///
/// \file
/// Each transform traces a new function with the original's inputs (plus
/// tangents or cotangents) whose body is one marker op naming the original,
/// built by the marker's builder at the caller's location and verified. The
/// result types are the transform's own (the builders take them).
/// The compiler's rlx-autodiff pass expands markers innermost first, so
/// `f.grad(...).vmap(...)` and `f.grad(...).grad(...)` need nothing here.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Func.h"
#include "rlx/frontend/Ops.h"

#include "TraceIR.h"

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <map>
#include <set>

/// The dialect and the compiler (mlir::rlx) under the frontend (::rlx):
/// frontend names win where both have one.
using namespace mlir::rlx;

namespace rlx {

using namespace detail;

namespace {

[[noreturn]] void fail(const std::string &what, const std::string &message,
                       SourceLoc loc) {
  throw Error("rlx::Func::" + what + ": " + message + loc.suffix());
}

/// The leaves of a differentiation: input positions (ascending) and param
/// names (as given), and their types in result order (inputs first).
struct Leaves {
  std::vector<int64_t> inputs;
  std::vector<std::string> params;
  std::vector<detail::Arg> args;

  /// The markers' `wrt_params`: the names, or none.
  mlir::Attribute paramsAttr() const {
    if (params.empty())
      return {};
    mlir::Builder b(sharedContext().get());
    llvm::SmallVector<mlir::Attribute> names;
    for (const std::string &p : params)
      names.push_back(b.getStringAttr(p));
    return b.getArrayAttr(names);
  }
};

Leaves resolve(const Func &f, const std::vector<std::string> &wrt,
               const std::string &what, SourceLoc loc) {
  Leaves leaves;
  std::vector<detail::Arg> paramArgs;
  if (wrt.empty())
    fail(what, "no leaves to differentiate with respect to", loc);
  for (const std::string &name : wrt) {
    bool found = false;
    for (size_t i = 0; i < f.inputs().size() && !found; ++i)
      if (f.inputs()[i].name == name) {
        found = true;
        if (std::find(leaves.inputs.begin(), leaves.inputs.end(), i) !=
            leaves.inputs.end())
          fail(what, "leaf '" + name + "' given twice", loc);
        leaves.inputs.push_back(i);
      }
    for (size_t i = 0; i < f.params().size() && !found; ++i)
      if (f.params()[i].name == name) {
        found = true;
        if (std::find(leaves.params.begin(), leaves.params.end(), name) !=
            leaves.params.end())
          fail(what, "leaf '" + name + "' given twice", loc);
        leaves.params.push_back(name);
        paramArgs.push_back(f.params()[i]);
      }
    if (!found) {
      std::string known;
      for (const std::string &n : f.input_names())
        known += (known.empty() ? "" : ", ") + n;
      for (const std::string &n : f.param_names())
        known += (known.empty() ? "" : ", ") + n;
      fail(what,
           "'" + name + "' is neither an input nor a param of '" + f.name() +
               "' (leaves: " + known + ")",
           loc);
    }
  }
  std::sort(leaves.inputs.begin(), leaves.inputs.end());
  for (int64_t i : leaves.inputs)
    leaves.args.push_back(f.inputs()[i]);
  leaves.args.insert(leaves.args.end(), paramArgs.begin(), paramArgs.end());
  for (const detail::Arg &leaf : leaves.args)
    if (!is_float(leaf.type.dtype))
      fail(what,
           "leaf '" + leaf.name + "' is " + leaf.type.str() +
               ", not a float: integer data, such as a PRNG key, carries no "
               "gradient",
           loc);
  return leaves;
}

std::string typeList(const std::vector<TensorType> &ts) {
  std::string text;
  for (size_t i = 0; i < ts.size(); ++i)
    text += (i ? ", " : "") + ts[i].mlir();
  return text;
}

llvm::SmallVector<mlir::Value> values(const std::vector<Tensor> &xs) {
  llvm::SmallVector<mlir::Value> result;
  for (const Tensor &x : xs)
    result.push_back(valueOf(x));
  return result;
}

/// Traces `name` with f's inputs, then `extra` inputs, and a body built by
/// `body(scope, fInputs, extraInputs)` returning named results.
template <typename Body>
Func derive(const std::string &name, const Func &f,
            const std::vector<detail::Arg> &extra, Body body) {
  Scope s(name);
  std::vector<Tensor> args, more;
  for (const detail::Arg &in : f.inputs())
    args.push_back(s.input(in.name, in.type.shape, in.type.dtype));
  for (const detail::Arg &in : extra)
    more.push_back(s.input(in.name, in.type.shape, in.type.dtype));
  std::vector<Tensor> results = body(s, args, more);
  return Func(s.finish(results));
}

/// The marker `OpTy` naming `f`, built by its builder from the result types
/// and `args` (the callee's operands and attributes after its symbol), and
/// verified.
template <typename OpTy, typename... Args>
std::vector<Tensor>
marker(Scope &s, const std::string &what, SourceLoc loc, const Func &f,
       const std::vector<TensorType> &results, Args &&...args) {
  llvm::SmallVector<mlir::Type> types;
  for (const TensorType &t : results)
    types.push_back(toMLIR(t));
  std::string callee = s.calleeRef(f);
  DiagnosticCapture capture;
  mlir::OpBuilder b = builderOf(s);
  auto op = OpTy::create(b, toMLIR(loc), mlir::TypeRange(types), callee,
                         std::forward<Args>(args)...);
  return checked(s, op, capture, "Func::" + what, loc);
}

std::vector<Tensor> withNames(std::vector<Tensor> xs,
                              const std::vector<std::string> &names) {
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = xs[i].named(names[i]);
  return xs;
}

std::vector<std::string> prefixed(const std::string &prefix,
                                  const std::vector<detail::Arg> &args) {
  std::vector<std::string> result;
  for (const detail::Arg &a : args)
    result.push_back(prefix + a.name);
  return result;
}

std::vector<TensorType> typesOf(const std::vector<detail::Arg> &args) {
  std::vector<TensorType> result;
  for (const detail::Arg &a : args)
    result.push_back(a.type);
  return result;
}

std::vector<detail::Arg> renamed(const std::string &prefix,
                                 const std::vector<detail::Arg> &args) {
  std::vector<detail::Arg> result = args;
  for (detail::Arg &a : result)
    a.name = prefix + a.name;
  return result;
}

void requireScalarLoss(const Func &f, const std::string &what, SourceLoc loc) {
  const TensorType &t = f.outputs()[0].type;
  for (int64_t d : t.shape)
    if (d != 1)
      fail(what,
           "the first output of '" + f.name() +
               "' must have one element, got " + t.str() + " (use vjp)",
           loc);
  if (!is_float(t.dtype))
    fail(what, "the first output of '" + f.name() + "' is not a float", loc);
}

template <typename T> T concatenated(T a, const T &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Makes `derived` specializable (JitOptions::specialize_shapes): the
/// original is specialized with the inputs it shares by name (or as
/// `toOriginal` maps them) and `again` re-applies the transform to it.
using Again = std::function<Func(const Func &, const detail::InputShapes &)>;
using ShapeMap =
    std::function<detail::InputShapes(const detail::InputShapes &)>;
Func respecializable(const Func &derived, const Func &original, Again again,
                     ShapeMap toOriginal = nullptr) {
  if (!original.def().specialize)
    return derived;
  auto def = std::const_pointer_cast<detail::FuncDef>(derived.shared());
  std::shared_ptr<const detail::FuncDef> orig = original.shared();
  def->specialize = [orig, again,
                     toOriginal](const detail::InputShapes &shapes) {
    detail::InputShapes mine;
    if (toOriginal) {
      mine = toOriginal(shapes);
    } else {
      for (const detail::Arg &in : orig->inputs)
        if (auto it = shapes.find(in.name); it != shapes.end())
          mine[in.name] = it->second;
    }
    return again(Func(orig->specialize(mine)), shapes).shared();
  };
  return derived;
}

} // namespace

Func Func::grad(const std::vector<std::string> &wrt, SourceLoc loc) const {
  Leaves leaves = resolve(*this, wrt, "grad", loc);
  if (outputs().size() != 1)
    fail("grad",
         "'" + name() + "' has " + std::to_string(outputs().size()) +
             " outputs; use value_and_grad with has_aux",
         loc);
  requireScalarLoss(*this, "grad", loc);
  const Func &f = *this;
  Func derived = derive(
      name() + "_grad", f, {},
      [&](Scope &s, std::vector<Tensor> args, std::vector<Tensor>) {
        return withNames(marker<GradOp>(s, "grad", loc, f, typesOf(leaves.args),
                                        values(args), leaves.inputs,
                                        leaves.paramsAttr()),
                         prefixed("grad.", leaves.args));
      });
  return respecializable(
      derived, *this, [wrt, loc](const Func &p, const detail::InputShapes &) {
        return p.grad(wrt, loc);
      });
}

Func Func::value_and_grad(const std::vector<std::string> &wrt, bool hasAux,
                          SourceLoc loc) const {
  Leaves leaves = resolve(*this, wrt, "value_and_grad", loc);
  if (outputs().size() != 1 && !hasAux)
    fail("value_and_grad",
         "'" + name() + "' has " + std::to_string(outputs().size()) +
             " outputs; pass has_aux = true",
         loc);
  requireScalarLoss(*this, "value_and_grad", loc);
  const Func &f = *this;
  Func derived = derive(
      name() + "_value_and_grad", f, {},
      [&](Scope &s, std::vector<Tensor> args, std::vector<Tensor>) {
        return withNames(
            marker<ValueAndGradOp>(
                s, "value_and_grad", loc, f,
                concatenated(typesOf(f.outputs()), typesOf(leaves.args)),
                values(args), leaves.inputs, leaves.paramsAttr(), hasAux),
            concatenated(output_names(), prefixed("grad.", leaves.args)));
      });
  return respecializable(
      derived, *this,
      [wrt, hasAux, loc](const Func &p, const detail::InputShapes &) {
        return p.value_and_grad(wrt, hasAux, loc);
      });
}

Func Func::grad_all(SourceLoc loc) const {
  if (params().empty())
    fail("grad_all", "'" + name() + "' has no params", loc);
  return grad(param_names(), loc);
}

Func Func::value_and_grad_all(bool hasAux, SourceLoc loc) const {
  if (params().empty())
    fail("value_and_grad_all", "'" + name() + "' has no params", loc);
  return value_and_grad(param_names(), hasAux, loc);
}

Func Func::vjp(const std::vector<std::string> &wrt, SourceLoc loc) const {
  Leaves leaves = resolve(*this, wrt, "vjp", loc);
  const Func &f = *this;
  Func derived = derive(
      name() + "_vjp", f, renamed("ct.", outputs()),
      [&](Scope &s, std::vector<Tensor> args, std::vector<Tensor> cts) {
        return withNames(
            marker<VJPOp>(
                s, "vjp", loc, f,
                concatenated(typesOf(f.outputs()), typesOf(leaves.args)),
                values(args), values(cts), leaves.inputs, leaves.paramsAttr()),
            concatenated(output_names(), prefixed("grad.", leaves.args)));
      });
  return respecializable(
      derived, *this, [wrt, loc](const Func &p, const detail::InputShapes &) {
        return p.vjp(wrt, loc);
      });
}

Func Func::jvp(const std::vector<std::string> &tangentFor,
               SourceLoc loc) const {
  Leaves leaves = resolve(*this, tangentFor, "jvp", loc);
  const Func &f = *this;
  Func derived = derive(
      name() + "_jvp", f, renamed("t.", leaves.args),
      [&](Scope &s, std::vector<Tensor> args, std::vector<Tensor> ts) {
        return withNames(
            marker<JVPOp>(
                s, "jvp", loc, f,
                concatenated(typesOf(f.outputs()), typesOf(f.outputs())),
                values(args), values(ts), leaves.inputs, leaves.paramsAttr()),
            concatenated(output_names(), prefixed("tangent.", outputs())));
      });
  return respecializable(
      derived, *this,
      [tangentFor, loc](const Func &p, const detail::InputShapes &) {
        return p.jvp(tangentFor, loc);
      });
}

Func Func::hvp(const std::vector<std::string> &wrt, SourceLoc loc) const {
  Leaves leaves = resolve(*this, wrt, "hvp", loc);
  if (outputs().size() != 1)
    fail("hvp", "'" + name() + "' must have one output", loc);
  requireScalarLoss(*this, "hvp", loc);
  const Func &f = *this;
  Func derived = derive(
      name() + "_hvp", f, renamed("t.", leaves.args),
      [&](Scope &s, std::vector<Tensor> args, std::vector<Tensor> ts) {
        return withNames(marker<HVPOp>(s, "hvp", loc, f, typesOf(leaves.args),
                                       values(args), values(ts), leaves.inputs,
                                       leaves.paramsAttr()),
                         prefixed("hvp.", leaves.args));
      });
  return respecializable(
      derived, *this, [wrt, loc](const Func &p, const detail::InputShapes &) {
        return p.hvp(wrt, loc);
      });
}

Func Func::vmap(const std::vector<int64_t> &inAxes,
                const std::vector<int64_t> &outAxes, int64_t batch,
                SourceLoc loc) const {
  if (inAxes.size() != inputs().size())
    fail("vmap",
         std::to_string(inAxes.size()) + " in_axes for " +
             std::to_string(inputs().size()) + " inputs of '" + name() + "'",
         loc);
  if (outAxes.size() != outputs().size())
    fail("vmap",
         std::to_string(outAxes.size()) + " out_axes for " +
             std::to_string(outputs().size()) + " outputs of '" + name() + "'",
         loc);
  auto insert = [&](TensorType t, int64_t axis, const std::string &what) {
    int64_t rank = t.rank() + 1;
    int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
      fail("vmap",
           "axis " + std::to_string(axis) + " out of range for " + what + " " +
               t.str(),
           loc);
    t.shape.insert(t.shape.begin() + a, batch);
    return t;
  };
  std::vector<detail::Arg> batched;
  mlir::Builder b(sharedContext().get());
  llvm::SmallVector<mlir::Attribute> inAttrs;
  bool anyMapped = false;
  for (size_t i = 0; i < inputs().size(); ++i) {
    detail::Arg a = inputs()[i];
    if (inAxes[i] == unmapped) {
      inAttrs.push_back(b.getUnitAttr());
    } else {
      anyMapped = true;
      a.type = insert(a.type, inAxes[i], "input '" + a.name + "'");
      inAttrs.push_back(b.getI64IntegerAttr(inAxes[i]));
    }
    batched.push_back(a);
  }
  if (!anyMapped)
    fail("vmap", "no input is mapped", loc);
  std::vector<TensorType> outTypes;
  for (size_t i = 0; i < outputs().size(); ++i)
    outTypes.push_back(insert(outputs()[i].type, outAxes[i],
                              "output '" + outputs()[i].name + "'"));
  Scope s(name() + "_vmap");
  std::vector<Tensor> args;
  for (const detail::Arg &in : batched)
    args.push_back(s.input(in.name, in.type.shape, in.type.dtype));
  Func derived(s.finish(withNames(
      marker<VmapOp>(s, "vmap", loc, *this, outTypes, values(args),
                     b.getArrayAttr(inAttrs), llvm::ArrayRef<int64_t>(outAxes)),
      output_names())));
  // Specialized: the batch axis leaves each mapped input's shape, and the
  // batch size comes from the first mapped input given.
  std::vector<std::string> names = input_names();
  std::vector<int64_t> axes = inAxes;
  auto batchOf = [names, axes](const detail::InputShapes &shapes,
                               int64_t fallback) {
    for (size_t i = 0; i < names.size(); ++i)
      if (auto it = shapes.find(names[i]);
          it != shapes.end() && axes[i] != unmapped) {
        int64_t rank = static_cast<int64_t>(it->second.size());
        return it->second[axes[i] < 0 ? axes[i] + rank : axes[i]];
      }
    return fallback;
  };
  ShapeMap toOriginal = [names, axes](const detail::InputShapes &shapes) {
    detail::InputShapes result;
    for (size_t i = 0; i < names.size(); ++i) {
      auto it = shapes.find(names[i]);
      if (it == shapes.end())
        continue;
      Shape shape = it->second;
      if (axes[i] != unmapped) {
        int64_t rank = static_cast<int64_t>(shape.size());
        shape.erase(shape.begin() + (axes[i] < 0 ? axes[i] + rank : axes[i]));
      }
      result[names[i]] = shape;
    }
    return result;
  };
  return respecializable(
      derived, *this,
      [inAxes, outAxes, batch, batchOf, loc](const Func &p,
                                             const detail::InputShapes &sh) {
        return p.vmap(inAxes, outAxes, batchOf(sh, batch), loc);
      },
      toOriginal);
}

static Func jacobian(const Func &f, const std::string &op,
                     const std::string &wrt, SourceLoc loc) {
  int64_t index = -1;
  for (size_t i = 0; i < f.inputs().size(); ++i)
    if (f.inputs()[i].name == wrt)
      index = static_cast<int64_t>(i);
  if (index < 0)
    fail(op, "'" + wrt + "' is not an input of '" + f.name() + "'", loc);
  if (f.outputs().size() != 1)
    fail(op, "'" + f.name() + "' must have one output", loc);
  const TensorType &in = f.inputs()[index].type, &out = f.outputs()[0].type;
  if (!in.is_static() || !out.is_static())
    fail(op, "needs static shapes, got " + in.str() + " -> " + out.str(), loc);
  if (op == "hessian")
    requireScalarLoss(f, op, loc);
  TensorType type{out.dtype, op == "hessian" ? in.shape : out.shape};
  type.shape.insert(type.shape.end(), in.shape.begin(), in.shape.end());
  Func derived =
      derive(f.name() + "_" + op, f, {},
             [&](Scope &s, std::vector<Tensor> args, std::vector<Tensor>) {
               auto build = [&](auto tag) {
                 using OpTy = decltype(tag);
                 return marker<OpTy>(s, op, loc, f, {type}, values(args),
                                     static_cast<uint64_t>(index));
               };
               return withNames(op == "jacfwd"   ? build(JacfwdOp())
                                : op == "jacrev" ? build(JacrevOp())
                                                 : build(HessianOp()),
                                {op});
             });
  return respecializable(
      derived, f, [op, wrt, loc](const Func &p, const detail::InputShapes &) {
        return jacobian(p, op, wrt, loc);
      });
}

Func Func::jacfwd(const std::string &wrt, SourceLoc loc) const {
  return jacobian(*this, "jacfwd", wrt, loc);
}
Func Func::jacrev(const std::string &wrt, SourceLoc loc) const {
  return jacobian(*this, "jacrev", wrt, loc);
}
Func Func::hessian(const std::string &wrt, SourceLoc loc) const {
  return jacobian(*this, "hessian", wrt, loc);
}

//===----------------------------------------------------------------------===//
// remat and custom rules
//===----------------------------------------------------------------------===//

/// The marker `OpTy` (`rlx.<op> @f(args)`, then the symbols of `rules`) in
/// a function with f's signature.
template <typename OpTy>
static Func wrapped(const Func &f, const std::string &op,
                    const std::string &suffix, const std::vector<Func> &rules,
                    SourceLoc loc) {
  return derive(f.name() + suffix, f, {},
                [&](Scope &s, std::vector<Tensor> args, std::vector<Tensor>) {
                  std::vector<std::string> symbols;
                  for (const Func &rule : rules)
                    symbols.push_back(s.calleeRef(rule));
                  std::vector<TensorType> types = typesOf(f.outputs());
                  std::vector<Tensor> results;
                  if constexpr (std::is_same_v<OpTy, CustomVJPOp>)
                    results = marker<OpTy>(s, op, loc, f, types, values(args),
                                           symbols[0], symbols[1]);
                  else if constexpr (std::is_same_v<OpTy, CustomJVPOp>)
                    results = marker<OpTy>(s, op, loc, f, types, values(args),
                                           symbols[0]);
                  else
                    results = marker<OpTy>(s, op, loc, f, types, values(args));
                  return withNames(results, f.output_names());
                });
}

Func remat(const Func &f) {
  return respecializable(
      wrapped<RematOp>(f, "remat", "_remat", {}, {}), f,
      [](const Func &p, const detail::InputShapes &) { return remat(p); });
}

std::vector<Tensor> remat(Scope &scope, const std::string &name,
                          const std::function<std::vector<Tensor>(
                              Scope &, const std::vector<Tensor> &)> &block,
                          const std::vector<Tensor> &args, SourceLoc loc) {
  Scope inner(name);
  std::vector<Tensor> innerArgs;
  for (size_t i = 0; i < args.size(); ++i)
    innerArgs.push_back(inner.input("in" + std::to_string(i), args[i].shape(),
                                    args[i].dtype(), loc));
  Func f(inner.finish(block(inner, innerArgs)));
  return remat(f)(scope, args, loc);
}

static void requireTypes(const std::string &what, const std::string &rule,
                         const std::vector<TensorType> &got,
                         const std::vector<TensorType> &want, SourceLoc loc) {
  if (got != want)
    fail(what,
         rule + " has types (" + typeList(got) + "), expected (" +
             typeList(want) + ")",
         loc);
}

Func custom_vjp(const Func &f, const Func &fwd, const Func &bwd,
                SourceLoc loc) {
  std::vector<TensorType> ins = typesOf(f.inputs()),
                          outs = typesOf(f.outputs());
  requireTypes("custom_vjp", "fwd's inputs", typesOf(fwd.inputs()), ins, loc);
  std::vector<TensorType> fwdOuts = typesOf(fwd.outputs());
  if (fwdOuts.size() < outs.size() ||
      !std::equal(outs.begin(), outs.end(), fwdOuts.begin()))
    fail("custom_vjp",
         "fwd's outputs must start with f's outputs (" + typeList(outs) + ")",
         loc);
  std::vector<TensorType> residuals(fwdOuts.begin() + outs.size(),
                                    fwdOuts.end());
  requireTypes("custom_vjp", "bwd's inputs", typesOf(bwd.inputs()),
               concatenated(residuals, outs), loc);
  requireTypes("custom_vjp", "bwd's outputs", typesOf(bwd.outputs()), ins, loc);
  return wrapped<CustomVJPOp>(f, "custom_vjp", "_custom_vjp", {fwd, bwd}, loc);
}

Func custom_jvp(const Func &f, const Func &jvp, SourceLoc loc) {
  std::vector<TensorType> ins = typesOf(f.inputs()),
                          outs = typesOf(f.outputs());
  requireTypes("custom_jvp", "jvp's inputs", typesOf(jvp.inputs()),
               concatenated(ins, ins), loc);
  requireTypes("custom_jvp", "jvp's outputs", typesOf(jvp.outputs()),
               concatenated(outs, outs), loc);
  return wrapped<CustomJVPOp>(f, "custom_jvp", "_custom_jvp", {jvp}, loc);
}

//===----------------------------------------------------------------------===//
// Quantized param reads
//===----------------------------------------------------------------------===//

namespace {

/// What quantizeReads rounds and how.
struct QuantPlan {
  std::set<std::string> params;
  FloatFormat format;
  /// Also the f32/f64 operands of matmul and conv2d that are not param
  /// reads.
  bool activations = false;
  SourceLoc loc;
};

/// `value` through an rlx.fake_quant built before `b`'s insertion point,
/// verified (the dialect judges the format).
mlir::Value quantized(mlir::OpBuilder &b, mlir::Location at, mlir::Value value,
                      const QuantPlan &plan, const std::string &what) {
  DiagnosticCapture capture;
  const char *specials[] = {"ieee", "fn", "fnuz", "finite"};
  const FloatFormat &f = plan.format;
  auto q = FakeQuantOp::create(
      b, at, value, mlir::Value(), b.getI64IntegerAttr(f.exponent_bits),
      b.getI64IntegerAttr(f.mantissa_bits), b.getI64IntegerAttr(f.bias),
      b.getStringAttr(specials[static_cast<int>(f.specials)]),
      f.saturate ? b.getUnitAttr() : mlir::UnitAttr());
  if (mlir::failed(mlir::verify(q)))
    throw Error("rlx::fake_quant_params: " + what + ": " + capture.errors() +
                plan.loc.suffix());
  return q.getResult();
}

bool isF32OrF64(mlir::Value v) {
  mlir::Type element = mlir::getElementTypeOrSelf(v.getType());
  return element.isF32() || element.isF64();
}

/// `def` with a fake_quant after each read of a param of the plan (and, with
/// `activations`, before each other float operand of a matmul or conv2d),
/// in its body and, rewritten alike, its callees (each once, by `done`);
/// `def` itself when it changes nothing, so untouched callees stay shared.
/// fake_quant's straight-through rule makes a gradient w.r.t. such a param
/// the gradient at its quantized value.
std::shared_ptr<const FuncDef>
quantizeReads(const std::shared_ptr<const FuncDef> &def, const QuantPlan &plan,
              std::map<const FuncDef *, std::shared_ptr<const FuncDef>> &done) {
  if (auto it = done.find(def.get()); it != done.end())
    return it->second;
  auto copy = std::make_shared<FuncDef>(*def);
  bool changed = false;
  for (std::shared_ptr<const FuncDef> &callee : copy->callees) {
    std::shared_ptr<const FuncDef> q = quantizeReads(callee, plan, done);
    changed |= q != callee;
    callee = std::move(q);
  }
  auto body = std::make_shared<FuncBody>();
  body->context = def->body->context;
  body->func = def->body->func->clone();
  mlir::OpBuilder b(body->context.get());
  llvm::SmallVector<ParamOp> reads;
  llvm::SmallVector<mlir::Operation *> contractions;
  body->func->walk([&](mlir::Operation *op) {
    if (auto read = mlir::dyn_cast<ParamOp>(op)) {
      if (plan.params.count(read.getName().str()))
        reads.push_back(read);
    } else if (plan.activations && mlir::isa<MatmulOp, Conv2DOp>(op)) {
      contractions.push_back(op);
    }
  });
  for (ParamOp read : reads) {
    b.setInsertionPointAfter(read);
    mlir::Value q = quantized(b, read.getLoc(), read.getResult(), plan,
                              "param '" + read.getName().str() + "'");
    read.getResult().replaceAllUsesExcept(q, q.getDefiningOp());
    changed = true;
  }
  for (mlir::Operation *op : contractions)
    for (mlir::OpOperand &operand : op->getOpOperands()) {
      mlir::Value v = operand.get();
      // Weights are the params' business (quantized above, or not chosen).
      if (v.getDefiningOp<FakeQuantOp>() || v.getDefiningOp<ParamOp>() ||
          !isF32OrF64(v))
        continue;
      b.setInsertionPoint(op);
      operand.set(quantized(b, op->getLoc(), v, plan,
                            "an operand of " +
                                op->getName().getStringRef().str()));
      changed = true;
    }
  std::shared_ptr<const FuncDef> result = def;
  if (changed) {
    copy->body = std::move(body);
    if (def->specialize)
      copy->specialize = [plan, original = def->specialize](
                             const InputShapes &shapes) {
        std::map<const FuncDef *, std::shared_ptr<const FuncDef>> fresh;
        return quantizeReads(original(shapes), plan, fresh);
      };
    result = copy;
  }
  done[def.get()] = result;
  return result;
}

} // namespace

Func detail::quantizedReads(const Func &f, const std::set<std::string> &params,
                            const FloatFormat &format, bool activations,
                            SourceLoc loc) {
  format.max_finite(); // throws for bit counts the op cannot take
  std::map<const FuncDef *, std::shared_ptr<const FuncDef>> done;
  return Func(quantizeReads(f.shared(), {params, format, activations, loc}, done));
}

//===----------------------------------------------------------------------===//
// Computing in a 16-bit float type
//===----------------------------------------------------------------------===//

namespace {

/// What lowerPrecision computes in.
struct PrecisionPlan {
  DType dtype;
  SourceLoc loc;
};

bool isF32Tensor(mlir::Type type) {
  return mlir::isa<mlir::RankedTensorType>(type) &&
         mlir::getElementTypeOrSelf(type).isF32();
}

mlir::Type withElement(mlir::Type type, mlir::Type element) {
  return mlir::cast<mlir::RankedTensorType>(type).clone(element);
}

/// Whether `op` names another function (func.call, a transform marker, a
/// loop's or a branch's body): its operand and result types are that
/// function's signature, which lowerPrecision keeps f32.
bool refersToFunction(mlir::Operation *op) {
  bool found = false;
  for (mlir::NamedAttribute attr : op->getAttrs())
    attr.getValue().walk([&](mlir::SymbolRefAttr) { found = true; });
  return found;
}

/// An f32 constant's value rounded to `element` (ties to even), or null
/// when it is not held as dense floats.
mlir::Attribute roundedConstant(mlir::Attribute value, mlir::Type element) {
  auto dense = mlir::dyn_cast<mlir::DenseFPElementsAttr>(value);
  if (!dense)
    return {};
  const llvm::fltSemantics &semantics =
      mlir::cast<mlir::FloatType>(element).getFloatSemantics();
  return dense.mapValues(element, [&](const llvm::APFloat &x) {
    llvm::APFloat y = x;
    bool lost;
    y.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
    return y.bitcastToAPInt();
  });
}

/// `def` with its f32 values in `plan.dtype` (see compute_in), its callees
/// rewritten alike (each once, by `done`); `def` itself when it holds no
/// f32 value, so untouched callees stay shared.
std::shared_ptr<const FuncDef>
lowerPrecision(const std::shared_ptr<const FuncDef> &def,
               const PrecisionPlan &plan,
               std::map<const FuncDef *, std::shared_ptr<const FuncDef>> &done) {
  if (auto it = done.find(def.get()); it != done.end())
    return it->second;
  auto copy = std::make_shared<FuncDef>(*def);
  bool changed = false;
  for (std::shared_ptr<const FuncDef> &callee : copy->callees) {
    std::shared_ptr<const FuncDef> lowered = lowerPrecision(callee, plan, done);
    changed |= lowered != callee;
    callee = std::move(lowered);
  }
  auto body = std::make_shared<FuncBody>();
  body->context = def->body->context;
  body->func = def->body->func->clone();
  mlir::OpBuilder b(body->context.get());
  mlir::Type narrowElement =
      mlir::getElementTypeOrSelf(toMLIR(TensorType{plan.dtype, {}}));
  mlir::Type f32 = b.getF32Type();
  mlir::Block &entry = body->func->getBody().front();
  // 16-bit values standing for f32 ones, and an f32 value for each where
  // an op keeping f32 reads it (the original itself when the 16-bit one is
  // its cast, so no round trip).
  llvm::DenseSet<mlir::Value> narrowed;
  llvm::DenseMap<mlir::Value, mlir::Value> wide;
  auto narrow = [&](mlir::Value v, mlir::Location at) {
    auto c = CastOp::create(b, at, withElement(v.getType(), narrowElement), v);
    v.replaceAllUsesExcept(c.getResult(), c);
    narrowed.insert(c.getResult());
    wide[c.getResult()] = v;
    changed = true;
  };
  auto widen = [&](mlir::Value v) -> mlir::Value {
    if (auto it = wide.find(v); it != wide.end())
      return it->second;
    mlir::OpBuilder::InsertionGuard guard(b);
    if (mlir::Operation *producer = v.getDefiningOp())
      b.setInsertionPointAfter(producer);
    else
      b.setInsertionPointToStart(v.getParentBlock());
    mlir::Value c =
        CastOp::create(b, v.getLoc(), withElement(v.getType(), f32), v);
    wide[v] = c;
    return c;
  };

  std::vector<mlir::Operation *> ops;
  for (mlir::Operation &op : entry)
    ops.push_back(&op);
  b.setInsertionPointToStart(&entry);
  for (mlir::BlockArgument arg : entry.getArguments())
    if (isF32Tensor(arg.getType()))
      narrow(arg, arg.getLoc());
  for (mlir::Operation *op : ops) {
    if (mlir::isa<mlir::func::ReturnOp>(op)) {
      for (mlir::OpOperand &operand : op->getOpOperands())
        if (narrowed.count(operand.get()))
          operand.set(widen(operand.get()));
      continue;
    }
    bool touches = false;
    for (mlir::Value v : op->getOperands())
      touches |= narrowed.count(v) > 0;
    for (mlir::Value r : op->getResults())
      touches |= isF32Tensor(r.getType());
    if (!touches)
      continue;
    // A param read binds an f32 weight; an op naming a function keeps its
    // signature. Any other op computes in the 16-bit type if its verifier
    // accepts that; the others (random samplers, fake_quant, bitcast)
    // keep f32 between casts.
    bool keepsF32 = mlir::isa<ParamOp>(op) || refersToFunction(op);
    if (!keepsF32) {
      llvm::SmallVector<mlir::Type> before(op->getResultTypes());
      mlir::Attribute constant;
      if (auto c = mlir::dyn_cast<ConstantOp>(op);
          c && isF32Tensor(c.getType())) {
        constant = c.getValue();
        mlir::Attribute rounded = roundedConstant(constant, narrowElement);
        if (rounded)
          op->setAttr("value", rounded);
        else
          keepsF32 = true;
      }
      if (!keepsF32) {
        llvm::SmallVector<mlir::Value> retyped;
        for (mlir::Value r : op->getResults())
          if (isF32Tensor(r.getType())) {
            r.setType(withElement(r.getType(), narrowElement));
            retyped.push_back(r);
          }
        DiagnosticCapture quiet;
        if (mlir::succeeded(mlir::verify(op))) {
          narrowed.insert(retyped.begin(), retyped.end());
          changed = true;
          continue;
        }
        for (auto [r, type] : llvm::zip(op->getResults(), before))
          r.setType(type);
        if (constant)
          op->setAttr("value", constant);
        keepsF32 = true;
      }
    }
    for (mlir::OpOperand &operand : op->getOpOperands())
      if (narrowed.count(operand.get()))
        operand.set(widen(operand.get()));
    b.setInsertionPointAfter(op);
    for (mlir::Value r : op->getResults())
      if (isF32Tensor(r.getType()))
        narrow(r, op->getLoc());
  }
  std::shared_ptr<const FuncDef> result = def;
  if (changed) {
    DiagnosticCapture capture;
    if (mlir::failed(mlir::verify(*body->func)))
      throw Error("rlx::compute_in: '" + def->name + "' in " +
                  std::string(dtype_name(plan.dtype)) + ": " + capture.errors() +
                  plan.loc.suffix());
    copy->body = std::move(body);
    if (def->specialize)
      copy->specialize = [plan, original = def->specialize](
                             const InputShapes &shapes) {
        std::map<const FuncDef *, std::shared_ptr<const FuncDef>> fresh;
        return lowerPrecision(original(shapes), plan, fresh);
      };
    result = copy;
  }
  done[def.get()] = result;
  return result;
}

} // namespace

Func compute_in(const Func &f, DType dtype, SourceLoc loc) {
  if (dtype != DType::bf16 && dtype != DType::f16)
    throw Error(std::string("rlx::compute_in: computes in bf16 or f16, not ") +
                dtype_name(dtype) + loc.suffix());
  std::map<const FuncDef *, std::shared_ptr<const FuncDef>> done;
  return Func(lowerPrecision(f.shared(), {dtype, loc}, done));
}

Func fake_quant_params(const Func &f, const FloatFormat &format,
                       const std::vector<std::string> &params,
                       bool activations, SourceLoc loc) {
  const std::string who = "rlx::fake_quant_params: ";
  std::set<std::string> names;
  auto quantizable = [](const TensorType &type) {
    return type.dtype == DType::f32 || type.dtype == DType::f64;
  };
  for (const detail::Arg &p : f.params())
    if (params.empty() && p.type.rank() >= 2 && quantizable(p.type))
      names.insert(p.name);
  for (const std::string &name : params) {
    auto it = std::find_if(f.params().begin(), f.params().end(),
                           [&](const detail::Arg &p) { return p.name == name; });
    if (it == f.params().end())
      throw Error(who + "'" + f.name() + "' reads no param '" + name + "'" +
                  loc.suffix());
    if (!quantizable(it->type))
      throw Error(who + "param '" + name + "' is " + it->type.str() +
                  ", fake_quant takes f32 or f64" + loc.suffix());
    names.insert(name);
  }
  return detail::quantizedReads(f, names, format, activations, loc);
}

} // namespace rlx
