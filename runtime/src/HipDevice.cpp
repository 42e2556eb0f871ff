//===- HipDevice.cpp - Device on HIP (AMD GPUs) ---------------------------===//
//
/// \file
/// libamdhip64.so is dlopen'ed and the few HIP types and functions used are
/// declared here (no hip_runtime.h), so this builds anywhere. The device is
/// made current (hipSetDevice) before every call, whichever thread makes
/// it. A module loads the hsaco built for the device's gcnArchName
/// ("gfx90a:sramecc+:xnack-" runs "gfx90a"); when the arch cannot be read,
/// each hsaco is tried until one loads.
//
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "DeviceBackends.h"
#include "DriverLibrary.h"
#include "Status.h"
#include "StreamDevice.h"

#include <cstring>

using namespace rlxrt;

namespace {

using hipError_t = int;
using hipStream_t = void *;
using hipModule_t = void *;
using hipFunction_t = void *;
constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorOutOfMemory = 2;
constexpr hipError_t hipErrorNotFound = 500;
constexpr unsigned hipStreamNonBlocking = 1;
/// hipDeviceProp_tR0600 (ROCm 6): gcnArchName[256] lies at this offset of a
/// struct smaller than the buffer below.
constexpr size_t gcnArchNameOffset = 1160;
constexpr size_t devicePropertiesBytes = 4096;

#define RLX_HIP_FUNCTIONS(X)                                                   \
  X(hipInit, "hipInit", hipError_t (*)(unsigned))                              \
  X(hipGetDeviceCount, "hipGetDeviceCount", hipError_t (*)(int *))             \
  X(hipSetDevice, "hipSetDevice", hipError_t (*)(int))                         \
  X(hipDeviceGetName, "hipDeviceGetName", hipError_t (*)(char *, int, int))    \
  X(hipMalloc, "hipMalloc", hipError_t (*)(void **, size_t))                   \
  X(hipFree, "hipFree", hipError_t (*)(void *))                                \
  X(hipMemcpyHtoDAsync, "hipMemcpyHtoDAsync",                                  \
    hipError_t (*)(void *, const void *, size_t, hipStream_t))                 \
  X(hipMemcpyDtoHAsync, "hipMemcpyDtoHAsync",                                  \
    hipError_t (*)(void *, void *, size_t, hipStream_t))                       \
  X(hipStreamCreateWithFlags, "hipStreamCreateWithFlags",                      \
    hipError_t (*)(hipStream_t *, unsigned))                                   \
  X(hipStreamDestroy, "hipStreamDestroy", hipError_t (*)(hipStream_t))         \
  X(hipStreamSynchronize, "hipStreamSynchronize", hipError_t (*)(hipStream_t)) \
  X(hipModuleLoadData, "hipModuleLoadData",                                    \
    hipError_t (*)(hipModule_t *, const void *))                               \
  X(hipModuleUnload, "hipModuleUnload", hipError_t (*)(hipModule_t))           \
  X(hipModuleGetFunction, "hipModuleGetFunction",                              \
    hipError_t (*)(hipFunction_t *, hipModule_t, const char *))                \
  X(hipModuleLaunchKernel, "hipModuleLaunchKernel",                            \
    hipError_t (*)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,      \
                   unsigned, unsigned, unsigned, hipStream_t, void **,         \
                   void **))                                                   \
  X(hipGetErrorName, "hipGetErrorName", const char *(*)(hipError_t))           \
  X(hipGetErrorString, "hipGetErrorString", const char *(*)(hipError_t))

/// Spells a function pointer type as one token, for a declaration.
template <typename T> using Function = T;

struct HipApi {
#define RLX_DECLARE(member, symbol, type) Function<type> member = nullptr;
  RLX_HIP_FUNCTIONS(RLX_DECLARE)
#undef RLX_DECLARE
  hipError_t (*hipGetDevicePropertiesR0600)(void *, int) = nullptr;
};

class HipDevice final : public StreamDevice {
public:
  ~HipDevice() override { releaseCachedMemory(); }
  void open();

  rlx_device_t kind() const override { return RLX_DEVICE_HIP; }
  std::unique_ptr<DeviceModule>
  loadModule(const std::string &module,
             const std::vector<const DeviceBinary *> &records) override;

  uint64_t driverAllocate(uint64_t capacity, uint64_t bytes) override {
    makeCurrent();
    void *address = nullptr;
    hipError_t result = api.hipMalloc(&address, capacity);
    if (result == hipErrorOutOfMemory)
      fail(RLX_STATUS_RESOURCE_EXHAUSTED,
           "cannot allocate " + std::to_string(bytes) +
               " bytes of device memory on HIP device '" + name +
               "': " + describe(result));
    check(result, "hipMalloc");
    return reinterpret_cast<uintptr_t>(address);
  }
  void driverFree(uint64_t address) override {
    makeCurrent();
    check(api.hipFree(toPointer(address)), "hipFree");
  }
  void *createStream() override {
    makeCurrent();
    hipStream_t stream = nullptr;
    check(api.hipStreamCreateWithFlags(&stream, hipStreamNonBlocking),
          "hipStreamCreateWithFlags");
    return stream;
  }
  void destroyStream(void *stream) override {
    makeCurrent();
    check(api.hipStreamDestroy(stream), "hipStreamDestroy");
  }
  void synchronizeStream(void *stream) override {
    makeCurrent();
    check(api.hipStreamSynchronize(stream), "hipStreamSynchronize");
  }
  void copyToDevice(void *stream, uint64_t destination, const void *source,
                    uint64_t bytes) override {
    makeCurrent();
    check(api.hipMemcpyHtoDAsync(toPointer(destination), source, bytes, stream),
          "hipMemcpyHtoDAsync");
  }
  void copyToHost(void *stream, void *destination, uint64_t source,
                  uint64_t bytes) override {
    makeCurrent();
    check(api.hipMemcpyDtoHAsync(destination, toPointer(source), bytes, stream),
          "hipMemcpyDtoHAsync");
  }
  void unloadModule(void *module) override {
    makeCurrent();
    check(api.hipModuleUnload(module), "hipModuleUnload");
  }
  void *findKernel(void *module, const std::string &moduleName,
                   const std::string &kernel) override {
    makeCurrent();
    hipFunction_t function = nullptr;
    hipError_t result =
        api.hipModuleGetFunction(&function, module, kernel.c_str());
    if (result == hipErrorNotFound)
      fail(RLX_STATUS_INTERNAL,
           "GPU module '" + moduleName + "' has no kernel '" + kernel + "'");
    check(result, "hipModuleGetFunction");
    return function;
  }
  void launchKernel(void *stream, void *function, const LaunchShape &shape,
                    void **params) override {
    makeCurrent();
    check(api.hipModuleLaunchKernel(function, shape.grid[0], shape.grid[1],
                                    shape.grid[2], shape.block[0],
                                    shape.block[1], shape.block[2], 0, stream,
                                    params, nullptr),
          "hipModuleLaunchKernel");
  }

private:
  void makeCurrent() { check(api.hipSetDevice(index), "hipSetDevice"); }
  std::string describe(hipError_t result) const {
    const char *errorName = api.hipGetErrorName(result);
    const char *errorText = api.hipGetErrorString(result);
    return std::string(errorName ? errorName : "HIP error") + " (" +
           (errorText ? errorText : "code " + std::to_string(result)) + ")";
  }
  void check(hipError_t result, const char *what) const {
    if (result != hipSuccess)
      fail(RLX_STATUS_INTERNAL, std::string(what) + " failed on HIP device '" +
                                    name + "': " + describe(result));
  }

  HipApi api;
  int index = 0;
  /// "gfx90a", or "" when it could not be read.
  std::string arch;
};

void HipDevice::open() {
  std::string error;
  void *library = loadDriverLibrary(
      {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}, error);
  if (!library)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "no HIP runtime (libamdhip64.so not found: " + error + ")");
#define RLX_LOAD(member, symbol, type)                                         \
  api.member =                                                                 \
      reinterpret_cast<Function<type>>(findDriverSymbol(library, symbol));     \
  if (!api.member)                                                             \
    fail(RLX_STATUS_FAILED_PRECONDITION,                                       \
         "no usable HIP runtime (libamdhip64.so lacks " symbol ")");
  RLX_HIP_FUNCTIONS(RLX_LOAD)
#undef RLX_LOAD
  api.hipGetDevicePropertiesR0600 =
      reinterpret_cast<hipError_t (*)(void *, int)>(
          findDriverSymbol(library, "hipGetDevicePropertiesR0600"));
  hipError_t result = api.hipInit(0);
  int count = 0;
  if (result == hipSuccess)
    result = api.hipGetDeviceCount(&count);
  if (result != hipSuccess || count == 0)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "no HIP device (" +
             (result != hipSuccess ? describe(result)
                                   : "the runtime found none") +
             ")");
  index = deviceIndexFromEnvironment("RLX_HIP_DEVICE");
  if (index >= count)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "no HIP device " + std::to_string(index) +
             " (RLX_HIP_DEVICE); there " +
             (count == 1 ? "is 1" : "are " + std::to_string(count)));
  char deviceName[256] = {};
  check(api.hipDeviceGetName(deviceName, sizeof(deviceName) - 1, index),
        "hipDeviceGetName");
  if (api.hipGetDevicePropertiesR0600) {
    std::vector<char> properties(devicePropertiesBytes, 0);
    if (api.hipGetDevicePropertiesR0600(properties.data(), index) ==
            hipSuccess &&
        std::strncmp(properties.data() + gcnArchNameOffset, "gfx", 3) == 0) {
      arch.assign(properties.data() + gcnArchNameOffset,
                  strnlen(properties.data() + gcnArchNameOffset, 255));
      arch = arch.substr(0, arch.find(':'));
    }
  }
  name = std::string(deviceName) + (arch.empty() ? "" : " (" + arch + ")");
}

std::unique_ptr<DeviceModule>
HipDevice::loadModule(const std::string &module,
                      const std::vector<const DeviceBinary *> &records) {
  std::vector<const DeviceBinary *> candidates;
  std::string chips;
  for (const DeviceBinary *record : records) {
    std::string format = record->format;
    chips += (chips.empty() ? "" : ", ") + format +
             (*record->chip ? std::string(" ") + record->chip : "");
    if (format == RLX_DEVICE_BINARY_FORMAT_HSACO &&
        (arch.empty() || arch == record->chip))
      candidates.push_back(record);
  }
  if (candidates.empty())
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "GPU module '" + module + "' has no code for HIP device '" + name +
             "' (it has " + (chips.empty() ? "none" : chips) + ")");
  makeCurrent();
  std::string failures;
  for (const DeviceBinary *candidate : candidates) {
    hipModule_t handle = nullptr;
    hipError_t result = api.hipModuleLoadData(&handle, candidate->data);
    if (result == hipSuccess)
      return std::make_unique<StreamModule>(
          std::static_pointer_cast<StreamDevice>(shared_from_this()), module,
          handle);
    failures += (failures.empty() ? "" : "; ") + std::string(candidate->chip) +
                ": " + describe(result);
  }
  fail(RLX_STATUS_FAILED_PRECONDITION, "cannot load GPU module '" + module +
                                           "' on HIP device '" + name +
                                           "': " + failures);
}

} // namespace

std::shared_ptr<Device> rlxrt::openHipDevice() {
  auto device = std::make_shared<HipDevice>();
  device->open();
  return device;
}
