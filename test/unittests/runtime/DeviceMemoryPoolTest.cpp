//===- DeviceMemoryPoolTest.cpp - The device allocation cache -------------===//
//
/// \file
/// DeviceMemoryPool (runtime/src, header only) over a fake driver that
/// counts its allocations and refuses them past a budget, as a GPU runs
/// out of memory.
//
//===----------------------------------------------------------------------===//

#include "DeviceMemoryPool.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

using namespace rlxrt;

namespace {

/// Blocks are numbered; `budget` bytes may be allocated at once.
struct FakeDriver {
  uint64_t budget = 0;
  uint64_t inUse = 0;
  uint64_t next = 1;
  int allocations = 0;
  std::map<uint64_t, uint64_t> blocks;

  uint64_t allocate(uint64_t bytes) {
    if (inUse + bytes > budget)
      throw StatusError(RLX_STATUS_RESOURCE_EXHAUSTED,
                        "cannot allocate " + std::to_string(bytes) + " bytes");
    ++allocations;
    inUse += bytes;
    blocks[next] = bytes;
    return next++;
  }
  void free(uint64_t block) {
    inUse -= blocks.at(block);
    blocks.erase(block);
  }
};

class DeviceMemoryPoolTest : public testing::Test {
protected:
  DeviceMemoryPool<uint64_t> makePool(uint64_t cap) {
    return DeviceMemoryPool<uint64_t>(
        cap, [this](const uint64_t &block) { driver.free(block); });
  }
  uint64_t allocate(DeviceMemoryPool<uint64_t> &pool, uint64_t capacity) {
    return pool.allocate(capacity, [&](uint64_t capacity) {
      return driver.allocate(capacity);
    });
  }
  FakeDriver driver;
};

TEST(DeviceMemorySizeClass, PowersOfTwoThenTwoMiBGranules) {
  EXPECT_EQ(deviceMemorySizeClass(0), 256u);
  EXPECT_EQ(deviceMemorySizeClass(256), 256u);
  EXPECT_EQ(deviceMemorySizeClass(257), 512u);
  EXPECT_EQ(deviceMemorySizeClass(3000), 4096u);
  EXPECT_EQ(deviceMemorySizeClass(2 << 20), uint64_t(2) << 20);
  EXPECT_EQ(deviceMemorySizeClass((2 << 20) + 1), uint64_t(4) << 20);
  EXPECT_EQ(deviceMemorySizeClass((5 << 20) + 7), uint64_t(6) << 20);
}

TEST_F(DeviceMemoryPoolTest, FreedBlocksAreReusedByClass) {
  driver.budget = 1 << 20;
  auto pool = makePool(1 << 20);
  uint64_t a = allocate(pool, 512);
  uint64_t b = allocate(pool, 1024);
  pool.free(a, 512);
  EXPECT_EQ(pool.stats().cachedBytes, 512u);
  EXPECT_EQ(pool.stats().liveBytes, 1024u);
  // Another class is a new block; the same class takes the cached one.
  uint64_t c = allocate(pool, 1024);
  EXPECT_NE(c, a);
  EXPECT_EQ(allocate(pool, 512), a);
  EXPECT_EQ(driver.allocations, 3);
  EXPECT_EQ(pool.stats().cachedBytes, 0u);
  EXPECT_EQ(pool.stats().liveBytes, 2560u);
  pool.free(b, 1024);
  pool.free(c, 1024);
  pool.free(a, 512);
  EXPECT_EQ(pool.stats().liveBytes, 0u);
  pool.trim();
  EXPECT_TRUE(driver.blocks.empty());
}

TEST_F(DeviceMemoryPoolTest, FreesBeyondTheCapGoToTheDriver) {
  driver.budget = 1 << 20;
  auto pool = makePool(1024);
  uint64_t a = allocate(pool, 1024), b = allocate(pool, 512);
  pool.free(a, 1024);
  pool.free(b, 512);
  EXPECT_EQ(pool.stats().cachedBytes, 1024u);
  EXPECT_EQ(driver.blocks.size(), 1u);
  auto uncached = makePool(0);
  uncached.free(allocate(uncached, 256), 256);
  EXPECT_EQ(uncached.stats().cachedBytes, 0u);
}

TEST_F(DeviceMemoryPoolTest, OutOfMemoryEmptiesThePoolAndRetriesOnce) {
  driver.budget = 4096;
  auto pool = makePool(1 << 20);
  pool.free(allocate(pool, 2048), 2048);
  pool.free(allocate(pool, 1024), 1024);
  EXPECT_EQ(driver.inUse, 3072u);
  // 4096 fits only once the cached blocks are gone.
  uint64_t big = allocate(pool, 4096);
  EXPECT_EQ(pool.stats().cachedBytes, 0u);
  EXPECT_EQ(pool.stats().liveBytes, 4096u);
  // Nothing cached to let go of: the driver's status, unchanged.
  try {
    allocate(pool, 256);
    ADD_FAILURE() << "no room, yet allocated";
  } catch (const StatusError &error) {
    EXPECT_EQ(error.code, RLX_STATUS_RESOURCE_EXHAUSTED);
    EXPECT_EQ(error.message, "cannot allocate 256 bytes");
  }
  pool.free(big, 4096);
}

TEST_F(DeviceMemoryPoolTest, ConcurrentUseKeepsEveryBlockOnce) {
  driver.budget = uint64_t(1) << 40;
  std::mutex driverMutex;
  DeviceMemoryPool<uint64_t> pool(1 << 20, [&](const uint64_t &block) {
    std::lock_guard<std::mutex> lock(driverMutex);
    driver.free(block);
  });
  std::vector<std::thread> threads;
  std::mutex liveMutex;
  std::set<uint64_t> live;
  bool twice = false;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        uint64_t capacity = uint64_t(256) << ((i + t) % 4);
        uint64_t block = pool.allocate(capacity, [&](uint64_t capacity) {
          std::lock_guard<std::mutex> lock(driverMutex);
          return driver.allocate(capacity);
        });
        {
          std::lock_guard<std::mutex> lock(liveMutex);
          twice |= !live.insert(block).second;
        }
        {
          std::lock_guard<std::mutex> lock(liveMutex);
          live.erase(block);
        }
        pool.free(block, capacity);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_FALSE(twice);
  EXPECT_EQ(pool.stats().liveBytes, 0u);
  EXPECT_LE(driver.allocations, 16);
}

} // namespace
