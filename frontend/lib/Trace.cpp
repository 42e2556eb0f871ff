//===- Trace.cpp - The tracing scope and module printing ------------------===//
///
/// \file
/// Ops are recorded as MLIR text lines: the printed form is what `to_mlir`
/// returns and what the compiler parses (and verifies) when jitting, so the
/// frontend needs no MLIR context to trace.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Func.h"
#include "rlx/frontend/Ops.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

namespace rlx {

namespace {
constexpr char kCalleeMark = '\x01';

/// A number as an MLIR literal of `dtype`.
std::string literal(double value, DType dtype) {
  if (dtype == DType::i1)
    return value != 0 ? "true" : "false";
  if (!isFloat(dtype))
    return std::to_string(static_cast<long long>(value));
  if (!std::isfinite(value)) {
    char text[32];
    if (dtype == DType::f64) {
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      std::snprintf(text, sizeof text, "0x%016llX",
                    static_cast<unsigned long long>(bits));
    } else {
      float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      if (dtype != DType::f32)
        throw Error("rlx: non-finite constants are only supported in f32 "
                    "and f64");
      std::snprintf(text, sizeof text, "0x%08X", bits);
    }
    return text;
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  // MLIR wants a '.' in every float literal, also before an exponent.
  std::string s = text;
  if (s.find('.') == std::string::npos) {
    size_t e = s.find('e');
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  }
  return s;
}

void nestedLiteral(std::string &out, const std::vector<double> &values,
                   const Shape &shape, size_t dim, size_t &index, DType dtype) {
  if (dim == shape.size()) {
    out += literal(values[index++], dtype);
    return;
  }
  out += "[";
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (i)
      out += ", ";
    nestedLiteral(out, values, shape, dim + 1, index, dtype);
  }
  out += "]";
}

std::string quoted(const std::string &s) { return "\"" + s + "\""; }
} // namespace

namespace {
/// The scopes tracing now, on this thread (traces nest: scoped remat).
thread_local std::set<uint64_t> liveScopes;
std::atomic<uint64_t> nextScopeId{1};
} // namespace

Tensor::Tensor(Scope *scope, std::string ssa, TensorType type)
    : scope_(scope), scopeId_(scope ? scope->id() : 0), ssa_(std::move(ssa)),
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
  liveScopes.insert(id_);
}

Scope::~Scope() { liveScopes.erase(id_); }

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
    bool fits = special.isStatic() && special.rank() == type.rank();
    for (int64_t d = 0; fits && d < type.rank(); ++d)
      fits = shape[d] == dyn || shape[d] == it->second[d];
    if (!fits)
      throw Error("rlx::Scope::input: the shape " + special.str() +
                  " does not specialize input '" + name + "' (" + type.str() +
                  ")" + loc.suffix());
    type = special;
  }
  std::string ssa = "%arg" + std::to_string(def_->inputs.size());
  def_->inputs.push_back({name, type});
  return Tensor(this, ssa, type);
}

Tensor Scope::param(const std::string &name, const Shape &shape, DType dtype,
                    SourceLoc loc) {
  TensorType type{dtype, shape};
  if (!type.isStatic())
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
  return emit("rlx.param " + quoted(name) + " : " + type.mlir(), type);
}

Tensor Scope::full(const Shape &shape, double value, DType dtype) {
  TensorType type{dtype, shape};
  if (!type.isStatic())
    throw Error("rlx: constants need a static shape, got " + type.str());
  return emit("rlx.constant dense<" + literal(value, dtype) +
                  "> : " + type.mlir(),
              type);
}

Tensor Scope::constant(const std::vector<double> &values, const Shape &shape,
                       DType dtype, SourceLoc loc) {
  TensorType type{dtype, shape};
  if (!type.isStatic())
    throw Error("rlx::Scope::constant: needs a static shape, got " +
                type.str() + loc.suffix());
  size_t count = 1;
  for (int64_t d : shape)
    count *= static_cast<size_t>(d);
  if (values.size() != count)
    throw Error("rlx::Scope::constant: " + std::to_string(values.size()) +
                " values for shape " + formatShape(shape) + loc.suffix());
  std::string text;
  size_t index = 0;
  nestedLiteral(text, values, shape, 0, index, dtype);
  return emit("rlx.constant dense<" + text + "> : " + type.mlir(), type);
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
      if (specializes(args[i].type(), traced) && args[i].type().isStatic())
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
  std::string operands, inTypes, outTypes;
  for (size_t i = 0; i < args.size(); ++i) {
    if (&args[i].scope() != this)
      throw Error("rlx: call of '" + def.name +
                  "' with a tensor of another trace" + loc.suffix());
    if (args[i].type() != def.inputs[i].type)
      throw Error("rlx: call of '" + def.name + "': argument '" +
                  def.inputs[i].name + "' is " + args[i].type().str() +
                  ", expected " + def.inputs[i].type.str() + loc.suffix());
    operands += (i ? ", " : "") + args[i].ssa();
    inTypes += (i ? ", " : "") + args[i].type().mlir();
  }
  std::vector<TensorType> types;
  for (size_t i = 0; i < def.outputs.size(); ++i) {
    outTypes += (i ? ", " : "") + def.outputs[i].type.mlir();
    types.push_back(def.outputs[i].type);
  }
  return emitMulti("func.call " + calleeRef(callee) + "(" + operands + ") : (" +
                       inTypes + ") -> (" + outTypes + ")",
                   types);
}

Tensor Scope::emit(const std::string &opText, const TensorType &type) {
  std::string ssa = "%" + std::to_string(nextValue++);
  def_->body += "    " + ssa + " = " + opText + "\n";
  return Tensor(this, ssa, type);
}

std::vector<Tensor> Scope::emitMulti(const std::string &opText,
                                     const std::vector<TensorType> &types) {
  if (types.size() == 1)
    return {emit(opText, types[0])};
  if (types.empty())
    throw Error("rlx: an op without results");
  std::string ssa = "%" + std::to_string(nextValue++);
  def_->body +=
      "    " + ssa + ":" + std::to_string(types.size()) + " = " + opText + "\n";
  std::vector<Tensor> results;
  for (size_t i = 0; i < types.size(); ++i)
    results.emplace_back(this, ssa + "#" + std::to_string(i), types[i]);
  return results;
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
  return std::string("@") + kCalleeMark + std::to_string(index) + kCalleeMark;
}

std::shared_ptr<detail::FuncDef>
Scope::finish(const std::vector<Tensor> &results) {
  if (results.empty())
    throw Error("rlx::Func '" + def_->name + "' returns nothing");
  std::set<std::string> names;
  for (size_t i = 0; i < results.size(); ++i) {
    const Tensor &r = results[i];
    if (!r.valid() || &r.scope() != this)
      throw Error("rlx::Func '" + def_->name + "': result " +
                  std::to_string(i) + " is not a tensor of this trace");
    std::string name = r.name().empty() ? "out" + std::to_string(i) : r.name();
    if (!names.insert(name).second)
      throw Error("rlx::Func '" + def_->name + "': two outputs named '" + name +
                  "'");
    def_->outputs.push_back({name, r.type()});
    def_->results.push_back(r.ssa());
  }
  return def_;
}

//===----------------------------------------------------------------------===//
// Func basics and printing
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

namespace {
void printFunc(std::string &out, const detail::FuncDef &def,
               const std::map<const detail::FuncDef *, std::string> &symbols,
               bool isPublic) {
  out += isPublic ? "func.func @" : "func.func private @";
  out += symbols.at(&def) + "(";
  for (size_t i = 0; i < def.inputs.size(); ++i) {
    out += (i ? ", " : "") + std::string("%arg") + std::to_string(i) + ": " +
           def.inputs[i].type.mlir();
    if (isPublic)
      out += " {rlx.name = " + quoted(def.inputs[i].name) + "}";
  }
  out += ") -> (";
  for (size_t i = 0; i < def.outputs.size(); ++i) {
    out += (i ? ", " : "") + def.outputs[i].type.mlir();
    if (isPublic)
      out += " {rlx.name = " + quoted(def.outputs[i].name) + "}";
  }
  out += ") {\n";
  // Callee placeholders become symbols.
  const std::string &body = def.body;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != kCalleeMark) {
      out += body[i];
      continue;
    }
    size_t close = body.find(kCalleeMark, i + 1);
    size_t index = std::stoul(body.substr(i + 1, close - i - 1));
    out += symbols.at(def.callees[index].get());
    i = close;
  }
  out += "    return ";
  std::string types;
  for (size_t i = 0; i < def.results.size(); ++i) {
    out += (i ? ", " : "") + def.results[i];
    types += (i ? ", " : "") + def.outputs[i].type.mlir();
  }
  out += " : " + types + "\n  }\n";
}

void collect(const detail::FuncDef *def,
             std::vector<const detail::FuncDef *> &order,
             std::set<const detail::FuncDef *> &seen) {
  if (!seen.insert(def).second)
    return;
  for (const auto &callee : def->callees)
    collect(callee.get(), order, seen);
  order.push_back(def);
}
} // namespace

std::string Func::to_mlir() const {
  std::vector<const detail::FuncDef *> order;
  std::set<const detail::FuncDef *> seen;
  collect(&def(), order, seen);
  // The entry keeps its name; another function of the same name is renamed.
  std::map<const detail::FuncDef *, std::string> symbols;
  std::set<std::string> taken{def().name};
  symbols[&def()] = def().name;
  for (const detail::FuncDef *d : order) {
    if (d == &def())
      continue;
    std::string name = d->name;
    for (int k = 1; taken.count(name); ++k)
      name = d->name + "_" + std::to_string(k);
    taken.insert(name);
    symbols[d] = name;
  }
  std::string out = "// Traced by the rlx C++ frontend.\nmodule {\n";
  for (const detail::FuncDef *d : order) {
    out += "  ";
    printFunc(out, *d, symbols, d == &def());
  }
  return out + "}\n";
}

void Func::export_mlir(const std::string &path) const {
  std::ofstream file(path);
  file << to_mlir();
  if (!file)
    throw Error("rlx: cannot write '" + path + "'");
}

} // namespace rlx
