//===- VulkanModule.cpp - SPIR-V modules and their compute pipelines ------===//
//
/// \file
/// A module is checked against the device's features once, at load; each
/// kernel gets its pipeline on first launch. Kernel `i`-th parameters are
/// bindings 0..n-1 of set 0, all storage buffers (docs/abi.md).
//
//===----------------------------------------------------------------------===//

#include "Status.h"
#include "VulkanDevice.h"

using namespace rlxrt;

VulkanModule::VulkanModule(std::shared_ptr<VulkanDevice> device,
                           std::string name, SpirvModule spirv)
    : device(std::move(device)), name(std::move(name)),
      spirv(std::move(spirv)) {
  VulkanDevice &vulkan = *this->device;
  for (uint32_t capability : this->spirv.capabilities) {
    if (capability == 6)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           "GPU module '" + this->name +
               "' is an OpenCL kernel (SPIR-V capability Kernel), not a "
               "Vulkan compute shader");
    CapabilityFeature need = featureForCapability(capability);
    if (need.feature && !vulkan.features.count(need.feature))
      fail(RLX_STATUS_FAILED_PRECONDITION,
           "Vulkan device '" + vulkan.description() + "' lacks " +
               need.feature + ", which GPU module '" + this->name +
               "' needs (SPIR-V capability " + need.capability + ")");
  }
  auto info = makeVulkan<VkShaderModuleCreateInfo>(
      VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  info.codeSize = this->spirv.words.size() * sizeof(uint32_t);
  info.pCode = this->spirv.words.data();
  checkVulkan(
      vulkan.api.vkCreateShaderModule(vulkan.device, &info, nullptr, &shader),
      ("vkCreateShaderModule of GPU module '" + this->name + "'").c_str());
}

VulkanModule::~VulkanModule() {
  const VulkanApi &api = device->api;
  for (auto &entry : pipelines) {
    api.vkDestroyPipeline(device->device, entry.second.pipeline, nullptr);
    api.vkDestroyPipelineLayout(device->device, entry.second.layout, nullptr);
    api.vkDestroyDescriptorSetLayout(device->device, entry.second.setLayout,
                                     nullptr);
  }
  if (shader)
    api.vkDestroyShaderModule(device->device, shader, nullptr);
}

const VulkanModule::Pipeline &VulkanModule::pipeline(const std::string &kernel,
                                                     size_t argCount) {
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(kernel, argCount);
  auto cached = pipelines.find(key);
  if (cached != pipelines.end())
    return cached->second;
  auto found = spirv.kernels.find(kernel);
  if (found == spirv.kernels.end()) {
    std::string kernels;
    for (const auto &entry : spirv.kernels)
      kernels += (kernels.empty() ? "'" : ", '") + entry.first + "'";
    fail(RLX_STATUS_INTERNAL,
         "GPU module '" + name + "' has no kernel '" + kernel +
             "' (kernels: " + (kernels.empty() ? "none" : kernels) + ")");
  }

  const VulkanApi &api = device->api;
  Pipeline result;
  result.localSize = found->second;
  auto discard = [&] {
    if (result.pipeline)
      api.vkDestroyPipeline(device->device, result.pipeline, nullptr);
    if (result.layout)
      api.vkDestroyPipelineLayout(device->device, result.layout, nullptr);
    if (result.setLayout)
      api.vkDestroyDescriptorSetLayout(device->device, result.setLayout,
                                       nullptr);
  };
  try {
    std::vector<VkDescriptorSetLayoutBinding> bindings(argCount);
    for (size_t i = 0; i < argCount; ++i) {
      bindings[i].binding = static_cast<uint32_t>(i);
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    auto setInfo = makeVulkan<VkDescriptorSetLayoutCreateInfo>(
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    setInfo.bindingCount = static_cast<uint32_t>(argCount);
    setInfo.pBindings = bindings.data();
    checkVulkan(api.vkCreateDescriptorSetLayout(device->device, &setInfo,
                                                nullptr, &result.setLayout),
                "vkCreateDescriptorSetLayout");
    auto layoutInfo = makeVulkan<VkPipelineLayoutCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &result.setLayout;
    checkVulkan(api.vkCreatePipelineLayout(device->device, &layoutInfo, nullptr,
                                           &result.layout),
                "vkCreatePipelineLayout");
    auto info = makeVulkan<VkComputePipelineCreateInfo>(
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = shader;
    info.stage.pName = kernel.c_str();
    info.layout = result.layout;
    checkVulkan(api.vkCreateComputePipelines(device->device, VK_NULL_HANDLE, 1,
                                             &info, nullptr, &result.pipeline),
                ("vkCreateComputePipelines for kernel '" + kernel +
                 "' of GPU module '" + name + "'")
                    .c_str());
  } catch (...) {
    discard();
    throw;
  }
  return pipelines.emplace(key, result).first->second;
}
