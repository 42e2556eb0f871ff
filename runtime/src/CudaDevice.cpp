//===- CudaDevice.cpp - Device on the CUDA driver API ---------------------===//
//
/// \file
/// libcuda.so.1 is dlopen'ed and the few driver types and functions used
/// are declared here (no cuda.h), so this builds anywhere. The device's
/// primary context is made current around every driver call, whichever
/// thread makes it. A module loads the cubin built for the device's exact
/// chip, else JIT-compiles the PTX, else takes a cubin of the same major
/// version built for an older minor one (binary compatible).
//
//===----------------------------------------------------------------------===//

#include "DeviceBackends.h"
#include "DriverLibrary.h"
#include "Status.h"
#include "StreamDevice.h"

#include <cstdio>
#include <cstring>

using namespace rlxrt;

namespace {

// The driver API's types (cuda.h), as far as they are used.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
constexpr CUresult cudaSuccess = 0;
constexpr CUresult cudaErrorOutOfMemory = 2;
constexpr CUresult cudaErrorNotFound = 500;
constexpr int attributeComputeCapabilityMajor = 75;
constexpr int attributeComputeCapabilityMinor = 76;
constexpr int jitErrorLogBuffer = 5;
constexpr int jitErrorLogBufferSizeBytes = 6;
constexpr unsigned streamNonBlocking = 1;

#define RLX_CUDA_FUNCTIONS(X)                                                  \
  X(cuInit, "cuInit", CUresult (*)(unsigned))                                  \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult (*)(int *))                 \
  X(cuDeviceGet, "cuDeviceGet", CUresult (*)(CUdevice *, int))                 \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult (*)(char *, int, CUdevice))   \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute",                              \
    CUresult (*)(int *, int, CUdevice))                                        \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                      \
    CUresult (*)(CUcontext *, CUdevice))                                       \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",                 \
    CUresult (*)(CUdevice))                                                    \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", CUresult (*)(CUcontext))          \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", CUresult (*)(CUcontext *))          \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr *, size_t))          \
  X(cuMemFree, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                      \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                 \
    CUresult (*)(CUdeviceptr, const void *, size_t, CUstream))                 \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                 \
    CUresult (*)(void *, CUdeviceptr, size_t, CUstream))                       \
  X(cuStreamCreate, "cuStreamCreate", CUresult (*)(CUstream *, unsigned))      \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult (*)(CUstream))             \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult (*)(CUstream))        \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                  \
    CUresult (*)(CUmodule *, const void *, unsigned, int *, void **))          \
  X(cuModuleUnload, "cuModuleUnload", CUresult (*)(CUmodule))                  \
  X(cuModuleGetFunction, "cuModuleGetFunction",                                \
    CUresult (*)(CUfunction *, CUmodule, const char *))                        \
  X(cuLaunchKernel, "cuLaunchKernel",                                          \
    CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, \
                 unsigned, unsigned, CUstream, void **, void **))              \
  X(cuGetErrorName, "cuGetErrorName", CUresult (*)(CUresult, const char **))   \
  X(cuGetErrorString, "cuGetErrorString", CUresult (*)(CUresult, const char **))

/// Spells a function pointer type as one token, for a declaration.
template <typename T> using Function = T;

struct CudaApi {
#define RLX_DECLARE(member, symbol, type) Function<type> member = nullptr;
  RLX_CUDA_FUNCTIONS(RLX_DECLARE)
#undef RLX_DECLARE
};

class CudaDevice final : public StreamDevice {
public:
  ~CudaDevice() override {
    releaseCachedMemory();
    if (context)
      api.cuDevicePrimaryCtxRelease(device);
  }
  void open();

  rlx_device_t kind() const override { return RLX_DEVICE_CUDA; }
  std::unique_ptr<DeviceModule>
  loadModule(const std::string &module,
             const std::vector<const DeviceBinary *> &records) override;

  uint64_t driverAllocate(uint64_t capacity, uint64_t bytes) override {
    Current current(*this);
    CUdeviceptr address = 0;
    CUresult result = api.cuMemAlloc(&address, capacity);
    if (result == cudaErrorOutOfMemory)
      fail(RLX_STATUS_RESOURCE_EXHAUSTED,
           "cannot allocate " + std::to_string(bytes) +
               " bytes of device memory on CUDA device '" + name +
               "': " + describe(result));
    check(result, "cuMemAlloc");
    return address;
  }
  void driverFree(uint64_t address) override {
    Current current(*this);
    check(api.cuMemFree(address), "cuMemFree");
  }
  void *createStream() override {
    Current current(*this);
    CUstream stream = nullptr;
    check(api.cuStreamCreate(&stream, streamNonBlocking), "cuStreamCreate");
    return stream;
  }
  void destroyStream(void *stream) override {
    Current current(*this);
    check(api.cuStreamDestroy(stream), "cuStreamDestroy");
  }
  void synchronizeStream(void *stream) override {
    Current current(*this);
    check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
  void copyToDevice(void *stream, uint64_t destination, const void *source,
                    uint64_t bytes) override {
    Current current(*this);
    check(api.cuMemcpyHtoDAsync(destination, source, bytes, stream),
          "cuMemcpyHtoDAsync");
  }
  void copyToHost(void *stream, void *destination, uint64_t source,
                  uint64_t bytes) override {
    Current current(*this);
    check(api.cuMemcpyDtoHAsync(destination, source, bytes, stream),
          "cuMemcpyDtoHAsync");
  }
  void unloadModule(void *module) override {
    Current current(*this);
    check(api.cuModuleUnload(module), "cuModuleUnload");
  }
  void *findKernel(void *module, const std::string &moduleName,
                   const std::string &kernel) override {
    Current current(*this);
    CUfunction function = nullptr;
    CUresult result =
        api.cuModuleGetFunction(&function, module, kernel.c_str());
    if (result == cudaErrorNotFound)
      fail(RLX_STATUS_INTERNAL,
           "GPU module '" + moduleName + "' has no kernel '" + kernel + "'");
    check(result, "cuModuleGetFunction");
    return function;
  }
  void launchKernel(void *stream, void *function, const LaunchShape &shape,
                    void **params) override {
    Current current(*this);
    check(api.cuLaunchKernel(function, shape.grid[0], shape.grid[1],
                             shape.grid[2], shape.block[0], shape.block[1],
                             shape.block[2], 0, stream, params, nullptr),
          "cuLaunchKernel");
  }

private:
  /// Makes the primary context current for the scope.
  struct Current {
    explicit Current(CudaDevice &device) : device(device) {
      device.check(device.api.cuCtxPushCurrent(device.context),
                   "cuCtxPushCurrent");
    }
    ~Current() {
      CUcontext popped;
      device.api.cuCtxPopCurrent(&popped);
    }
    CudaDevice &device;
  };

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result) const {
    const char *errorName = nullptr, *errorText = nullptr;
    if (api.cuGetErrorName)
      api.cuGetErrorName(result, &errorName);
    if (api.cuGetErrorString)
      api.cuGetErrorString(result, &errorText);
    return std::string(errorName ? errorName : "CUDA error") + " (" +
           (errorText ? errorText : "code " + std::to_string(result)) + ")";
  }
  void check(CUresult result, const char *what) const {
    if (result != cudaSuccess)
      fail(RLX_STATUS_INTERNAL, std::string(what) + " failed on CUDA device '" +
                                    name + "': " + describe(result));
  }

  CudaApi api;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string chip;
};

void CudaDevice::open() {
  std::string error;
  void *library = loadDriverLibrary({"libcuda.so.1"}, error);
  if (!library)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "no CUDA driver (libcuda.so.1 not found: " + error + ")");
#define RLX_LOAD(member, symbol, type)                                         \
  api.member =                                                                 \
      reinterpret_cast<Function<type>>(findDriverSymbol(library, symbol));     \
  if (!api.member)                                                             \
    fail(RLX_STATUS_FAILED_PRECONDITION,                                       \
         "no usable CUDA driver (libcuda.so.1 lacks " symbol ")");
  RLX_CUDA_FUNCTIONS(RLX_LOAD)
#undef RLX_LOAD
  CUresult result = api.cuInit(0);
  if (result != cudaSuccess)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "no CUDA device (cuInit: " + describe(result) + ")");
  int count = 0;
  if (api.cuDeviceGetCount(&count) != cudaSuccess || count == 0)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "no CUDA device (the driver found none)");
  int index = deviceIndexFromEnvironment("RLX_CUDA_DEVICE");
  if (index >= count)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "no CUDA device " + std::to_string(index) + " (RLX_CUDA_DEVICE); " +
             "there " + (count == 1 ? "is 1" : "are " + std::to_string(count)));
  check(api.cuDeviceGet(&device, index), "cuDeviceGet");
  char deviceName[256] = {};
  check(api.cuDeviceGetName(deviceName, sizeof(deviceName) - 1, device),
        "cuDeviceGetName");
  int major = 0, minor = 0;
  check(
      api.cuDeviceGetAttribute(&major, attributeComputeCapabilityMajor, device),
      "cuDeviceGetAttribute");
  check(
      api.cuDeviceGetAttribute(&minor, attributeComputeCapabilityMinor, device),
      "cuDeviceGetAttribute");
  chip = "sm_" + std::to_string(major * 10 + minor);
  name = std::string(deviceName) + " (" + chip + ")";
  CUcontext primary = nullptr;
  check(api.cuDevicePrimaryCtxRetain(&primary, device),
        "cuDevicePrimaryCtxRetain");
  context = primary;
}

std::unique_ptr<DeviceModule>
CudaDevice::loadModule(const std::string &module,
                       const std::vector<const DeviceBinary *> &records) {
  const DeviceBinary *exact = nullptr, *ptx = nullptr, *compatible = nullptr;
  int wanted = std::stoi(chip.substr(3));
  std::string chips;
  for (const DeviceBinary *record : records) {
    std::string format = record->format, recordChip = record->chip;
    chips += (chips.empty() ? "" : ", ") + format +
             (recordChip.empty() ? "" : " " + recordChip);
    if (format == RLX_DEVICE_BINARY_FORMAT_PTX) {
      ptx = record;
    } else if (format == RLX_DEVICE_BINARY_FORMAT_CUBIN && recordChip == chip) {
      exact = record;
    } else if (format == RLX_DEVICE_BINARY_FORMAT_CUBIN &&
               recordChip.rfind("sm_", 0) == 0) {
      int built = std::atoi(recordChip.c_str() + 3);
      if (built / 10 == wanted / 10 && built <= wanted &&
          (!compatible || built > std::atoi(compatible->chip + 3)))
        compatible = record;
    }
  }
  const DeviceBinary *chosen = exact ? exact : ptx ? ptx : compatible;
  if (!chosen)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "GPU module '" + module + "' has no code for CUDA device '" + name +
             "' (it has " + (chips.empty() ? "none" : chips) + ")");
  // PTX is text the JIT wants NUL-terminated.
  std::string text;
  const void *image = chosen->data;
  if (chosen == ptx) {
    text.assign(reinterpret_cast<const char *>(chosen->data), chosen->size);
    image = text.c_str();
  }
  char log[4096] = {};
  int options[] = {jitErrorLogBuffer, jitErrorLogBufferSizeBytes};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
  Current current(*this);
  CUmodule handle = nullptr;
  CUresult result = api.cuModuleLoadDataEx(&handle, image, 2, options, values);
  if (result != cudaSuccess)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "cannot load GPU module '" + module + "' (" + chosen->format +
             (*chosen->chip ? std::string(" ") + chosen->chip : "") +
             ") on CUDA device '" + name + "': " + describe(result) +
             (log[0] ? std::string(": ") + log : ""));
  return std::make_unique<StreamModule>(
      std::static_pointer_cast<StreamDevice>(shared_from_this()), module,
      handle);
}

} // namespace

std::shared_ptr<Device> rlxrt::openCudaDevice() {
  auto device = std::make_shared<CudaDevice>();
  device->open();
  return device;
}
