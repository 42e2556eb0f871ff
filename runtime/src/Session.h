//===- Session.h - Weight bindings for calls --------------------*- C++ -*-===//
//
/// \file
/// The struct behind rlx_session_t: an artifact plus the weights bound to
/// its params, guarded by a reader-writer lock (calls read, binds write).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_SESSION_H
#define RLX_RUNTIME_SRC_SESSION_H

#include "Artifact.h"
#include "Tensor.h"

#include <atomic>
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
    weights.clear();
    rlx_artifact_release(artifact);
  }

  std::atomic<int> refCount{1};
  rlx_artifact_t *artifact;
  mutable std::shared_mutex mutex;
  std::unordered_map<std::string, rlx::TensorRef> weights;
};

#endif // RLX_RUNTIME_SRC_SESSION_H
