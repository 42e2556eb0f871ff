//===- rlx/runtime.hpp - C++ wrapper of the rlx runtime ---------*- C++ -*-===//
//
/// \file
/// A header-only RAII layer over rlx/runtime.h. Handles are move-only (an
/// explicit `share()` takes another reference), and every failed call throws
/// rlx::RuntimeError carrying the status code and message. Thread-safety is
/// that of the C functions underneath.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_HPP
#define RLX_RUNTIME_HPP

#include "rlx/runtime.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rlx {

/// A failed runtime call.
class RuntimeError : public std::runtime_error {
public:
  RuntimeError(rlx_status_code_t code, const std::string &message)
      : std::runtime_error(message), statusCode(code) {}
  rlx_status_code_t code() const { return statusCode; }

private:
  rlx_status_code_t statusCode;
};

/// Consumes `status`, throwing RuntimeError unless it is OK.
inline void check(rlx_status_t status) {
  if (!status)
    return;
  RuntimeError error(rlx_status_code(status), rlx_status_message(status));
  rlx_status_free(status);
  throw error;
}

/// `[?,784]` (-1 prints as `?`).
inline std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") +
            (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return text + "]";
}

/// `f32[?,784]`.
inline std::string formatType(rlx_dtype_t dtype,
                              const std::vector<int64_t> &shape) {
  return rlx_dtype_name(dtype) + formatShape(shape);
}

namespace detail {
/// Move-only ownership of one reference to a C handle.
template <typename T, void (*Retain)(T *), void (*Release)(T *)> class Handle {
public:
  Handle() = default;
  explicit Handle(T *raw) : raw(raw) {}
  Handle(Handle &&other) noexcept : raw(other.raw) { other.raw = nullptr; }
  Handle &operator=(Handle &&other) noexcept {
    std::swap(raw, other.raw);
    return *this;
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  ~Handle() { Release(raw); }

  T *get() const { return raw; }
  explicit operator bool() const { return raw != nullptr; }
  /// Gives the reference to the caller.
  T *release() {
    T *result = raw;
    raw = nullptr;
    return result;
  }

protected:
  T *retained() const {
    Retain(raw);
    return raw;
  }
  T *raw = nullptr;
};
} // namespace detail

/// A tensor (rlx_tensor_t): in host memory, or a device tensor in a GPU's
/// (then data() is null; toHost() reads it back).
class HostTensor : public detail::Handle<rlx_tensor_t, rlx_tensor_retain,
                                     rlx_tensor_release> {
public:
  using Handle::Handle;

  /// Zero-filled, owning.
  static HostTensor allocate(rlx_dtype_t dtype, const std::vector<int64_t> &dims) {
    rlx_tensor_t *raw = nullptr;
    check(rlx_tensor_allocate(dtype, dims.size(), dims.data(), &raw));
    return HostTensor(raw);
  }
  /// Over caller memory, not copied: `data` must outlive the tensor.
  static HostTensor borrow(rlx_dtype_t dtype, const std::vector<int64_t> &dims,
                       void *data) {
    rlx_tensor_t *raw = nullptr;
    check(rlx_tensor_wrap(dtype, dims.size(), dims.data(), data, nullptr,
                          nullptr, &raw));
    return HostTensor(raw);
  }
  static HostTensor readNpy(const std::string &path) {
    rlx_tensor_t *raw = nullptr;
    check(rlx_npy_read(path.c_str(), &raw));
    return HostTensor(raw);
  }
  void writeNpy(const std::string &path) const {
    check(rlx_npy_write(path.c_str(), raw));
  }

  /// Another reference to the same tensor.
  HostTensor share() const { return HostTensor(retained()); }

  rlx_dtype_t dtype() const { return rlx_tensor_dtype(raw); }
  size_t rank() const { return rlx_tensor_rank(raw); }
  std::vector<int64_t> dims() const {
    const int64_t *dims = rlx_tensor_dims(raw);
    return std::vector<int64_t>(dims, dims + rank());
  }
  size_t elementCount() const { return rlx_tensor_element_count(raw); }
  size_t byteSize() const { return rlx_tensor_byte_size(raw); }
  void *data() const { return rlx_tensor_data(raw); }
  template <typename T> T *data() const { return static_cast<T *>(data()); }
  /// Element `index` (row-major) as a double, whatever the dtype.
  double getF64(size_t index) const {
    double value = 0;
    check(rlx_tensor_get_f64(raw, index, &value));
    return value;
  }
  std::string typeString() const { return formatType(dtype(), dims()); }

  /// RLX_DEVICE_CPU, or the device holding the elements (then data() is
  /// null).
  rlx_device_t device() const { return rlx_tensor_device(raw); }
  bool onDevice() const { return device() != RLX_DEVICE_CPU; }
  /// The elements on the host: this tensor itself when it is there, else a
  /// downloaded copy.
  HostTensor toHost() const {
    rlx_tensor_t *host = nullptr;
    check(rlx_tensor_to_host(raw, &host));
    return HostTensor(host);
  }
};

/// Named tensors (rlx_tensor_list_t): safetensors contents, call outputs.
class TensorList {
public:
  TensorList() { check(rlx_tensor_list_create(&raw)); }
  explicit TensorList(rlx_tensor_list_t *raw) : raw(raw) {}
  TensorList(TensorList &&other) noexcept : raw(other.raw) {
    other.raw = nullptr;
  }
  TensorList &operator=(TensorList &&other) noexcept {
    std::swap(raw, other.raw);
    return *this;
  }
  TensorList(const TensorList &) = delete;
  TensorList &operator=(const TensorList &) = delete;
  ~TensorList() { rlx_tensor_list_free(raw); }

  /// Memory-mapped, not copied.
  static TensorList readSafetensors(const std::string &path) {
    rlx_tensor_list_t *raw = nullptr;
    check(rlx_safetensors_read(path.c_str(), &raw));
    return TensorList(raw);
  }
  void writeSafetensors(const std::string &path) const {
    check(rlx_safetensors_write(path.c_str(), raw));
  }

  void append(const std::string &name, const HostTensor &tensor) {
    check(rlx_tensor_list_append(raw, name.c_str(), tensor.get()));
  }
  size_t size() const { return rlx_tensor_list_size(raw); }
  std::string name(size_t index) const {
    const char *name = rlx_tensor_list_name(raw, index);
    if (!name)
      throw RuntimeError(RLX_STATUS_OUT_OF_RANGE,
                         "tensor list index out of range");
    return name;
  }
  /// A new reference to the tensor at `index`.
  HostTensor at(size_t index) const {
    rlx_tensor_t *tensor = rlx_tensor_list_get(raw, index);
    if (!tensor)
      throw RuntimeError(RLX_STATUS_OUT_OF_RANGE,
                         "tensor list index out of range");
    rlx_tensor_retain(tensor);
    return HostTensor(tensor);
  }
  HostTensor at(const std::string &name) const {
    size_t index = 0;
    check(rlx_tensor_list_find(raw, name.c_str(), &index));
    return at(index);
  }
  rlx_tensor_list_t *get() const { return raw; }

private:
  rlx_tensor_list_t *raw = nullptr;
};

/// An input, output or param of the manifest; -1 in `shape` is dynamic.
struct TensorSpec {
  std::string name;
  rlx_dtype_t dtype;
  std::vector<int64_t> shape;

  static TensorSpec from(const rlx_tensor_spec_t &spec) {
    return {spec.name, spec.dtype,
            std::vector<int64_t>(spec.shape, spec.shape + spec.rank)};
  }
  /// `x: f32[?,784]`.
  std::string toString() const {
    return name + ": " + formatType(dtype, shape);
  }
};

/// An entry point; a view valid while its artifact lives.
class EntryPoint {
public:
  explicit EntryPoint(const rlx_entry_point_t *raw) : raw(raw) {}

  std::string name() const { return rlx_entry_point_name(raw); }
  uint64_t workspaceLowerBoundBytes() const {
    return rlx_entry_point_workspace_lower_bound_bytes(raw);
  }
  uint64_t workspaceBytes() const {
    return rlx_entry_point_workspace_bytes(raw);
  }
  std::vector<TensorSpec> inputs() const {
    return specs(rlx_entry_point_input_count(raw), rlx_entry_point_input);
  }
  std::vector<TensorSpec> outputs() const {
    return specs(rlx_entry_point_output_count(raw), rlx_entry_point_output);
  }
  std::vector<TensorSpec> params() const {
    return specs(rlx_entry_point_param_count(raw), rlx_entry_point_param);
  }
  /// The position of input `name`.
  size_t findInput(const std::string &name) const {
    size_t index = 0;
    check(rlx_entry_point_find_input(raw, name.c_str(), &index));
    return index;
  }
  const rlx_entry_point_t *get() const { return raw; }

private:
  using SpecFn = rlx_status_t (*)(const rlx_entry_point_t *, size_t,
                                  rlx_tensor_spec_t *);
  std::vector<TensorSpec> specs(size_t count, SpecFn fn) const {
    std::vector<TensorSpec> result;
    for (size_t i = 0; i < count; ++i) {
      rlx_tensor_spec_t spec;
      check(fn(raw, i, &spec));
      result.push_back(TensorSpec::from(spec));
    }
    return result;
  }
  const rlx_entry_point_t *raw;
};

/// A loaded artifact (rlx_artifact_t).
class Artifact : public detail::Handle<rlx_artifact_t, rlx_artifact_retain,
                                       rlx_artifact_release> {
public:
  using Handle::Handle;

  static Artifact load(const std::string &path) {
    rlx_artifact_t *raw = nullptr;
    check(rlx_artifact_load(path.c_str(), &raw));
    return Artifact(raw);
  }
  Artifact share() const { return Artifact(retained()); }

  std::string path() const { return rlx_artifact_path(raw); }
  std::string target() const { return rlx_artifact_target(raw); }
  /// The device it was compiled for.
  rlx_device_t device() const { return rlx_artifact_device(raw); }
  std::string compiler() const { return rlx_artifact_compiler(raw); }
  std::string manifestJson() const { return rlx_artifact_manifest_json(raw); }
  std::vector<EntryPoint> entryPoints() const {
    std::vector<EntryPoint> result;
    for (size_t i = 0, e = rlx_artifact_entry_point_count(raw); i < e; ++i)
      result.emplace_back(rlx_artifact_entry_point_at(raw, i));
    return result;
  }
  EntryPoint entryPoint(const std::string &name) const {
    const rlx_entry_point_t *entry = nullptr;
    check(rlx_artifact_find_entry_point(raw, name.c_str(), &entry));
    return EntryPoint(entry);
  }
  std::vector<TensorSpec> params() const {
    std::vector<TensorSpec> result;
    for (size_t i = 0, e = rlx_artifact_param_count(raw); i < e; ++i) {
      rlx_tensor_spec_t spec;
      check(rlx_artifact_param(raw, i, &spec));
      result.push_back(TensorSpec::from(spec));
    }
    return result;
  }
};

/// Options of one call.
struct CallOptions {
  /// A GPU session leaves the outputs in device memory (HostTensor::toHost
  /// reads them back; a next call takes them without a copy).
  bool outputsOnDevice = false;
};

/// The device named "cpu", "vulkan", "cuda" or "hip".
inline rlx_device_t parseDevice(const std::string &name) {
  rlx_device_t device = RLX_DEVICE_DEFAULT;
  check(rlx_device_parse(name.c_str(), &device));
  return device;
}

/// Weight bindings and calls (rlx_session_t).
class Session : public detail::Handle<rlx_session_t, rlx_session_retain,
                                      rlx_session_release> {
public:
  using Handle::Handle;

  /// A session on `device`: by default the one the artifact was compiled
  /// for, which any other must be.
  explicit Session(const Artifact &artifact,
                   rlx_device_t device = RLX_DEVICE_DEFAULT) {
    rlx_session_options_t options;
    rlx_session_options_initialize(&options);
    options.device = device;
    check(rlx_session_create_with_options(artifact.get(), &options, &raw));
  }
  Session share() const { return Session(retained()); }

  rlx_device_t device() const { return rlx_session_device(raw); }
  /// "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu".
  std::string deviceDescription() const {
    return rlx_session_device_description(raw);
  }
  /// `tensor` in the session's device memory (itself on a CPU session).
  HostTensor toDevice(const HostTensor &tensor) const {
    rlx_tensor_t *copy = nullptr;
    check(rlx_session_to_device(raw, tensor.get(), &copy));
    return HostTensor(copy);
  }

  void bindSafetensors(const std::string &path, bool allowUnused = false) {
    rlx_bind_options_t options;
    rlx_bind_options_initialize(&options);
    options.allow_unused = allowUnused ? 1 : 0;
    check(rlx_session_bind_safetensors(raw, path.c_str(), &options));
  }
  void bindTensor(const std::string &name, const HostTensor &tensor) {
    check(rlx_session_bind_tensor(raw, name.c_str(), tensor.get()));
  }
  HostTensor lookupWeight(const std::string &name) const {
    rlx_tensor_t *tensor = nullptr;
    check(rlx_session_lookup_weight(raw, name.c_str(), &tensor));
    return HostTensor(tensor);
  }
  /// Calls `entry` with `inputs` by position; outputs named as in the
  /// manifest.
  TensorList call(const std::string &entry,
                  const std::vector<const HostTensor *> &inputs,
                  const CallOptions &options = {}) const {
    std::vector<rlx_tensor_t *> raws;
    for (const HostTensor *input : inputs)
      raws.push_back(input ? input->get() : nullptr);
    rlx_call_options_t callOptions;
    rlx_call_options_initialize(&callOptions);
    callOptions.outputs_on_device = options.outputsOnDevice ? 1 : 0;
    rlx_tensor_list_t *outputs = nullptr;
    check(rlx_session_call_with_options(raw, entry.c_str(), raws.data(),
                                        raws.size(), &callOptions, &outputs));
    return TensorList(outputs);
  }
  TensorList call(const std::string &entry,
                  const std::vector<HostTensor> &inputs,
                  const CallOptions &options = {}) const {
    std::vector<const HostTensor *> pointers;
    for (const HostTensor &input : inputs)
      pointers.push_back(&input);
    return call(entry, pointers, options);
  }
};

//===----------------------------------------------------------------------===//
// Gradient checking
//===----------------------------------------------------------------------===//

/// Options of checkGrads. Unset values follow the precision of the check:
/// f64 when every leaf and every float output of FN is f64, else f32.
struct GradCheckOptions {
  /// Step of the central differences: f64 1e-6, f32 1e-3.
  std::optional<double> eps;
  /// An element passes when |ad - fd| <= atol + rtol |fd| + roundoff, where
  /// roundoff = 4 u max(|f(x+eps v)|, |f(x-eps v)|) / eps is the rounding
  /// noise of the difference quotient (u: unit roundoff of the output dtype).
  /// f64: rtol 1e-5, atol 1e-7; f32: rtol 1e-2, atol 1e-3.
  std::optional<double> rtol;
  std::optional<double> atol;
  /// Seeds the random directions and cotangents (deterministic).
  uint64_t seed = 0;
  /// How many random (direction, cotangent) pairs to check.
  unsigned directions = 1;
};

/// What checkGrads found. Errors are the worst over all directions.
struct GradCheckResult {
  std::string function;
  /// Every leaf as `name: f64[3,4]`, inputs first, then params.
  std::vector<std::string> leaves;
  double eps = 0, rtol = 0, atol = 0;
  unsigned directions = 0;

  /// FN_jvp's output tangents against the central differences of FN,
  /// elementwise. The relative error is |jvp - fd| / max(|fd|, atol / rtol).
  bool forwardPassed = true;
  double forwardMaxAbsError = 0, forwardMaxRelError = 0;
  /// `tangent.y[1,2]: jvp 0.5, fd 0.49`, the worst element (empty if none).
  std::string forwardWorst;
  size_t forwardElements = 0;

  /// The dot-product identity <ct, J v> = <vjp(ct), v>, J v by central
  /// differences. Tolerance: sum_i |ct_i| (atol + rtol |fd_i| + roundoff_i);
  /// the relative error is against max(|<ct, fd>|, sum_i |ct_i| atol / rtol).
  bool reversePassed = true;
  double reverseAbsError = 0, reverseRelError = 0;
  /// The two sides in the worst direction.
  double reverseFd = 0, reverseVjp = 0;
  /// |<ct, jvp(v)> - <vjp(ct), v>|: the two AD modes against each other,
  /// informative only (FD noise does not enter).
  double modeMismatch = 0;

  /// The primal outputs of FN_jvp and FN_vjp against FN's, elementwise with
  /// the tolerances above (they should agree to rounding).
  bool primalPassed = true;
  double primalMaxAbsError = 0;

  bool passed() const { return forwardPassed && reversePassed && primalPassed; }

  /// A few lines for people; the last is PASS or FAIL.
  std::string summary() const {
    char line[512];
    std::string text;
    std::string leafList;
    for (const std::string &leaf : leaves)
      leafList += (leafList.empty() ? "" : ", ") + leaf;
    std::snprintf(line, sizeof line,
                  "check-grads '%s': eps %g, rtol %g, atol %g, %u "
                  "direction%s\n",
                  function.c_str(), eps, rtol, atol, directions,
                  directions == 1 ? "" : "s");
    text += line;
    text += "  leaves: " + leafList + "\n";
    std::snprintf(line, sizeof line,
                  "  forward (jvp vs central differences, %zu elements): max "
                  "abs error %.3g, max rel error %.3g%s%s: %s\n",
                  forwardElements, forwardMaxAbsError, forwardMaxRelError,
                  forwardWorst.empty() ? "" : ", worst ",
                  forwardWorst.c_str(), forwardPassed ? "PASS" : "FAIL");
    text += line;
    std::snprintf(line, sizeof line,
                  "  reverse (<ct, fd> = %.17g vs <vjp(ct), v> = %.17g): abs "
                  "error %.3g, rel error %.3g (jvp/vjp mismatch %.3g): %s\n",
                  reverseFd, reverseVjp, reverseAbsError, reverseRelError,
                  modeMismatch, reversePassed ? "PASS" : "FAIL");
    text += line;
    if (!primalPassed) {
      std::snprintf(line, sizeof line,
                    "  primal outputs of the jvp/vjp entries differ from "
                    "the function's by up to %.3g: FAIL\n",
                    primalMaxAbsError);
      text += line;
    }
    text += passed() ? "PASS\n" : "FAIL\n";
    return text;
  }
};

namespace detail {

inline bool isFloatDtype(rlx_dtype_t dtype) {
  return dtype == RLX_DTYPE_F16 || dtype == RLX_DTYPE_BF16 ||
         dtype == RLX_DTYPE_F32 || dtype == RLX_DTYPE_F64;
}

/// A tensor of `dtype` (f32 or f64) holding `values`, rounded.
inline HostTensor floatTensor(rlx_dtype_t dtype, const std::vector<int64_t> &dims,
                          const std::vector<double> &values) {
  HostTensor tensor = HostTensor::allocate(dtype, dims);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == RLX_DTYPE_F64)
      tensor.data<double>()[i] = values[i];
    else
      tensor.data<float>()[i] = static_cast<float>(values[i]);
  }
  return tensor;
}

inline std::vector<double> readF64(const HostTensor &tensor) {
  std::vector<double> values(tensor.elementCount());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = tensor.getF64(i);
  return values;
}

inline double roundToDtype(rlx_dtype_t dtype, double value) {
  return dtype == RLX_DTYPE_F64 ? value
                                : static_cast<double>(static_cast<float>(value));
}

/// `[1,2]`: the row-major index of `flat` in `dims`.
inline std::string formatIndex(const std::vector<int64_t> &dims, size_t flat) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    int64_t size = dims[d] > 0 ? dims[d] : 1;
    index[d] = static_cast<int64_t>(flat) % size;
    flat /= static_cast<size_t>(size);
  }
  return formatShape(index);
}

/// Rebinds the weights it saved when it goes away, whatever happened.
class WeightRestorer {
public:
  explicit WeightRestorer(rlx_session_t *session) : session(session) {}
  WeightRestorer(const WeightRestorer &) = delete;
  WeightRestorer &operator=(const WeightRestorer &) = delete;
  void save(const std::string &name, HostTensor original) {
    saved.emplace_back(name, std::move(original));
  }
  ~WeightRestorer() {
    for (auto &[name, tensor] : saved)
      rlx_status_free(
          rlx_session_bind_tensor(session, name.c_str(), tensor.get()));
  }

private:
  rlx_session_t *session;
  std::vector<std::pair<std::string, HostTensor>> saved;
};

} // namespace detail

/// Checks FN's derivatives as compiled by `rlxc --check-grads=FN`, like
/// JAX's check_grads: the artifact must hold FN, FN_jvp and FN_vjp. Leaves
/// are FN's float inputs (perturbed in `inputs`) and every param FN reads
/// (perturbed by rebinding it; the bound weights are restored afterwards,
/// also on an exception). Integer inputs are passed unchanged. For each
/// seeded random direction v over the leaves:
///  - forward: FN_jvp(x, v)'s output tangents against the central
///    differences (FN(x + eps v) - FN(x - eps v)) / (2 eps), elementwise;
///  - reverse: for a random cotangent ct of FN's float outputs,
///    <ct, fd> against <FN_vjp(x, ct), v>.
/// All arithmetic is in f64. Leaves must be f32 or f64. Not safe while other
/// threads call into the same session (it rebinds weights).
inline GradCheckResult checkGrads(const Session &session,
                                  const std::string &fn,
                                  const std::vector<HostTensor> &inputs,
                                  GradCheckOptions options = {}) {
  const std::string jvpName = fn + "_jvp", vjpName = fn + "_vjp";
  Artifact artifact(rlx_session_artifact(session.get()));
  rlx_artifact_retain(artifact.get());

  // The three entry points, or a clear error.
  std::string missing;
  int missingCount = 0;
  for (const std::string &name : {fn, jvpName, vjpName}) {
    const rlx_entry_point_t *entry = nullptr;
    rlx_status_t status = rlx_artifact_find_entry_point(
        artifact.get(), name.c_str(), &entry);
    if (status) {
      rlx_status_free(status);
      missing += (missing.empty() ? "'" : ", '") + name + "'";
      ++missingCount;
    }
  }
  if (!missing.empty())
    throw RuntimeError(RLX_STATUS_NOT_FOUND,
                       "checkGrads: artifact '" + artifact.path() +
                           "' lacks entry point" +
                           (missingCount > 1 ? "s " : " ") + missing +
                           "; compile it with rlxc --check-grads=" + fn);
  EntryPoint fnEntry = artifact.entryPoint(fn);
  EntryPoint jvpEntry = artifact.entryPoint(jvpName);
  EntryPoint vjpEntry = artifact.entryPoint(vjpName);
  std::vector<TensorSpec> inSpecs = fnEntry.inputs();
  std::vector<TensorSpec> outSpecs = fnEntry.outputs();
  std::vector<TensorSpec> paramSpecs = fnEntry.params();
  const size_t nIn = inSpecs.size(), nOut = outSpecs.size();
  if (inputs.size() != nIn)
    throw RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                       "checkGrads: '" + fn + "' takes " +
                           std::to_string(nIn) + " inputs, got " +
                           std::to_string(inputs.size()));
  for (size_t i = 0; i < nIn; ++i)
    if (!inputs[i])
      throw RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                         "checkGrads: input '" + inSpecs[i].name + "' is null");

  // The leaves, as FN_jvp's tangent inputs name them.
  struct Leaf {
    std::string name;
    bool isParam = false;
    size_t input = 0;      // when an input
    HostTensor original;       // the bound weight, when a param
    rlx_dtype_t dtype = RLX_DTYPE_F64;
    std::vector<int64_t> dims;
    std::vector<double> base;
  };
  std::vector<Leaf> leaves;
  auto layoutError = [&](const std::string &what) {
    return RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                        "checkGrads: entry points '" + jvpName + "' and '" +
                            vjpName + "' do not have the layout of rlxc "
                            "--check-grads=" + fn + ": " + what);
  };
  std::vector<TensorSpec> jvpIn = jvpEntry.inputs();
  std::vector<TensorSpec> jvpOut = jvpEntry.outputs();
  std::vector<TensorSpec> vjpIn = vjpEntry.inputs();
  std::vector<TensorSpec> vjpOut = vjpEntry.outputs();
  if (jvpIn.size() < nIn || jvpOut.size() != 2 * nOut ||
      vjpIn.size() != nIn + nOut || vjpOut.size() < nOut ||
      vjpOut.size() - nOut != jvpIn.size() - nIn)
    throw layoutError("unexpected number of inputs or outputs");
  {
    size_t k = nIn;
    for (size_t i = 0; i < nIn; ++i) {
      if (!detail::isFloatDtype(inSpecs[i].dtype))
        continue;
      if (k == jvpIn.size() || jvpIn[k].name != "tangent." + inSpecs[i].name)
        throw layoutError("no tangent for float input '" + inSpecs[i].name +
                          "'");
      Leaf leaf;
      leaf.name = inSpecs[i].name;
      leaf.input = i;
      leaves.push_back(std::move(leaf));
      ++k;
    }
    for (; k < jvpIn.size(); ++k) {
      const std::string prefix = "tangent.";
      if (jvpIn[k].name.compare(0, prefix.size(), prefix) != 0)
        throw layoutError("unexpected input '" + jvpIn[k].name + "'");
      Leaf leaf;
      leaf.name = jvpIn[k].name.substr(prefix.size());
      leaf.isParam = true;
      bool known = false;
      for (const TensorSpec &param : paramSpecs)
        known |= param.name == leaf.name;
      if (!known)
        throw layoutError("'" + leaf.name + "' is not a param of '" + fn +
                          "'");
      leaves.push_back(std::move(leaf));
    }
    for (size_t j = 0; j < leaves.size(); ++j)
      if (vjpOut[nOut + j].name != "grad." + leaves[j].name)
        throw layoutError("output '" + vjpOut[nOut + j].name +
                          "' where 'grad." + leaves[j].name +
                          "' was expected");
  }
  if (leaves.empty())
    throw RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                       "checkGrads: '" + fn +
                           "' has no float input and reads no param");

  detail::WeightRestorer restorer(session.get());
  for (Leaf &leaf : leaves) {
    HostTensor value;
    if (leaf.isParam) {
      rlx_tensor_t *raw = nullptr;
      rlx_status_t status =
          rlx_session_lookup_weight(session.get(), leaf.name.c_str(), &raw);
      if (status) {
        std::string message = rlx_status_message(status);
        rlx_status_free(status);
        throw RuntimeError(RLX_STATUS_FAILED_PRECONDITION,
                           "checkGrads: param '" + leaf.name + "' of '" + fn +
                               "' is not bound (" + message + ")");
      }
      leaf.original = HostTensor(raw);
      value = leaf.original.share();
    } else {
      value = inputs[leaf.input].share();
    }
    leaf.dtype = value.dtype();
    if (leaf.dtype != RLX_DTYPE_F32 && leaf.dtype != RLX_DTYPE_F64)
      throw RuntimeError(RLX_STATUS_UNIMPLEMENTED,
                         "checkGrads: leaf '" + leaf.name + "' is " +
                             value.typeString() + "; only f32 and f64 leaves "
                             "are supported");
    leaf.dims = value.dims();
    leaf.base = detail::readF64(value);
    if (leaf.isParam)
      restorer.save(leaf.name, leaf.original.share());
  }

  // Precision of the check.
  bool low = false;
  for (const Leaf &leaf : leaves)
    low |= leaf.dtype != RLX_DTYPE_F64;
  for (const TensorSpec &out : outSpecs)
    low |= detail::isFloatDtype(out.dtype) && out.dtype != RLX_DTYPE_F64;
  GradCheckResult result;
  result.function = fn;
  result.eps = options.eps.value_or(low ? 1e-3 : 1e-6);
  result.rtol = options.rtol.value_or(low ? 1e-2 : 1e-5);
  result.atol = options.atol.value_or(low ? 1e-3 : 1e-7);
  result.directions = options.directions;
  for (const Leaf &leaf : leaves)
    result.leaves.push_back(leaf.name + ": " +
                            formatType(leaf.dtype, leaf.dims));
  if (!(result.eps > 0) || !(result.rtol >= 0) || !(result.atol >= 0))
    throw RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                       "checkGrads: eps must be positive, rtol and atol "
                       "non-negative");
  const double eps = result.eps, rtol = result.rtol, atol = result.atol;
  const double relFloor = rtol > 0 ? atol / rtol : 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Keeps the larger; a NaN sticks.
  auto worse = [](double &slot, double value) {
    if (!std::isnan(slot) && (std::isnan(value) || value > slot))
      slot = value;
  };
  auto bind = [&](const std::string &name, const HostTensor &tensor) {
    check(rlx_session_bind_tensor(session.get(), name.c_str(), tensor.get()));
  };

  // FN at the unperturbed point: the reference primal outputs.
  std::vector<const HostTensor *> baseArgs;
  for (const HostTensor &input : inputs)
    baseArgs.push_back(&input);
  std::vector<HostTensor> primal;
  {
    TensorList outputs = session.call(fn, baseArgs);
    for (size_t i = 0; i < nOut; ++i)
      primal.push_back(outputs.at(i));
  }
  auto checkPrimal = [&](const TensorList &outputs) {
    for (size_t i = 0; i < nOut; ++i) {
      HostTensor got = outputs.at(i);
      if (got.dims() != primal[i].dims()) {
        result.primalPassed = false;
        result.primalMaxAbsError = nan;
        continue;
      }
      for (size_t e = 0; e < got.elementCount(); ++e) {
        double want = primal[i].getF64(e), have = got.getF64(e);
        if (std::isnan(want) && std::isnan(have))
          continue;
        double error = std::fabs(have - want);
        worse(result.primalMaxAbsError, error);
        if (!(error <= atol + rtol * std::fabs(want)))
          result.primalPassed = false;
      }
    }
  };

  std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ull + 0x5EED);
  auto uniform = [&] {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  };
  double worstReverseRatio = -1;
  for (unsigned d = 0; d < options.directions; ++d) {
    // x +- eps v, rounded to each leaf's dtype; the direction actually
    // taken is (x+ - x-) / (2 eps), which is what the jvp gets too.
    std::vector<std::vector<double>> plus(leaves.size()),
        minus(leaves.size()), dir(leaves.size());
    std::vector<HostTensor> tangents;
    for (size_t j = 0; j < leaves.size(); ++j) {
      const Leaf &leaf = leaves[j];
      for (double x : leaf.base) {
        double v = uniform();
        double xp = detail::roundToDtype(leaf.dtype, x + eps * v);
        double xm = detail::roundToDtype(leaf.dtype, x - eps * v);
        double taken = detail::roundToDtype(leaf.dtype, (xp - xm) / (2 * eps));
        plus[j].push_back(xp);
        minus[j].push_back(xm);
        dir[j].push_back(taken);
      }
      tangents.push_back(detail::floatTensor(leaf.dtype, leaf.dims, dir[j]));
    }

    // FN at x + eps v and x - eps v.
    auto evaluate = [&](const std::vector<std::vector<double>> &at) {
      std::vector<HostTensor> perturbed(nIn);
      std::vector<const HostTensor *> args = baseArgs;
      for (size_t j = 0; j < leaves.size(); ++j) {
        HostTensor tensor =
            detail::floatTensor(leaves[j].dtype, leaves[j].dims, at[j]);
        if (leaves[j].isParam) {
          bind(leaves[j].name, tensor);
        } else {
          perturbed[leaves[j].input] = std::move(tensor);
          args[leaves[j].input] = &perturbed[leaves[j].input];
        }
      }
      TensorList outputs = session.call(fn, args);
      std::vector<std::vector<double>> values;
      for (size_t i = 0; i < nOut; ++i)
        values.push_back(detail::readF64(outputs.at(i)));
      return values;
    };
    std::vector<std::vector<double>> yPlus = evaluate(plus);
    std::vector<std::vector<double>> yMinus = evaluate(minus);
    for (const Leaf &leaf : leaves)
      if (leaf.isParam)
        bind(leaf.name, leaf.original);

    // Forward: FN_jvp(x, v).
    std::vector<const HostTensor *> jvpArgs = baseArgs;
    for (const HostTensor &tangent : tangents)
      jvpArgs.push_back(&tangent);
    TensorList jvpOutputs = session.call(jvpName, jvpArgs);
    checkPrimal(jvpOutputs);
    std::vector<std::vector<double>> fd(nOut), tol(nOut), jv(nOut);
    for (size_t i = 0; i < nOut; ++i) {
      if (!detail::isFloatDtype(outSpecs[i].dtype))
        continue;
      HostTensor tangent = jvpOutputs.at(nOut + i);
      std::vector<int64_t> dims = primal[i].dims();
      if (tangent.dims() != dims || yPlus[i].size() != primal[i].elementCount() ||
          yMinus[i].size() != primal[i].elementCount())
        throw RuntimeError(RLX_STATUS_INTERNAL,
                           "checkGrads: output '" + outSpecs[i].name +
                               "' and its tangent differ in shape: " +
                               formatShape(dims) + " vs " +
                               formatShape(tangent.dims()));
      double unit = outSpecs[i].dtype == RLX_DTYPE_F64 ? 0x1.0p-53
                    : outSpecs[i].dtype == RLX_DTYPE_F32 ? 0x1.0p-24
                                                         : 0x1.0p-8;
      jv[i] = detail::readF64(tangent);
      for (size_t e = 0; e < jv[i].size(); ++e) {
        double f = (yPlus[i][e] - yMinus[i][e]) / (2 * eps);
        double roundoff = 4 * unit *
                          std::max(std::fabs(yPlus[i][e]),
                                   std::fabs(yMinus[i][e])) /
                          eps;
        double t = atol + rtol * std::fabs(f) + roundoff;
        fd[i].push_back(f);
        tol[i].push_back(t);
        double error = std::fabs(jv[i][e] - f);
        double rel =
            error == 0 ? 0 : error / std::max(std::fabs(f), relFloor);
        ++result.forwardElements;
        bool worst = std::isnan(error) ? !std::isnan(result.forwardMaxAbsError)
                                       : error > result.forwardMaxAbsError;
        worse(result.forwardMaxAbsError, error);
        worse(result.forwardMaxRelError, rel);
        if (worst) {
          char text[256];
          std::snprintf(text, sizeof text, "%s%s: jvp %.17g, fd %.17g",
                        jvpOut[nOut + i].name.c_str(),
                        detail::formatIndex(dims, e).c_str(), jv[i][e], f);
          result.forwardWorst = text;
        }
        if (!(error <= t))
          result.forwardPassed = false;
      }
    }

    // Reverse: FN_vjp(x, ct) against <ct, fd>.
    std::vector<HostTensor> cotangents;
    double lhs = 0, lhsJvp = 0, budget = 0, scale = 0;
    for (size_t i = 0; i < nOut; ++i) {
      std::vector<int64_t> dims = primal[i].dims();
      if (!detail::isFloatDtype(outSpecs[i].dtype) ||
          (outSpecs[i].dtype != RLX_DTYPE_F32 &&
           outSpecs[i].dtype != RLX_DTYPE_F64)) {
        cotangents.push_back(HostTensor::allocate(outSpecs[i].dtype, dims));
        continue;
      }
      std::vector<double> ct;
      for (size_t e = 0; e < fd[i].size(); ++e) {
        double c = detail::roundToDtype(outSpecs[i].dtype, uniform());
        ct.push_back(c);
        lhs += c * fd[i][e];
        lhsJvp += c * jv[i][e];
        budget += std::fabs(c) * tol[i][e];
        scale += std::fabs(c) * relFloor;
      }
      cotangents.push_back(detail::floatTensor(outSpecs[i].dtype, dims, ct));
    }
    std::vector<const HostTensor *> vjpArgs = baseArgs;
    for (const HostTensor &ct : cotangents)
      vjpArgs.push_back(&ct);
    TensorList vjpOutputs = session.call(vjpName, vjpArgs);
    checkPrimal(vjpOutputs);
    double rhs = 0;
    for (size_t j = 0; j < leaves.size(); ++j) {
      HostTensor grad = vjpOutputs.at(nOut + j);
      if (grad.dims() != leaves[j].dims)
        throw RuntimeError(RLX_STATUS_INTERNAL,
                           "checkGrads: gradient '" + vjpOut[nOut + j].name +
                               "' is " + grad.typeString() + ", its leaf " +
                               formatType(leaves[j].dtype, leaves[j].dims));
      for (size_t e = 0; e < dir[j].size(); ++e)
        rhs += grad.getF64(e) * dir[j][e];
    }
    double error = std::fabs(lhs - rhs);
    double rel = error == 0 ? 0 : error / std::max(std::fabs(lhs), scale);
    double ratio = error == 0 ? 0 : budget > 0 ? error / budget : inf;
    if (std::isnan(error) || ratio > worstReverseRatio) {
      worstReverseRatio = std::isnan(error) ? inf : ratio;
      result.reverseFd = lhs;
      result.reverseVjp = rhs;
    }
    worse(result.reverseAbsError, error);
    worse(result.reverseRelError, rel);
    worse(result.modeMismatch, std::fabs(lhsJvp - rhs));
    if (!(error <= budget))
      result.reversePassed = false;
  }
  return result;
}

} // namespace rlx

#endif // RLX_RUNTIME_HPP
