//===- Tensor.h - Host tensors and named tensor lists -----------*- C++ -*-===//
//
/// \file
/// The structs behind rlx_tensor_t and rlx_tensor_list_t, and an RAII
/// reference (`TensorRef`) the runtime uses internally so that an error
/// thrown halfway through never leaks a tensor. A tensor's elements are in
/// host memory (`data`) or, for a device tensor, in device memory
/// (`deviceBuffer`, `deviceAddress`), never both.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_TENSOR_H
#define RLX_RUNTIME_SRC_TENSOR_H

#include "Device.h"
#include "rlx/runtime.h"

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

struct rlx_tensor_s {
  std::atomic<int> refCount{1};
  rlx_dtype_t dtype = RLX_DTYPE_F32;
  std::vector<int64_t> dims;
  size_t elementCount = 0;
  size_t byteSize = 0;
  void *data = nullptr;
  /// How `data` goes away: a C callback (owned and wrapped tensors) or a
  /// shared owner such as a file mapping (safetensors tensors).
  rlx_release_fn_t releaseFn = nullptr;
  void *releaseUserData = nullptr;
  std::shared_ptr<const void> keepAlive;
  /// A device tensor: the allocation holding it and the address of its
  /// first element (which may lie past the allocation's start).
  std::shared_ptr<rlxrt::DeviceBuffer> deviceBuffer;
  uint64_t deviceAddress = 0;

  /// RLX_DEVICE_CPU, or the device the elements are on.
  rlx_device_t device() const {
    return deviceBuffer ? deviceBuffer->device->kind() : RLX_DEVICE_CPU;
  }

  ~rlx_tensor_s() {
    if (releaseFn)
      releaseFn(releaseUserData, data);
  }
};

namespace rlxrt {

/// An owning reference to a tensor (releases on destruction).
class TensorRef {
public:
  TensorRef() = default;
  /// Adopts one reference.
  explicit TensorRef(rlx_tensor_t *tensor) : tensor(tensor) {}
  TensorRef(const TensorRef &other) : tensor(other.tensor) {
    rlx_tensor_retain(tensor);
  }
  TensorRef(TensorRef &&other) noexcept : tensor(other.tensor) {
    other.tensor = nullptr;
  }
  TensorRef &operator=(TensorRef other) noexcept {
    std::swap(tensor, other.tensor);
    return *this;
  }
  ~TensorRef() { rlx_tensor_release(tensor); }

  /// Retains `tensor` and returns a reference to it.
  static TensorRef retain(rlx_tensor_t *tensor) {
    rlx_tensor_retain(tensor);
    return TensorRef(tensor);
  }
  rlx_tensor_t *get() const { return tensor; }
  rlx_tensor_t *operator->() const { return tensor; }
  rlx_tensor_t &operator*() const { return *tensor; }
  explicit operator bool() const { return tensor != nullptr; }
  /// Gives up the reference to the caller.
  rlx_tensor_t *release() {
    rlx_tensor_t *result = tensor;
    tensor = nullptr;
    return result;
  }

private:
  rlx_tensor_t *tensor = nullptr;
};

/// A new tensor owning zero-filled, 64-byte aligned memory.
TensorRef allocateTensor(rlx_dtype_t dtype, const int64_t *dims, size_t rank);

/// A new tensor over `data`, kept alive by `keepAlive` (may be null, then
/// the memory is borrowed).
TensorRef wrapTensor(rlx_dtype_t dtype, const int64_t *dims, size_t rank,
                     void *data, std::shared_ptr<const void> keepAlive);

/// A new device tensor whose first element is at `address` in `buffer`.
TensorRef wrapDeviceTensor(rlx_dtype_t dtype, const int64_t *dims, size_t rank,
                           std::shared_ptr<DeviceBuffer> buffer,
                           uint64_t address);

/// Throws FAILED_PRECONDITION unless `tensor` is on the host; `what` names
/// the operation ("cannot write a .npy file").
void requireHost(const rlx_tensor_t &tensor, const std::string &what);

/// A copy of host tensor `host` in fresh memory of `device` (waits for the
/// copy).
TensorRef uploadTensor(const std::shared_ptr<Device> &device,
                       const rlx_tensor_t &host);
/// A host copy of device tensor `tensor` (waits for the device).
TensorRef downloadTensor(const rlx_tensor_t &tensor);

} // namespace rlxrt

struct rlx_tensor_list_s {
  /// In order of appending; only append adds to it.
  std::vector<std::pair<std::string, rlxrt::TensorRef>> items;

  /// Index of `name`, or -1. Constant time: a file of 160k weights is
  /// looked up once per name.
  long find(const std::string &name) const;
  /// Appends, throwing INVALID_ARGUMENT on a duplicate name.
  void append(std::string name, rlxrt::TensorRef tensor);

private:
  std::unordered_map<std::string, size_t> indexByName;
};

#endif // RLX_RUNTIME_SRC_TENSOR_H
