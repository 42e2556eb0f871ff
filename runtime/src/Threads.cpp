//===- Threads.cpp - How many cores an artifact's kernels may use ---------===//
///
/// \file
/// Artifacts run their parallel loops on the process-wide OpenMP pool
/// (libomp, loaded with the first parallel artifact), so several artifacts
/// in one process share the same threads. The count is one process-wide
/// setting: RLX_NUM_THREADS at start-up or rlx_set_num_threads, default
/// every core this process may run on. It is written into an artifact's
/// `rlx_artifact_num_threads` before each call. Where the count is every
/// core, libomp's workers are bound around the calling thread, which is
/// not (WorkerPlacement.cpp).
///
//===----------------------------------------------------------------------===//

#include "Threads.h"

#include "rlx/runtime.h"

#include <atomic>
#include <cstdlib>
#include <sched.h>
#include <thread>

int32_t rlxrt::availableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0)
      return count;
  }
  unsigned hardware = std::thread::hardware_concurrency();
  return hardware > 0 ? static_cast<int32_t>(hardware) : 1;
}

namespace {

int32_t initialThreadCount() {
  if (const char *env = std::getenv("RLX_NUM_THREADS")) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && value > 0 && value <= RLX_MAX_THREADS)
      return static_cast<int32_t>(value);
  }
  return rlxrt::availableCores();
}

std::atomic<int32_t> &threadCount() {
  static std::atomic<int32_t> count{initialThreadCount()};
  return count;
}

} // namespace

int32_t rlxrt::currentThreadCount() { return threadCount().load(); }

void rlx_set_num_threads(int32_t count) {
  threadCount().store(count <= 0                ? rlxrt::availableCores()
                      : count > RLX_MAX_THREADS ? RLX_MAX_THREADS
                                                : count);
}

int32_t rlx_get_num_threads(void) { return rlxrt::currentThreadCount(); }
