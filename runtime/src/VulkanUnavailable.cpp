//===- VulkanUnavailable.cpp - The Vulkan device, left out ----------------===//
//
/// \file
/// Built instead of the Vulkan device when the Vulkan headers were missing
/// at configure time (runtime/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "DeviceBackends.h"
#include "Status.h"

std::shared_ptr<rlxrt::Device> rlxrt::openVulkanDevice() {
  fail(RLX_STATUS_UNIMPLEMENTED,
       "no Vulkan device: this librlxrt was built without the Vulkan "
       "headers (vulkan/vulkan_core.h)");
}
