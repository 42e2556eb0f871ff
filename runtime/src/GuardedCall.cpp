//===- GuardedCall.cpp - Calling entry code that may run out of memory ----===//

#include "GuardedCall.h"

#include <csetjmp>
#include <cstdlib>

namespace {

/// The innermost guardedCall of this thread, where the hook jumps to.
struct Guard {
  std::jmp_buf target;
  rlxrt::CallFailure failure;
};
thread_local Guard *activeGuard = nullptr;

} // namespace

bool rlxrt::guardedCall(EntryFunction function, void **args, int32_t &code,
                      CallFailure &failure) {
  Guard guard;
  Guard *outer = activeGuard;
  activeGuard = &guard;
  if (setjmp(guard.target) != 0) {
    activeGuard = outer;
    failure = std::move(guard.failure);
    return false;
  }
  code = function(args);
  activeGuard = outer;
  return true;
}

void rlxrt::outOfMemoryHook(int64_t bytes) {
  // An allocation outside a guarded call (a worker thread of a parallel
  // loop) has nowhere to go: return and let the caller see null, as
  // without the hook.
  if (!activeGuard)
    return;
  activeGuard->failure.failedBytes = bytes;
  std::longjmp(activeGuard->target, 1);
}

void rlxrt::checkFailedHook(const char *message) {
  // Outside a guarded call the artifact aborts, as cf.assert would.
  if (!activeGuard)
    return;
  activeGuard->failure.message = message ? message : "a run-time check failed";
  std::longjmp(activeGuard->target, 1);
}

bool rlxrt::recordHookFailure(rlx_status_code_t code,
                            const std::string &message) {
  if (!activeGuard)
    return false;
  activeGuard->failure.code = code;
  activeGuard->failure.message = message;
  return true;
}

void rlxrt::unwindToCall() { std::longjmp(activeGuard->target, 1); }
