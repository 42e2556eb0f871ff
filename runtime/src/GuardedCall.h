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

namespace rlx {

/// Why a guarded call stopped early.
struct CallFailure {
  int64_t failedBytes = -1; ///< an allocation of this size failed, or
  std::string message;      ///< a run-time check failed with this message
};

/// Runs `function(args)`. Returns false, filling `failure`, when the entry
/// code ran out of memory or a run-time check failed.
bool guardedCall(EntryFunction function, void **args, int32_t &code,
                 CallFailure &failure);

/// What artifacts call when an allocation fails.
void outOfMemoryHook(int64_t bytes);
/// What artifacts call when a run-time check fails.
void checkFailedHook(const char *message);

} // namespace rlx

#endif // RLX_RUNTIME_GUARDEDCALL_H
