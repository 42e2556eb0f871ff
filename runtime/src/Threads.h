//===- Threads.h - The process-wide kernel thread count ---------*- C++ -*-===//

#ifndef RLX_RUNTIME_THREADS_H
#define RLX_RUNTIME_THREADS_H

#include <cstdint>

namespace rlxrt {

/// The thread count artifacts get on their next call (at least 1).
int32_t currentThreadCount();
/// The cores this process may run on (its affinity mask).
int32_t availableCores();

} // namespace rlxrt

#endif // RLX_RUNTIME_THREADS_H
