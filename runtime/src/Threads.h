//===- Threads.h - The process-wide kernel thread count ---------*- C++ -*-===//

#ifndef RLX_RUNTIME_THREADS_H
#define RLX_RUNTIME_THREADS_H

#include <cstdint>

namespace rlxrt {

/// The thread count artifacts get on their next call (at least 1).
int32_t currentThreadCount();


} // namespace rlxrt

#endif // RLX_RUNTIME_THREADS_H
