//===- CollectiveQueue.cpp - Collectives on a communicator's own thread ---===//

#include "CollectiveQueue.h"

using namespace rlxrt;

void CollectiveTicket::wait() {
  std::unique_lock<std::mutex> lock(mutex);
  finished.wait(lock, [&] { return done; });
  if (failure)
    throw *failure;
}

void CollectiveTicket::finish(std::optional<StatusError> result) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    failure = std::move(result);
    done = true;
  }
  finished.notify_all();
}

CollectiveQueue::CollectiveQueue() : thread([this] { run(); }) {}

CollectiveQueue::~CollectiveQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  queued.notify_one();
  thread.join();
}

std::shared_ptr<CollectiveTicket>
CollectiveQueue::submit(std::function<void()> collective) {
  auto ticket = std::make_shared<CollectiveTicket>();
  {
    std::lock_guard<std::mutex> lock(mutex);
    tasks.emplace_back(std::move(collective), ticket);
  }
  queued.notify_one();
  return ticket;
}

bool CollectiveQueue::idle() {
  std::lock_guard<std::mutex> lock(mutex);
  return tasks.empty() && !running;
}

void CollectiveQueue::run() {
  for (;;) {
    std::pair<std::function<void()>, std::shared_ptr<CollectiveTicket>> task;
    {
      std::unique_lock<std::mutex> lock(mutex);
      queued.wait(lock, [&] { return stopping || !tasks.empty(); });
      if (tasks.empty())
        return; // stopping, and everything queued ran
      task = std::move(tasks.front());
      tasks.pop_front();
      running = true;
    }
    std::optional<StatusError> failure = captureFailure(task.first);
    {
      std::lock_guard<std::mutex> lock(mutex);
      running = false;
    }
    task.second->finish(std::move(failure));
  }
}
