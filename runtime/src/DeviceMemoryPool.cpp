//===- DeviceMemoryPool.cpp - The cache's cap -----------------------------===//

#include "DeviceMemoryPool.h"

#include <cstdlib>

using namespace rlxrt;

uint64_t rlxrt::deviceMemoryPoolCapFromEnvironment() {
  const uint64_t defaultMiB = 1024;
  const char *text = std::getenv("RLX_DEVICE_POOL_MB");
  if (!text || !*text)
    return defaultMiB << 20;
  char *end = nullptr;
  unsigned long long mib = std::strtoull(text, &end, 10);
  if (*end || *text == '-' || mib > (UINT64_MAX >> 20))
    fail(RLX_STATUS_INVALID_ARGUMENT, std::string("RLX_DEVICE_POOL_MB='") +
                                          text + "' is not a number of MiB");
  return static_cast<uint64_t>(mib) << 20;
}
