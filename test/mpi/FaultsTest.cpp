//===- FaultsTest.cpp - Replicas that disagree or stop --------------------===//
///
/// \file
/// Run under `mpirun -np 2`. Each failure must be a status naming the
/// problem, on every replica, never a hang or a crash:
/// - a collective run without a communicator;
/// - replicas running different artifacts (set_communicator);
/// - a param of different shapes on the replicas (the initial broadcast);
/// - a replica that stops taking part: the other's collective times out
///   (UNAVAILABLE) within its timeout, and the communicator stays broken.
/// With the argument `die`, replica 1 exits in the middle of 100 steps
/// instead (dead_replica.sh checks how the job ends).
///
//===----------------------------------------------------------------------===//

#include "MpiTestUtil.h"

#include <chrono>
#include <thread>

using namespace rlx;
using namespace rlx::mpitest;

namespace {

/// The message of the RuntimeError or rlx::Error `body` throws ("" if none).
template <typename Fn> std::string errorOf(Fn &&body) {
  try {
    body();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

Func summed(int64_t n) {
  return Func("summed", [n](Scope &s) {
    return psum(s.input("x", {n}), "replicas");
  });
}

/// `die` mode: replica 1 exits in the middle of the steps; replica 0's
/// next collective must fail with a status within the timeout.
int dieMidway() {
  runtime::Communicator comm = runtime::Communicator::mpi(3);
  rank = comm.rank();
  Func f("steps", [](Scope &s) {
    return psum(s.input("x", {1000}), "replicas");
  });
  Compiled c = f.jit(Device::cpu());
  c.with_communicator(comm);
  Array x = Array::zeros({1000});
  for (int i = 0; i < 100; ++i) {
    if (rank == 1 && i == 50) {
      std::fprintf(stderr, "rank 1: exiting at step 50\n");
      std::fflush(stderr);
      std::_Exit(3);
    }
    auto start = std::chrono::steady_clock::now();
    std::string error = errorOf([&] { c.run({{"x", x}}); });
    if (!error.empty()) {
      double waited = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
      std::fprintf(stderr, "rank %d: step %d failed after %.2f s: %s\n",
                   rank, i, waited, error.c_str());
      return 1;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "die")
    return dieMidway();
  try {
    runtime::Communicator comm = runtime::Communicator::mpi(3);
    rank = comm.rank();

    // No communicator: a clear error, not a crash.
    Compiled alone = summed(3).jit(Device::cpu());
    std::string error =
        errorOf([&] { alone.run({{"x", Array::from(std::vector<float>{1, 2, 3}, {3})}}); });
    expect(contains(error, "rlx.all_reduce sum needs a communicator"),
           "no communicator: got '" + error + "'");

    // Different artifacts: replica 1 compiled another shape.
    Compiled other = summed(rank == 0 ? 3 : 4).jit(Device::cpu());
    error = errorOf([&] { other.with_communicator(comm); });
    expect(contains(error, "replica 1 has a different artifact"),
           "different artifacts: got '" + error + "'");

    // Param shapes differ at the initial broadcast.
    runtime::HostTensor w = runtime::HostTensor::allocate(
        RLX_DTYPE_F32, {rank == 0 ? 2 : 3, 4});
    error = errorOf([&] { comm.broadcast(w, 0, "param 'w'"); });
    expect(contains(error, "replica 1 has a different type of param 'w'"),
           "param shapes: got '" + error + "'");

    // Replica 1 stops taking part: replica 0 fails within its timeout. A
    // max is one MPI collective (a sum is two), so the one replica 1 joins
    // late below completes the abandoned one and both finalize cleanly.
    Func maxed("maxed", [](Scope &s) {
      return pmax(s.input("x", {3}), "replicas");
    });
    Compiled same = maxed.jit(Device::cpu());
    same.with_communicator(comm);
    auto x = Array::from(std::vector<float>{1, 2, 3}, {3});
    if (rank == 0) {
      auto start = std::chrono::steady_clock::now();
      error = errorOf([&] { same.run({{"x", x}}); });
      double waited = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
      expect(contains(error, "timed out after 3 s waiting for the other "
                             "replicas"),
             "stopped replica: got '" + error + "'");
      expect(waited < 10, "stopped replica: failed after " +
                              std::to_string(waited) + " s");
      error = errorOf([&] { same.run({{"x", x}}); });
      expect(contains(error, "broken by an earlier failure"),
             "broken communicator: got '" + error + "'");
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(4));
    }
    // Replica 1 joins the abandoned collective late.
    if (rank == 1)
      same.run({{"x", x}});
    if (rank == 0 && failures == 0)
      std::printf("faults on %d replicas: ok\n", comm.size());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rank %d: FAIL exception: %s\n", rank, e.what());
    ++failures;
  }
  return failures ? 1 : 0;
}
