//===- VulkanApi.h - Vulkan entry points loaded at run time -----*- C++ -*-===//
//
/// \file
/// The Vulkan functions the runtime calls, as pointers fetched through
/// vkGetInstanceProcAddr/vkGetDeviceProcAddr from libvulkan.so.1, which is
/// dlopen'ed (VK_NO_PROTOTYPES: nothing links against the loader).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_VULKANAPI_H
#define RLX_RUNTIME_SRC_VULKANAPI_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>

#include <string>

namespace rlxrt {

#define RLX_VULKAN_INSTANCE_FUNCTIONS(X)                                       \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

#define RLX_VULKAN_DEVICE_FUNCTIONS(X)                                         \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkDeviceWaitIdle)                                                          \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkResetDescriptorPool)                                                     \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkResetCommandPool)                                                        \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdDispatch)                                                             \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkResetFences)                                                             \
  X(vkWaitForFences)                                                           \
  X(vkQueueSubmit)

/// The loaded entry points of one instance and device.
struct VulkanApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
#define RLX_DECLARE(name) PFN_##name name = nullptr;
  RLX_VULKAN_INSTANCE_FUNCTIONS(RLX_DECLARE)
  RLX_VULKAN_DEVICE_FUNCTIONS(RLX_DECLARE)
#undef RLX_DECLARE
};

/// A zeroed Vulkan struct of type `type` (what `T x{type}` means, without
/// the missing-initializer warning).
template <typename T> T makeVulkan(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" and kin.
const char *vulkanResultName(VkResult result);

/// Throws for a failed `result` of `what`: RESOURCE_EXHAUSTED for the
/// out-of-memory results, INTERNAL otherwise, naming the call and result.
void checkVulkan(VkResult result, const char *what);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_VULKANAPI_H
