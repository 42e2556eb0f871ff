//===- CallState.cpp - One entry-point call: failures and host memory -----===//

#include "CallState.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

using namespace rlxrt;

namespace {

/// The call in progress on this thread (the one that entered it).
thread_local CallState *activeState = nullptr;

} // namespace

CallState::~CallState() {
  if (abandoned)
    return;
  for (void *block : blocks)
    std::free(block);
}

void CallState::abandonBlocks() {
  std::lock_guard<std::mutex> lock(mutex);
  abandoned = true;
}

void CallState::recordFailure(CallFailure failure) {
  std::lock_guard<std::mutex> lock(mutex);
  if (failed_.load(std::memory_order_relaxed))
    return;
  failure_ = std::move(failure);
  failed_.store(true, std::memory_order_release);
}

/// A block of `bytes` aligned to `alignment` (rounded up to a power of two
/// of at least a pointer's size, as posix_memalign wants), or null.
static void *alignedBlock(int64_t bytes, int64_t alignment) {
  size_t align = sizeof(void *);
  while (alignment > 0 && align < static_cast<size_t>(alignment) &&
         align < (size_t(1) << 30))
    align <<= 1;
  if (bytes < 0 || static_cast<uint64_t>(bytes) >=
                       std::numeric_limits<size_t>::max() / 2)
    return nullptr;
  void *block = nullptr;
  // A zero-byte buffer still needs a distinct block to free.
  if (posix_memalign(&block, align, bytes ? static_cast<size_t>(bytes) : 1))
    return nullptr;
  return block;
}

void *CallState::allocate(int64_t bytes, int64_t alignment) {
  void *block = alignedBlock(bytes, alignment);
  if (!block) {
    CallFailure failure;
    failure.failedBytes = bytes;
    recordFailure(std::move(failure));
    return nullptr;
  }
  try {
    std::lock_guard<std::mutex> lock(mutex);
    blocks.insert(block);
  } catch (...) { // out of memory for the bookkeeping
    std::free(block);
    CallFailure failure;
    failure.failedBytes = bytes;
    recordFailure(std::move(failure));
    return nullptr;
  }
  return block;
}

void CallState::free(void *block) {
  if (!block)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    blocks.erase(block);
  }
  std::free(block);
}

bool CallState::release(void *block) {
  std::lock_guard<std::mutex> lock(mutex);
  return blocks.erase(block) == 1;
}

void CallState::addPending(void *out, std::function<void()> wait) {
  pending.emplace_back(out, std::move(wait));
}

std::function<void()> CallState::takePending(void *out) {
  for (auto it = pending.begin(); it != pending.end(); ++it)
    if (it->first == out) {
      std::function<void()> wait = std::move(it->second);
      pending.erase(it);
      return wait;
    }
  return {};
}

void CallState::finishPending() {
  while (!pending.empty()) {
    std::function<void()> wait = std::move(pending.front().second);
    pending.erase(pending.begin());
    wait();
  }
}

bool rlxrt::runEntry(EntryFunction function, void **args, int32_t &code,
                     CallState &state) {
  CallState *outer = activeState;
  activeState = &state;
  code = function(args);
  state.finishPending();
  activeState = outer;
  return !state.failed();
}

bool rlxrt::recordHookFailure(rlx_status_code_t code,
                              const std::string &message) {
  if (!activeState)
    return false;
  CallFailure failure;
  failure.code = code;
  failure.message = message;
  activeState->recordFailure(std::move(failure));
  return true;
}

void rlxrt::abandonCallBlocks() {
  if (activeState)
    activeState->abandonBlocks();
}

CallState *rlxrt::currentCallState() { return activeState; }

void *rlxrt::callHook() { return activeState; }

void *rlxrt::allocHook(void *call, int64_t bytes, int64_t alignment) {
  if (call)
    return static_cast<CallState *>(call)->allocate(bytes, alignment);
  // Outside a call (another loader's thread): an untracked block.
  return alignedBlock(bytes, alignment);
}

void rlxrt::freeHook(void *call, void *block) {
  if (call)
    static_cast<CallState *>(call)->free(block);
  else
    std::free(block);
}

void rlxrt::errorHook(void *call, const char *message) {
  std::string text = message ? message : "a run-time check failed";
  if (!call) {
    // Nowhere to report to: end as the cf.assert it came from would.
    std::fprintf(stderr, "rlx: %s\n", text.c_str());
    std::abort();
  }
  CallFailure failure;
  failure.message = std::move(text);
  static_cast<CallState *>(call)->recordFailure(std::move(failure));
}

int32_t rlxrt::failedHook(void *call) {
  return call && static_cast<CallState *>(call)->failed() ? 1 : 0;
}
