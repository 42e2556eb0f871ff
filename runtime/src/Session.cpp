//===- Session.cpp - Binding weights --------------------------------------===//
//
/// \file
/// Binds weights by name, from safetensors files or host tensors, checking
/// each against the manifest so that a wrong weight file fails at bind time
/// with its name, not at call time with garbage numbers.
//
//===----------------------------------------------------------------------===//

#include "Session.h"
#include "CpuFeatures.h"
#include "DType.h"
#include "Status.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <mutex>
#include <string>

using namespace rlxrt;

namespace {

/// Throws unless `tensor` matches the manifest's `spec` (a -1 dim matches
/// any size). `source` says where the weight came from, for the message.
void checkWeight(const TensorSpec &spec, const rlx_tensor_t &tensor,
                 const std::string &source) {
  bool matches =
      spec.dtype == tensor.dtype && spec.shape.size() == tensor.dims.size();
  for (size_t i = 0; matches && i < spec.shape.size(); ++i)
    matches = spec.shape[i] < 0 || spec.shape[i] == tensor.dims[i];
  if (!matches)
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "weight '" + spec.name + "'" + source + ": expected " +
             formatDimsType(spec.dtype, spec.shape) + ", got " +
             formatDimsType(tensor.dtype, tensor.dims));
}

/// Compiled code may assume element alignment; a mapped tensor in a file
/// whose writer did not align its data gets an aligned copy instead.
TensorRef ensureAligned(TensorRef tensor) {
  if (tensor->deviceBuffer)
    return tensor;
  size_t alignment = rlx_dtype_size(tensor->dtype);
  if (reinterpret_cast<uintptr_t>(tensor->data) % alignment == 0)
    return tensor;
  TensorRef copy =
      allocateTensor(tensor->dtype, tensor->dims.data(), tensor->dims.size());
  std::memcpy(copy->data, tensor->data, tensor->byteSize);
  return copy;
}

/// `tensor` where the session's code reads it: itself on the host for a CPU
/// session; itself or a device copy for a GPU session. `what` names it for
/// the error of a tensor on another device.
TensorRef placeForSession(const rlx_session_s &session, TensorRef tensor,
                          const std::string &what) {
  if (tensor->deviceBuffer) {
    if (session.program &&
        tensor->deviceBuffer->device.get() == &session.program->device())
      return tensor;
    fail(RLX_STATUS_INVALID_ARGUMENT,
         what + " is in " + deviceName(tensor->device()) +
             " device memory, but the session runs on " +
             deviceName(session.device()) +
             " (copy it with rlx_tensor_to_host)");
  }
  if (!session.program)
    return tensor;
  return uploadTensor(session.program->sharedDevice(), *tensor);
}

/// Binds checked weights, all or none: device copies are made before any
/// binding changes.
void commitWeights(rlx_session_s &session,
                   std::vector<std::pair<std::string, TensorRef>> accepted) {
  std::vector<TensorRef> placed;
  for (auto &item : accepted)
    placed.push_back(
        placeForSession(session, item.second, "weight '" + item.first + "'"));
  std::unique_lock<std::shared_mutex> lock(session.mutex);
  for (size_t i = 0; i < accepted.size(); ++i) {
    session.weights[accepted[i].first] = std::move(accepted[i].second);
    if (session.program)
      session.deviceWeights[accepted[i].first] = std::move(placed[i]);
  }
  session.bindings.fetch_add(1);
}

} // namespace

extern "C" {

void rlx_session_options_initialize(rlx_session_options_t *out_options) {
  if (out_options)
    out_options->device = RLX_DEVICE_DEFAULT;
}

void rlx_bind_options_initialize(rlx_bind_options_t *out_options) {
  if (out_options)
    out_options->allow_unused = 0;
}

namespace {

/// Compiled code allocates tensors with malloc. By default glibc maps every
/// block above its mmap threshold (at most 32 MiB) fresh and unmaps it on
/// free, so a call with large tensors pays a page fault per 4 KiB on every
/// call. Raising the thresholds keeps freed blocks in the heap for reuse,
/// as framework caching allocators do. Once per process; RLX_MALLOC_TUNING=0
/// leaves malloc as the application configured it.
void tuneMallocOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char *setting = std::getenv("RLX_MALLOC_TUNING");
    if (setting && std::string(setting) == "0")
      return;
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

} // namespace

rlx_status_t rlx_session_create(rlx_artifact_t *artifact,
                                rlx_session_t **out_session) {
  return rlx_session_create_with_options(artifact, nullptr, out_session);
}

rlx_status_t
rlx_session_create_with_options(rlx_artifact_t *artifact,
                                const rlx_session_options_t *options,
                                rlx_session_t **out_session) {
  return guard([&] {
    requireArg(artifact, "artifact");
    requireArg(out_session, "out_session");
    rlx_device_t wanted = options ? options->device : RLX_DEVICE_DEFAULT;
    if (wanted < RLX_DEVICE_DEFAULT || wanted > RLX_DEVICE_HIP)
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "invalid device value " + std::to_string(static_cast<int>(wanted)));
    if (wanted != RLX_DEVICE_DEFAULT && wanted != artifact->device)
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "artifact '" + artifact->path + "' was compiled for " +
               (artifact->manifest.target.empty() ? RLX_MANIFEST_TARGET_CPU
                                                  : artifact->manifest.target) +
               ", not " + deviceName(wanted));
    checkCpu(*artifact);
    tuneMallocOnce();
    auto session = std::make_unique<rlx_session_s>(artifact);
    if (artifact->device != RLX_DEVICE_CPU)
      session->program = std::make_unique<DeviceProgram>(
          openDevice(artifact->device), artifact->deviceBinaries);
    *out_session = session.release();
  });
}

void rlx_session_retain(rlx_session_t *session) {
  if (session)
    session->refCount.fetch_add(1, std::memory_order_relaxed);
}

void rlx_session_release(rlx_session_t *session) {
  if (session && session->refCount.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete session;
}

rlx_artifact_t *rlx_session_artifact(const rlx_session_t *session) {
  return session->artifact;
}

rlx_device_t rlx_session_device(const rlx_session_t *session) {
  return session->device();
}

const char *rlx_session_device_description(const rlx_session_t *session) {
  return session->program ? session->program->device().description().c_str()
                          : "cpu";
}

rlx_status_t rlx_session_device_memory(const rlx_session_t *session,
                                       rlx_device_memory_t *out_memory) {
  return guard([&] {
    requireArg(session, "session");
    requireArg(out_memory, "out_memory");
    *out_memory = {};
    if (!session->program)
      return;
    rlxrt::DeviceMemoryStats stats = session->program->device().memoryStats();
    out_memory->live_bytes = stats.liveBytes;
    out_memory->cached_bytes = stats.cachedBytes;
    out_memory->cache_limit_bytes = stats.capBytes;
  });
}

rlx_status_t rlx_session_to_device(rlx_session_t *session, rlx_tensor_t *tensor,
                                   rlx_tensor_t **out_tensor) {
  return guard([&] {
    requireArg(session, "session");
    requireArg(tensor, "tensor");
    requireArg(out_tensor, "out_tensor");
    *out_tensor =
        placeForSession(*session, TensorRef::retain(tensor), "the tensor")
            .release();
  });
}

rlx_status_t rlx_session_bind_safetensors(rlx_session_t *session,
                                          const char *path,
                                          const rlx_bind_options_t *options) {
  return guard([&] {
    requireArg(session, "session");
    requireArg(path, "path");
    rlx_bind_options_t defaults;
    rlx_bind_options_initialize(&defaults);
    if (!options)
      options = &defaults;

    rlx_tensor_list_t *rawList = nullptr;
    if (rlx_status_t status = rlx_safetensors_read(path, &rawList)) {
      StatusError error(status->code, status->message);
      rlx_status_free(status);
      throw error;
    }
    std::unique_ptr<rlx_tensor_list_s> list(rawList);

    // Check everything first: a bad file binds nothing.
    const Manifest &manifest = session->artifact->manifest;
    std::string source = std::string(" in '") + path + "'";
    std::vector<std::pair<std::string, TensorRef>> accepted;
    for (auto &item : list->items) {
      const TensorSpec *spec = manifest.findParam(item.first);
      if (!spec) {
        if (options->allow_unused)
          continue;
        fail(RLX_STATUS_INVALID_ARGUMENT,
             "unknown weight '" + item.first + "'" + source +
                 ": no entry point of '" + session->artifact->path +
                 "' uses it (bind with allow_unused to skip such names)");
      }
      checkWeight(*spec, *item.second, source);
      accepted.emplace_back(item.first, ensureAligned(item.second));
    }
    commitWeights(*session, std::move(accepted));
  });
}

rlx_status_t rlx_session_bind_tensor(rlx_session_t *session, const char *name,
                                     rlx_tensor_t *tensor) {
  return guard([&] {
    requireArg(session, "session");
    requireArg(name, "name");
    requireArg(tensor, "tensor");
    const TensorSpec *spec = session->artifact->manifest.findParam(name);
    if (!spec)
      fail(RLX_STATUS_INVALID_ARGUMENT,
           std::string("unknown weight '") + name + "': no entry point of '" +
               session->artifact->path + "' uses it");
    checkWeight(*spec, *tensor, "");
    std::vector<std::pair<std::string, TensorRef>> accepted;
    accepted.emplace_back(name, ensureAligned(TensorRef::retain(tensor)));
    commitWeights(*session, std::move(accepted));
  });
}

rlx_status_t rlx_session_lookup_weight(rlx_session_t *session, const char *name,
                                       rlx_tensor_t **out_tensor) {
  return guard([&] {
    requireArg(session, "session");
    requireArg(name, "name");
    requireArg(out_tensor, "out_tensor");
    std::shared_lock<std::shared_mutex> lock(session->mutex);
    auto it = session->weights.find(name);
    if (it == session->weights.end())
      fail(RLX_STATUS_NOT_FOUND,
           std::string("no weight '") + name + "' is bound");
    *out_tensor = TensorRef(it->second).release();
  });
}

} // extern "C"
