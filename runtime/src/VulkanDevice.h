//===- VulkanDevice.h - Device on Vulkan compute ----------------*- C++ -*-===//
//
/// \file
/// A Vulkan physical device run as docs/abi.md's GPU artifacts expect.
/// Device pointers are addresses the runtime invents (non-zero, 256-aligned,
/// never reused) and maps back to the VkBuffer that holds them, since
/// kernels take their arguments as storage buffers of descriptor set 0.
/// Each allocation is one VkBuffer with its own memory, of the request's
/// size class: device-local, and kept mapped when that memory is also
/// host-visible (lavapipe, integrated GPUs), else filled and read through
/// staging buffers. A freed buffer waits in a DeviceMemoryPool and is named
/// by a fresh address when it is handed out again; only live buffers are in
/// the address map.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_VULKANDEVICE_H
#define RLX_RUNTIME_SRC_VULKANDEVICE_H

#include "Device.h"
#include "DeviceMemoryPool.h"
#include "SpirvModule.h"
#include "VulkanApi.h"

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace rlxrt {

class VulkanDevice final : public Device {
public:
  /// A VkBuffer with its own memory.
  struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    /// The bytes asked for.
    uint64_t bytes = 0;
    /// What a kernel argument binds: `bytes` rounded up to 4 (at least 4).
    VkDeviceSize size = 0;
    /// The VkBuffer's size, at least `size` (the size class of a device
    /// buffer).
    VkDeviceSize capacity = 0;
    /// Where it is mapped, or null.
    void *mapped = nullptr;
  };

  /// The driver objects of a queue (VulkanQueue.cpp), kept between calls:
  /// its command pool is reset, its fence unsignalled, its descriptor pools
  /// reset.
  struct QueueObjects {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer commands = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    /// Mapped host memory for scalars and staging, or none.
    Buffer chunk;
    std::vector<VkDescriptorPool> descriptorPools;
  };

  VulkanDevice() = default;
  ~VulkanDevice() override;
  /// Loads the driver and opens the physical device (see
  /// openVulkanDevice). The destructor cleans up after a failure.
  void open();

  rlx_device_t kind() const override { return RLX_DEVICE_VULKAN; }
  const std::string &description() const override { return name; }
  uint64_t allocate(uint64_t bytes) override;
  void free(uint64_t address) override;
  DeviceMemoryStats memoryStats() const override { return pool->stats(); }
  std::unique_ptr<DeviceQueue> createQueue() override;
  std::unique_ptr<DeviceModule>
  loadModule(const std::string &name,
             const std::vector<const DeviceBinary *> &records) override;

  /// The allocation holding `address` (its end included) and the offset of
  /// `address` in it. Throws INTERNAL when no live allocation holds it.
  std::pair<Buffer, uint64_t> resolve(uint64_t address) const;
  /// A mapped, host-coherent buffer outside the address map (staging,
  /// kernel scalars).
  Buffer createHostBuffer(uint64_t bytes);
  void destroyBuffer(const Buffer &buffer);
  /// Submits `commands` to the queue, signalling `fence`.
  void submit(VkCommandBuffer commands, VkFence fence);
  /// The objects of a queue that has ended, if any are kept.
  std::optional<QueueObjects> takeIdleQueue();
  /// Keeps the objects of a queue that has ended for the next, or destroys
  /// them when enough are kept.
  void keepIdleQueue(QueueObjects objects);
  void destroyQueueObjects(const QueueObjects &objects);

  VulkanApi api;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VkPhysicalDeviceLimits limits{};
  /// The features enabled (Vulkan names, as featureForCapability says).
  std::set<std::string> features;

private:
  /// Creates a buffer of `bytes` whose VkBuffer holds `capacity` in device
  /// memory or, when `host`, in mapped host-coherent memory. Throws
  /// RESOURCE_EXHAUSTED naming `bytes`.
  Buffer createBuffer(uint64_t bytes, uint64_t capacity, bool host);
  void openInstance();
  void choosePhysicalDevice();
  void createLogicalDevice();
  void chooseMemoryTypes();

  std::string name;
  /// min(loader, 1.3) and min(that, the device's).
  uint32_t instanceVersion = 0;
  uint32_t apiVersion = 0;
  VkPhysicalDeviceMemoryProperties memory{};
  /// The largest buffer one allocation may hold, the largest device heap.
  uint64_t maxAllocationBytes = 0;
  uint64_t largestHeapBytes = 0;
  /// RLX_VULKAN_STAGING: never map device buffers, even host-visible ones.
  bool forceStaging = false;

  /// Freed device buffers for reuse; made by open().
  std::unique_ptr<DeviceMemoryPool<Buffer>> pool;
  mutable std::mutex mutex;
  /// Address -> the live buffer it starts.
  std::map<uint64_t, Buffer> buffers;
  uint64_t nextAddress = uint64_t(1) << 40;
  std::mutex queueMutex;
  std::mutex idleMutex;
  std::vector<QueueObjects> idleQueues;
};

/// A SPIR-V module with a compute pipeline per kernel, built on first use.
class VulkanModule final : public DeviceModule {
public:
  struct Pipeline {
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    std::optional<std::array<uint32_t, 3>> localSize;
  };

  /// Checks the device has every feature `spirv` declares it needs.
  VulkanModule(std::shared_ptr<VulkanDevice> device, std::string name,
               SpirvModule spirv);
  ~VulkanModule() override;

  /// The pipeline of `kernel` whose set 0 has bindings 0..argCount-1.
  /// Throws INTERNAL when the module has no such kernel. Thread-safe; the
  /// reference stays valid while the module lives.
  const Pipeline &pipeline(const std::string &kernel, size_t argCount);
  const std::string &moduleName() const { return name; }

private:
  std::shared_ptr<VulkanDevice> device;
  std::string name;
  SpirvModule spirv;
  VkShaderModule shader = VK_NULL_HANDLE;
  std::mutex mutex;
  std::map<std::pair<std::string, size_t>, Pipeline> pipelines;
};

/// The queue of one call: a command buffer recorded until synchronize.
std::unique_ptr<DeviceQueue>
createVulkanQueue(std::shared_ptr<VulkanDevice> device);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_VULKANDEVICE_H
