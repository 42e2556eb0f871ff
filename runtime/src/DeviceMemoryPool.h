//===- DeviceMemoryPool.h - Caching device allocations ----------*- C++ -*-===//
//
/// \file
/// A driver allocation (vkAllocateMemory, cuMemAlloc) costs far more than a
/// call's kernels when they are small, and a call makes the same ones each
/// time. Freed blocks are therefore kept in bins by size class (a power of
/// two up to 2 MiB, a multiple of 2 MiB above) and handed to the next
/// allocation of that class, by this call or a later one. Cached bytes are
/// capped (RLX_DEVICE_POOL_MB, default 1024; 0 caches nothing): a block
/// freed beyond the cap goes back to the driver. An allocation the driver
/// refuses for want of memory empties the pool and is tried once more.
///
/// The pool never waits for the device: a block may only be freed into it
/// once no queued work uses it (DeviceQueue::freeAfterWork defers until the
/// queue has synchronized), so any queue may take it at once.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_DEVICEMEMORYPOOL_H
#define RLX_RUNTIME_SRC_DEVICEMEMORYPOOL_H

#include "Device.h"
#include "Status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace rlxrt {

/// The capacity a block for `bytes` gets: at least 256, a power of two up
/// to 2 MiB, then a multiple of 2 MiB.
inline uint64_t deviceMemorySizeClass(uint64_t bytes) {
  const uint64_t granule = uint64_t(2) << 20;
  if (bytes > granule) {
    // Rounding up would overflow: the driver refuses such a size anyway.
    if (bytes > UINT64_MAX - granule)
      return bytes;
    return (bytes + granule - 1) / granule * granule;
  }
  uint64_t capacity = 256;
  while (capacity < bytes)
    capacity *= 2;
  return capacity;
}

/// RLX_DEVICE_POOL_MB in bytes, 1 GiB when unset. Throws INVALID_ARGUMENT
/// on a value that is not a number of MiB.
uint64_t deviceMemoryPoolCapFromEnvironment();

/// Cached blocks of a driver, whose handle type is `Block` (a device
/// pointer, a VkBuffer with its memory). Thread-safe; the driver is called
/// outside the lock.
template <typename Block> class DeviceMemoryPool {
public:
  using Destroy = std::function<void(const Block &)>;

  DeviceMemoryPool(uint64_t capBytes, Destroy destroy)
      : destroy(std::move(destroy)) {
    stats_.capBytes = capBytes;
  }
  DeviceMemoryPool(const DeviceMemoryPool &) = delete;
  DeviceMemoryPool &operator=(const DeviceMemoryPool &) = delete;
  /// Releases the cached blocks; live ones are their owners' to free.
  ~DeviceMemoryPool() { trim(); }

  /// A block of `capacity` bytes (a size class): a cached one, else
  /// `create(capacity)`. When that throws RESOURCE_EXHAUSTED and blocks
  /// are cached, they are released and `create` is tried once more.
  template <typename Create> Block allocate(uint64_t capacity, Create create) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto bin = bins.find(capacity);
      if (bin != bins.end() && !bin->second.empty()) {
        Block block = bin->second.back();
        bin->second.pop_back();
        stats_.cachedBytes -= capacity;
        stats_.liveBytes += capacity;
        return block;
      }
    }
    Block block;
    try {
      block = create(capacity);
    } catch (const StatusError &error) {
      if (error.code != RLX_STATUS_RESOURCE_EXHAUSTED || !trim())
        throw;
      block = create(capacity);
    }
    std::lock_guard<std::mutex> lock(mutex);
    stats_.liveBytes += capacity;
    return block;
  }

  /// Takes back a block of `capacity` bytes that `allocate` returned and
  /// no queued work uses any more: cached, or released beyond the cap.
  void free(const Block &block, uint64_t capacity) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stats_.liveBytes -= capacity;
      if (stats_.cachedBytes + capacity <= stats_.capBytes) {
        bins[capacity].push_back(block);
        stats_.cachedBytes += capacity;
        return;
      }
    }
    destroy(block);
  }

  /// Releases every cached block; false when there was none.
  bool trim() {
    std::map<uint64_t, std::vector<Block>> released;
    {
      std::lock_guard<std::mutex> lock(mutex);
      released.swap(bins);
      stats_.cachedBytes = 0;
    }
    bool any = false;
    for (const auto &bin : released)
      for (const Block &block : bin.second) {
        destroy(block);
        any = true;
      }
    return any;
  }

  DeviceMemoryStats stats() const {
    std::lock_guard<std::mutex> lock(mutex);
    return stats_;
  }

private:
  Destroy destroy;
  mutable std::mutex mutex;
  /// Capacity -> cached blocks of it.
  std::map<uint64_t, std::vector<Block>> bins;
  DeviceMemoryStats stats_;
};

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_DEVICEMEMORYPOOL_H
