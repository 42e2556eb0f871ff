//===- StreamDevice.cpp - Queues on driver streams ------------------------===//

#include "StreamDevice.h"
#include "Addresses.h"
#include "Status.h"

#include <algorithm>
#include <cstdio>

using namespace rlxrt;

namespace {

class StreamQueue final : public DeviceQueue {
public:
  explicit StreamQueue(std::shared_ptr<StreamDevice> device)
      : device(std::move(device)), stream(this->device->createStream()) {}
  ~StreamQueue() override {
    try {
      synchronize();
    } catch (...) {
      for (uint64_t address : deferredFrees) {
        try {
          device->free(address);
        } catch (...) {
        }
      }
    }
    try {
      device->destroyStream(stream);
    } catch (...) {
    }
  }

  void upload(uint64_t destination, const void *source,
              uint64_t bytes) override {
    if (bytes)
      device->copyToDevice(stream, destination, source, bytes);
  }
  void launch(DeviceModule &module, const std::string &kernel,
              const LaunchShape &shape,
              const std::vector<KernelArg> &args) override {
    void *function = static_cast<StreamModule &>(module).kernel(kernel);
    // An empty grid (a dynamic dim of 0 under a tiled matmul) runs nothing;
    // CUDA and HIP refuse to launch it.
    if (!shape.grid[0] || !shape.grid[1] || !shape.grid[2])
      return;
    // One parameter per word: kernelParams points at each value; a 4-byte
    // parameter reads the low half of its (little-endian) word.
    std::vector<int64_t> values(args.size());
    std::vector<void *> params(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].kind < KernelArg::Pointer || args[i].kind > KernelArg::F64)
        fail(RLX_STATUS_INTERNAL,
             "argument " + std::to_string(i) + " of kernel '" + kernel +
                 "' has unknown kind " + std::to_string(args[i].kind));
      values[i] = args[i].value;
      params[i] = &values[i];
    }
    device->launchKernel(stream, function, shape, params.data());
  }
  void freeAfterWork(uint64_t address) override {
    deferredFrees.push_back(address);
  }
  void synchronize() override {
    device->synchronizeStream(stream);
    std::vector<uint64_t> frees;
    frees.swap(deferredFrees);
    for (uint64_t address : frees)
      device->free(address);
  }
  void download(void *destination, uint64_t source, uint64_t bytes) override {
    if (bytes)
      device->copyToHost(stream, destination, source, bytes);
    device->synchronizeStream(stream);
  }

private:
  std::shared_ptr<StreamDevice> device;
  void *stream;
  std::vector<uint64_t> deferredFrees;
};

} // namespace

StreamDevice::StreamDevice()
    : pool(deviceMemoryPoolCapFromEnvironment(), [this](uint64_t address) {
        try {
          driverFree(address);
        } catch (...) {
          // A driver that cannot free has lost the device.
        }
      }) {}

uint64_t StreamDevice::allocate(uint64_t bytes) {
  // Size classes start at 256 bytes, so a zero-byte allocation still gets
  // its own address (the drivers refuse size 0).
  uint64_t capacity = deviceMemorySizeClass(bytes);
  uint64_t address = pool.allocate(capacity, [&](uint64_t capacity) {
    return driverAllocate(capacity, bytes);
  });
  std::lock_guard<std::mutex> lock(liveMutex);
  live.emplace(address, capacity);
  return address;
}

void StreamDevice::free(uint64_t address) {
  uint64_t capacity;
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    auto it = live.find(address);
    if (it == live.end()) {
      fail(RLX_STATUS_INTERNAL, "free of device pointer " +
                                    hexAddress(address) +
                                    ", which is not a live allocation");
    }
    capacity = it->second;
    live.erase(it);
  }
  pool.free(address, capacity);
}

std::unique_ptr<DeviceQueue> StreamDevice::createQueue() {
  return std::make_unique<StreamQueue>(
      std::static_pointer_cast<StreamDevice>(shared_from_this()));
}

StreamModule::~StreamModule() {
  try {
    device->unloadModule(handle);
  } catch (...) {
  }
}

void *StreamModule::kernel(const std::string &kernel) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = kernels.find(kernel);
  if (it != kernels.end())
    return it->second;
  void *function = device->findKernel(handle, name, kernel);
  kernels.emplace(kernel, function);
  return function;
}
