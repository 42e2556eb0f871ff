//===- elementwise_chain.cpp - A fused gelu(x*w+b) sum against memcpy -----===//
///
/// \file
/// sum(gelu(x * w + b)) over 16M f32 elements (w and b scalars): one fused,
/// vectorized loop that reads x once. Timed beside a memcpy of the same
/// 64 MB in the same process; bandwidth is bytes of x per second. Prints
/// `rlx elementwise_ms`, `memcpy_ms` and the ratio for bench/run-all.sh.
/// Usage: rlx-bench-elementwise [elements]
///
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"
#include "rlx/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using rlx::bench::medianMs;

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : int64_t(1) << 24;
  std::string t = "tensor<" + std::to_string(n) + "xf32>";
  const std::string src = "/tmp/rlx-bench-ew.mlir", so = "/tmp/rlx-bench-ew.so";
  std::ofstream(src)
      << "func.func @chain(%x: " << t << " {rlx.name = \"x\"}, %w: tensor<f32> "
      << "{rlx.name = \"w\"}, %b: tensor<f32> {rlx.name = \"b\"}) -> "
      << "(tensor<f32> {rlx.name = \"s\"}) {\n"
      << "  %m = rlx.mul %x, %w : (" << t << ", tensor<f32>) -> " << t << "\n"
      << "  %a = rlx.add %m, %b : (" << t << ", tensor<f32>) -> " << t << "\n"
      << "  %g = rlx.gelu %a : " << t << "\n"
      << "  %s = rlx.sum %g {axes = array<i64: 0>} : (" << t
      << ") -> tensor<f32>\n  return %s : tensor<f32>\n}\n";
  if (std::system((std::string(RLXC_PATH) + " " + src + " -o " + so).c_str()))
    return 1;
  rlx::runtime::Artifact artifact = rlx::runtime::Artifact::load(so);
  rlx::runtime::Session session(artifact);
  std::vector<rlx::runtime::HostTensor> inputs;
  inputs.push_back(rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {n}));
  inputs.push_back(rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {}));
  inputs.push_back(rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {}));
  std::mt19937 rng(0);
  std::normal_distribution<float> normal(0, 1);
  float *x = inputs[0].data<float>();
  for (int64_t i = 0; i < n; ++i)
    x[i] = normal(rng);
  inputs[1].data<float>()[0] = 1.5f;
  inputs[2].data<float>()[0] = 0.25f;

  // Reference value in f64 (tanh form of gelu, as rlx.gelu's default).
  double expected = 0;
  for (int64_t i = 0; i < n; ++i) {
    double a = double(x[i]) * 1.5 + 0.25;
    expected += 0.5 * a *
                (1 + std::tanh(0.7978845608028654 * (a + 0.044715 * a * a * a)));
  }
  float got = session.call("chain", inputs).at(0).data<float>()[0];

  std::vector<float> copy(n);
  double rlxMs = medianMs([&] { session.call("chain", inputs); }, 20);
  double memcpyMs =
      medianMs([&] { std::memcpy(copy.data(), x, n * sizeof(float)); }, 20);
  double gb = double(n) * sizeof(float) / 1e9;
  std::printf("sum(gelu(x*w+b)), %lld f32, %d threads: %.6g (f64 loop %.6g, "
              "rel err %.1e)\n",
              (long long)n, rlx_get_num_threads(), got, expected,
              std::fabs(got - expected) / std::fabs(expected));
  std::printf("rlx elementwise_ms %.4f\n", rlxMs);
  std::printf("rlx elementwise_GBps %.2f\n", gb / (rlxMs / 1e3));
  std::printf("memcpy memcpy_ms %.4f\n", memcpyMs);
  std::printf("memcpy memcpy_GBps %.2f\n", gb / (memcpyMs / 1e3));
  std::printf("ratio rlx/memcpy bandwidth %.2f\n", memcpyMs / rlxMs);
  return std::fabs(got - expected) <= 1e-3 * std::fabs(expected) ? 0 : 1;
}
