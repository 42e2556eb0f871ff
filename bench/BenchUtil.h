//===- BenchUtil.h - Timing and random inputs for the benches ---*- C++ -*-===//

#ifndef RLX_BENCH_BENCHUTIL_H
#define RLX_BENCH_BENCHUTIL_H

#include "rlx/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
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

} // namespace rlx::bench

#endif // RLX_BENCH_BENCHUTIL_H
