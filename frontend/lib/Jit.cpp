//===- Jit.cpp - Host arrays and compiled functions -----------------------===//

#include "rlx/frontend/Jit.h"

#include <cstdlib>
#include <iostream>
#include <random>
#include <set>

namespace rlx {

rlx_dtype_t to_runtime(DType dtype) { return to_c(dtype); }

DType from_runtime(rlx_dtype_t dtype) {
  if (!is_valid(dtype))
    throw Error("rlx: unsupported runtime dtype " +
                std::to_string(static_cast<int>(dtype)));
  return static_cast<DType>(dtype);
}

//===----------------------------------------------------------------------===//
// Array
//===----------------------------------------------------------------------===//

const runtime::HostTensor &Array::runtime() const {
  if (!state_)
    throw Error("rlx::Array: empty");
  return state_->tensor;
}

const runtime::HostTensor &Array::host() const {
  const runtime::HostTensor &tensor = runtime();
  if (!tensor.on_device())
    return tensor;
  std::call_once(state_->downloaded,
                 [&] { state_->host_copy.emplace(tensor.to_host()); });
  return *state_->host_copy;
}

Array Array::zeros(const Shape &dims, DType dtype) {
  for (int64_t d : dims)
    if (d < 0)
      throw Error("rlx::Array: dims must be known, got " + format_shape(dims));
  return Array(runtime::HostTensor::allocate(to_runtime(dtype), dims));
}

Array Array::from(const std::vector<double> &values, const Shape &dims,
                  DType dtype) {
  Array a = zeros(dims, dtype);
  if (values.size() != a.size())
    throw Error("rlx::Array: " + std::to_string(values.size()) +
                " values for shape " + format_shape(dims));
  for (size_t i = 0; i < values.size(); ++i) {
    switch (dtype) {
    case DType::f32:
      a.data<float>()[i] = static_cast<float>(values[i]);
      break;
    case DType::f64:
      a.data<double>()[i] = values[i];
      break;
    case DType::i8:
      a.data<int8_t>()[i] = static_cast<int8_t>(values[i]);
      break;
    case DType::i32:
      a.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
      break;
    case DType::i64:
      a.data<int64_t>()[i] = static_cast<int64_t>(values[i]);
      break;
    case DType::i1:
      a.data<uint8_t>()[i] = values[i] != 0;
      break;
    default:
      throw Error(std::string("rlx::Array: cannot fill ") + dtype_name(dtype));
    }
  }
  return a;
}

Array Array::from(const std::vector<float> &values, const Shape &dims) {
  Array a = zeros(dims, DType::f32);
  if (values.size() != a.size())
    throw Error("rlx::Array: " + std::to_string(values.size()) +
                " values for shape " + format_shape(dims));
  std::copy(values.begin(), values.end(), a.data<float>());
  return a;
}

Array Array::from(const std::vector<int32_t> &values, const Shape &dims) {
  Array a = zeros(dims, DType::i32);
  if (values.size() != a.size())
    throw Error("rlx::Array: " + std::to_string(values.size()) +
                " values for shape " + format_shape(dims));
  std::copy(values.begin(), values.end(), a.data<int32_t>());
  return a;
}

std::vector<double> Array::to_vector() const {
  std::vector<double> result(size());
  for (size_t i = 0; i < result.size(); ++i)
    result[i] = at(i);
  return result;
}

std::string Array::type_string() const {
  return dtype_name(dtype()) + format_shape(shape());
}

const Array &Outputs::operator[](const std::string &name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return values[i];
  std::string known;
  for (const std::string &n : names)
    known += (known.empty() ? "" : ", ") + n;
  throw Error("rlx::Outputs: no output '" + name + "' (outputs: " + known +
              ")");
}

//===----------------------------------------------------------------------===//
// Compiled
//===----------------------------------------------------------------------===//

Compiled Func::jit(const Device &device) const {
  return jit(device, JitOptions());
}

Compiled Func::jit(const Device &device, const JitOptions &options) const {
  bool dynamic = false;
  for (const detail::Arg &in : inputs())
    dynamic |= !in.type.is_static();
  // Specializing: compiled per input signature at the first call of each,
  // the dynamic artifact is never built.
  if (options.specialize_shapes && dynamic && def().specialize)
    return Compiled(*this, nullptr, device, options);
  return Compiled(*this, compile_module(*this, device, options), device,
                  options);
}

Compiled::Compiled(Func func, std::shared_ptr<runtime::Artifact> artifact,
                   Device device, JitOptions options)
    : func_(std::move(func)), artifact_(std::move(artifact)),
      session_(artifact_ ? std::make_shared<runtime::Session>(*artifact_)
                         : nullptr),
      device_(std::move(device)), options_(options) {}

static bool matches(const TensorType &want, const Array &got) {
  if (got.dtype() != want.dtype)
    return false;
  Shape shape = got.shape();
  if (shape.size() != want.shape.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (want.shape[i] != dyn && want.shape[i] != shape[i])
      return false;
  return true;
}

Outputs Compiled::run(const std::map<std::string, Array> &inputs) const {
  const std::string &name = func_.name();
  std::string known;
  for (const detail::Arg &in : func_.inputs())
    known += (known.empty() ? "" : ", ") + in.name + ": " + in.type.str();
  for (const auto &[key, value] : inputs) {
    bool found = false;
    for (const detail::Arg &in : func_.inputs())
      found |= in.name == key;
    if (!found)
      throw Error("rlx::Compiled::run: '" + name + "' has no input '" + key +
                  "' (inputs: " + known + ")");
  }
  std::vector<const runtime::HostTensor *> ordered;
  for (const detail::Arg &in : func_.inputs()) {
    auto it = inputs.find(in.name);
    if (it == inputs.end())
      throw Error("rlx::Compiled::run: missing input '" + in.name + "' (" +
                  in.type.str() + ") of '" + name + "'; " +
                  std::to_string(inputs.size()) + " given, " +
                  std::to_string(func_.inputs().size()) + " expected");
    if (!matches(in.type, it->second))
      throw Error("rlx::Compiled::run: input '" + in.name + "' of '" + name +
                  "' is " + it->second.type_string() + ", expected " +
                  in.type.str());
    ordered.push_back(&it->second.runtime());
  }
  const Variant &variant = variant_for(inputs);
  runtime::TensorList list;
  try {
    // GPU outputs stay on the device until read (Array::host).
    runtime::CallOptions options;
    options.outputs_on_device = true;
    list = variant.session->call(name, ordered, options);
  } catch (const runtime::RuntimeError &e) {
    throw Error("rlx::Compiled::run: '" + name + "': " + e.what());
  }
  Outputs outputs;
  for (size_t i = 0; i < list.size(); ++i) {
    outputs.names.push_back(list.name(i));
    outputs.values.emplace_back(list.at(i));
  }
  return outputs;
}

Compiled &Compiled::with_param(const std::string &name, const Array &value) {
  for (const detail::Arg &p : func_.params()) {
    if (p.name != name)
      continue;
    if (!matches(p.type, value) || value.shape() != p.type.shape)
      throw Error("rlx::Compiled::with_param: param '" + name + "' of '" +
                  func_.name() + "' is " + p.type.str() + ", got " +
                  value.type_string());
    try {
      if (session_)
        session_->bind_tensor(name, value.runtime());
      for (auto &[signature, variant] : variants_)
        if (variant->session != session_)
          variant->session->bind_tensor(name, value.runtime());
      bound_[name] = value;
    } catch (const runtime::RuntimeError &e) {
      throw Error("rlx::Compiled::with_param: '" + name + "': " + e.what());
    }
    return *this;
  }
  std::string known;
  for (const std::string &n : func_.param_names())
    known += (known.empty() ? "" : ", ") + n;
  throw Error("rlx::Compiled::with_param: '" + func_.name() +
              "' has no param '" + name + "' (params: " + known + ")");
}

/// `x: f32[4,3], y: f32[4]` for the inputs whose traced type has dynamic
/// dims.
static std::string signatureOf(const Func &func,
                               const std::map<std::string, Array> &inputs,
                               detail::InputShapes &shapes) {
  std::string signature;
  for (const detail::Arg &in : func.inputs()) {
    if (in.type.is_static())
      continue;
    const Array &value = inputs.at(in.name);
    shapes[in.name] = value.shape();
    signature +=
        (signature.empty() ? "" : ", ") + in.name + ": " + value.type_string();
  }
  return signature;
}

const Compiled::Variant &
Compiled::variant_for(const std::map<std::string, Array> &inputs) const {
  detail::InputShapes shapes;
  std::string signature;
  if (options_.specialize_shapes && func_.def().specialize)
    signature = signatureOf(func_, inputs, shapes);
  if (signature.empty()) {
    // The artifact with dynamic dims.
    auto &base = variants_[""];
    if (!base)
      base = std::make_shared<Variant>(Variant{func_, artifact_, session_});
    return *base;
  }
  auto &variant = variants_[signature];
  if (!variant) {
    const char *debug = std::getenv("RLX_DEBUG");
    if (debug && *debug && std::string(debug) != "0")
      std::cerr << "rlx: '" << func_.name() << "' called with a new input "
                << "signature (" << signature << ")"
                << (lastSignature_.empty()
                        ? std::string()
                        : "; the last call had (" + lastSignature_ + ")")
                << ": specializing\n";
    Func special(func_.def().specialize(shapes));
    auto artifact = compile_module(special, device_, options_);
    auto session = std::make_shared<runtime::Session>(*artifact);
    for (const auto &[name, value] : bound_)
      session->bind_tensor(name, value.runtime());
    if (communicator_)
      runtime::set_communicator(*session, *communicator_);
    variant = std::make_shared<Variant>(Variant{special, artifact, session});
  }
  lastSignature_ = signature;
  return *variant;
}

Compiled &
Compiled::with_communicator(const runtime::Communicator &communicator) {
  communicator_ =
      std::make_shared<runtime::Communicator>(communicator.share());
  try {
    if (session_)
      runtime::set_communicator(*session_, *communicator_);
    for (auto &[signature, variant] : variants_)
      if (variant->session != session_)
        runtime::set_communicator(*variant->session, *communicator_);
  } catch (const runtime::RuntimeError &e) {
    throw Error("rlx::Compiled::with_communicator: '" + func_.name() +
                "': " + e.what());
  }
  return *this;
}

Compiled &Compiled::init_params(
    const std::function<Array(const std::string &, const Shape &)> &init) {
  for (const detail::Arg &p : func_.params())
    with_param(p.name, init(p.name, p.type.shape));
  return *this;
}

Compiled &Compiled::init_randn(uint64_t seed, double stddev) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, stddev);
  for (const detail::Arg &p : func_.params()) {
    size_t count = 1;
    for (int64_t d : p.type.shape)
      count *= d;
    std::vector<double> values(count);
    for (double &v : values)
      v = normal(rng);
    with_param(p.name, Array::from(values, p.type.shape, p.type.dtype));
  }
  return *this;
}

Compiled &Compiled::load_params(const std::string &path) {
  try {
    runtime::TensorList list = runtime::TensorList::read_safetensors(path);
    for (size_t i = 0; i < list.size(); ++i)
      with_param(list.name(i), Array(list.at(i)));
  } catch (const runtime::RuntimeError &e) {
    throw Error("rlx::Compiled::load_params: " + std::string(e.what()));
  }
  return *this;
}

Array Compiled::param(const std::string &name) const {
  if (!session_) {
    auto it = bound_.find(name);
    if (it == bound_.end())
      throw Error("rlx::Compiled::param: '" + name + "' is not bound");
    return it->second;
  }
  try {
    return Array(session_->lookup_weight(name));
  } catch (const runtime::RuntimeError &e) {
    throw Error("rlx::Compiled::param: '" + name + "': " + e.what());
  }
}

} // namespace rlx
