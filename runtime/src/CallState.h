//===- CallState.h - One entry-point call: failures and host memory -*- C++ -*-===//
///
/// \file
/// The artifact's hooks (rlx/abi.h) report to the call in progress: an
/// allocation that finds no memory, a failed run-time check, a device or
/// collective hook that failed. Each records the first failure here and
/// returns; the entry code then returns by itself (rlx-return-on-failure),
/// so no frame is skipped. Every host block the entry code allocates is
/// tracked here, from any thread (worker threads of a parallel region get
/// the state passed down), so that a failed call frees all of them and a
/// successful one hands its outputs' blocks to tensors.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_CALLSTATE_H
#define RLX_RUNTIME_CALLSTATE_H

#include "Manifest.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace rlxrt {

/// Why a call stopped early.
struct CallFailure {
  int64_t failedBytes = -1; ///< a host allocation of this size failed, or
  std::string message;      ///< a run-time check failed with this message,
  /// or, when not OK, a device or collective hook failed with this status
  /// and `message`.
  rlx_status_code_t code = RLX_STATUS_OK;
};

/// One call of an entry point, as the hooks see it.
class CallState {
public:
  CallState() = default;
  CallState(const CallState &) = delete;
  CallState &operator=(const CallState &) = delete;
  /// Frees every block still tracked: all of them after a failure; after a
  /// success, what the outputs did not take.
  ~CallState();

  bool failed() const { return failed_.load(std::memory_order_acquire); }
  /// The first failure recorded (meaningful once `failed()`).
  const CallFailure &failure() const { return failure_; }

  /// Records `failure` unless one is recorded already. Thread-safe.
  void recordFailure(CallFailure failure);

  /// A host block of the entry code, or null with the failure recorded.
  void *allocate(int64_t bytes, int64_t alignment);
  /// Frees a block `allocate` gave out.
  void free(void *block);
  /// Stops tracking `block` (an output now owned by a tensor); false when
  /// it is not a block of this call.
  bool release(void *block);
  /// Leaves the blocks allocated when the state ends: a collective given up
  /// on (a timeout) may still write into them once the other replicas
  /// arrive, so freeing them would corrupt the heap.
  void abandonBlocks();

  /// A collective the call started (RLX_COLLECTIVE_START) and has not
  /// waited for yet, by the buffer it writes; `wait` reports to the call.
  void addPending(void *out, std::function<void()> wait);
  /// The pending wait for `out`, removed (empty when there is none).
  std::function<void()> takePending(void *out);
  /// Waits for every collective still pending: entry code that returned
  /// early (a failure) skipped its waits, and the blocks those collectives
  /// read and write must outlive them.
  void finishPending();

private:
  std::atomic<bool> failed_{false};
  bool abandoned = false;
  std::mutex mutex;
  CallFailure failure_;
  std::unordered_set<void *> blocks;
  /// Touched by the thread that entered the call only (collective hooks
  /// are never called from a parallel region).
  std::vector<std::pair<void *, std::function<void()>>> pending;
};

/// Runs `function(args)` as `state`'s call on this thread: the hooks called
/// on this thread report to `state` meanwhile. Returns false when a hook
/// recorded a failure (then `code` is meaningless).
bool runEntry(EntryFunction function, void **args, int32_t &code,
              CallState &state);

/// Records a failure on this thread's call in progress; false when no call
/// is in progress.
bool recordHookFailure(rlx_status_code_t code, const std::string &message);
/// abandonBlocks() on this thread's call in progress, if any.
void abandonCallBlocks();
/// This thread's call in progress, or null.
CallState *currentCallState();

/// The hooks the runtime puts in every artifact's slots (rlx/abi.h).
void *callHook();
void *allocHook(void *call, int64_t bytes, int64_t alignment);
void freeHook(void *call, void *block);
void errorHook(void *call, const char *message);
int32_t failedHook(void *call);

} // namespace rlxrt

#endif // RLX_RUNTIME_CALLSTATE_H
