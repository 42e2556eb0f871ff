//===- GuardedCall.h - Calling entry code that may run out of memory -*- C++ -*-===//
///
/// \file
/// An artifact's allocations call `outOfMemoryHook` when malloc fails
/// (codegen/ABI/CheckedAllocations.cpp). The hook jumps back to
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

namespace rlx {

/// Runs `function(args)`. Returns false, with the size of the failed
/// allocation in `failedBytes`, when it ran out of memory.
bool guardedCall(EntryFunction function, void **args, int32_t &code,
                 int64_t &failedBytes);

/// What artifacts call when an allocation fails.
void outOfMemoryHook(int64_t bytes);

} // namespace rlx

#endif // RLX_RUNTIME_GUARDEDCALL_H
