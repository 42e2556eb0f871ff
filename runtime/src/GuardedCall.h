//===- GuardedCall.h - Calling entry code that may run out of memory -*- C++ -*-===//
///
/// \file
/// An artifact's allocations call `outOfMemoryHook` when malloc fails, and
/// its failed run-time checks (a dynamic reshape that does not divide)
/// call `checkFailedHook` (codegen/ABI/CheckedAllocations.cpp). The hooks
/// jump back to
/// `guardedCall` on the same thread, which reports how many bytes were
/// asked for; the entry code never dereferences the null pointer. Only
/// artifact frames lie between the two (no C++ destructors are skipped);
/// buffers the call allocated before the failure are not freed.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_GUARDEDCALL_H
#define RLX_RUNTIME_GUARDEDCALL_H

#include "Manifest.h"

#include <cstdint>
#include <string>

namespace rlxrt {

/// Why a guarded call stopped early.
struct CallFailure {
  int64_t failedBytes = -1; ///< an allocation of this size failed, or
  std::string message;      ///< a run-time check failed with this message,
  /// or, when not OK, a device hook failed with this status and `message`.
  rlx_status_code_t code = RLX_STATUS_OK;
};

/// Runs `function(args)`. Returns false, filling `failure`, when the entry
/// code ran out of memory or a run-time check failed.
bool guardedCall(EntryFunction function, void **args, int32_t &code,
                 CallFailure &failure);

/// What artifacts call when an allocation fails.
void outOfMemoryHook(int64_t bytes);
/// What artifacts call when a run-time check fails.
void checkFailedHook(const char *message);

/// Records that a device hook failed with `code` and `message` on this
/// thread's innermost guarded call; false when no call is in progress.
bool recordHookFailure(rlx_status_code_t code, const std::string &message);
/// Jumps back to the innermost guarded call of this thread, after
/// recordHookFailure. Call it only from a frame whose locals need no
/// destructor: the jump skips them.
[[noreturn]] void unwindToCall();

} // namespace rlxrt

#endif // RLX_RUNTIME_GUARDEDCALL_H
