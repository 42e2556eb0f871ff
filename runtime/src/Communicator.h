//===- Communicator.h - The replicas of data-parallel calls -----*- C++ -*-===//
///
/// \file
/// One interface over the libraries that move data between replicas: a
/// single replica (collectives are copies) and MPI (MpiCommunicator.cpp,
/// through the dlopen'ed shim librlx-mpi.so). An artifact's collectives
/// reach the active communicator through the collective hook
/// (rlx/abi.h): the call sets its session's communicator active on the
/// calling thread for the duration of the entry code, as DeviceCall does
/// for device hooks. Failures are StatusErrors; the hook turns them into
/// the call's status.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_COMMUNICATOR_H
#define RLX_RUNTIME_SRC_COMMUNICATOR_H

#include "CollectiveQueue.h"
#include "rlx/communicator.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace rlxrt {

/// What an all-reduce computes (rlx_collective_kind_t's first four).
enum class ReduceKind { Sum = 0, Mean = 1, Max = 2, Min = 3 };

/// The replicas one collective spans. Implementations serialize nothing:
/// rlx_communicator_s holds the lock.
class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int32_t rank() const = 0;
  virtual int32_t size() const = 0;
  virtual const std::string &description() const = 0;
  /// `count` elements of `in` reduced elementwise over the replicas into
  /// `out` (distinct buffers); Mean divides the sum by size().
  virtual void allReduce(const void *in, void *out, int64_t count,
                         rlx_dtype_t dtype, ReduceKind kind) = 0;
  /// `blockBytes` of every replica into `out`, in rank order.
  virtual void allGather(const void *in, void *out, int64_t blockBytes) = 0;
  /// The sum of size() blocks of `blockCount` elements; block rank() to `out`.
  virtual void reduceScatter(const void *in, void *out, int64_t blockCount,
                             rlx_dtype_t dtype) = 0;
  /// `bytes` of replica `root`'s `buffer` into everyone's.
  virtual void broadcast(void *buffer, int64_t bytes, int32_t root) = 0;
};

/// Whether a started collective runs on the communicator's own thread
/// (CollectiveQueue) while the entry code goes on, rather than at once:
/// RLX_COLLECTIVE_OVERLAP "1" or "0" decides; unset, only when this process
/// may run on more cores than its kernel threads use, so that the thread
/// moving data never takes a core from the kernels.
bool overlapsCollectives();

/// The single-replica communicator.
std::unique_ptr<Communicator> createSingleCommunicator();
/// The MPI world (FAILED_PRECONDITION when MPI cannot be loaded).
std::unique_ptr<Communicator> createMpiCommunicator(double timeoutSeconds);
/// NCCL on this process's CUDA device, one replica per replica of
/// `bootstrap` (FAILED_PRECONDITION without NCCL, a driver or a device).
std::unique_ptr<Communicator> createNcclCommunicator(rlx_communicator_t &bootstrap);

/// Divides `count` sums by `replicas`, for Mean (float dtypes only).
void divideInPlace(void *data, int64_t count, rlx_dtype_t dtype,
                   int32_t replicas);

/// Makes `communicator` (may be null) the one the collective hook uses on
/// this thread while it lives.
class ActiveCommunicator {
public:
  explicit ActiveCommunicator(rlx_communicator_t *communicator);
  ~ActiveCommunicator();
  ActiveCommunicator(const ActiveCommunicator &) = delete;
  ActiveCommunicator &operator=(const ActiveCommunicator &) = delete;

private:
  rlx_communicator_t *outer;
};

/// What artifacts call for each collective (rlx_artifact_collective_hook_t).
void collectiveHook(int32_t kind, int32_t dtype, const void *in, void *out,
                    int64_t count, int64_t arg);

} // namespace rlxrt

/// The C API's handle: a Communicator, its lock and its health.
struct rlx_communicator_s {
  explicit rlx_communicator_s(std::unique_ptr<rlxrt::Communicator> impl)
      : impl(std::move(impl)) {
    if (this->impl->size() > 1)
      queue = std::make_unique<rlxrt::CollectiveQueue>();
  }
  std::atomic<int> refCount{1};
  std::unique_ptr<rlxrt::Communicator> impl;
  /// Collectives of one communicator run one at a time.
  std::mutex mutex;
  /// Set by a collective that failed part-way: the replicas no longer agree
  /// on what comes next, so every later collective fails with this.
  std::string broken;
  /// Where started collectives run, in order (more than one replica).
  /// Declared after `impl`, so its thread ends before `impl` goes.
  std::unique_ptr<rlxrt::CollectiveQueue> queue;
};

#endif // RLX_RUNTIME_SRC_COMMUNICATOR_H
