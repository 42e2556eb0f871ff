//===- matmul.cpp - rlx matmul against oneDNN and OpenBLAS ----------------===//
///
/// \file
/// Compiles an f32 matmul per size with rlxc, runs it through the runtime
/// and times it beside oneDNN's dnnl_sgemm (when built with libdnnl) and
/// OpenBLAS's cblas_sgemm, all with the same thread count, in one process.
/// Checks that the results agree.
/// Usage: rlx-bench-matmul [--threads N] SIZE... where SIZE is N (square)
/// or MxNxK; default 256 512 1024 2048 129x257x511, one thread.
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
#include <thread>
#include <vector>

#ifdef RLX_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

extern "C" void cblas_sgemm(int order, int transA, int transB, int m, int n,
                            int k, float alpha, const float *a, int lda,
                            const float *b, int ldb, float beta, float *c,
                            int ldc);
extern "C" void openblas_set_num_threads(int);

namespace {

/// Median seconds of `fn` over enough repetitions to take ~1 s. Starts
/// with a pause longer than the spin-wait of the thread pools (libomp's
/// 200 ms block time, OpenBLAS's, GNU OpenMP's): the previous library's
/// idle workers would otherwise steal a core from this one.
template <typename Fn> double medianSeconds(Fn fn) {
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
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

struct Size {
  int m, n, k;
  std::string name() const {
    if (m == n && n == k)
      return std::to_string(m);
    return std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k);
  }
};

Size parseSize(const std::string &text) {
  int m = 0, n = 0, k = 0;
  if (std::sscanf(text.c_str(), "%dx%dx%d", &m, &n, &k) == 3)
    return {m, n, k};
  m = std::atoi(text.c_str());
  return {m, m, m};
}

std::string compileMatmul(const Size &size) {
  std::string dir = "/tmp/rlx-bench-matmul";
  std::system(("mkdir -p " + dir).c_str());
  std::string mlir = dir + "/mm" + size.name() + ".mlir";
  std::string so = dir + "/mm" + size.name() + ".so";
  auto t = [](int r, int c) {
    return "tensor<" + std::to_string(r) + "x" + std::to_string(c) + "xf32>";
  };
  std::string ta = t(size.m, size.k), tb = t(size.k, size.n),
              tc = t(size.m, size.n);
  std::ofstream(mlir) << "func.func @mm(%a: " << ta << ", %b: " << tb
                      << ") -> " << tc << " {\n  %c = rlx.matmul %a, %b : ("
                      << ta << ", " << tb << ") -> " << tc
                      << "\n  return %c : " << tc << "\n}\n";
  std::string cmd = std::string(RLXC_PATH) + " " + mlir + " -o " + so;
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "rlxc failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return so;
}

} // namespace

int main(int argc, char **argv) {
  int threads = 1;
  std::vector<Size> sizes;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else
      sizes.push_back(parseSize(arg));
  }
  if (sizes.empty())
    for (const char *s : {"256", "512", "1024", "2048", "129x257x511"})
      sizes.push_back(parseSize(s));
  openblas_set_num_threads(threads);
  rlx_set_num_threads(threads);
#ifdef RLX_BENCH_HAVE_DNNL
  // oneDNN's CPU engine uses OpenMP: the same pool size as rlx.
  setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
  const bool haveDnnl = true;
#else
  const bool haveDnnl = false;
#endif

  std::printf("%-12s %7s %9s %9s %9s %10s %10s %10s\n", "matmul f32", "threads",
              "rlx GF/s", "oneDNN", "OpenBLAS", "vs oneDNN", "vs OpenBLAS",
              "max|diff|");
  for (const Size &size : sizes) {
    rlx::runtime::Artifact artifact =
        rlx::runtime::Artifact::load(compileMatmul(size));
    rlx::runtime::Session session(artifact);
    std::mt19937 rng(size.m * 31 + size.n);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<rlx::runtime::HostTensor> inputs;
    inputs.push_back(
        rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {size.m, size.k}));
    inputs.push_back(
        rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {size.k, size.n}));
    for (rlx::runtime::HostTensor &t : inputs)
      for (size_t i = 0; i < t.element_count(); ++i)
        t.data<float>()[i] = dist(rng);
    const float *a = inputs[0].data<float>(), *b = inputs[1].data<float>();
    std::vector<float> blas(size_t(size.m) * size.n), dnnl(blas.size());

    double rlxSeconds = medianSeconds([&] { session.call("mm", inputs); });
    double blasSeconds = medianSeconds([&] {
      cblas_sgemm(101, 111, 111, size.m, size.n, size.k, 1.0f, a, size.k, b,
                  size.n, 0.0f, blas.data(), size.n);
    });
    double dnnlSeconds = 0;
#ifdef RLX_BENCH_HAVE_DNNL
    dnnlSeconds = medianSeconds([&] {
      dnnl_sgemm('N', 'N', size.m, size.n, size.k, 1.0f, a, size.k, b, size.n,
                 0.0f, dnnl.data(), size.n);
    });
#endif
    rlx::runtime::TensorList out = session.call("mm", inputs);
    const float *c = out.at(0).data<float>();
    double diff = 0;
    for (size_t i = 0; i < blas.size(); ++i)
      diff = std::max(diff, double(std::fabs(c[i] - blas[i])));
    double flops = 2.0 * size.m * size.n * size.k;
    double rlxGf = flops / rlxSeconds / 1e9, blasGf = flops / blasSeconds / 1e9;
    double dnnlGf = haveDnnl ? flops / dnnlSeconds / 1e9 : 0;
    std::printf("%-12s %7d %9.1f %9.1f %9.1f %10.2f %10.2f %10.2e\n",
                size.name().c_str(), threads, rlxGf, dnnlGf, blasGf,
                haveDnnl ? rlxGf / dnnlGf : 0.0, rlxGf / blasGf, diff);
  }
  return 0;
}
