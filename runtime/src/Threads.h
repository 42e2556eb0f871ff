//===- Threads.h - The process-wide kernel thread count ---------*- C++ -*-===//

#ifndef RLX_RUNTIME_THREADS_H
#define RLX_RUNTIME_THREADS_H

#include <cstdint>

namespace rlx {

/// The thread count artifacts get on their next call (at least 1).
int32_t currentThreadCount();

/// Before the first artifact loads libomp: binds its threads to cores
/// (KMP_AFFINITY=compact) unless the user chose a binding or set
/// RLX_THREAD_BINDING=0. Unbound, the worker of a two-core machine was
/// often scheduled beside the calling thread: small parallel kernels ran
/// up to 7x slower than on one thread.
void prepareThreadPool();

} // namespace rlx

#endif // RLX_RUNTIME_THREADS_H
