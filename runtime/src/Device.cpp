//===- Device.cpp - Opening devices and naming them -----------------------===//
//
/// \file
/// The process-wide device registry: one open device per kind, shared by
/// the sessions on it and closed when the last of them (and the last device
/// tensor) lets go.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "DeviceBackends.h"
#include "Status.h"

#include <cstdlib>
#include <mutex>

namespace rlxrt {

DeviceModule::~DeviceModule() = default;
DeviceQueue::~DeviceQueue() = default;
Device::~Device() = default;

DeviceBuffer::~DeviceBuffer() {
  try {
    device->free(address);
  } catch (...) {
    // A driver that cannot free has lost the device; nothing to do.
  }
}

const char *deviceName(rlx_device_t device) {
  switch (device) {
  case RLX_DEVICE_DEFAULT:
    return "default";
  case RLX_DEVICE_CPU:
    return "cpu";
  case RLX_DEVICE_VULKAN:
    return "vulkan";
  case RLX_DEVICE_CUDA:
    return "cuda";
  case RLX_DEVICE_HIP:
    return "hip";
  }
  return "?";
}

rlx_device_t deviceForTarget(const std::string &target) {
  if (target == RLX_MANIFEST_TARGET_CPU)
    return RLX_DEVICE_CPU;
  if (target == RLX_MANIFEST_TARGET_VULKAN)
    return RLX_DEVICE_VULKAN;
  if (target == RLX_MANIFEST_TARGET_CUDA)
    return RLX_DEVICE_CUDA;
  if (target == RLX_MANIFEST_TARGET_ROCM)
    return RLX_DEVICE_HIP;
  return RLX_DEVICE_DEFAULT;
}

int deviceIndexFromEnvironment(const char *variable) {
  const char *text = std::getenv(variable);
  if (!text || !*text)
    return 0;
  char *end = nullptr;
  long index = std::strtol(text, &end, 10);
  if (*end || index < 0 || index > 1 << 20)
    fail(RLX_STATUS_INVALID_ARGUMENT,
         std::string(variable) + "='" + text + "' is not a device index");
  return static_cast<int>(index);
}

std::shared_ptr<Device> openDevice(rlx_device_t kind) {
  static std::mutex mutex;
  static std::weak_ptr<Device> open[RLX_DEVICE_HIP + 1];
  if (kind != RLX_DEVICE_VULKAN && kind != RLX_DEVICE_CUDA &&
      kind != RLX_DEVICE_HIP)
    fail(RLX_STATUS_INVALID_ARGUMENT,
         std::string("no GPU device of kind '") + deviceName(kind) + "'");
  std::lock_guard<std::mutex> lock(mutex);
  if (std::shared_ptr<Device> device = open[kind].lock())
    return device;
  std::shared_ptr<Device> device = kind == RLX_DEVICE_VULKAN
                                       ? openVulkanDevice()
                                   : kind == RLX_DEVICE_CUDA ? openCudaDevice()
                                                             : openHipDevice();
  open[kind] = device;
  return device;
}

} // namespace rlxrt

extern "C" {

const char *rlx_device_name(rlx_device_t device) {
  return rlxrt::deviceName(device);
}

rlx_status_t rlx_device_parse(const char *name, rlx_device_t *out_device) {
  return rlxrt::guard([&] {
    rlxrt::requireArg(name, "name");
    rlxrt::requireArg(out_device, "out_device");
    for (rlx_device_t device :
         {RLX_DEVICE_CPU, RLX_DEVICE_VULKAN, RLX_DEVICE_CUDA, RLX_DEVICE_HIP})
      if (std::string(name) == rlxrt::deviceName(device)) {
        *out_device = device;
        return;
      }
    rlxrt::fail(RLX_STATUS_INVALID_ARGUMENT,
              std::string("unknown device '") + name +
                  "' (devices: cpu, vulkan, cuda, hip)");
  });
}

} // extern "C"
