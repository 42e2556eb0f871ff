//===- DeviceCall.h - One call's work on a device ---------------*- C++ -*-===//
//
/// \file
/// While a GPU artifact's entry code runs, its device hooks (docs/abi.md)
/// act on the DeviceCall active on the calling thread: allocations are
/// recorded as the call's, frees and launches go on its queue, and a
/// download waits for it. A hook that
/// fails records the status on the call in progress (CallState.h) and
/// returns; the entry code asks for it and returns. Whatever the call
/// still owns when it ends (inputs it uploaded, memory the entry code did
/// not free, everything after a failure) is freed once the device is done.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_DEVICECALL_H
#define RLX_RUNTIME_SRC_DEVICECALL_H

#include "DeviceProgram.h"

#include <map>

namespace rlxrt {

class DeviceCall {
public:
  explicit DeviceCall(DeviceProgram &program);
  DeviceCall(const DeviceCall &) = delete;
  DeviceCall &operator=(const DeviceCall &) = delete;
  /// Waits for the device, then frees what the call still owns.
  ~DeviceCall();

  /// Allocates for the entry code: the call owns the memory until it is
  /// freed or released as an output.
  uint64_t allocate(int64_t bytes);
  /// Copies a host input to fresh device memory that the call frees at its
  /// end; the entry code can neither free it nor return it.
  uint64_t uploadInput(const void *source, uint64_t bytes);
  /// Frees `address`, which the call must own, after the work queued.
  void free(uint64_t address);
  void upload(uint64_t destination, const void *source, int64_t bytes);
  void launch(const char *module, const char *kernel, const int64_t grid[3],
              const int64_t block[3], int64_t argCount, const int64_t *args);
  /// Waits for the work queued so far (performing its deferred frees),
  /// then copies `bytes` at `source` to the host.
  void download(void *destination, uint64_t source, int64_t bytes);

  /// The size of an allocation the call owns, or -1.
  int64_t ownedBytes(uint64_t address) const;
  /// Hands an owned allocation to the caller, who frees it.
  void release(uint64_t address) { owned.erase(address); }

  DeviceQueue &queue() { return *queue_; }
  Device &device() { return program.device(); }

  /// Makes `call` the one this thread's hooks act on, for the scope.
  class Activation {
  public:
    explicit Activation(DeviceCall &call);
    ~Activation();

  private:
    DeviceCall *outer;
  };

private:
  DeviceProgram &program;
  std::unique_ptr<DeviceQueue> queue_;
  /// Address -> bytes of the allocations the entry code made and the call
  /// still owns.
  std::map<uint64_t, int64_t> owned;
  /// The inputs the call uploaded.
  std::vector<uint64_t> inputs;
};

/// The functions a GPU artifact's hooks are pointed at.
void *deviceAllocateHook(int64_t bytes);
void deviceFreeHook(void *address);
void deviceUploadHook(void *destination, const void *source, int64_t bytes);
void deviceLaunchHook(const char *module, const char *kernel,
                      const int64_t *grid, const int64_t *block,
                      int64_t argCount, const int64_t *args);
void deviceDownloadHook(void *destination, const void *source, int64_t bytes);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_DEVICECALL_H
