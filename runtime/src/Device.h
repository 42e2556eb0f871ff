//===- Device.h - GPUs behind one interface ---------------------*- C++ -*-===//
//
/// \file
/// What the runtime needs of a GPU to run a GPU artifact (docs/abi.md, "GPU
/// artifacts"): memory at opaque 64-bit addresses, modules loaded from the
/// artifact's device binaries, and queues that order one call's uploads,
/// launches and frees. Vulkan, CUDA and HIP implement it; each loads its
/// driver with dlopen on first use, so librlxrt and every artifact load on a
/// machine without it. Every method throws StatusError; none crashes on a
/// missing driver or device.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_DEVICE_H
#define RLX_RUNTIME_SRC_DEVICE_H

#include "rlx/abi.h"
#include "rlx/runtime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rlxrt {

/// A record of `rlx_artifact_device_binaries`, in the artifact's storage.
using DeviceBinary = rlx_device_binary_t;

/// A kernel argument as the launch hook passes it: (kind, value).
struct KernelArg {
  enum Kind : int64_t {
    Pointer = RLX_KERNEL_ARG_POINTER,
    I32 = RLX_KERNEL_ARG_I32,
    I64 = RLX_KERNEL_ARG_I64,
    F32 = RLX_KERNEL_ARG_F32,
    F64 = RLX_KERNEL_ARG_F64
  };
  int64_t kind;
  int64_t value;

  /// Bytes of the value as a kernel parameter (4 or 8).
  size_t byteSize() const { return kind == I32 || kind == F32 ? 4 : 8; }
};

/// Bytes a device's memory pool holds (DeviceMemoryPool.h).
struct DeviceMemoryStats {
  /// In allocations the runtime or a call holds, at their size classes.
  uint64_t liveBytes = 0;
  /// In freed blocks kept for reuse.
  uint64_t cachedBytes = 0;
  /// The most `cachedBytes` may reach (RLX_DEVICE_POOL_MB).
  uint64_t capBytes = 0;
};

/// Grid (workgroups) and block (threads per workgroup) of a launch.
struct LaunchShape {
  uint32_t grid[3];
  uint32_t block[3];
};

/// A GPU module loaded on a device. Owns its driver objects; destroyed
/// before its device (it holds a reference to it).
class DeviceModule {
public:
  virtual ~DeviceModule();
};

/// One call's ordered work on a device: a CUDA or HIP stream, a Vulkan
/// command buffer submitted at synchronize. Used by one thread at a time.
class DeviceQueue {
public:
  virtual ~DeviceQueue();
  /// Copies `bytes` host bytes to `destination` after the work queued so
  /// far. `source` may be reused as soon as this returns.
  virtual void upload(uint64_t destination, const void *source,
                      uint64_t bytes) = 0;
  /// Launches `kernel` of `module` after the work queued so far; its
  /// writes are visible to everything queued after it.
  virtual void launch(DeviceModule &module, const std::string &kernel,
                      const LaunchShape &shape,
                      const std::vector<KernelArg> &args) = 0;
  /// Frees `address` once the work queued so far has finished.
  virtual void freeAfterWork(uint64_t address) = 0;
  /// Waits for all queued work, then performs the deferred frees.
  virtual void synchronize() = 0;
  /// Waits for all queued work and copies `bytes` at `source` to the host.
  virtual void download(void *destination, uint64_t source, uint64_t bytes) = 0;
};

/// An opened GPU. Thread-safe: every method may be called from any thread.
class Device : public std::enable_shared_from_this<Device> {
public:
  virtual ~Device();

  /// RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA or RLX_DEVICE_HIP.
  virtual rlx_device_t kind() const = 0;
  /// What it is, for people: "llvmpipe (LLVM 15.0.6, 256 bits)".
  virtual const std::string &description() const = 0;

  /// Allocates `bytes` (0 too) at a non-zero address aligned to 256 bytes
  /// that no live allocation has, from the device's DeviceMemoryPool.
  /// Throws RESOURCE_EXHAUSTED naming the bytes when the device has no
  /// room even after the pool let go of its cached blocks.
  virtual uint64_t allocate(uint64_t bytes) = 0;
  /// Frees an address `allocate` returned, at once, into the pool: no
  /// queued work may still use it (DeviceQueue::freeAfterWork defers).
  virtual void free(uint64_t address) = 0;
  /// Bytes live and cached in the device's pool.
  virtual DeviceMemoryStats memoryStats() const = 0;

  virtual std::unique_ptr<DeviceQueue> createQueue() = 0;

  /// Loads GPU module `name` from its records (one per format and chip),
  /// picking the one this device runs. FAILED_PRECONDITION when none fits
  /// or the device lacks a feature the module needs.
  virtual std::unique_ptr<DeviceModule>
  loadModule(const std::string &name,
             const std::vector<const DeviceBinary *> &records) = 0;
};

/// "cpu", "vulkan", "cuda", "hip".
const char *deviceName(rlx_device_t device);

/// The device an artifact of manifest target `target` runs on ("rocm" runs
/// on HIP); RLX_DEVICE_DEFAULT for a target this runtime does not know.
rlx_device_t deviceForTarget(const std::string &target);

/// The process's device of `kind` (Vulkan, CUDA or HIP), opened on first
/// use and shared until its last user lets go. Throws FAILED_PRECONDITION
/// naming what is missing ("no CUDA driver (libcuda.so.1 not found)").
std::shared_ptr<Device> openDevice(rlx_device_t kind);

/// Device memory owned by a tensor or a bound weight: freed with the last
/// reference. Only ever released when no queued work uses it (every call
/// synchronizes before it returns).
class DeviceBuffer {
public:
  DeviceBuffer(std::shared_ptr<Device> device, uint64_t address)
      : device(std::move(device)), address(address) {}
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  const std::shared_ptr<Device> device;
  /// The start of the allocation.
  const uint64_t address;
};

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_DEVICE_H
