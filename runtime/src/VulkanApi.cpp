//===- VulkanApi.cpp - Vulkan results as statuses -------------------------===//

#include "VulkanApi.h"
#include "Status.h"

const char *rlxrt::vulkanResultName(VkResult result) {
  switch (result) {
#define RLX_CASE(name)                                                         \
  case name:                                                                   \
    return #name;
    RLX_CASE(VK_SUCCESS)
    RLX_CASE(VK_NOT_READY)
    RLX_CASE(VK_TIMEOUT)
    RLX_CASE(VK_INCOMPLETE)
    RLX_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    RLX_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    RLX_CASE(VK_ERROR_INITIALIZATION_FAILED)
    RLX_CASE(VK_ERROR_DEVICE_LOST)
    RLX_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    RLX_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    RLX_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    RLX_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    RLX_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    RLX_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    RLX_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    RLX_CASE(VK_ERROR_FRAGMENTED_POOL)
    RLX_CASE(VK_ERROR_UNKNOWN)
    RLX_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    RLX_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    RLX_CASE(VK_ERROR_FRAGMENTATION)
    RLX_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    RLX_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    RLX_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef RLX_CASE
  default:
    return "an unknown VkResult";
  }
}

void rlxrt::checkVulkan(VkResult result, const char *what) {
  if (result == VK_SUCCESS)
    return;
  bool outOfMemory = result == VK_ERROR_OUT_OF_HOST_MEMORY ||
                     result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
                     result == VK_ERROR_OUT_OF_POOL_MEMORY;
  fail(outOfMemory ? RLX_STATUS_RESOURCE_EXHAUSTED : RLX_STATUS_INTERNAL,
       std::string(what) + " failed: " + vulkanResultName(result) +
           " (Vulkan result " + std::to_string(static_cast<int>(result)) + ")");
}
