//===- WorkerPlacement.h - Keeping kernel threads on separate cores -*- C++ -*-===//

#ifndef RLX_RUNTIME_SRC_WORKER_PLACEMENT_H
#define RLX_RUNTIME_SRC_WORKER_PLACEMENT_H

#include <cstdint>

namespace rlxrt {

/// The two libomp entry points placement runs a region with, looked up in
/// a parallel artifact's dependencies (both null for any other artifact).
struct OpenMpEntries {
  using Body = void (*)(void *);
  void (*parallel)(Body body, void *data, unsigned threads,
                   unsigned flags) = nullptr;
  int (*threadNum)() = nullptr;
};

/// Looks up GOMP_parallel and omp_get_thread_num in `library`'s scope.
OpenMpEntries findOpenMpEntries(void *library);

/// Before a call on `threads` kernel threads from this thread: when the
/// calling thread is not where the libomp workers of its team were last
/// bound around (or they never were), binds worker t to the t-th core of
/// the process's mask other than the one this thread runs on. The calling
/// thread itself stays unbound.
void placeWorkers(const OpenMpEntries &entries, int32_t threads);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_WORKER_PLACEMENT_H
