//===- Communicator.cpp - Communicators, the collective hook, the C API ---===//

#include "Communicator.h"
#include "DType.h"
#include "CallState.h"
#include "Session.h"
#include "Status.h"
#include "Tensor.h"
#include "Threads.h"
#include "Xxh64.h"

#include <cstdlib>
#include <cstring>
#include <vector>

using namespace rlxrt;

namespace {

thread_local rlx_communicator_t *activeCommunicator = nullptr;

class SingleCommunicator final : public Communicator {
public:
  int32_t rank() const override { return 0; }
  int32_t size() const override { return 1; }
  const std::string &description() const override { return name; }
  void allReduce(const void *in, void *out, int64_t count, rlx_dtype_t dtype,
                 ReduceKind) override {
    std::memcpy(out, in, static_cast<size_t>(count) * rlx_dtype_size(dtype));
  }
  void allGather(const void *in, void *out, int64_t blockBytes) override {
    std::memcpy(out, in, static_cast<size_t>(blockBytes));
  }
  void reduceScatter(const void *in, void *out, int64_t blockCount,
                     rlx_dtype_t dtype) override {
    std::memcpy(out, in,
                static_cast<size_t>(blockCount) * rlx_dtype_size(dtype));
  }
  void broadcast(void *, int64_t, int32_t) override {}

private:
  std::string name = "single";
};

const char *kindName(int32_t kind) {
  switch (kind) {
  case RLX_COLLECTIVE_ALL_REDUCE_SUM:
    return "all_reduce sum";
  case RLX_COLLECTIVE_ALL_REDUCE_MEAN:
    return "all_reduce mean";
  case RLX_COLLECTIVE_ALL_REDUCE_MAX:
    return "all_reduce max";
  case RLX_COLLECTIVE_ALL_REDUCE_MIN:
    return "all_reduce min";
  case RLX_COLLECTIVE_ALL_GATHER:
    return "all_gather";
  case RLX_COLLECTIVE_REDUCE_SCATTER:
    return "reduce_scatter";
  case RLX_COLLECTIVE_BROADCAST:
    return "broadcast";
  case RLX_COLLECTIVE_AXIS_INDEX:
    return "axis_index";
  default:
    return "unknown collective";
  }
}

/// Runs `body` on `communicator` under its lock; a failure breaks it (the
/// replicas are out of step) and later calls fail with the same message.
template <typename Fn>
void runLocked(rlx_communicator_t &communicator, const char *what,
               Fn &&body) {
  std::lock_guard<std::mutex> lock(communicator.mutex);
  if (!communicator.broken.empty())
    fail(RLX_STATUS_UNAVAILABLE,
         std::string(what) + " on a communicator broken by an earlier "
                             "failure: " + communicator.broken);
  try {
    body(*communicator.impl);
  } catch (const StatusError &error) {
    if (error.code == RLX_STATUS_UNAVAILABLE)
      communicator.broken = error.message;
    throw;
  }
}

/// Runs `collective` behind every collective started before it: on this
/// thread when none is pending, else on the queue's (every replica then
/// runs its collectives in the order issued).
template <typename Fn>
void runInOrder(rlx_communicator_t &communicator, Fn &&collective) {
  if (!communicator.queue || communicator.queue->idle())
    return collective();
  communicator.queue->submit(collective)->wait();
}

/// runLocked, in order.
template <typename Fn>
void runCollective(rlx_communicator_t &communicator, const char *what,
                   Fn &&body) {
  runInOrder(communicator, [&] { runLocked(communicator, what, body); });
}

/// One collective of an artifact on `communicator`.
void runHookCollective(rlx_communicator_t &communicator, int32_t kind,
                       int32_t dtypeValue, const void *in, void *out,
                       int64_t count, int64_t arg) {
  const char *what = kindName(kind);
  if (!isValidDType(dtypeValue))
    fail(RLX_STATUS_INTERNAL, std::string(what) + " with element type " +
                                  std::to_string(dtypeValue));
  auto dtype = static_cast<rlx_dtype_t>(dtypeValue);
  int32_t replicas = communicator.impl->size();
  auto checkAxisSize = [&] {
    if (arg != replicas)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           std::string(what) + " over an axis of size " + std::to_string(arg) +
               " ran on a communicator of " + std::to_string(replicas) +
               " replicas");
  };
  runLocked(communicator, what, [&](Communicator &impl) {
    switch (kind) {
    case RLX_COLLECTIVE_ALL_REDUCE_SUM:
    case RLX_COLLECTIVE_ALL_REDUCE_MEAN:
    case RLX_COLLECTIVE_ALL_REDUCE_MAX:
    case RLX_COLLECTIVE_ALL_REDUCE_MIN:
      impl.allReduce(in, out, count, dtype, static_cast<ReduceKind>(kind));
      if (kind == RLX_COLLECTIVE_ALL_REDUCE_MEAN)
        divideInPlace(out, count, dtype, replicas);
      return;
    case RLX_COLLECTIVE_ALL_GATHER:
      checkAxisSize();
      impl.allGather(in, out, count * int64_t(rlx_dtype_size(dtype)));
      return;
    case RLX_COLLECTIVE_REDUCE_SCATTER:
      checkAxisSize();
      impl.reduceScatter(in, out, count, dtype);
      return;
    case RLX_COLLECTIVE_BROADCAST:
      if (arg >= replicas)
        fail(RLX_STATUS_FAILED_PRECONDITION,
             "broadcast from replica " + std::to_string(arg) +
                 " on a communicator of " + std::to_string(replicas) +
                 " replicas");
      std::memcpy(out, in, static_cast<size_t>(count) * rlx_dtype_size(dtype));
      impl.broadcast(out, count * int64_t(rlx_dtype_size(dtype)),
                     static_cast<int32_t>(arg));
      return;
    case RLX_COLLECTIVE_AXIS_INDEX: {
      int32_t rank = impl.rank();
      std::memcpy(out, &rank, sizeof(rank));
      return;
    }
    default:
      fail(RLX_STATUS_INTERNAL, "unknown collective kind " +
                                    std::to_string(kind));
    }
  });
}

/// The 16 bytes replicas compare to agree on something: size and digest.
struct Fingerprint {
  uint64_t size;
  uint64_t digest;
};

void checkAgreement(rlx_communicator_t &communicator, const void *bytes,
                    size_t size, const std::string &what) {
  Xxh64 hash;
  hash.update(bytes, size);
  Fingerprint mine{size, hash.digest()};
  int32_t replicas = communicator.impl->size();
  std::vector<Fingerprint> all(static_cast<size_t>(replicas));
  runCollective(communicator, "agreement check", [&](Communicator &impl) {
    impl.allGather(&mine, all.data(), sizeof(Fingerprint));
  });
  for (int32_t r = 1; r < replicas; ++r)
    if (all[r].size != all[0].size || all[r].digest != all[0].digest)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           "replica " + std::to_string(r) + " has a different " + what +
               " than replica 0 (" + std::to_string(all[r].size) +
               " bytes vs " + std::to_string(all[0].size) +
               "): every replica must run the same one");
}

double defaultTimeout() {
  if (const char *text = std::getenv("RLX_COLLECTIVE_TIMEOUT_S")) {
    char *end = nullptr;
    double value = std::strtod(text, &end);
    if (end != text && value >= 0)
      return value;
  }
  return 60;
}

} // namespace

void rlxrt::divideInPlace(void *data, int64_t count, rlx_dtype_t dtype,
                          int32_t replicas) {
  bool isFloat = dtype == RLX_DTYPE_F32 || dtype == RLX_DTYPE_F64;
  if (isFloat && replicas == 1)
    return; // x / 1 is x
  if (dtype == RLX_DTYPE_F32) {
    auto *p = static_cast<float *>(data);
    for (int64_t i = 0; i < count; ++i)
      p[i] /= static_cast<float>(replicas);
  } else if (dtype == RLX_DTYPE_F64) {
    auto *p = static_cast<double *>(data);
    for (int64_t i = 0; i < count; ++i)
      p[i] /= static_cast<double>(replicas);
  } else {
    fail(RLX_STATUS_UNIMPLEMENTED,
         std::string("all_reduce mean of ") + rlx_dtype_name(dtype) +
             " (f32 and f64 are supported)");
  }
}

std::unique_ptr<Communicator> rlxrt::createSingleCommunicator() {
  return std::make_unique<SingleCommunicator>();
}

ActiveCommunicator::ActiveCommunicator(rlx_communicator_t *communicator)
    : outer(activeCommunicator) {
  activeCommunicator = communicator;
}

ActiveCommunicator::~ActiveCommunicator() { activeCommunicator = outer; }

bool rlxrt::overlapsCollectives() {
  if (const char *setting = std::getenv("RLX_COLLECTIVE_OVERLAP"))
    if (*setting)
      return std::string(setting) != "0";
  return availableCores() > currentThreadCount();
}

namespace {

/// Runs `body`; a failure is recorded on this thread's call, whose entry
/// code then returns.
template <typename Fn> void reportToCall(Fn &&body) {
  std::optional<StatusError> error = captureFailure(body);
  if (!error)
    return;
  if (!recordHookFailure(error->code, error->message))
    std::abort(); // outside a call: nowhere to report to
  // A collective the communicator gave up on may still complete into the
  // call's buffers later (MPI has no cancel for collectives).
  if (activeCommunicator)
    abandonCallBlocks();
}

/// One collective of entry code. Started (RLX_COLLECTIVE_START) during a
/// call, with overlap on: queued, and waited for by the call. Otherwise it
/// runs before this returns, behind anything queued before.
void issueCollective(rlx_communicator_t &communicator, bool start,
                     int32_t kind, int32_t dtype, const void *in, void *out,
                     int64_t count, int64_t arg) {
  auto collective = [&communicator, kind, dtype, in, out, count, arg] {
    runHookCollective(communicator, kind, dtype, in, out, count, arg);
  };
  CallState *call = currentCallState();
  if (start && call && communicator.queue && overlapsCollectives()) {
    std::shared_ptr<CollectiveTicket> ticket =
        communicator.queue->submit(collective);
    call->addPending(out, [ticket] { reportToCall([&] { ticket->wait(); }); });
    return;
  }
  runInOrder(communicator, collective);
}

} // namespace

void rlxrt::collectiveHook(int32_t kind, int32_t dtype, const void *in,
                           void *out, int64_t count, int64_t arg) {
  if (kind == RLX_COLLECTIVE_WAIT) {
    if (CallState *call = currentCallState())
      if (std::function<void()> wait = call->takePending(out))
        wait();
    return;
  }
  reportToCall([&] {
    bool start = (kind & RLX_COLLECTIVE_START) != 0;
    int32_t what = kind & ~RLX_COLLECTIVE_START;
    if (!activeCommunicator)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           std::string("rlx.") + kindName(what) +
               " needs a communicator: set one on the session "
               "(rlx_session_set_communicator, or the frontend's "
               "DataParallel)");
    issueCollective(*activeCommunicator, start, what, dtype, in, out, count,
                    arg);
  });
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" {

void rlx_communicator_options_initialize(
    rlx_communicator_options_t *out_options) {
  if (out_options)
    out_options->timeout_seconds = defaultTimeout();
}

rlx_status_t rlx_communicator_create_single(rlx_communicator_t **out) {
  return guard([&] {
    requireArg(out, "out_communicator");
    *out = new rlx_communicator_s(createSingleCommunicator());
  });
}

rlx_status_t rlx_communicator_create_mpi(const rlx_communicator_options_t *options,
                                         rlx_communicator_t **out) {
  return guard([&] {
    requireArg(out, "out_communicator");
    double timeout = options ? options->timeout_seconds : defaultTimeout();
    if (!(timeout >= 0))
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "timeout_seconds must be >= 0, got " + std::to_string(timeout));
    *out = new rlx_communicator_s(createMpiCommunicator(timeout));
  });
}

rlx_status_t rlx_communicator_create_nccl(rlx_communicator_t *bootstrap,
                                          rlx_communicator_t **out) {
  return guard([&] {
    requireArg(bootstrap, "bootstrap");
    requireArg(out, "out_communicator");
    *out = new rlx_communicator_s(createNcclCommunicator(*bootstrap));
  });
}

void rlx_communicator_retain(rlx_communicator_t *communicator) {
  if (communicator)
    communicator->refCount.fetch_add(1, std::memory_order_relaxed);
}

void rlx_communicator_release(rlx_communicator_t *communicator) {
  if (communicator &&
      communicator->refCount.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete communicator;
}

int32_t rlx_communicator_rank(const rlx_communicator_t *communicator) {
  return communicator ? communicator->impl->rank() : 0;
}

int32_t rlx_communicator_size(const rlx_communicator_t *communicator) {
  return communicator ? communicator->impl->size() : 0;
}

const char *rlx_communicator_description(const rlx_communicator_t *communicator) {
  return communicator ? communicator->impl->description().c_str() : "";
}

rlx_status_t rlx_communicator_broadcast_tensor(rlx_communicator_t *communicator,
                                               rlx_tensor_t *tensor,
                                               int32_t root, const char *what) {
  return guard([&] {
    requireArg(communicator, "communicator");
    requireArg(tensor, "tensor");
    std::string name = what ? what : "tensor";
    if (tensor->device() != RLX_DEVICE_CPU)
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "broadcast of " + name + ": only host tensors are supported");
    if (root < 0 || root >= communicator->impl->size())
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "broadcast of " + name + " from replica " + std::to_string(root) +
               " on a communicator of " +
               std::to_string(communicator->impl->size()) + " replicas");
    std::string type = formatDimsType(tensor->dtype, tensor->dims);
    checkAgreement(*communicator, type.data(), type.size(),
                   "type of " + name + " (this replica's: " + type + ")");
    runCollective(*communicator, "broadcast", [&](Communicator &impl) {
      impl.broadcast(tensor->data, static_cast<int64_t>(tensor->byteSize),
                     root);
    });
  });
}

rlx_status_t rlx_communicator_check_agreement(rlx_communicator_t *communicator,
                                              const void *bytes, size_t size,
                                              const char *what) {
  return guard([&] {
    requireArg(communicator, "communicator");
    if (size)
      requireArg(bytes, "bytes");
    checkAgreement(*communicator, bytes, size, what ? what : "value");
  });
}

rlx_status_t rlx_session_set_communicator(rlx_session_t *session,
                                          rlx_communicator_t *communicator) {
  return guard([&] {
    requireArg(session, "session");
    if (communicator) {
      const std::string &manifest = session->artifact->manifestJson;
      checkAgreement(*communicator, manifest.data(), manifest.size(),
                     "artifact (manifest of '" + session->artifact->path +
                         "')");
      rlx_communicator_retain(communicator);
    }
    rlx_communicator_t *old =
        session->communicator.exchange(communicator, std::memory_order_acq_rel);
    rlx_communicator_release(old);
  });
}

} // extern "C"
