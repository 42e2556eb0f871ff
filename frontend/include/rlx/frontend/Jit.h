//===- Jit.h - Compiling traced functions and calling them -----*- C++ -*-===//
///
/// \file
/// `f.jit(device)` compiles `f.to_mlir()` in process with the compiler
/// library rlxc uses, caches the artifact in memory and on disk, and returns
/// a `Compiled` that binds params by name and runs with host arrays.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_JIT_H
#define RLX_FRONTEND_JIT_H

#include "rlx/frontend/Func.h"
#include "rlx/communicator.hpp"
#include "rlx/runtime.hpp"

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rlx {

/// Where compiled code runs: rlxc's target. On a GPU, call outputs stay in
/// device memory (read back when an Array's elements are first read) and
/// are passed to later calls and bound as weights without copies, so a
/// train step moves only its batch.
struct Device {
  std::string target = "cpu";
  static Device cpu() { return Device{"cpu"}; }
  static Device vulkan() { return Device{"vulkan"}; }
  static Device cuda() { return Device{"cuda"}; }
  static Device rocm() { return Device{"rocm"}; }
};

/// Compiler options that change the artifact (part of the cache key).
struct JitOptions {
  unsigned opt_level = 2;
  /// Compile one artifact per input signature, with the dynamic dims made
  /// static (the traced lambda runs again; transforms are re-applied), as
  /// JAX's jit does. Off: one artifact with dynamic dims serves all shapes.
  bool specialize_shapes = false;
  /// CPU only: check every op's float result for NaN and Inf; the first op
  /// producing one makes the call throw, naming the op and its source
  /// location (`model.cpp:14:9: rlx.log produced -inf`), as
  /// `rlxc --debug-checks`. Slower: one extra pass over each result.
  bool debug_checks = false;
  /// CPU only: post-training int8 quantization, as `rlxc --quantize=int8`
  /// without calibration: every matmul and conv of an activation by a param
  /// runs in int8, the param quantized per output channel once per binding,
  /// the activation per tensor from its largest magnitude in each call.
  /// For inference functions (gradients would be quantized too).
  bool quantize_int8 = false;
};

rlx_dtype_t to_runtime(DType dtype);
DType from_runtime(rlx_dtype_t dtype);

/// An array: a reference-counted runtime tensor (copies share data), on
/// the host or in a GPU's memory (a GPU call's output); reading the
/// elements of a device array downloads them once.
class Array {
public:
  Array() = default;
  explicit Array(runtime::HostTensor tensor)
      : state_(std::make_shared<State>(std::move(tensor))) {}

  /// Zero-filled.
  static Array zeros(const Shape &dims, DType dtype = DType::f32);
  /// Copies `values` (converted to `dtype`).
  static Array from(const std::vector<double> &values, const Shape &dims,
                    DType dtype = DType::f32);
  static Array from(const std::vector<float> &values, const Shape &dims);
  static Array from(const std::vector<int32_t> &values, const Shape &dims);
  static Array scalar(double value, DType dtype = DType::f32) {
    return from(std::vector<double>{value}, {}, dtype);
  }

  DType dtype() const { return from_runtime(runtime().dtype()); }
  Shape shape() const { return runtime().dims(); }
  size_t size() const { return runtime().element_count(); }
  template <typename T> T *data() const { return host().data<T>(); }
  /// Element `i` (row-major) as a double.
  double at(size_t i) const { return host().get_f64(i); }
  double item() const { return at(0); }
  std::vector<double> to_vector() const;
  /// `f32[2,3]`.
  std::string type_string() const;
  /// The elements on the host (downloaded on first use for a device
  /// array).
  const runtime::HostTensor &host() const;
  /// The runtime tensor as it is, host or device: what calls take.
  const runtime::HostTensor &runtime() const;
  /// Whether the elements live in a GPU's memory.
  bool on_device() const { return runtime().on_device(); }
  bool valid() const { return state_ != nullptr; }

private:
  struct State {
    explicit State(runtime::HostTensor tensor) : tensor(std::move(tensor)) {}
    runtime::HostTensor tensor;
    std::once_flag downloaded;
    std::optional<runtime::HostTensor> host_copy;
  };
  std::shared_ptr<State> state_;
};

/// The outputs of a call, by position and by name.
struct Outputs {
  std::vector<std::string> names;
  std::vector<Array> values;
  size_t size() const { return values.size(); }
  const Array &operator[](size_t i) const { return values.at(i); }
  const Array &operator[](const std::string &name) const;
};

/// A compiled function with its weights.
class Compiled {
public:
  Compiled(Func func, std::shared_ptr<runtime::Artifact> artifact,
           Device device, JitOptions options = {});

  /// Runs with inputs by name; every input must be given once, with the
  /// traced dtype and matching static dims.
  Outputs run(const std::map<std::string, Array> &inputs) const;
  Outputs operator()(const std::map<std::string, Array> &inputs) const {
    return run(inputs);
  }
  /// Binds one param (checked against the traced type).
  Compiled &with_param(const std::string &name, const Array &value);
  /// Binds every param from `init(name, dims)`.
  Compiled &init_params(
      const std::function<Array(const std::string &, const Shape &)> &init);
  /// Every param normal(0, stddev), seeded (deterministic).
  Compiled &init_randn(uint64_t seed, double stddev = 0.1);
  /// Binds every tensor of a safetensors file by name.
  Compiled &load_params(const std::string &path);
  /// The bound value of a param.
  Array param(const std::string &name) const;
  /// Runs the function's collectives (psum, ...; Collectives.h) over
  /// `communicator`'s replicas, on this and every later specialization.
  /// Every replica must call it (it checks they run the same artifact).
  Compiled &with_communicator(const runtime::Communicator &communicator);
  std::vector<std::string> param_names() const { return func_.param_names(); }
  const Func &func() const { return func_; }
  /// The compiled shared library (with dynamic dims; empty when
  /// specializing per input signature).
  std::string artifact_path() const {
    return artifact_ ? artifact_->path() : std::string();
  }

private:
  /// One compiled specialization (JitOptions::specialize_shapes).
  struct Variant {
    Func func;
    std::shared_ptr<runtime::Artifact> artifact;
    std::shared_ptr<runtime::Session> session;
  };
  const Variant &variant_for(const std::map<std::string, Array> &inputs) const;

  Func func_;
  std::shared_ptr<runtime::Artifact> artifact_;
  std::shared_ptr<runtime::Session> session_;
  Device device_;
  JitOptions options_;
  /// Bound params, rebound on each new specialization's session.
  std::map<std::string, Array> bound_;
  /// Set on each new specialization's session too (null: none).
  std::shared_ptr<runtime::Communicator> communicator_;
  /// By input signature (`x: f32[4,3], ...`).
  mutable std::map<std::string, std::shared_ptr<Variant>> variants_;
  mutable std::string lastSignature_;
};

/// Compilation statistics of this process (for tests and RLX_DEBUG).
struct CacheStats {
  unsigned compiles = 0, memory_hits = 0, disk_hits = 0;
};
CacheStats cache_stats();
/// Forgets the in-memory cache (the disk cache stays).
void clear_memory_cache();
/// The disk cache folder: `$XDG_CACHE_HOME/rlx` or `~/.cache/rlx`; empty when
/// `RLX_CACHE=0`.
std::string disk_cache_dir();

/// Compiles `func`'s module (Func::to_mlir, not printed) into a shared
/// library, cached by its text, the device and the options.
std::shared_ptr<runtime::Artifact> compile_module(const Func &func,
                                                  const Device &device,
                                                  const JitOptions &options);

} // namespace rlx

#endif // RLX_FRONTEND_JIT_H
