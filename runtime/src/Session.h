//===- Session.h - Weight bindings for calls --------------------*- C++ -*-===//
//
/// \file
/// The struct behind rlx_session_t: an artifact plus the weights bound to
/// its params, guarded by a reader-writer lock (calls read, binds write).
/// A GPU session also holds its device, the artifact's modules loaded there,
/// and a device copy of every bound weight.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_SESSION_H
#define RLX_RUNTIME_SRC_SESSION_H

#include "Artifact.h"
#include "DeviceProgram.h"
#include "Tensor.h"
#include "rlx/communicator.h"

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

struct rlx_session_s {
  explicit rlx_session_s(rlx_artifact_t *artifact) : artifact(artifact) {
    rlx_artifact_retain(artifact);
  }
  rlx_session_s(const rlx_session_s &) = delete;
  rlx_session_s &operator=(const rlx_session_s &) = delete;
  ~rlx_session_s() {
    rlx_communicator_release(communicator.load());
    weights.clear();
    deviceWeights.clear();
    program.reset();
    rlx_artifact_release(artifact);
  }

  /// The device calls run on: RLX_DEVICE_CPU, or that of `program`.
  rlx_device_t device() const {
    return program ? program->device().kind() : RLX_DEVICE_CPU;
  }

  std::atomic<int> refCount{1};
  rlx_artifact_t *artifact;
  /// GPU sessions: the artifact's modules on the session's device.
  std::unique_ptr<rlxrt::DeviceProgram> program;
  mutable std::shared_mutex mutex;
  /// The weights as bound (what lookup returns).
  std::unordered_map<std::string, rlxrt::TensorRef> weights;
  /// GPU sessions: each bound weight in device memory, what calls read.
  std::unordered_map<std::string, rlxrt::TensorRef> deviceWeights;
  /// Bumped by every binding: prepared params older than it are stale.
  std::atomic<uint64_t> bindings{0};
  /// The outputs of a prepare entry point (by its name), as of `bindings`.
  struct Prepared {
    uint64_t bindings = 0;
    std::unordered_map<std::string, rlxrt::TensorRef> params;
  };
  /// Guards `prepared`; held while a prepare entry point runs, so that
  /// concurrent first calls run it once.
  std::mutex prepareMutex;
  std::unordered_map<std::string, Prepared> prepared;
  /// The replicas the artifact's collectives span (rlx/communicator.h);
  /// null: none, and a collective fails.
  std::atomic<rlx_communicator_t *> communicator{nullptr};
};

#endif // RLX_RUNTIME_SRC_SESSION_H
