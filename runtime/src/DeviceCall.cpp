//===- DeviceCall.cpp - One call's work on a device -----------------------===//

#include "DeviceCall.h"
#include "Addresses.h"
#include "CallState.h"
#include "Status.h"

#include <cstdio>
#include <new>

using namespace rlxrt;

namespace {

thread_local DeviceCall *activeCall = nullptr;

/// Runs `body` on the active call. A failure is recorded on the call in
/// progress (the entry code asks for it after the hook returns). Without an
/// active call (a hook called outside one) nothing happens.
template <typename Fn> void runHook(Fn &&body) noexcept {
  if (!activeCall)
    return;
  if (std::optional<StatusError> failure =
          captureFailure([&] { body(*activeCall); }))
    recordHookFailure(failure->code, failure->message);
}

/// A launch dimension as the driver takes it.
uint32_t dimension(int64_t value, const char *what, int axis,
                   const char *kernel) {
  if (value < 0 || value > int64_t(UINT32_MAX))
    fail(RLX_STATUS_INTERNAL,
         std::string("launch of kernel '") + kernel + "' with " + what + "[" +
             std::to_string(axis) + "] = " + std::to_string(value));
  return static_cast<uint32_t>(value);
}

} // namespace

DeviceCall::DeviceCall(DeviceProgram &program)
    : program(program), queue_(program.device().createQueue()) {}

DeviceCall::~DeviceCall() {
  try {
    queue_->synchronize();
  } catch (...) {
    // The device failed; what it held is freed all the same.
  }
  std::vector<uint64_t> addresses = inputs;
  for (const auto &entry : owned)
    addresses.push_back(entry.first);
  for (uint64_t address : addresses) {
    try {
      program.device().free(address);
    } catch (...) {
    }
  }
}

uint64_t DeviceCall::uploadInput(const void *source, uint64_t bytes) {
  uint64_t address = program.device().allocate(bytes);
  inputs.push_back(address);
  queue_->upload(address, source, bytes);
  return address;
}

uint64_t DeviceCall::allocate(int64_t bytes) {
  if (bytes < 0)
    fail(RLX_STATUS_INTERNAL,
         "device allocation of " + std::to_string(bytes) + " bytes");
  uint64_t address = program.device().allocate(static_cast<uint64_t>(bytes));
  owned.emplace(address, bytes);
  return address;
}

void DeviceCall::free(uint64_t address) {
  if (!address)
    return;
  if (!owned.erase(address))
    fail(RLX_STATUS_INTERNAL, "device free of " + hexAddress(address) +
                                  ", which this call did not allocate");
  queue_->freeAfterWork(address);
}

void DeviceCall::upload(uint64_t destination, const void *source,
                        int64_t bytes) {
  if (bytes < 0 || (bytes && !source))
    fail(RLX_STATUS_INTERNAL, "device upload of " + std::to_string(bytes) +
                                  " bytes from " + hexAddress(toAddress(source)));
  queue_->upload(destination, source, static_cast<uint64_t>(bytes));
}

void DeviceCall::launch(const char *module, const char *kernel,
                        const int64_t grid[3], const int64_t block[3],
                        int64_t argCount, const int64_t *args) {
  if (!module || !kernel || !grid || !block || argCount < 0 ||
      (argCount && !args))
    fail(RLX_STATUS_INTERNAL, "device launch with a null or negative operand");
  LaunchShape shape;
  for (int axis = 0; axis < 3; ++axis) {
    shape.grid[axis] = dimension(grid[axis], "grid", axis, kernel);
    shape.block[axis] = dimension(block[axis], "block", axis, kernel);
  }
  std::vector<KernelArg> kernelArgs(static_cast<size_t>(argCount));
  for (int64_t i = 0; i < argCount; ++i)
    kernelArgs[i] = {args[2 * i], args[2 * i + 1]};
  queue_->launch(program.module(module), kernel, shape, kernelArgs);
}

void DeviceCall::download(void *destination, uint64_t source, int64_t bytes) {
  if (bytes < 0 || (bytes && (!destination || !source)))
    fail(RLX_STATUS_INTERNAL, "device download of " + std::to_string(bytes) +
                                  " bytes from " + hexAddress(source) +
                                  " to " + hexAddress(toAddress(destination)));
  // Synchronizing first also recycles what the work so far held (deferred
  // frees, scratch memory), so a loop that reads its condition each step
  // does not accumulate it until the call ends.
  queue_->synchronize();
  queue_->download(destination, source, static_cast<uint64_t>(bytes));
}

int64_t DeviceCall::ownedBytes(uint64_t address) const {
  auto it = owned.find(address);
  return it == owned.end() ? -1 : it->second;
}

DeviceCall::Activation::Activation(DeviceCall &call) : outer(activeCall) {
  activeCall = &call;
}

DeviceCall::Activation::~Activation() { activeCall = outer; }

void *rlxrt::deviceAllocateHook(int64_t bytes) {
  uint64_t address = 0;
  runHook([&](DeviceCall &call) { address = call.allocate(bytes); });
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

void rlxrt::deviceFreeHook(void *address) {
  runHook([&](DeviceCall &call) { call.free(toAddress(address)); });
}

void rlxrt::deviceUploadHook(void *destination, const void *source,
                           int64_t bytes) {
  runHook([&](DeviceCall &call) {
    call.upload(toAddress(destination), source, bytes);
  });
}

void rlxrt::deviceLaunchHook(const char *module, const char *kernel,
                           const int64_t *grid, const int64_t *block,
                           int64_t argCount, const int64_t *args) {
  runHook([&](DeviceCall &call) {
    call.launch(module, kernel, grid, block, argCount, args);
  });
}

void rlxrt::deviceDownloadHook(void *destination, const void *source,
                               int64_t bytes) {
  runHook([&](DeviceCall &call) {
    call.download(destination, toAddress(source), bytes);
  });
}
