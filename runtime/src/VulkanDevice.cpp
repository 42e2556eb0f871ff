//===- VulkanDevice.cpp - Opening a Vulkan device and its memory ----------===//
//
/// \file
/// Instance, physical device, logical device with one compute queue and
/// the features kernels may use; allocations and the invented addresses
/// that name them.
//
//===----------------------------------------------------------------------===//

#include "VulkanDevice.h"
#include "Addresses.h"
#include "DeviceBackends.h"
#include "DriverLibrary.h"
#include "Status.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace rlxrt;

namespace {

[[noreturn]] void noDevice(const std::string &why) {
  fail(RLX_STATUS_FAILED_PRECONDITION, "no Vulkan device: " + why);
}

} // namespace

void VulkanDevice::open() {
  uint64_t poolCap = deviceMemoryPoolCapFromEnvironment();
  openInstance();
  choosePhysicalDevice();
  createLogicalDevice();
  chooseMemoryTypes();
  pool = std::make_unique<DeviceMemoryPool<Buffer>>(
      poolCap, [this](const Buffer &buffer) { destroyBuffer(buffer); });
}

void VulkanDevice::openInstance() {
  std::string error;
  void *library = loadDriverLibrary({"libvulkan.so.1"}, error);
  if (!library)
    noDevice("libvulkan.so.1 not found (" + error + ")");
  api.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      findDriverSymbol(library, "vkGetInstanceProcAddr"));
  if (!api.vkGetInstanceProcAddr)
    noDevice("libvulkan.so.1 has no vkGetInstanceProcAddr");
  api.vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(
      api.vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance"));
  api.vkEnumerateInstanceVersion =
      reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
          api.vkGetInstanceProcAddr(VK_NULL_HANDLE,
                                    "vkEnumerateInstanceVersion"));
  uint32_t version = VK_API_VERSION_1_0;
  if (api.vkEnumerateInstanceVersion)
    api.vkEnumerateInstanceVersion(&version);
  if (!api.vkCreateInstance || version < VK_API_VERSION_1_1)
    noDevice("the Vulkan loader supports only Vulkan 1.0 (rlx needs 1.1)");
  instanceVersion = std::min<uint32_t>(version, VK_API_VERSION_1_3);

  auto application =
      makeVulkan<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  application.pApplicationName = "rlx";
  application.pEngineName = "rlx";
  application.apiVersion = instanceVersion;
  auto info =
      makeVulkan<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &application;
  VkResult result = api.vkCreateInstance(&info, nullptr, &instance);
  if (result != VK_SUCCESS) {
    instance = VK_NULL_HANDLE;
    noDevice(std::string("vkCreateInstance failed with ") +
             vulkanResultName(result) +
             (result == VK_ERROR_INCOMPATIBLE_DRIVER
                  ? " (no Vulkan driver is installed)"
                  : ""));
  }
#define RLX_LOAD(name)                                                         \
  api.name = reinterpret_cast<PFN_##name>(                                     \
      api.vkGetInstanceProcAddr(instance, #name));                             \
  if (!api.name)                                                               \
    noDevice("the Vulkan loader lacks " #name);
  RLX_VULKAN_INSTANCE_FUNCTIONS(RLX_LOAD)
#undef RLX_LOAD
}

void VulkanDevice::choosePhysicalDevice() {
  uint32_t count = 0;
  checkVulkan(api.vkEnumeratePhysicalDevices(instance, &count, nullptr),
              "vkEnumeratePhysicalDevices");
  if (count == 0)
    noDevice("the Vulkan loader found no physical device");
  std::vector<VkPhysicalDevice> devices(count);
  checkVulkan(api.vkEnumeratePhysicalDevices(instance, &count, devices.data()),
              "vkEnumeratePhysicalDevices");
  devices.resize(count);
  int index = deviceIndexFromEnvironment("RLX_VULKAN_DEVICE");
  if (static_cast<size_t>(index) >= devices.size()) {
    std::string names;
    for (VkPhysicalDevice candidate : devices) {
      VkPhysicalDeviceProperties properties;
      api.vkGetPhysicalDeviceProperties(candidate, &properties);
      names += (names.empty() ? "'" : ", '") +
               std::string(properties.deviceName) + "'";
    }
    noDevice("RLX_VULKAN_DEVICE=" + std::to_string(index) + " but there " +
             (devices.size() == 1
                  ? "is 1 device ("
                  : "are " + std::to_string(devices.size()) + " devices (") +
             names + ")");
  }
  physicalDevice = devices[index];

  VkPhysicalDeviceProperties properties;
  api.vkGetPhysicalDeviceProperties(physicalDevice, &properties);
  name = properties.deviceName;
  if (properties.apiVersion < VK_API_VERSION_1_1)
    noDevice("'" + name + "' supports only Vulkan 1.0 (rlx needs 1.1)");
  apiVersion = std::min(properties.apiVersion, instanceVersion);
  limits = properties.limits;

  auto maintenance3 = makeVulkan<VkPhysicalDeviceMaintenance3Properties>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES);
  auto subgroup = makeVulkan<VkPhysicalDeviceSubgroupProperties>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  auto maintenance4 = makeVulkan<VkPhysicalDeviceMaintenance4Properties>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES);
  auto properties2 = makeVulkan<VkPhysicalDeviceProperties2>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  properties2.pNext = &maintenance3;
  maintenance3.pNext = &subgroup;
  if (apiVersion >= VK_API_VERSION_1_3)
    subgroup.pNext = &maintenance4;
  api.vkGetPhysicalDeviceProperties2(physicalDevice, &properties2);
  maxAllocationBytes = maintenance3.maxMemoryAllocationSize;
  if (apiVersion >= VK_API_VERSION_1_3)
    maxAllocationBytes =
        std::min<uint64_t>(maxAllocationBytes, maintenance4.maxBufferSize);
  if (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) {
    const std::pair<VkSubgroupFeatureFlagBits, const char *> operations[] = {
        {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},
        {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
        {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"},
        {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
        {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},
        {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffle relative"},
        {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"},
        {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"}};
    for (const auto &[bit, what] : operations)
      if (subgroup.supportedOperations & bit)
        features.insert(std::string("subgroup operations (") + what + ")");
  }

  uint32_t familyCount = 0;
  api.vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &familyCount,
                                               nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  api.vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &familyCount,
                                               families.data());
  for (queueFamily = 0; queueFamily < familyCount; ++queueFamily)
    if (families[queueFamily].queueFlags & VK_QUEUE_COMPUTE_BIT)
      break;
  if (queueFamily == familyCount)
    noDevice("'" + name + "' has no compute queue");
}

void VulkanDevice::createLogicalDevice() {
  uint32_t count = 0;
  checkVulkan(api.vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr,
                                                       &count, nullptr),
              "vkEnumerateDeviceExtensionProperties");
  std::vector<VkExtensionProperties> available(count);
  checkVulkan(api.vkEnumerateDeviceExtensionProperties(
                  physicalDevice, nullptr, &count, available.data()),
              "vkEnumerateDeviceExtensionProperties");
  // Before Vulkan 1.2 these features come with extensions.
  std::vector<const char *> extensions;
  auto usable = [&](const char *extension) {
    if (apiVersion >= VK_API_VERSION_1_2)
      return true;
    for (const VkExtensionProperties &candidate : available)
      if (std::strcmp(candidate.extensionName, extension) == 0) {
        extensions.push_back(extension);
        return true;
      }
    return false;
  };

  auto queried = makeVulkan<VkPhysicalDeviceFeatures2>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  auto storage16 = makeVulkan<VkPhysicalDevice16BitStorageFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
  auto variablePointers = makeVulkan<VkPhysicalDeviceVariablePointersFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES);
  auto storage8 = makeVulkan<VkPhysicalDevice8BitStorageFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES);
  auto float16Int8 = makeVulkan<VkPhysicalDeviceShaderFloat16Int8Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
  auto atomicInt64 = makeVulkan<VkPhysicalDeviceShaderAtomicInt64Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES);
  void **tail = &queried.pNext;
  auto chain = [&](auto &features) {
    *tail = &features;
    tail = &features.pNext;
  };
  chain(storage16);
  chain(variablePointers);
  if (usable(VK_KHR_8BIT_STORAGE_EXTENSION_NAME))
    chain(storage8);
  if (usable(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME))
    chain(float16Int8);
  if (usable(VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME))
    chain(atomicInt64);
  api.vkGetPhysicalDeviceFeatures2(physicalDevice, &queried);

  // Enable every feature a kernel may declare (and nothing that costs, such
  // as robustBufferAccess); the extension structs hold only such features.
  VkPhysicalDeviceFeatures core = queried.features;
  queried.features = VkPhysicalDeviceFeatures{};
  queried.features.shaderFloat64 = core.shaderFloat64;
  queried.features.shaderInt64 = core.shaderInt64;
  queried.features.shaderInt16 = core.shaderInt16;
  const std::pair<VkBool32, const char *> supported[] = {
      {core.shaderFloat64, "shaderFloat64"},
      {core.shaderInt64, "shaderInt64"},
      {core.shaderInt16, "shaderInt16"},
      {storage16.storageBuffer16BitAccess, "storageBuffer16BitAccess"},
      {storage16.uniformAndStorageBuffer16BitAccess,
       "uniformAndStorageBuffer16BitAccess"},
      {variablePointers.variablePointersStorageBuffer,
       "variablePointersStorageBuffer"},
      {variablePointers.variablePointers, "variablePointers"},
      {storage8.storageBuffer8BitAccess, "storageBuffer8BitAccess"},
      {storage8.uniformAndStorageBuffer8BitAccess,
       "uniformAndStorageBuffer8BitAccess"},
      {float16Int8.shaderFloat16, "shaderFloat16"},
      {float16Int8.shaderInt8, "shaderInt8"},
      {atomicInt64.shaderBufferInt64Atomics, "shaderBufferInt64Atomics"}};
  for (const auto &[on, feature] : supported)
    if (on)
      features.insert(feature);
  // RLX_VULKAN_DISABLE=feature,... pretends the device lacks them, to see
  // what a smaller GPU would refuse.
  if (const char *disabled = std::getenv("RLX_VULKAN_DISABLE")) {
    std::string list = std::string(disabled) + ",";
    for (size_t start = 0, comma;
         (comma = list.find(',', start)) != std::string::npos;
         start = comma + 1)
      features.erase(list.substr(start, comma - start));
  }

  float priority = 1.0f;
  auto queueInfo = makeVulkan<VkDeviceQueueCreateInfo>(
      VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queueInfo.queueFamilyIndex = queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  auto info =
      makeVulkan<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.pNext = &queried;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult result = api.vkCreateDevice(physicalDevice, &info, nullptr, &device);
  if (result != VK_SUCCESS) {
    device = VK_NULL_HANDLE;
    noDevice("vkCreateDevice failed on '" + name + "' with " +
             vulkanResultName(result));
  }
#define RLX_LOAD(name)                                                         \
  api.name =                                                                   \
      reinterpret_cast<PFN_##name>(api.vkGetDeviceProcAddr(device, #name));    \
  if (!api.name)                                                               \
    noDevice("the Vulkan driver lacks " #name);
  RLX_VULKAN_DEVICE_FUNCTIONS(RLX_LOAD)
#undef RLX_LOAD
  api.vkGetDeviceQueue(device, queueFamily, 0, &queue);
}

void VulkanDevice::chooseMemoryTypes() {
  api.vkGetPhysicalDeviceMemoryProperties(physicalDevice, &memory);
  // RLX_VULKAN_STAGING=1 moves data through staging buffers even where
  // device memory could be mapped, as on a discrete GPU.
  const char *staging = std::getenv("RLX_VULKAN_STAGING");
  forceStaging = staging && *staging && std::strcmp(staging, "0") != 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      largestHeapBytes =
          std::max<uint64_t>(largestHeapBytes, memory.memoryHeaps[i].size);
}

VulkanDevice::~VulkanDevice() {
  if (device) {
    api.vkDeviceWaitIdle(device);
    for (const QueueObjects &objects : idleQueues)
      destroyQueueObjects(objects);
    if (pool)
      pool->trim();
    for (const auto &entry : buffers)
      destroyBuffer(entry.second);
    api.vkDestroyDevice(device, nullptr);
  }
  if (instance)
    api.vkDestroyInstance(instance, nullptr);
}

VulkanDevice::Buffer VulkanDevice::createBuffer(uint64_t bytes,
                                                uint64_t capacity, bool host) {
  Buffer result;
  result.bytes = bytes;
  result.size = roundUp(std::max<uint64_t>(bytes, 1), 4);
  auto info =
      makeVulkan<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = std::max<uint64_t>(roundUp(capacity, 4), result.size);
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  result.capacity = info.size;
  auto outOfMemory = [&](VkResult why) {
    fail(RLX_STATUS_RESOURCE_EXHAUSTED,
         "cannot allocate " + std::to_string(bytes) + " bytes of " +
             (host ? "host-visible" : "device") + " memory on Vulkan device '" +
             name + "' (" + vulkanResultName(why) + ")");
  };
  VkResult result0 = api.vkCreateBuffer(device, &info, nullptr, &result.buffer);
  if (result0 == VK_ERROR_OUT_OF_HOST_MEMORY ||
      result0 == VK_ERROR_OUT_OF_DEVICE_MEMORY)
    outOfMemory(result0);
  checkVulkan(result0, "vkCreateBuffer");

  try {
    VkMemoryRequirements requirements;
    api.vkGetBufferMemoryRequirements(device, result.buffer, &requirements);
    const VkMemoryPropertyFlags hostFlags =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    // Drivers list memory types best first; take the first that fits.
    int type = -1;
    for (uint32_t i = 0; i < memory.memoryTypeCount && type < 0; ++i) {
      VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
      if ((requirements.memoryTypeBits & (1u << i)) &&
          (host ? (flags & hostFlags) == hostFlags
                : (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0))
        type = static_cast<int>(i);
    }
    for (uint32_t i = 0; i < memory.memoryTypeCount && type < 0 && !host; ++i)
      if (requirements.memoryTypeBits & (1u << i))
        type = static_cast<int>(i);
    if (type < 0)
      fail(RLX_STATUS_INTERNAL, "Vulkan device '" + name +
                                    "' has no host-visible coherent memory "
                                    "for its buffers");
    auto allocation = makeVulkan<VkMemoryAllocateInfo>(
        VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    allocation.allocationSize = requirements.size;
    allocation.memoryTypeIndex = static_cast<uint32_t>(type);
    VkResult allocated =
        api.vkAllocateMemory(device, &allocation, nullptr, &result.memory);
    if (allocated == VK_ERROR_OUT_OF_HOST_MEMORY ||
        allocated == VK_ERROR_OUT_OF_DEVICE_MEMORY)
      outOfMemory(allocated);
    checkVulkan(allocated, "vkAllocateMemory");
    checkVulkan(api.vkBindBufferMemory(device, result.buffer, result.memory, 0),
                "vkBindBufferMemory");
    VkMemoryPropertyFlags flags = memory.memoryTypes[type].propertyFlags;
    if (host || (!forceStaging && (flags & hostFlags) == hostFlags))
      checkVulkan(api.vkMapMemory(device, result.memory, 0, VK_WHOLE_SIZE, 0,
                                  &result.mapped),
                  "vkMapMemory");
  } catch (...) {
    destroyBuffer(result);
    throw;
  }
  return result;
}

void VulkanDevice::destroyBuffer(const Buffer &buffer) {
  if (buffer.buffer)
    api.vkDestroyBuffer(device, buffer.buffer, nullptr);
  if (buffer.memory)
    api.vkFreeMemory(device, buffer.memory, nullptr);
}

uint64_t VulkanDevice::allocate(uint64_t bytes) {
  uint64_t limit = std::min(maxAllocationBytes, largestHeapBytes);
  if (bytes > limit)
    fail(RLX_STATUS_RESOURCE_EXHAUSTED,
         "cannot allocate " + std::to_string(bytes) +
             " bytes of device memory on Vulkan device '" + name +
             "': it allows at most " + std::to_string(limit) +
             " bytes in one buffer");
  // A size class the device cannot hold is not rounded up. The capacity
  // is the VkBuffer's size, the pool's key.
  uint64_t capacity = deviceMemorySizeClass(bytes);
  if (capacity > limit)
    capacity = roundUp(bytes, 4);
  Buffer buffer = pool->allocate(capacity, [&](uint64_t capacity) {
    return createBuffer(bytes, capacity, /*host=*/false);
  });
  buffer.bytes = bytes;
  buffer.size = roundUp(std::max<uint64_t>(bytes, 1), 4);
  std::lock_guard<std::mutex> lock(mutex);
  // Always a fresh address, for a reused buffer too. A gap after every
  // buffer, so that a pointer one past the end of one never names the next.
  uint64_t address = nextAddress;
  nextAddress += roundUp(buffer.capacity, 256) + 256;
  buffers.emplace(address, buffer);
  return address;
}

void VulkanDevice::free(uint64_t address) {
  Buffer buffer;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = buffers.find(address);
    if (it == buffers.end())
      fail(RLX_STATUS_INTERNAL, "free of device pointer " + hexAddress(address) +
                                    ", which is not a live allocation");
    buffer = it->second;
    buffers.erase(it);
  }
  pool->free(buffer, buffer.capacity);
}

std::pair<VulkanDevice::Buffer, uint64_t>
VulkanDevice::resolve(uint64_t address) const {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = buffers.upper_bound(address);
  if (it != buffers.begin()) {
    --it;
    if (address - it->first <= it->second.bytes)
      return {it->second, address - it->first};
  }
  fail(RLX_STATUS_INTERNAL,
       "device pointer " + hexAddress(address) + " is not in any live allocation");
}

VulkanDevice::Buffer VulkanDevice::createHostBuffer(uint64_t bytes) {
  return createBuffer(bytes, bytes, /*host=*/true);
}

void VulkanDevice::submit(VkCommandBuffer commands, VkFence fence) {
  auto info = makeVulkan<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  info.commandBufferCount = 1;
  info.pCommandBuffers = &commands;
  std::lock_guard<std::mutex> lock(queueMutex);
  checkVulkan(api.vkQueueSubmit(queue, 1, &info, fence), "vkQueueSubmit");
}

std::optional<VulkanDevice::QueueObjects> VulkanDevice::takeIdleQueue() {
  std::lock_guard<std::mutex> lock(idleMutex);
  if (idleQueues.empty())
    return std::nullopt;
  QueueObjects objects = std::move(idleQueues.back());
  idleQueues.pop_back();
  return objects;
}

void VulkanDevice::keepIdleQueue(QueueObjects objects) {
  {
    // As many as calls ran at once, within reason.
    std::lock_guard<std::mutex> lock(idleMutex);
    if (idleQueues.size() < 16) {
      idleQueues.push_back(std::move(objects));
      return;
    }
  }
  destroyQueueObjects(objects);
}

void VulkanDevice::destroyQueueObjects(const QueueObjects &objects) {
  destroyBuffer(objects.chunk);
  for (VkDescriptorPool descriptorPool : objects.descriptorPools)
    api.vkDestroyDescriptorPool(device, descriptorPool, nullptr);
  if (objects.fence)
    api.vkDestroyFence(device, objects.fence, nullptr);
  if (objects.pool)
    api.vkDestroyCommandPool(device, objects.pool, nullptr);
}

std::unique_ptr<DeviceQueue> VulkanDevice::createQueue() {
  return createVulkanQueue(
      std::static_pointer_cast<VulkanDevice>(shared_from_this()));
}

std::unique_ptr<DeviceModule>
VulkanDevice::loadModule(const std::string &module,
                         const std::vector<const DeviceBinary *> &records) {
  std::string formats;
  for (const DeviceBinary *record : records) {
    if (std::string(record->format) == RLX_DEVICE_BINARY_FORMAT_SPIRV)
      return std::make_unique<VulkanModule>(
          std::static_pointer_cast<VulkanDevice>(shared_from_this()), module,
          parseSpirv(module, record->data, record->size));
    formats += (formats.empty() ? "" : ", ") + std::string(record->format);
  }
  fail(RLX_STATUS_FAILED_PRECONDITION,
       "GPU module '" + module + "' has no SPIR-V to run on Vulkan (it has " +
           (formats.empty() ? "no code" : formats) + ")");
}

std::shared_ptr<Device> rlxrt::openVulkanDevice() {
  auto device = std::make_shared<VulkanDevice>();
  device->open();
  return device;
}
