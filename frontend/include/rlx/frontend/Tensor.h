//===- Tensor.h - Symbolic tensors and the tracing scope --------*- C++ -*-===//
///
/// \file
/// `rlx::Scope` builds one function of the rlx dialect while a lambda runs;
/// `rlx::Tensor` is a value of that function (an opaque handle and its type).
/// Nothing is computed while tracing: each op is built, its shape rule and
/// verifier checking it at the caller's line.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_TENSOR_H
#define RLX_FRONTEND_TENSOR_H

#include "rlx/frontend/Types.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rlx {

class Scope;
class Func;
namespace detail {
struct FuncDef;
} // namespace detail

/// A traced value. Cheap to copy; valid while its Scope traces.
class Tensor {
public:
  Tensor() = default;
  /// `value` is the opaque pointer of the mlir::Value (see lib/TraceIR.h).
  Tensor(Scope *scope, const void *value, TensorType type);

  const TensorType &type() const { return type_; }
  const Shape &shape() const { return type_.shape; }
  DType dtype() const { return type_.dtype; }
  int64_t rank() const { return type_.rank(); }
  /// Size of dim `axis` (negative counts from the end); `dyn` if dynamic.
  int64_t dim(int64_t axis) const;
  /// The trace this value belongs to; throws once that trace has ended.
  Scope &scope() const;
  /// The opaque handle of the IR value.
  const void *value() const { return value_; }
  bool valid() const { return scope_ != nullptr; }

  /// Names this value when it is returned from the traced function (the
  /// output's name in the artifact's manifest).
  Tensor named(const std::string &name) const {
    Tensor copy = *this;
    copy.name_ = name;
    return copy;
  }
  const std::string &name() const { return name_; }

  /// Methods for the common ops (the free functions of Ops.h do the work).
  Tensor matmul(const Tensor &rhs, SourceLoc loc = SourceLoc::current()) const;
  Tensor sum(const std::vector<int64_t> &axes = {}, bool keepdims = false,
             SourceLoc loc = SourceLoc::current()) const;
  Tensor mean(const std::vector<int64_t> &axes = {}, bool keepdims = false,
              SourceLoc loc = SourceLoc::current()) const;
  Tensor max(const std::vector<int64_t> &axes = {}, bool keepdims = false,
             SourceLoc loc = SourceLoc::current()) const;
  Tensor reshape(const Shape &shape,
                 SourceLoc loc = SourceLoc::current()) const;
  Tensor transpose(const std::vector<int64_t> &permutation = {},
                   SourceLoc loc = SourceLoc::current()) const;
  /// The last two axes swapped.
  Tensor T(SourceLoc loc = SourceLoc::current()) const;
  Tensor cast(DType dtype, SourceLoc loc = SourceLoc::current()) const;
  Tensor exp(SourceLoc loc = SourceLoc::current()) const;
  Tensor log(SourceLoc loc = SourceLoc::current()) const;
  Tensor sqrt(SourceLoc loc = SourceLoc::current()) const;
  Tensor tanh(SourceLoc loc = SourceLoc::current()) const;
  Tensor relu(SourceLoc loc = SourceLoc::current()) const;
  Tensor sigmoid(SourceLoc loc = SourceLoc::current()) const;
  Tensor square(SourceLoc loc = SourceLoc::current()) const;
  Tensor softmax(int64_t axis = -1, SourceLoc loc = SourceLoc::current()) const;
  Tensor log_softmax(int64_t axis = -1,
                     SourceLoc loc = SourceLoc::current()) const;

private:
  Scope *scope_ = nullptr;
  /// Scope::id() of scope_: a new trace may reuse a dead one's address.
  uint64_t scopeId_ = 0;
  const void *value_ = nullptr;
  TensorType type_;
  std::string name_;
};

/// The function being traced. Handed to the user's lambda.
class Scope {
public:
  explicit Scope(std::string funcName);
  ~Scope();
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

  /// A function argument named `name`; `dyn` marks a dynamic dim.
  Tensor input(const std::string &name, const Shape &shape,
               DType dtype = DType::f32, SourceLoc loc = SourceLoc::current());
  /// A weight bound by name at run time. Declaring a name again returns the
  /// same value (the type must agree).
  Tensor param(const std::string &name, const Shape &shape,
               DType dtype = DType::f32, SourceLoc loc = SourceLoc::current());
  /// A constant filled with `value`.
  Tensor full(const Shape &shape, double value, DType dtype = DType::f32,
              SourceLoc loc = SourceLoc::current());
  Tensor scalar(double value, DType dtype = DType::f32,
                SourceLoc loc = SourceLoc::current()) {
    return full({}, value, dtype, loc);
  }
  /// A constant holding `values` (row-major).
  Tensor constant(const std::vector<double> &values, const Shape &shape,
                  DType dtype = DType::f32,
                  SourceLoc loc = SourceLoc::current());

  /// Calls a traced function (`func.call`); its params become this
  /// function's params.
  std::vector<Tensor> call(const Func &callee, const std::vector<Tensor> &args,
                           SourceLoc loc = SourceLoc::current());

  //===--------------------------------------------------------------------===//
  // Used by ops, layers and transforms, not usually by models.
  //===--------------------------------------------------------------------===//

  /// Registers `callee` (its params become this function's) and returns the
  /// placeholder symbol that ops of this function refer to it by; the module
  /// replaces it with the callee's name.
  std::string calleeRef(const Func &callee);

  /// Inputs named here get these static shapes instead of their traced
  /// dynamic dims (see JitOptions::specialize_shapes).
  void specialize_inputs(const std::map<std::string, Shape> &shapes) {
    inputShapes = shapes;
  }

  /// Unique among all scopes of the process.
  uint64_t id() const { return id_; }

  /// A trace of the body of a loop or a branch inside `parent`: tensors of
  /// `parent` (or of the scopes around it) used here are captured, becoming
  /// leading arguments of this function that the loop passes as consts.
  Scope(std::string funcName, Scope &parent);
  /// The scope this one traces a body inside, if any.
  Scope *parent() const { return parent_; }
  /// `t` as a value of this trace: itself, or captured from an enclosing
  /// scope. Throws for a tensor of an unrelated trace.
  Tensor adopt(const Tensor &t, SourceLoc loc = SourceLoc::current());
  /// The enclosing-scope tensors captured (as `parent` values), in the
  /// order of the leading arguments that stand for them.
  const std::vector<Tensor> &captures() const { return captures_; }
  /// Makes the capture arguments follow `order` (which holds every capture
  /// of this scope), adding unused ones, so that several bodies of one op
  /// take the same consts.
  void order_captures(const std::vector<Tensor> &order);
  /// The innermost of two scopes where one encloses the other; null when
  /// they are unrelated.
  static Scope *innermost(Scope *a, Scope *b);

  detail::FuncDef &def();
  /// Finishes the trace into the function definition.
  std::shared_ptr<detail::FuncDef> finish(const std::vector<Tensor> &results);

private:
  std::shared_ptr<detail::FuncDef> def_;
  std::map<std::string, Shape> inputShapes;
  uint64_t id_;
  Scope *parent_ = nullptr;
  /// captures_[i] (a value of parent_) is the function's argument i.
  std::vector<Tensor> captures_;
};

} // namespace rlx

#endif // RLX_FRONTEND_TENSOR_H
