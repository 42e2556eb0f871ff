//===- CollectiveQueue.h - Started collectives, in order --------*- C++ -*-===//
///
/// \file
/// Entry code starts a collective (RLX_COLLECTIVE_START) as soon as its
/// operand is computed and waits for it only where its result is read, so
/// that a data-parallel step's gradient all-reduces run while the rest of
/// the backward pass computes. The started collectives run here, on one
/// thread per communicator, strictly in the order they were started: every
/// replica starts the same collectives in the same order, so the replicas'
/// collectives still match one to one.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_COLLECTIVEQUEUE_H
#define RLX_RUNTIME_SRC_COLLECTIVEQUEUE_H

#include "Status.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace rlxrt {

/// One submitted collective: done once it ran, with its failure if any.
class CollectiveTicket {
public:
  /// Blocks until the collective ran; throws its StatusError if it failed.
  void wait();
  /// Called by the queue's thread when the collective ran.
  void finish(std::optional<StatusError> failure);

private:
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::optional<StatusError> failure;
};

/// A thread running submitted collectives one at a time, in order.
class CollectiveQueue {
public:
  CollectiveQueue();
  /// Runs what is still queued, then ends the thread.
  ~CollectiveQueue();
  CollectiveQueue(const CollectiveQueue &) = delete;
  CollectiveQueue &operator=(const CollectiveQueue &) = delete;

  /// Queues `collective` (which throws StatusError on failure) behind every
  /// collective submitted before it.
  std::shared_ptr<CollectiveTicket> submit(std::function<void()> collective);
  /// Nothing queued or running: a collective may then run on the caller's
  /// thread and still come after everything submitted before it.
  bool idle();

private:
  void run();

  std::mutex mutex;
  std::condition_variable queued;
  std::deque<
      std::pair<std::function<void()>, std::shared_ptr<CollectiveTicket>>>
      tasks;
  bool stopping = false;
  /// A task taken from `tasks` and not finished yet.
  bool running = false;
  std::thread thread;
};

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_COLLECTIVEQUEUE_H
