//===- GuardedCall.cpp - Calling entry code that may run out of memory ----===//

#include "GuardedCall.h"

#include <csetjmp>
#include <cstdlib>

namespace {

/// The innermost guardedCall of this thread, where the hook jumps to.
struct Guard {
  std::jmp_buf target;
  int64_t failedBytes = 0;
};
thread_local Guard *activeGuard = nullptr;

} // namespace

bool rlx::guardedCall(EntryFunction function, void **args, int32_t &code,
                      int64_t &failedBytes) {
  Guard guard;
  Guard *outer = activeGuard;
  activeGuard = &guard;
  if (setjmp(guard.target) != 0) {
    activeGuard = outer;
    failedBytes = guard.failedBytes;
    return false;
  }
  code = function(args);
  activeGuard = outer;
  return true;
}

void rlx::outOfMemoryHook(int64_t bytes) {
  // An allocation outside a guarded call (a worker thread of a parallel
  // loop) has nowhere to go: return and let the caller see null, as
  // without the hook.
  if (!activeGuard)
    return;
  activeGuard->failedBytes = bytes;
  std::longjmp(activeGuard->target, 1);
}
