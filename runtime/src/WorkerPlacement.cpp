//===- WorkerPlacement.cpp - Keeping kernel threads on separate cores -----===//
///
/// \file
/// Unbound, libomp's worker and the calling thread sometimes run on one
/// core for tens of milliseconds while the other core idles: the
/// scheduler does not migrate a thread that ran a moment ago, and both
/// always just ran (the worker spins between regions). On the two-core
/// test VM the MLP 784-512-512-10 at batch 1 took 0.15 ms a call on two
/// threads in such spells against 0.015 ms otherwise (one thread: 0.028),
/// after every pause of the process longer than libomp's spin time, and
/// in the first calls of a fresh process. Binding all threads
/// (KMP_AFFINITY) cures it but binds the calling thread too, and every
/// thread the host creates later inherits that one core. So only the
/// workers are bound, each to a core of the process's mask other than the
/// one the calling thread is on, and bound again when the calling thread
/// has moved to another core since (one getcpu per call to notice).
///
/// Only where the kernel thread count is every core the process may run
/// on (the default): with fewer, the other cores may be another process's
/// (replicas under mpirun share a host's cores) and binding would stack
/// them. Not where the user chose libomp's own binding (KMP_AFFINITY,
/// OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY) or RLX_BIND_WORKERS=0.
///
//===----------------------------------------------------------------------===//

#include "WorkerPlacement.h"

#include "Threads.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <vector>

using namespace rlxrt;

namespace {

bool placementEnabled() {
  static const bool enabled = [] {
    for (const char *setting :
         {"KMP_AFFINITY", "OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY"})
      if (const char *value = std::getenv(setting); value && *value)
        return false;
    const char *own = std::getenv("RLX_BIND_WORKERS");
    return !own || std::strcmp(own, "0") != 0;
  }();
  return enabled;
}

/// What the workers of this thread's team were last bound around.
struct Placement {
  int callerCpu = -1;
  int32_t threads = 0;
};
thread_local Placement placed;

struct Region {
  const OpenMpEntries *entries;
  std::vector<int> cores; // the mask's cores but the caller's
};

void bindWorker(void *data) {
  const Region &region = *static_cast<const Region *>(data);
  int thread = region.entries->threadNum();
  if (thread <= 0 || region.cores.empty())
    return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(region.cores[(thread - 1) % region.cores.size()], &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

} // namespace

OpenMpEntries rlxrt::findOpenMpEntries(void *library) {
  OpenMpEntries entries;
  entries.parallel = reinterpret_cast<decltype(entries.parallel)>(
      dlsym(library, "GOMP_parallel"));
  entries.threadNum = reinterpret_cast<decltype(entries.threadNum)>(
      dlsym(library, "omp_get_thread_num"));
  if (!entries.parallel || !entries.threadNum)
    return {};
  return entries;
}

void rlxrt::placeWorkers(const OpenMpEntries &entries, int32_t threads) {
  if (!entries.parallel || threads < 2 || !placementEnabled())
    return;
  int cpu = sched_getcpu();
  if (cpu < 0 || (cpu == placed.callerCpu && threads <= placed.threads))
    return;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0 ||
      threads != CPU_COUNT(&mask) || !CPU_ISSET(cpu, &mask))
    return;
  Region region{&entries, {}};
  for (int core = 0; core < CPU_SETSIZE; ++core)
    if (core != cpu && CPU_ISSET(core, &mask))
      region.cores.push_back(core);
  entries.parallel(bindWorker, &region, static_cast<unsigned>(threads), 0);
  placed = {cpu, threads};
}
