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

#include "rlx/dtype.hpp"
#include "rlx/runtime.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rlx::runtime {

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
inline std::string format_shape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") +
            (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return text + "]";
}

/// `f32[?,784]`.
inline std::string format_type(rlx_dtype_t dtype,
                               const std::vector<int64_t> &shape) {
  return rlx_dtype_name(dtype) + format_shape(shape);
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
/// (then data() is null; to_host() reads it back).
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
  static HostTensor read_npy(const std::string &path) {
    rlx_tensor_t *raw = nullptr;
    check(rlx_npy_read(path.c_str(), &raw));
    return HostTensor(raw);
  }
  void write_npy(const std::string &path) const {
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
  size_t element_count() const { return rlx_tensor_element_count(raw); }
  size_t byte_size() const { return rlx_tensor_byte_size(raw); }
  void *data() const { return rlx_tensor_data(raw); }
  template <typename T> T *data() const { return static_cast<T *>(data()); }
  /// Element `index` (row-major) as a double, whatever the dtype.
  double get_f64(size_t index) const {
    double value = 0;
    check(rlx_tensor_get_f64(raw, index, &value));
    return value;
  }
  std::string type_string() const { return format_type(dtype(), dims()); }

  /// RLX_DEVICE_CPU, or the device holding the elements (then data() is
  /// null).
  rlx_device_t device() const { return rlx_tensor_device(raw); }
  bool on_device() const { return device() != RLX_DEVICE_CPU; }
  /// The elements on the host: this tensor itself when it is there, else a
  /// downloaded copy.
  HostTensor to_host() const {
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
  static TensorList read_safetensors(const std::string &path) {
    rlx_tensor_list_t *raw = nullptr;
    check(rlx_safetensors_read(path.c_str(), &raw));
    return TensorList(raw);
  }
  void write_safetensors(const std::string &path) const {
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
  std::string to_string() const {
    return name + ": " + format_type(dtype, shape);
  }
};

/// An entry point; a view valid while its artifact lives.
class EntryPoint {
public:
  explicit EntryPoint(const rlx_entry_point_t *raw) : raw(raw) {}

  std::string name() const { return rlx_entry_point_name(raw); }
  uint64_t workspace_lower_bound_bytes() const {
    return rlx_entry_point_workspace_lower_bound_bytes(raw);
  }
  uint64_t workspace_bytes() const {
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
  /// The entry point preparing some of its params from the weights once
  /// per binding (docs/abi.md), if any.
  std::optional<EntryPoint> prepare() const {
    if (const rlx_entry_point_t *p = rlx_entry_point_prepare(raw))
      return EntryPoint(p);
    return std::nullopt;
  }
  /// The position of input `name`.
  size_t find_input(const std::string &name) const {
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
  /// The CPU the artifact was compiled for, the features it needs and
  /// those this machine lacks (comma separated; "" when none).
  std::string cpu() const { return rlx_artifact_cpu(raw); }
  std::string cpu_features() const { return rlx_artifact_cpu_features(raw); }
  std::string missing_cpu_features() const {
    return rlx_artifact_missing_cpu_features(raw);
  }
  std::string manifest_json() const { return rlx_artifact_manifest_json(raw); }
  std::vector<EntryPoint> entry_points() const {
    std::vector<EntryPoint> result;
    for (size_t i = 0, e = rlx_artifact_entry_point_count(raw); i < e; ++i)
      result.emplace_back(rlx_artifact_entry_point_at(raw, i));
    return result;
  }
  EntryPoint entry_point(const std::string &name) const {
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
  /// A GPU session leaves the outputs in device memory (HostTensor::to_host
  /// reads them back; a next call takes them without a copy).
  bool outputs_on_device = false;
};

/// The device named "cpu", "vulkan", "cuda" or "hip".
inline rlx_device_t parse_device(const std::string &name) {
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
  std::string device_description() const {
    return rlx_session_device_description(raw);
  }
  /// `tensor` in the session's device memory (itself on a CPU session).
  HostTensor to_device(const HostTensor &tensor) const {
    rlx_tensor_t *copy = nullptr;
    check(rlx_session_to_device(raw, tensor.get(), &copy));
    return HostTensor(copy);
  }

  void bind_safetensors(const std::string &path, bool allow_unused = false) {
    rlx_bind_options_t options;
    rlx_bind_options_initialize(&options);
    options.allow_unused = allow_unused ? 1 : 0;
    check(rlx_session_bind_safetensors(raw, path.c_str(), &options));
  }
  void bind_tensor(const std::string &name, const HostTensor &tensor) {
    check(rlx_session_bind_tensor(raw, name.c_str(), tensor.get()));
  }
  HostTensor lookup_weight(const std::string &name) const {
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
    rlx_call_options_t call_options;
    rlx_call_options_initialize(&call_options);
    call_options.outputs_on_device = options.outputs_on_device ? 1 : 0;
    rlx_tensor_list_t *outputs = nullptr;
    check(rlx_session_call_with_options(raw, entry.c_str(), raws.data(),
                                        raws.size(), &call_options, &outputs));
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

} // namespace rlx::runtime

#endif // RLX_RUNTIME_HPP
