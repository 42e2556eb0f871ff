//===- Artifact.h - A loaded rlx artifact -----------------------*- C++ -*-===//
//
/// \file
/// The struct behind rlx_artifact_t: the dlopen handle and the manifest.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_ARTIFACT_H
#define RLX_RUNTIME_SRC_ARTIFACT_H

#include "Device.h"
#include "Manifest.h"
#include "WorkerPlacement.h"

#include <atomic>
#include <string>

struct rlx_artifact_s {
  rlx_artifact_s() = default;
  rlx_artifact_s(const rlx_artifact_s &) = delete;
  rlx_artifact_s &operator=(const rlx_artifact_s &) = delete;
  ~rlx_artifact_s();

  std::atomic<int> refCount{1};
  std::string path;
  void *library = nullptr;
  /// The artifact's `rlx_artifact_num_threads` (null when it has no
  /// parallel kernels), set before every call.
  int32_t *numThreads = nullptr;
  /// libomp's entry points for binding the workers (WorkerPlacement.h),
  /// found where numThreads is.
  rlxrt::OpenMpEntries openMp;
  std::string manifestJson;
  rlxrt::Manifest manifest;
  /// The manifest's CPU features, and those this machine lacks, joined by
  /// commas (rlx_artifact_cpu_features).
  std::string cpuFeatures, missingCpuFeatures;
  /// Where the entry code's pointers point: RLX_DEVICE_CPU, or the GPU of
  /// the manifest's target.
  rlx_device_t device = RLX_DEVICE_CPU;
  /// A GPU artifact's `rlx_artifact_device_binaries`, in its static storage.
  std::vector<rlxrt::DeviceBinary> deviceBinaries;
};

namespace rlxrt {

/// Throws NOT_FOUND naming the entry point and listing those there are.
const rlx_entry_point_s &lookupEntryPoint(const rlx_artifact_t &artifact,
                                          const std::string &name);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_ARTIFACT_H
