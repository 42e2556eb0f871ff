//===- DeviceBackends.h - The GPU implementations of Device -----*- C++ -*-===//
//
/// \file
/// One factory per driver. Each opens a new device and throws
/// FAILED_PRECONDITION saying what is missing when it cannot; `openDevice`
/// (Device.h) shares the result process-wide.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_DEVICEBACKENDS_H
#define RLX_RUNTIME_SRC_DEVICEBACKENDS_H

#include "Device.h"

namespace rlxrt {

/// Vulkan through libvulkan.so.1: the first physical device, or
/// RLX_VULKAN_DEVICE=index.
std::shared_ptr<Device> openVulkanDevice();
/// CUDA through libcuda.so.1 (the driver API): device 0, or
/// RLX_CUDA_DEVICE=index.
std::shared_ptr<Device> openCudaDevice();
/// HIP through libamdhip64.so: device 0, or RLX_HIP_DEVICE=index.
std::shared_ptr<Device> openHipDevice();

/// The device index in environment variable `variable` (0 when unset).
/// Throws INVALID_ARGUMENT for a value that is not a non-negative integer.
int deviceIndexFromEnvironment(const char *variable);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_DEVICEBACKENDS_H
