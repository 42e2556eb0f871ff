//===- CollectiveQueueTest.cpp - Started collectives run in order ---------===//
///
/// The queue behind overlapped collectives (runtime/src/CollectiveQueue.h):
/// what is submitted runs on its thread in submission order, a wait returns
/// once its task ran and throws its failure, and the queue runs everything
/// still queued before it goes.
///
//===----------------------------------------------------------------------===//

#include "CollectiveQueue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace rlxrt;

namespace {

/// What waiting for `ticket` throws (a default error when nothing is).
StatusError failureOf(CollectiveTicket &ticket) {
  try {
    ticket.wait();
  } catch (const StatusError &e) {
    return e;
  }
  ADD_FAILURE() << "no failure";
  return StatusError(RLX_STATUS_OK, "");
}

TEST(CollectiveQueueTest, RunsInSubmissionOrderOffTheCallersThread) {
  CollectiveQueue queue;
  std::vector<int> order;
  std::thread::id caller = std::this_thread::get_id(), ran;
  std::vector<std::shared_ptr<CollectiveTicket>> tickets;
  for (int i = 0; i < 50; ++i)
    tickets.push_back(queue.submit([&, i] {
      // The first task lingers: later ones must still wait their turn.
      if (i == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      order.push_back(i);
      ran = std::this_thread::get_id();
    }));
  tickets.back()->wait();
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(order[i], i);
  EXPECT_NE(ran, caller);
  EXPECT_TRUE(queue.idle());
}

TEST(CollectiveQueueTest, WaitThrowsTheTasksFailure) {
  CollectiveQueue queue;
  auto failed = queue.submit([] {
    throw StatusError(RLX_STATUS_UNAVAILABLE, "all_reduce sum timed out");
  });
  auto internal = queue.submit([] { throw std::runtime_error("boom"); });
  auto fine = queue.submit([] {});
  StatusError timedOut = failureOf(*failed);
  EXPECT_EQ(timedOut.code, RLX_STATUS_UNAVAILABLE);
  EXPECT_EQ(timedOut.message, "all_reduce sum timed out");
  StatusError boom = failureOf(*internal);
  EXPECT_EQ(boom.code, RLX_STATUS_INTERNAL);
  EXPECT_EQ(boom.message, "internal error: boom");
  // A failure does not stop the queue.
  EXPECT_NO_THROW(fine->wait());
}

TEST(CollectiveQueueTest, IdleOnlyWhenNothingIsQueuedOrRunning) {
  CollectiveQueue queue;
  EXPECT_TRUE(queue.idle());
  std::atomic<bool> release{false}, started{false};
  auto blocked = queue.submit([&] {
    started = true;
    while (!release)
      std::this_thread::yield();
  });
  while (!started)
    std::this_thread::yield();
  EXPECT_FALSE(queue.idle()); // running
  auto behind = queue.submit([] {});
  EXPECT_FALSE(queue.idle()); // running and queued
  release = true;
  behind->wait();
  // `behind` finished its ticket after leaving the running state.
  EXPECT_TRUE(queue.idle());
}

TEST(CollectiveQueueTest, GoingAwayRunsWhatIsQueued) {
  std::atomic<int> ran{0};
  {
    CollectiveQueue queue;
    for (int i = 0; i < 10; ++i)
      queue.submit([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ++ran;
      });
  }
  EXPECT_EQ(ran, 10);
}

} // namespace
