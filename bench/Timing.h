//===- Timing.h - Median wall time of a benchmarked call --------*- C++ -*-===//

#ifndef RLX_BENCH_TIMING_H
#define RLX_BENCH_TIMING_H

#include <algorithm>
#include <chrono>
#include <vector>

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

} // namespace rlx::bench

#endif // RLX_BENCH_TIMING_H
