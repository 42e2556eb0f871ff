//===- VulkanQueue.cpp - One call's work on a Vulkan queue ----------------===//
//
/// \file
/// A call's uploads, dispatches and copies are recorded into one command
/// buffer, a full memory barrier between consecutive commands (they run in
/// order, as a stream would), and submitted when the call synchronizes or
/// reads something back. Kernel scalars and staging copies live in mapped
/// host memory carved from chunks that are recycled at synchronize, as are
/// descriptor sets; frees wait until then too. When a call ends its command
/// pool, fence, first chunk and descriptor pools go back to the device for
/// the next call's queue.
//
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "Status.h"
#include "VulkanDevice.h"

#include <algorithm>
#include <cstring>

using namespace rlxrt;

namespace {

std::string formatTriple(const uint32_t values[3]) {
  return "(" + std::to_string(values[0]) + ", " + std::to_string(values[1]) +
         ", " + std::to_string(values[2]) + ")";
}

class VulkanQueue final : public DeviceQueue {
public:
  explicit VulkanQueue(std::shared_ptr<VulkanDevice> device);
  ~VulkanQueue() override;

  void upload(uint64_t destination, const void *source,
              uint64_t bytes) override;
  void launch(DeviceModule &module, const std::string &kernel,
              const LaunchShape &shape,
              const std::vector<KernelArg> &args) override;
  void freeAfterWork(uint64_t address) override {
    deferredFrees.push_back(address);
  }
  void synchronize() override;
  void download(void *destination, uint64_t source, uint64_t bytes) override;

private:
  /// Mapped host memory for the commands being recorded.
  struct HostSlice {
    VkBuffer buffer;
    uint64_t offset;
    char *mapped;
  };
  HostSlice hostMemory(uint64_t bytes, uint64_t alignment);
  /// The command buffer, ready for one more command.
  VkCommandBuffer record();
  /// Submits what is recorded and waits for it.
  void flush();
  VkDescriptorSet allocateSet(VkDescriptorSetLayout layout);
  void barrier(VkPipelineStageFlags destinationStage,
               VkAccessFlags destinationAccess);

  std::shared_ptr<VulkanDevice> device;
  const VulkanApi &api;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  /// Commands are recorded and not yet submitted.
  bool recording = false;

  struct Chunk {
    VulkanDevice::Buffer buffer;
    uint64_t used = 0;
  };
  std::vector<Chunk> chunks;
  std::vector<VkDescriptorPool> descriptorPools;
  size_t currentPool = 0;
  std::vector<uint64_t> deferredFrees;
};

VulkanQueue::VulkanQueue(std::shared_ptr<VulkanDevice> device)
    : device(std::move(device)), api(this->device->api) {
  if (std::optional<VulkanDevice::QueueObjects> idle =
          this->device->takeIdleQueue()) {
    pool = idle->pool;
    commands = idle->commands;
    fence = idle->fence;
    if (idle->chunk.buffer)
      chunks.push_back({idle->chunk, 0});
    descriptorPools = std::move(idle->descriptorPools);
    return;
  }
  VkDevice vk = this->device->device;
  try {
    auto poolInfo = makeVulkan<VkCommandPoolCreateInfo>(
        VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    poolInfo.queueFamilyIndex = this->device->queueFamily;
    checkVulkan(api.vkCreateCommandPool(vk, &poolInfo, nullptr, &pool),
                "vkCreateCommandPool");
    auto bufferInfo = makeVulkan<VkCommandBufferAllocateInfo>(
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    bufferInfo.commandPool = pool;
    bufferInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    bufferInfo.commandBufferCount = 1;
    checkVulkan(api.vkAllocateCommandBuffers(vk, &bufferInfo, &commands),
                "vkAllocateCommandBuffers");
    auto fenceInfo =
        makeVulkan<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    checkVulkan(api.vkCreateFence(vk, &fenceInfo, nullptr, &fence),
                "vkCreateFence");
  } catch (...) {
    if (pool)
      api.vkDestroyCommandPool(vk, pool, nullptr);
    throw;
  }
}

VulkanQueue::~VulkanQueue() {
  try {
    synchronize();
    // Clean: the next call's queue takes the objects over.
    VulkanDevice::QueueObjects idle;
    idle.pool = pool;
    idle.commands = commands;
    idle.fence = fence;
    if (!chunks.empty())
      idle.chunk = chunks[0].buffer;
    idle.descriptorPools = std::move(descriptorPools);
    device->keepIdleQueue(std::move(idle));
    return;
  } catch (...) {
    // The device is lost; free what is left all the same.
  }
  for (uint64_t address : deferredFrees) {
    try {
      device->free(address);
    } catch (...) {
    }
  }
  VkDevice vk = device->device;
  for (Chunk &chunk : chunks)
    device->destroyBuffer(chunk.buffer);
  for (VkDescriptorPool descriptorPool : descriptorPools)
    api.vkDestroyDescriptorPool(vk, descriptorPool, nullptr);
  if (fence)
    api.vkDestroyFence(vk, fence, nullptr);
  api.vkDestroyCommandPool(vk, pool, nullptr);
}

VulkanQueue::HostSlice VulkanQueue::hostMemory(uint64_t bytes,
                                               uint64_t alignment) {
  if (!chunks.empty()) {
    Chunk &last = chunks.back();
    uint64_t offset = roundUp(last.used, alignment);
    if (offset + bytes <= last.buffer.size) {
      last.used = offset + bytes;
      return {last.buffer.buffer, offset,
              static_cast<char *>(last.buffer.mapped) + offset};
    }
  }
  Chunk chunk;
  chunk.buffer =
      device->createHostBuffer(std::max<uint64_t>(bytes, uint64_t(64) << 10));
  chunk.used = bytes;
  chunks.push_back(chunk);
  return {chunk.buffer.buffer, 0, static_cast<char *>(chunk.buffer.mapped)};
}

void VulkanQueue::barrier(VkPipelineStageFlags destinationStage,
                          VkAccessFlags destinationAccess) {
  auto memoryBarrier =
      makeVulkan<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  memoryBarrier.srcAccessMask =
      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  memoryBarrier.dstAccessMask = destinationAccess;
  api.vkCmdPipelineBarrier(
      commands,
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      destinationStage, 0, 1, &memoryBarrier, 0, nullptr, 0, nullptr);
}

VkCommandBuffer VulkanQueue::record() {
  if (!recording) {
    auto info = makeVulkan<VkCommandBufferBeginInfo>(
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    checkVulkan(api.vkBeginCommandBuffer(commands, &info),
                "vkBeginCommandBuffer");
    recording = true;
  } else {
    barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  }
  return commands;
}

void VulkanQueue::flush() {
  if (!recording)
    return;
  VkDevice vk = device->device;
  barrier(VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  recording = false;
  checkVulkan(api.vkEndCommandBuffer(commands), "vkEndCommandBuffer");
  device->submit(commands, fence);
  checkVulkan(api.vkWaitForFences(vk, 1, &fence, VK_TRUE, UINT64_MAX),
              "vkWaitForFences");
  checkVulkan(api.vkResetFences(vk, 1, &fence), "vkResetFences");
  checkVulkan(api.vkResetCommandPool(vk, pool, 0), "vkResetCommandPool");
}

void VulkanQueue::synchronize() {
  flush();
  // The first chunk is kept for the next call; larger ones go.
  for (size_t i = 1; i < chunks.size(); ++i)
    device->destroyBuffer(chunks[i].buffer);
  if (!chunks.empty()) {
    chunks.resize(1);
    chunks[0].used = 0;
  }
  for (VkDescriptorPool descriptorPool : descriptorPools)
    api.vkResetDescriptorPool(device->device, descriptorPool, 0);
  currentPool = 0;
  std::vector<uint64_t> frees;
  frees.swap(deferredFrees);
  for (uint64_t address : frees)
    device->free(address);
}

VkDescriptorSet VulkanQueue::allocateSet(VkDescriptorSetLayout layout) {
  for (;;) {
    bool fresh = currentPool == descriptorPools.size();
    if (fresh) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4096};
      auto info = makeVulkan<VkDescriptorPoolCreateInfo>(
          VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
      info.maxSets = 256;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
      checkVulkan(api.vkCreateDescriptorPool(device->device, &info, nullptr,
                                             &descriptorPool),
                  "vkCreateDescriptorPool");
      descriptorPools.push_back(descriptorPool);
    }
    auto info = makeVulkan<VkDescriptorSetAllocateInfo>(
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
    info.descriptorPool = descriptorPools[currentPool];
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkResult result = api.vkAllocateDescriptorSets(device->device, &info, &set);
    if (result == VK_SUCCESS)
      return set;
    if (fresh || (result != VK_ERROR_OUT_OF_POOL_MEMORY &&
                  result != VK_ERROR_FRAGMENTED_POOL))
      checkVulkan(result, "vkAllocateDescriptorSets");
    ++currentPool;
  }
}

void VulkanQueue::upload(uint64_t destination, const void *source,
                         uint64_t bytes) {
  if (bytes == 0)
    return;
  auto [buffer, offset] = device->resolve(destination);
  if (offset + bytes > buffer.bytes)
    fail(RLX_STATUS_INTERNAL,
         "an upload of " + std::to_string(bytes) + " bytes at byte " +
             std::to_string(offset) + " of a device buffer of " +
             std::to_string(buffer.bytes) + " bytes runs past its end");
  // Nothing recorded can be using the buffer yet: write it in place.
  if (buffer.mapped && !recording) {
    std::memcpy(static_cast<char *>(buffer.mapped) + offset, source, bytes);
    return;
  }
  HostSlice staging = hostMemory(bytes, 16);
  std::memcpy(staging.mapped, source, bytes);
  VkBufferCopy region{staging.offset, offset, bytes};
  api.vkCmdCopyBuffer(record(), staging.buffer, buffer.buffer, 1, &region);
}

void VulkanQueue::download(void *destination, uint64_t source, uint64_t bytes) {
  if (bytes == 0) {
    flush();
    return;
  }
  auto [buffer, offset] = device->resolve(source);
  if (offset + bytes > buffer.bytes)
    fail(RLX_STATUS_INTERNAL,
         "a download of " + std::to_string(bytes) + " bytes at byte " +
             std::to_string(offset) + " of a device buffer of " +
             std::to_string(buffer.bytes) + " bytes runs past its end");
  if (buffer.mapped) {
    flush();
    std::memcpy(destination, static_cast<char *>(buffer.mapped) + offset,
                bytes);
    return;
  }
  HostSlice staging = hostMemory(bytes, 16);
  VkBufferCopy region{offset, staging.offset, bytes};
  api.vkCmdCopyBuffer(record(), buffer.buffer, staging.buffer, 1, &region);
  flush();
  std::memcpy(destination, staging.mapped, bytes);
}

void VulkanQueue::launch(DeviceModule &module, const std::string &kernel,
                         const LaunchShape &shape,
                         const std::vector<KernelArg> &args) {
  auto &vulkanModule = static_cast<VulkanModule &>(module);
  std::string what = "kernel '" + kernel + "' of GPU module '" +
                     vulkanModule.moduleName() + "'";
  const VulkanModule::Pipeline &pipeline =
      vulkanModule.pipeline(kernel, args.size());
  if (pipeline.localSize) {
    const std::array<uint32_t, 3> &size = *pipeline.localSize;
    if (shape.block[0] != size[0] || shape.block[1] != size[1] ||
        shape.block[2] != size[2])
      fail(RLX_STATUS_INTERNAL, "launch of " + what + " with block " +
                                    formatTriple(shape.block) +
                                    ", but its SPIR-V fixes the workgroup "
                                    "size to " +
                                    formatTriple(size.data()));
  }
  const VkPhysicalDeviceLimits &limits = device->limits;
  for (int d = 0; d < 3; ++d)
    if (shape.grid[d] > limits.maxComputeWorkGroupCount[d])
      fail(RLX_STATUS_INTERNAL,
           "launch of " + what + " with grid " + formatTriple(shape.grid) +
               ", more workgroups than the device's limit " +
               formatTriple(limits.maxComputeWorkGroupCount));

  // An empty grid runs nothing (and Vulkan advises against dispatching it),
  // but its pointer arguments must still name live memory.
  if (!shape.grid[0] || !shape.grid[1] || !shape.grid[2]) {
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].kind == KernelArg::Pointer)
        device->resolve(static_cast<uint64_t>(args[i].value));
    return;
  }

  size_t scalarCount = 0;
  for (const KernelArg &arg : args)
    scalarCount += arg.kind != KernelArg::Pointer;
  uint64_t scalarStride =
      std::max<uint64_t>(limits.minStorageBufferOffsetAlignment, 16);
  HostSlice scalars{};
  if (scalarCount)
    scalars = hostMemory(scalarCount * scalarStride, scalarStride);

  VkDescriptorSet set = allocateSet(pipeline.setLayout);
  std::vector<VkDescriptorBufferInfo> infos(args.size());
  std::vector<VkWriteDescriptorSet> writes(args.size());
  size_t scalar = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg &arg = args[i];
    std::string argument = "argument " + std::to_string(i) + " of " + what;
    if (arg.kind == KernelArg::Pointer) {
      std::pair<VulkanDevice::Buffer, uint64_t> resolved;
      try {
        resolved = device->resolve(static_cast<uint64_t>(arg.value));
      } catch (const StatusError &error) {
        fail(error.code, argument + ": " + error.message);
      }
      auto [buffer, offset] = resolved;
      // An empty view at the very end: the kernel reads none of it.
      if (offset >= buffer.size)
        offset = 0;
      if (offset % limits.minStorageBufferOffsetAlignment)
        fail(RLX_STATUS_INTERNAL,
             argument + " points " + std::to_string(offset) +
                 " bytes into its buffer, which is not a multiple of the "
                 "device's minStorageBufferOffsetAlignment (" +
                 std::to_string(limits.minStorageBufferOffsetAlignment) + ")");
      uint64_t range = buffer.size - offset;
      if (range > limits.maxStorageBufferRange)
        fail(RLX_STATUS_INTERNAL,
             argument + " binds " + std::to_string(range) +
                 " bytes, more than the device's maxStorageBufferRange (" +
                 std::to_string(limits.maxStorageBufferRange) + ")");
      infos[i] = {buffer.buffer, offset, range};
    } else if (arg.kind >= KernelArg::I32 && arg.kind <= KernelArg::F64) {
      uint64_t at = scalar++ * scalarStride;
      std::memcpy(scalars.mapped + at, &arg.value, arg.byteSize());
      infos[i] = {scalars.buffer, scalars.offset + at, arg.byteSize()};
    } else {
      fail(RLX_STATUS_INTERNAL,
           argument + " has unknown kind " + std::to_string(arg.kind));
    }
    writes[i] = makeVulkan<VkWriteDescriptorSet>(
        VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  if (!writes.empty())
    api.vkUpdateDescriptorSets(device->device,
                               static_cast<uint32_t>(writes.size()),
                               writes.data(), 0, nullptr);
  VkCommandBuffer buffer = record();
  api.vkCmdBindPipeline(buffer, VK_PIPELINE_BIND_POINT_COMPUTE,
                        pipeline.pipeline);
  api.vkCmdBindDescriptorSets(buffer, VK_PIPELINE_BIND_POINT_COMPUTE,
                              pipeline.layout, 0, 1, &set, 0, nullptr);
  api.vkCmdDispatch(buffer, shape.grid[0], shape.grid[1], shape.grid[2]);
}

} // namespace

std::unique_ptr<DeviceQueue>
rlxrt::createVulkanQueue(std::shared_ptr<VulkanDevice> device) {
  return std::make_unique<VulkanQueue>(std::move(device));
}
