//===- Trace.cpp - The tracing scope and the traced module ----------------===//
///
/// \file
/// A Scope builds one func.func with the rlx dialect's builders, in the
/// context all traces share; `to_mlir` prints the module that buildModule
/// assembles from a function and its callees, which is also what jit
/// compiles.
///
//===----------------------------------------------------------------------===//

#include "TraceIR.h"

#include "rlx/frontend/Ops.h"

#include "codegen/Compiler.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <fstream>
#include <map>
#include <set>

/// The dialect and the compiler (mlir::rlx) under the frontend (::rlx):
/// frontend names win where both have one.
using namespace mlir::rlx;

namespace rlx {

//===----------------------------------------------------------------------===//
// The shared context and diagnostics
//===----------------------------------------------------------------------===//

namespace detail {

namespace {
/// The innermost capture of this thread, and the one taking every thread's.
thread_local DiagnosticCapture *threadCapture = nullptr;
std::atomic<DiagnosticCapture *> allThreadsCapture{nullptr};

/// `file:line:col` as compilers say it, else MLIR's form.
std::string locationText(mlir::Location loc) {
  if (auto at = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    return at.getFilename().str() + ":" + std::to_string(at.getLine()) + ":" +
           std::to_string(at.getColumn());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}
} // namespace

std::shared_ptr<mlir::MLIRContext> sharedContext() {
  static std::shared_ptr<mlir::MLIRContext> context = [] {
    mlir::DialectRegistry registry;
    registerCompilerDialects(registry);
    auto ctx = std::make_shared<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    ctx->printOpOnDiagnostic(false);
    ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &d) {
      DiagnosticCapture *capture = threadCapture;
      if (!capture)
        capture = allThreadsCapture.load();
      if (!capture)
        return mlir::failure();
      capture->add(d);
      return mlir::success();
    });
    return ctx;
  }();
  return context;
}

DiagnosticCapture::DiagnosticCapture(bool allThreads)
    : outer(threadCapture), allThreads(allThreads) {
  threadCapture = this;
  if (allThreads)
    allThreadsCapture.store(this);
}

DiagnosticCapture::~DiagnosticCapture() {
  threadCapture = outer;
  if (allThreads)
    allThreadsCapture.store(nullptr);
}

void DiagnosticCapture::add(mlir::Diagnostic &d) {
  const char *severity =
      d.getSeverity() == mlir::DiagnosticSeverity::Error     ? "error"
      : d.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
                                                             : "note";
  std::string where = locationText(d.getLocation());
  std::string message = d.str();
  std::lock_guard<std::mutex> lock(mutex);
  lines.push_back({where + ": " + severity, message});
  if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
    errorLines.push_back({where, message});
}

std::string DiagnosticCapture::errors() const {
  std::lock_guard<std::mutex> lock(mutex);
  std::string text;
  for (const auto &[where, message] : errorLines)
    text += (text.empty() ? "" : "; ") + message;
  return text.empty() ? "rejected by the op's verifier" : text;
}

std::string DiagnosticCapture::all() const {
  std::lock_guard<std::mutex> lock(mutex);
  std::string text;
  for (const auto &[where, message] : lines)
    text += where + ": " + message + "\n";
  return text;
}

//===----------------------------------------------------------------------===//
// Types, locations, values
//===----------------------------------------------------------------------===//

mlir::Type toMLIR(const TensorType &type) {
  mlir::MLIRContext *ctx = sharedContext().get();
  mlir::Builder b(ctx);
  mlir::Type element;
  switch (type.dtype) {
  case DType::f32:
    element = b.getF32Type();
    break;
  case DType::f64:
    element = b.getF64Type();
    break;
  case DType::f16:
    element = b.getF16Type();
    break;
  case DType::bf16:
    element = b.getBF16Type();
    break;
  case DType::i8:
    element = b.getI8Type();
    break;
  case DType::i32:
    element = b.getI32Type();
    break;
  case DType::i64:
    element = b.getI64Type();
    break;
  case DType::i1:
    element = b.getI1Type();
    break;
  case DType::f8e4m3fn:
    element = mlir::Float8E4M3FNType::get(ctx);
    break;
  case DType::f8e5m2:
    element = mlir::Float8E5M2Type::get(ctx);
    break;
  case DType::f8e4m3fnuz:
    element = mlir::Float8E4M3FNUZType::get(ctx);
    break;
  case DType::f8e5m2fnuz:
    element = mlir::Float8E5M2FNUZType::get(ctx);
    break;
  case DType::f6e3m2fn:
    element = mlir::Float6E3M2FNType::get(ctx);
    break;
  case DType::f6e2m3fn:
    element = mlir::Float6E2M3FNType::get(ctx);
    break;
  case DType::f4e2m1fn:
    element = mlir::Float4E2M1FNType::get(ctx);
    break;
  case DType::f8e8m0fnu:
    element = mlir::Float8E8M0FNUType::get(ctx);
    break;
  case DType::i16:
    element = b.getIntegerType(16);
    break;
  case DType::ui8:
  case DType::ui16:
  case DType::ui32:
  case DType::ui64:
    element = b.getIntegerType(
        static_cast<unsigned>(rlx_dtype_size(to_c(type.dtype)) * 8),
        /*isSigned=*/false);
    break;
  }
  llvm::SmallVector<int64_t> shape;
  for (int64_t d : type.shape)
    shape.push_back(d == dyn ? mlir::ShapedType::kDynamic : d);
  return mlir::RankedTensorType::get(shape, element);
}

TensorType fromMLIR(mlir::Type type) {
  auto tensor = mlir::cast<mlir::RankedTensorType>(type);
  mlir::Type e = tensor.getElementType();
  TensorType result;
  result.dtype = e.isF32()                                ? DType::f32
                 : e.isF64()                              ? DType::f64
                 : e.isF16()                              ? DType::f16
                 : e.isBF16()                             ? DType::bf16
                 : e.isInteger(1)                         ? DType::i1
                 : e.isSignlessInteger(8)                 ? DType::i8
                 : e.isSignlessInteger(16)                ? DType::i16
                 : e.isSignlessInteger(32)                ? DType::i32
                 : e.isUnsignedInteger(8)                 ? DType::ui8
                 : e.isUnsignedInteger(16)                ? DType::ui16
                 : e.isUnsignedInteger(32)                ? DType::ui32
                 : e.isUnsignedInteger(64)                ? DType::ui64
                 : mlir::isa<mlir::Float8E4M3FNType>(e)   ? DType::f8e4m3fn
                 : mlir::isa<mlir::Float8E5M2Type>(e)     ? DType::f8e5m2
                 : mlir::isa<mlir::Float8E4M3FNUZType>(e) ? DType::f8e4m3fnuz
                 : mlir::isa<mlir::Float8E5M2FNUZType>(e) ? DType::f8e5m2fnuz
                 : mlir::isa<mlir::Float6E3M2FNType>(e)   ? DType::f6e3m2fn
                 : mlir::isa<mlir::Float6E2M3FNType>(e)   ? DType::f6e2m3fn
                 : mlir::isa<mlir::Float4E2M1FNType>(e)   ? DType::f4e2m1fn
                 : mlir::isa<mlir::Float8E8M0FNUType>(e)  ? DType::f8e8m0fnu
                                                          : DType::i64;
  for (int64_t d : tensor.getShape())
    result.shape.push_back(mlir::ShapedType::isDynamic(d) ? dyn : d);
  return result;
}

mlir::Location toMLIR(SourceLoc loc) {
  mlir::MLIRContext *ctx = sharedContext().get();
  if (!loc.file || !loc.line)
    return mlir::UnknownLoc::get(ctx);
  return mlir::FileLineColLoc::get(ctx, loc.file, loc.line, loc.column);
}

mlir::Value valueOf(const Tensor &tensor) {
  return mlir::Value::getFromOpaquePointer(tensor.value());
}

Tensor tensorOf(Scope &scope, mlir::Value value) {
  return Tensor(&scope, value.getAsOpaquePointer(), fromMLIR(value.getType()));
}

Scope &commonScope(const std::string &op, const std::vector<Tensor> &xs,
                   SourceLoc loc) {
  auto fail = [&](const std::string &message) {
    throw Error("rlx::" + op + ": " + message + loc.suffix());
  };
  Scope *scope = nullptr;
  for (const Tensor &x : xs) {
    if (!x.valid())
      fail("an operand is an empty Tensor");
    scope = scope ? Scope::innermost(scope, &x.scope()) : &x.scope();
    if (!scope)
      fail("operands come from different traces");
  }
  if (!scope)
    fail("needs at least one tensor operand");
  return *scope;
}

mlir::OpBuilder builderOf(Scope &scope) {
  return mlir::OpBuilder::atBlockEnd(&scope.def().body->func->front());
}

std::vector<Tensor> checked(Scope &scope, mlir::Operation *op,
                            DiagnosticCapture &capture, const std::string &what,
                            SourceLoc loc) {
  if (mlir::failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    throw Error("rlx::" + what + ": " + capture.errors() + loc.suffix());
  }
  std::vector<Tensor> results;
  for (mlir::Value v : op->getResults())
    results.push_back(tensorOf(scope, v));
  return results;
}

} // namespace detail

using namespace detail;

namespace {
/// The scopes tracing now, on this thread (traces nest: scoped remat).
thread_local std::set<uint64_t> liveScopes;
std::atomic<uint64_t> nextScopeId{1};

/// `value` as an element of `type`'s element type.
mlir::Attribute element(mlir::Type type, double value) {
  if (mlir::isa<mlir::FloatType>(type))
    return mlir::FloatAttr::get(type, value);
  if (type.isInteger(1))
    return mlir::IntegerAttr::get(type, value != 0 ? 1 : 0);
  return mlir::IntegerAttr::get(type, static_cast<int64_t>(value));
}
} // namespace

//===----------------------------------------------------------------------===//
// Tensor and Scope
//===----------------------------------------------------------------------===//

Tensor::Tensor(Scope *scope, const void *value, TensorType type)
    : scope_(scope), scopeId_(scope ? scope->id() : 0), value_(value),
      type_(std::move(type)) {}

int64_t Tensor::dim(int64_t axis) const {
  int64_t r = rank();
  int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r)
    throw Error("rlx: axis " + std::to_string(axis) + " out of range for " +
                type_.str());
  return type_.shape[a];
}

Scope &Tensor::scope() const {
  if (!scope_)
    throw Error("rlx: use of an empty Tensor");
  if (!liveScopes.count(scopeId_))
    throw Error("rlx: a tensor of a finished trace is used in another trace "
                "(different traces cannot share values; pass it as an input)");
  return *scope_;
}

Scope::Scope(std::string funcName)
    : def_(std::make_shared<detail::FuncDef>()), id_(nextScopeId++) {
  if (funcName.empty())
    throw Error("rlx::Func: the name is empty");
  for (char c : funcName)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
          c == '$'))
      throw Error("rlx::Func: name '" + funcName +
                  "' may hold only letters, digits, '_', '.' and '$'");
  def_->name = std::move(funcName);
  auto body = std::make_shared<FuncBody>();
  body->context = sharedContext();
  mlir::OpBuilder b(body->context.get());
  body->func = mlir::func::FuncOp::create(b, b.getUnknownLoc(), def_->name,
                                          b.getFunctionType({}, {}));
  body->func->addEntryBlock();
  def_->body = std::move(body);
  liveScopes.insert(id_);
}

Scope::Scope(std::string funcName, Scope &parent) : Scope(std::move(funcName)) {
  parent_ = &parent;
}

Scope::~Scope() { liveScopes.erase(id_); }

Scope *Scope::innermost(Scope *a, Scope *b) {
  for (Scope *s = b; s; s = s->parent_)
    if (s == a)
      return b;
  for (Scope *s = a; s; s = s->parent_)
    if (s == b)
      return a;
  return nullptr;
}

Tensor Scope::adopt(const Tensor &t, SourceLoc loc) {
  Scope &owner = t.scope();
  if (&owner == this)
    return t;
  if (!parent_ || innermost(&owner, this) != this)
    throw Error("rlx: a tensor of another trace is used here (traces share "
                "values only with the loop and branch bodies inside them)" +
                loc.suffix());
  // Captured in the parent first when it is itself a body.
  Tensor outer = parent_->adopt(t, loc);
  for (size_t i = 0; i < captures_.size(); ++i)
    if (captures_[i].value() == outer.value())
      return tensorOf(*this, def_->body->func->front().getArgument(i));
  unsigned index = captures_.size();
  captures_.push_back(outer);
  def_->inputs.insert(def_->inputs.begin() + index,
                      {"capture." + std::to_string(index), outer.type()});
  mlir::Value arg = def_->body->func->front().insertArgument(
      index, toMLIR(outer.type()), toMLIR(loc));
  return tensorOf(*this, arg);
}

void Scope::order_captures(const std::vector<Tensor> &order) {
  mlir::Block &block = def_->body->func->front();
  size_t old = captures_.size();
  std::vector<Tensor> reordered;
  std::vector<detail::Arg> inputs;
  for (size_t i = 0; i < order.size(); ++i) {
    mlir::Value arg = block.insertArgument(
        old + i, toMLIR(order[i].type()), block.getParent()->getLoc());
    for (size_t j = 0; j < old; ++j)
      if (captures_[j].value() == order[i].value())
        block.getArgument(j).replaceAllUsesWith(arg);
    reordered.push_back(order[i]);
    inputs.push_back({"capture." + std::to_string(i), order[i].type()});
  }
  for (size_t j = 0; j < old; ++j)
    block.eraseArgument(0);
  def_->inputs.erase(def_->inputs.begin(), def_->inputs.begin() + old);
  def_->inputs.insert(def_->inputs.begin(), inputs.begin(), inputs.end());
  captures_ = std::move(reordered);
}

detail::FuncDef &Scope::def() { return *def_; }

Tensor Scope::input(const std::string &name, const Shape &shape, DType dtype,
                    SourceLoc loc) {
  for (const detail::Arg &arg : def_->inputs)
    if (arg.name == name)
      throw Error("rlx::Scope::input: input '" + name + "' declared twice" +
                  loc.suffix());
  for (int64_t d : shape)
    if (d < 0 && d != dyn)
      throw Error("rlx::Scope::input: bad dim " + std::to_string(d) +
                  " in input '" + name + "'" + loc.suffix());
  TensorType type{dtype, shape};
  if (auto it = inputShapes.find(name); it != inputShapes.end()) {
    TensorType special{dtype, it->second};
    bool fits = special.is_static() && special.rank() == type.rank();
    for (int64_t d = 0; fits && d < type.rank(); ++d)
      fits = shape[d] == dyn || shape[d] == it->second[d];
    if (!fits)
      throw Error("rlx::Scope::input: the shape " + special.str() +
                  " does not specialize input '" + name + "' (" + type.str() +
                  ")" + loc.suffix());
    type = special;
  }
  def_->inputs.push_back({name, type});
  mlir::Value arg =
      def_->body->func->front().addArgument(toMLIR(type), toMLIR(loc));
  return tensorOf(*this, arg);
}

Tensor Scope::param(const std::string &name, const Shape &shape, DType dtype,
                    SourceLoc loc) {
  TensorType type{dtype, shape};
  if (!type.is_static())
    throw Error("rlx::Scope::param: param '" + name +
                "' needs a static shape, got " + type.str() + loc.suffix());
  for (const detail::Arg &p : def_->params)
    if (p.name == name && p.type != type)
      throw Error("rlx::Scope::param: param '" + name + "' declared as " +
                  p.type.str() + " and again as " + type.str() + loc.suffix());
  bool known = false;
  for (const detail::Arg &p : def_->params)
    known |= p.name == name;
  if (!known)
    def_->params.push_back({name, type});
  return buildTyped<ParamOp>(*this, "Scope::param", loc, type, name);
}

Tensor Scope::full(const Shape &shape, double value, DType dtype,
                   SourceLoc loc) {
  TensorType type{dtype, shape};
  if (!type.is_static())
    throw Error("rlx: constants need a static shape, got " + type.str() +
                loc.suffix());
  auto tensorType = mlir::cast<mlir::RankedTensorType>(toMLIR(type));
  auto attr = mlir::DenseElementsAttr::get(
      tensorType, element(tensorType.getElementType(), value));
  return buildTyped<ConstantOp>(*this, "Scope::full", loc, type, attr);
}

Tensor Scope::constant(const std::vector<double> &values, const Shape &shape,
                       DType dtype, SourceLoc loc) {
  TensorType type{dtype, shape};
  if (!type.is_static())
    throw Error("rlx::Scope::constant: needs a static shape, got " +
                type.str() + loc.suffix());
  size_t count = 1;
  for (int64_t d : shape)
    count *= static_cast<size_t>(d);
  if (values.size() != count)
    throw Error("rlx::Scope::constant: " + std::to_string(values.size()) +
                " values for shape " + format_shape(shape) + loc.suffix());
  auto tensorType = mlir::cast<mlir::RankedTensorType>(toMLIR(type));
  llvm::SmallVector<mlir::Attribute> elements;
  for (double v : values)
    elements.push_back(element(tensorType.getElementType(), v));
  auto attr = mlir::DenseElementsAttr::get(tensorType, elements);
  return buildTyped<ConstantOp>(*this, "Scope::constant", loc, type, attr);
}

/// True when `arg` has `traced`'s dtype and rank and agrees on its static
/// dims, but fixes some of its dynamic ones.
static bool specializes(const TensorType &arg, const TensorType &traced) {
  if (arg == traced || arg.dtype != traced.dtype || arg.rank() != traced.rank())
    return false;
  for (int64_t d = 0; d < arg.rank(); ++d)
    if (traced.shape[d] != dyn && traced.shape[d] != arg.shape[d])
      return false;
  return true;
}

std::vector<Tensor> Scope::call(const Func &original,
                                const std::vector<Tensor> &args,
                                SourceLoc loc) {
  Func callee = original;
  // Static arguments for dynamic parameters: call a specialized callee, so
  // that types match exactly as func.call requires.
  if (callee.def().specialize && args.size() == callee.inputs().size()) {
    detail::InputShapes shapes;
    bool all = true;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].valid())
        continue;
      const TensorType &traced = callee.inputs()[i].type;
      if (specializes(args[i].type(), traced) && args[i].type().is_static())
        shapes[callee.inputs()[i].name] = args[i].shape();
      else if (args[i].type() != traced)
        all = false;
    }
    if (all && !shapes.empty())
      callee = Func(callee.def().specialize(shapes));
  }
  const detail::FuncDef &def = callee.def();
  if (args.size() != def.inputs.size())
    throw Error("rlx: call of '" + def.name + "' with " +
                std::to_string(args.size()) + " arguments, expected " +
                std::to_string(def.inputs.size()) + loc.suffix());
  llvm::SmallVector<mlir::Value> operands;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].valid() && &args[i].scope() != this &&
        !innermost(&args[i].scope(), this))
      throw Error("rlx: call of '" + def.name +
                  "' with a tensor of another trace" + loc.suffix());
    if (args[i].type() != def.inputs[i].type)
      throw Error("rlx: call of '" + def.name + "': argument '" +
                  def.inputs[i].name + "' is " + args[i].type().str() +
                  ", expected " + def.inputs[i].type.str() + loc.suffix());
    operands.push_back(valueOf(adopt(args[i], loc)));
  }
  llvm::SmallVector<mlir::Type> types;
  for (const detail::Arg &out : def.outputs)
    types.push_back(toMLIR(out.type));
  DiagnosticCapture capture;
  mlir::OpBuilder b = builderOf(*this);
  auto op = mlir::func::CallOp::create(b, toMLIR(loc), calleeRef(callee), types,
                                       operands);
  return checked(*this, op, capture, "call", loc);
}

std::string Scope::calleeRef(const Func &callee) {
  std::shared_ptr<const detail::FuncDef> shared = callee.shared();
  size_t index = 0;
  while (index < def_->callees.size() && def_->callees[index] != shared)
    ++index;
  if (index == def_->callees.size()) {
    def_->callees.push_back(shared);
    for (const detail::Arg &p : shared->params) {
      bool known = false;
      for (const detail::Arg &mine : def_->params) {
        if (mine.name != p.name)
          continue;
        known = true;
        if (mine.type != p.type)
          throw Error("rlx: param '" + p.name + "' is " + mine.type.str() +
                      " here and " + p.type.str() + " in '" + shared->name +
                      "'");
      }
      if (!known)
        def_->params.push_back(p);
    }
  }
  return "#" + std::to_string(index);
}

std::shared_ptr<detail::FuncDef>
Scope::finish(const std::vector<Tensor> &results) {
  if (results.empty())
    throw Error("rlx::Func '" + def_->name + "' returns nothing");
  std::set<std::string> names;
  llvm::SmallVector<mlir::Value> values;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].valid() ||
        (&results[i].scope() != this &&
         innermost(&results[i].scope(), this) != this))
      throw Error("rlx::Func '" + def_->name + "': result " +
                  std::to_string(i) + " is not a tensor of this trace");
    // A body may return a value of an enclosing scope: a capture.
    Tensor r = adopt(results[i]).named(results[i].name());
    std::string name = r.name().empty() ? "out" + std::to_string(i) : r.name();
    if (!names.insert(name).second)
      throw Error("rlx::Func '" + def_->name + "': two outputs named '" + name +
                  "'");
    def_->outputs.push_back({name, r.type()});
    values.push_back(valueOf(r));
  }
  mlir::func::FuncOp func = *def_->body->func;
  mlir::OpBuilder b = builderOf(*this);
  mlir::func::ReturnOp::create(b, func.getLoc(), values);
  llvm::SmallVector<mlir::Type> inTypes, outTypes;
  for (const detail::Arg &in : def_->inputs)
    inTypes.push_back(toMLIR(in.type));
  for (const detail::Arg &out : def_->outputs)
    outTypes.push_back(toMLIR(out.type));
  func.setFunctionType(b.getFunctionType(inTypes, outTypes));
  for (size_t i = 0; i < def_->inputs.size(); ++i)
    func.setArgAttr(i, "rlx.name", b.getStringAttr(def_->inputs[i].name));
  for (size_t i = 0; i < def_->outputs.size(); ++i)
    func.setResultAttr(i, "rlx.name", b.getStringAttr(def_->outputs[i].name));
  return def_;
}

//===----------------------------------------------------------------------===//
// Func basics and the module
//===----------------------------------------------------------------------===//

const detail::FuncDef &Func::def() const {
  if (!def_)
    throw Error("rlx: use of an empty Func");
  return *def_;
}

static std::vector<std::string> names(const std::vector<detail::Arg> &args) {
  std::vector<std::string> result;
  for (const detail::Arg &a : args)
    result.push_back(a.name);
  return result;
}
std::vector<std::string> Func::input_names() const {
  return names(def().inputs);
}
std::vector<std::string> Func::output_names() const {
  return names(def().outputs);
}
std::vector<std::string> Func::param_names() const {
  return names(def().params);
}

static void collect(const detail::FuncDef *def,
                    std::vector<const detail::FuncDef *> &order,
                    std::set<const detail::FuncDef *> &seen) {
  if (!seen.insert(def).second)
    return;
  for (const auto &callee : def->callees)
    collect(callee.get(), order, seen);
  order.push_back(def);
}

mlir::OwningOpRef<mlir::ModuleOp> detail::buildModule(const FuncDef &entry) {
  std::vector<const FuncDef *> order;
  std::set<const FuncDef *> seen;
  collect(&entry, order, seen);
  // The entry keeps its name; another function of the same name is renamed.
  std::map<const FuncDef *, std::string> symbols;
  std::set<std::string> taken{entry.name};
  symbols[&entry] = entry.name;
  for (const FuncDef *d : order) {
    if (d == &entry)
      continue;
    std::string name = d->name;
    for (int k = 1; taken.count(name); ++k)
      name = d->name + "_" + std::to_string(k);
    taken.insert(name);
    symbols[d] = name;
  }
  mlir::MLIRContext *ctx = sharedContext().get();
  mlir::OpBuilder b(ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module->getBody());
  for (const FuncDef *d : order) {
    mlir::func::FuncOp func = d->body->func->clone();
    b.insert(func);
    func.setSymName(symbols.at(d));
    if (d != &entry) {
      func.setPrivate();
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        func.removeArgAttr(i, "rlx.name");
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        func.removeResultAttr(i, b.getStringAttr("rlx.name"));
    }
    // Placeholders `#i` become the callees' symbols.
    for (size_t i = 0; i < d->callees.size(); ++i)
      (void)mlir::SymbolTable::replaceAllSymbolUses(
          b.getStringAttr("#" + std::to_string(i)),
          b.getStringAttr(symbols.at(d->callees[i].get())), func);
  }
  return module;
}

std::string Func::to_mlir() const {
  mlir::OwningOpRef<mlir::ModuleOp> module = buildModule(def());
  std::string text = "// Traced by the rlx C++ frontend.\n";
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

void Func::export_mlir(const std::string &path) const {
  std::ofstream file(path);
  file << to_mlir();
  if (!file)
    throw Error("rlx: cannot write '" + path + "'");
}

} // namespace rlx
