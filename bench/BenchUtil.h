//===- BenchUtil.h - Timing and random inputs for the benches ---*- C++ -*-===//

#ifndef RLX_BENCH_BENCHUTIL_H
#define RLX_BENCH_BENCHUTIL_H

#include "rlx/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace rlx::bench {

/// Median milliseconds of `fn` over `reps` calls after one warm-up call.
template <typename Fn> double medianMs(Fn fn, int reps) {
  fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Normally distributed f32 values times `scale`, drawn from `rng`.
inline rlx::runtime::HostTensor randn(std::mt19937 &rng,
                                      std::vector<int64_t> dims, float scale) {
  std::normal_distribution<float> normal(0, 1);
  rlx::runtime::HostTensor t =
      rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, dims);
  for (size_t i = 0; i < t.element_count(); ++i)
    t.data<float>()[i] = normal(rng) * scale;
  return t;
}

/// oneDNN's CPU engine uses GNU OpenMP, which reads OMP_NUM_THREADS once,
/// when it is loaded (before main): setting it later changes nothing, and
/// oneDNN ran on every core while rlx ran on the count asked. Runs this
/// process again with the variable set to `threads` unless it already is;
/// returns true when it is, false when running again failed.
inline bool ensureOmpThreads(int threads, char **argv) {
  std::string wanted = std::to_string(threads);
  const char *current = std::getenv("OMP_NUM_THREADS");
  if (current && wanted == current)
    return true;
  setenv("OMP_NUM_THREADS", wanted.c_str(), 1);
  execv("/proc/self/exe", argv);
  std::perror("cannot run /proc/self/exe again");
  return false;
}

/// Median seconds per call of each of `fns`, timed in turns: `rounds`
/// rounds, each running every fn (in a rotating order) for about
/// `perRound` after a pause. A slow spell of a shared machine then falls
/// on every contender alike instead of on whichever ran during it (rlx and
/// oneDNN timed one after the other moved by 30% from run to run under
/// KVM). The pause outlasts the spin-wait of the thread pools (libomp's
/// 200 ms block time, GNU OpenMP's): the other library's idle workers
/// would otherwise steal a core.
inline std::vector<double>
interleavedMedianSeconds(const std::vector<std::function<void()>> &fns,
                         int rounds = 5,
                         std::chrono::milliseconds perRound =
                             std::chrono::milliseconds(250)) {
  std::vector<std::vector<double>> times(fns.size());
  for (int round = 0; round < rounds; ++round)
    for (size_t turn = 0; turn < fns.size(); ++turn) {
      size_t which = (turn + round) % fns.size();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      fns[which](); // warm: caches, packed copies, the pool's threads
      auto start = std::chrono::steady_clock::now();
      size_t before = times[which].size();
      while (times[which].size() < before + 2 ||
             (std::chrono::steady_clock::now() - start < perRound &&
              times[which].size() < before + 40)) {
        auto t0 = std::chrono::steady_clock::now();
        fns[which]();
        times[which].push_back(std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - t0)
                                   .count());
      }
    }
  std::vector<double> medians;
  for (std::vector<double> &samples : times) {
    std::sort(samples.begin(), samples.end());
    medians.push_back(samples[samples.size() / 2]);
  }
  return medians;
}

} // namespace rlx::bench

#endif // RLX_BENCH_BENCHUTIL_H
