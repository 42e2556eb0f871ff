//===- Func.h - Traced functions and their transforms ----------*- C++ -*-===//
///
/// \file
/// `rlx::Func` is a traced function: its signature, its params, its body in
/// the rlx dialect, and the functions it refers to. Transforms return new
/// Funcs whose body is one marker op (`rlx.grad @f(...)`, ...) calling the
/// original: the compiler's rlx-autodiff pass expands them, so transforms
/// compose exactly as the markers do.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_FUNC_H
#define RLX_FRONTEND_FUNC_H

#include "rlx/frontend/Tensor.h"

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace rlx {

class Compiled;
struct Device;
struct JitOptions;

namespace detail {
using InputShapes = std::map<std::string, Shape>;

/// The IR of a traced function (lib/TraceIR.h; no MLIR in these headers).
struct FuncBody;

/// An input, output or param: its name and type.
struct Arg {
  std::string name;
  TensorType type;
};

/// What a trace produced. Immutable once finished.
struct FuncDef {
  std::string name;
  std::vector<Arg> inputs, outputs;
  /// Every weight read, directly or through callees, in declaration order.
  std::vector<Arg> params;
  /// Its func.func; callee symbols are placeholders (see Scope::calleeRef).
  std::shared_ptr<FuncBody> body;
  std::vector<std::shared_ptr<const FuncDef>> callees;
  /// Re-derives the function with the given inputs' dynamic dims made static
  /// (by input name): a lambda is traced again, a transform re-applied to its
  /// specialized original. Empty when that is impossible (custom rules).
  std::function<std::shared_ptr<const FuncDef>(const InputShapes &)> specialize;
};
} // namespace detail

/// `in_axes` entry of vmap for an argument passed whole to every example.
constexpr int64_t unmapped = std::numeric_limits<int64_t>::min();

/// A traced function.
class Func {
public:
  Func() = default;
  explicit Func(std::shared_ptr<const detail::FuncDef> def)
      : def_(std::move(def)) {}
  /// Traces `fn(Scope&)`, which returns a Tensor or a std::vector<Tensor>.
  /// The lambda is kept: jit with JitOptions::specialize_shapes traces it
  /// again per input signature, so what it captures by reference must
  /// outlive such a Compiled.
  template <typename Fn> Func(const std::string &name, Fn &&fn) {
    def_ = trace(name, std::make_shared<std::decay_t<Fn>>(std::forward<Fn>(fn)),
                 {});
  }

  const std::string &name() const { return def().name; }
  const std::vector<detail::Arg> &inputs() const { return def().inputs; }
  const std::vector<detail::Arg> &outputs() const { return def().outputs; }
  const std::vector<detail::Arg> &params() const { return def().params; }
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  /// Every param, in declaration order.
  std::vector<std::string> param_names() const;

  /// The module: this function (public, its name the entry point) and every
  /// function it refers to (private). `rlxc` compiles it unchanged.
  std::string to_mlir() const;
  void export_mlir(const std::string &path) const;

  //===--------------------------------------------------------------------===//
  // Transforms. `wrt` names inputs and params (the leaves); results are
  // named `grad.<leaf>`, tangents `tangent.<output>`.
  //===--------------------------------------------------------------------===//

  /// The gradient of a one-element first output w.r.t. each leaf.
  Func grad(const std::vector<std::string> &wrt,
            SourceLoc loc = SourceLoc::current()) const;
  /// The outputs, then the gradients. With `has_aux`, outputs after the
  /// first are returned as they are and not differentiated.
  Func value_and_grad(const std::vector<std::string> &wrt, bool has_aux = false,
                      SourceLoc loc = SourceLoc::current()) const;
  /// W.r.t. every param, in declaration order.
  Func grad_all(SourceLoc loc = SourceLoc::current()) const;
  Func value_and_grad_all(bool has_aux = false,
                          SourceLoc loc = SourceLoc::current()) const;
  /// Takes one cotangent per output (inputs `ct.<output>`); returns the
  /// outputs, then one adjoint per leaf.
  Func vjp(const std::vector<std::string> &wrt,
           SourceLoc loc = SourceLoc::current()) const;
  /// Takes one tangent per leaf (inputs `t.<leaf>`); returns the outputs,
  /// then one tangent per output.
  Func jvp(const std::vector<std::string> &tangent_for,
           SourceLoc loc = SourceLoc::current()) const;
  /// Hessian-vector products: tangents `t.<leaf>` in, one result per leaf.
  Func hvp(const std::vector<std::string> &wrt,
           SourceLoc loc = SourceLoc::current()) const;
  /// Maps over a batch: `in_axes` per input (or `unmapped`), `out_axes` per
  /// output; the batch dim has size `batch` (default dynamic).
  Func vmap(const std::vector<int64_t> &in_axes,
            const std::vector<int64_t> &out_axes, int64_t batch = dyn,
            SourceLoc loc = SourceLoc::current()) const;
  /// Jacobians of the single output w.r.t. input `wrt` (static shapes):
  /// shape(output) ++ shape(input); the Hessian: shape(input) twice.
  Func jacfwd(const std::string &wrt,
              SourceLoc loc = SourceLoc::current()) const;
  Func jacrev(const std::string &wrt,
              SourceLoc loc = SourceLoc::current()) const;
  Func hessian(const std::string &wrt,
               SourceLoc loc = SourceLoc::current()) const;

  /// Calls this function inside another trace.
  std::vector<Tensor> operator()(Scope &scope, const std::vector<Tensor> &args,
                                 SourceLoc loc = SourceLoc::current()) const {
    return scope.call(*this, args, loc);
  }

  /// Compiles (cached) for `device`.
  Compiled jit(const Device &device) const;
  Compiled jit(const Device &device, const JitOptions &options) const;

  const detail::FuncDef &def() const;
  std::shared_ptr<const detail::FuncDef> shared() const { return def_; }

private:
  template <typename Fn>
  static std::shared_ptr<const detail::FuncDef>
  trace(const std::string &name, std::shared_ptr<Fn> fn,
        const detail::InputShapes &shapes) {
    Scope scope(name);
    scope.specialize_inputs(shapes);
    std::vector<Tensor> results;
    using Result = std::decay_t<decltype((*fn)(scope))>;
    if constexpr (std::is_same_v<Result, Tensor>)
      results.push_back((*fn)(scope));
    else
      results = (*fn)(scope);
    std::shared_ptr<detail::FuncDef> def = scope.finish(results);
    def->specialize = [name, fn](const detail::InputShapes &s) {
      return trace(name, fn, s);
    };
    return def;
  }

  std::shared_ptr<const detail::FuncDef> def_;
};

/// `f` whose intermediates are recomputed in the backward sweep instead of
/// kept (JAX's checkpoint).
Func remat(const Func &f);
/// Scoped remat: traces `block(scope, args)` as its own function and calls
/// it through `rlx.remat`.
std::vector<Tensor> remat(Scope &scope, const std::string &name,
                          const std::function<std::vector<Tensor>(
                              Scope &, const std::vector<Tensor> &)> &block,
                          const std::vector<Tensor> &args,
                          SourceLoc loc = SourceLoc::current());
/// `f` differentiated in reverse mode by the user's rule: `fwd(args)` gives
/// f's outputs then residuals; `bwd(residuals..., cotangents...)` one adjoint
/// per argument.
Func custom_vjp(const Func &f, const Func &fwd, const Func &bwd,
                SourceLoc loc = SourceLoc::current());
/// `f` differentiated in forward mode by `jvp(args..., tangents...)`, which
/// gives the outputs then their tangents.
Func custom_jvp(const Func &f, const Func &jvp,
                SourceLoc loc = SourceLoc::current());

} // namespace rlx

#endif // RLX_FRONTEND_FUNC_H
