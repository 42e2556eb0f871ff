//===- StreamDevice.h - Devices whose drivers have streams ------*- C++ -*-===//
//
/// \file
/// CUDA and HIP share everything above their driver calls: device pointers
/// are real addresses, a call's work goes on one stream, kernel parameters
/// are passed by address (`kernelParams`), frees wait for the stream and
/// return the memory to a DeviceMemoryPool. A driver implements the
/// primitives below; each throws StatusError with the driver's message.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_STREAMDEVICE_H
#define RLX_RUNTIME_SRC_STREAMDEVICE_H

#include "Device.h"
#include "DeviceMemoryPool.h"

#include <map>
#include <mutex>
#include <unordered_map>

namespace rlxrt {

class StreamDevice : public Device {
public:
  StreamDevice();
  uint64_t allocate(uint64_t bytes) override;
  void free(uint64_t address) override;
  DeviceMemoryStats memoryStats() const override { return pool.stats(); }
  std::unique_ptr<DeviceQueue> createQueue() override;
  const std::string &description() const override { return name; }

  // Driver primitives.
  /// Allocates `capacity` bytes for a request of `bytes`, which a
  /// RESOURCE_EXHAUSTED names.
  virtual uint64_t driverAllocate(uint64_t capacity, uint64_t bytes) = 0;
  virtual void driverFree(uint64_t address) = 0;
  virtual void *createStream() = 0;
  virtual void destroyStream(void *stream) = 0;
  virtual void synchronizeStream(void *stream) = 0;
  virtual void copyToDevice(void *stream, uint64_t destination,
                            const void *source, uint64_t bytes) = 0;
  virtual void copyToHost(void *stream, void *destination, uint64_t source,
                          uint64_t bytes) = 0;
  virtual void unloadModule(void *module) = 0;
  /// Throws INTERNAL when the module has no such kernel.
  virtual void *findKernel(void *module, const std::string &moduleName,
                           const std::string &kernel) = 0;
  virtual void launchKernel(void *stream, void *function,
                            const LaunchShape &shape, void **params) = 0;

protected:
  /// Frees the cached blocks; a driver's destructor calls it while it can
  /// still free.
  void releaseCachedMemory() { pool.trim(); }

  std::string name;

private:
  DeviceMemoryPool<uint64_t> pool;
  mutable std::mutex liveMutex;
  /// Address -> capacity of the live allocations.
  std::unordered_map<uint64_t, uint64_t> live;
};

/// A module loaded by a StreamDevice, with its kernels looked up once.
class StreamModule final : public DeviceModule {
public:
  StreamModule(std::shared_ptr<StreamDevice> device, std::string name,
               void *handle)
      : device(std::move(device)), name(std::move(name)), handle(handle) {}
  ~StreamModule() override;

  /// The driver's function handle of `kernel`. Thread-safe.
  void *kernel(const std::string &kernel);
  const std::string &moduleName() const { return name; }

private:
  std::shared_ptr<StreamDevice> device;
  std::string name;
  void *handle;
  std::mutex mutex;
  std::map<std::string, void *> kernels;
};

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_STREAMDEVICE_H
