//===- matmul_vs_openblas.cpp - rlx matmul GFLOP/s against OpenBLAS -------===//
///
/// \file
/// Compiles `rlx.matmul` of N x N x N f32 with rlxc, runs it through the
/// runtime and times it beside OpenBLAS's cblas_sgemm (one thread each,
/// OPENBLAS_NUM_THREADS=1) in the same process, checking that both agree.
/// Usage: rlx-bench-matmul [N...] (default 256 512 1024).
///
//===----------------------------------------------------------------------===//

#include "rlx/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

extern "C" void cblas_sgemm(int order, int transA, int transB, int m, int n,
                            int k, float alpha, const float *a, int lda,
                            const float *b, int ldb, float beta, float *c,
                            int ldc);
extern "C" void openblas_set_num_threads(int);

namespace {

/// Median seconds of `fn` over enough repetitions to take ~1 s.
template <typename Fn> double medianSeconds(Fn fn) {
  fn();
  std::vector<double> times;
  auto start = std::chrono::steady_clock::now();
  while (times.size() < 5 ||
         (std::chrono::steady_clock::now() - start < std::chrono::seconds(1) &&
          times.size() < 200)) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - t0)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::string compileMatmul(int n) {
  std::string dir = "/tmp/rlx-bench-matmul";
  std::system(("mkdir -p " + dir).c_str());
  std::string mlir = dir + "/mm" + std::to_string(n) + ".mlir";
  std::string so = dir + "/mm" + std::to_string(n) + ".so";
  std::string t = "tensor<" + std::to_string(n) + "x" + std::to_string(n) +
                  "xf32>";
  std::ofstream(mlir) << "func.func @mm(%a: " << t << ", %b: " << t
                      << ") -> " << t << " {\n  %c = rlx.matmul %a, %b : ("
                      << t << ", " << t << ") -> " << t
                      << "\n  return %c : " << t << "\n}\n";
  std::string cmd = std::string(RLXC_PATH) + " " + mlir + " -o " + so;
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "rlxc failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return so;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i)
    sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty())
    sizes = {256, 512, 1024};
  openblas_set_num_threads(1);
  std::printf("%6s %12s %12s %8s %10s\n", "N", "rlx GF/s", "OpenBLAS GF/s",
              "ratio", "max|diff|");
  for (int n : sizes) {
    rlx::Artifact artifact = rlx::Artifact::load(compileMatmul(n));
    rlx::Session session(artifact);
    std::vector<int64_t> dims = {n, n};
    rlx::HostTensor a = rlx::HostTensor::allocate(RLX_DTYPE_F32, dims);
    rlx::HostTensor b = rlx::HostTensor::allocate(RLX_DTYPE_F32, dims);
    std::mt19937 rng(0);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (size_t i = 0; i < a.elementCount(); ++i) {
      a.data<float>()[i] = dist(rng);
      b.data<float>()[i] = dist(rng);
    }
    std::vector<float> c(size_t(n) * n);
    std::vector<rlx::HostTensor> inputs;
    inputs.push_back(a.share());
    inputs.push_back(b.share());
    double rlxTime = medianSeconds([&] { session.call("mm", inputs); });
    double blasTime = medianSeconds([&] {
      cblas_sgemm(101, 111, 111, n, n, n, 1.0f, a.data<float>(), n,
                  b.data<float>(), n, 0.0f, c.data(), n);
    });
    rlx::TensorList out = session.call("mm", inputs);
    const float *r = out.at(0).data<float>();
    double diff = 0;
    for (size_t i = 0; i < c.size(); ++i)
      diff = std::max(diff, double(std::fabs(r[i] - c[i])));
    double flops = 2.0 * n * n * n;
    std::printf("%6d %12.1f %12.1f %8.2f %10.2e\n", n, flops / rlxTime / 1e9,
                flops / blasTime / 1e9, blasTime / rlxTime, diff);
  }
  return 0;
}
