//===- matmul.cpp - rlx matmul against oneDNN and OpenBLAS ----------------===//
///
/// \file
/// Compiles an f32 matmul per size with rlxc, runs it through the runtime
/// and times it beside oneDNN's dnnl_sgemm (when built with libdnnl) and
/// OpenBLAS's cblas_sgemm, all with the same thread count, in one process.
/// Checks that the results agree.
/// Usage: rlx-bench-matmul [--threads N] [--bf16|--int8] SIZE... where SIZE is N
/// (square) or MxNxK; default 256 512 1024 2048 129x257x511, one thread.
/// --bf16: bf16 operands instead (rlx accumulates in f32 and rounds the
/// result to bf16), timed beside oneDNN's dnnl_gemm_bf16bf16f32 and rlx's
/// own f32 matmul of the same size. --int8: i8 operands into i32, beside
/// oneDNN's dnnl_gemm_s8s8s32 (results must be equal).
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

using rlx::bench::interleavedMedianSeconds;

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

/// Compiles `C = A B` of `dtype` operands into a `resultType` result (the
/// operands' type when empty) and returns the artifact's path.
std::string compileMatmul(const Size &size, const std::string &dtype,
                          const std::string &resultType = "") {
  std::string dir = "/tmp/rlx-bench-matmul";
  std::system(("mkdir -p " + dir).c_str());
  std::string result = resultType.empty() ? dtype : resultType;
  std::string stem = dir + "/mm" + size.name() + dtype + result;
  std::string mlir = stem + ".mlir", so = stem + ".so";
  auto t = [&](int r, int c, const std::string &element) {
    return "tensor<" + std::to_string(r) + "x" + std::to_string(c) + "x" +
           element + ">";
  };
  std::string ta = t(size.m, size.k, dtype), tb = t(size.k, size.n, dtype),
              tc = t(size.m, size.n, result);
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

/// bf16 bits of `x`, rounded to nearest even (x finite).
uint16_t toBF16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float fromBF16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

#ifdef RLX_BENCH_HAVE_DNNL
/// oneDNN's matmul primitive on bf16 operands with an f32 result (Debian's
/// oneDNN 2.6 has no bf16 gemm function), plain row-major layouts, as a
/// framework calls it; created once, executed per call.
struct DnnlBF16Matmul {
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_t a = nullptr, b = nullptr, c = nullptr;

  static void check(dnnl_status_t status, const char *what) {
    if (status != dnnl_success) {
      std::fprintf(stderr, "oneDNN: %s failed (%d)\n", what, int(status));
      std::exit(1);
    }
  }
  DnnlBF16Matmul(const Size &size, void *aData, void *bData, float *cData) {
    check(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine");
    check(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags),
          "stream");
    dnnl_memory_desc_t aMd, bMd, cMd;
    dnnl_dims_t aDims = {size.m, size.k}, bDims = {size.k, size.n},
                cDims = {size.m, size.n};
    check(dnnl_memory_desc_init_by_tag(&aMd, 2, aDims, dnnl_bf16, dnnl_ab),
          "a");
    check(dnnl_memory_desc_init_by_tag(&bMd, 2, bDims, dnnl_bf16, dnnl_ab),
          "b");
    check(dnnl_memory_desc_init_by_tag(&cMd, 2, cDims, dnnl_f32, dnnl_ab),
          "c");
    dnnl_matmul_desc_t desc;
    check(dnnl_matmul_desc_init(&desc, &aMd, &bMd, nullptr, &cMd), "desc");
    dnnl_primitive_desc_t pd;
    check(dnnl_primitive_desc_create(&pd, &desc, nullptr, engine, nullptr),
          "primitive desc");
    check(dnnl_primitive_create(&primitive, pd), "primitive");
    dnnl_primitive_desc_destroy(pd);
    check(dnnl_memory_create(&a, &aMd, engine, aData), "a memory");
    check(dnnl_memory_create(&b, &bMd, engine, bData), "b memory");
    check(dnnl_memory_create(&c, &cMd, engine, cData), "c memory");
  }
  void run() {
    dnnl_exec_arg_t args[] = {
        {DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
    check(dnnl_primitive_execute(primitive, stream, 3, args), "execute");
    check(dnnl_stream_wait(stream), "wait");
  }
  ~DnnlBF16Matmul() {
    dnnl_memory_destroy(a);
    dnnl_memory_destroy(b);
    dnnl_memory_destroy(c);
    dnnl_primitive_destroy(primitive);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(engine);
  }
};
#endif

/// The --bf16 table: rlx bf16 against oneDNN bf16 and rlx f32.
void benchBF16(const std::vector<Size> &sizes, int threads) {
  std::printf("%-12s %7s %9s %9s %9s %10s %10s %10s\n", "matmul bf16",
              "threads", "rlx GF/s", "oneDNN", "rlx f32", "vs oneDNN",
              "vs rlx f32", "max|diff|");
  for (const Size &size : sizes) {
    rlx::runtime::Artifact bf16(
        rlx::runtime::Artifact::load(compileMatmul(size, "bf16")));
    rlx::runtime::Artifact f32(
        rlx::runtime::Artifact::load(compileMatmul(size, "f32")));
    rlx::runtime::Session bf16Session(bf16), f32Session(f32);
    std::mt19937 rng(size.m * 31 + size.n);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<rlx::runtime::HostTensor> halves, floats;
    for (auto [r, c] : {std::pair{size.m, size.k}, std::pair{size.k, size.n}}) {
      halves.push_back(
          rlx::runtime::HostTensor::allocate(RLX_DTYPE_BF16, {r, c}));
      floats.push_back(
          rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {r, c}));
      for (size_t i = 0; i < halves.back().element_count(); ++i) {
        uint16_t h = toBF16(dist(rng));
        halves.back().data<uint16_t>()[i] = h;
        floats.back().data<float>()[i] = fromBF16(h);
      }
    }
    std::vector<float> dnnl(size_t(size.m) * size.n);
    std::vector<std::function<void()>> contenders = {
        [&] { bf16Session.call("mm", halves); },
        [&] { f32Session.call("mm", floats); }};
#ifdef RLX_BENCH_HAVE_DNNL
    DnnlBF16Matmul matmul(size, halves[0].data<uint16_t>(),
                          halves[1].data<uint16_t>(), dnnl.data());
    contenders.push_back([&] { matmul.run(); });
#endif
    std::vector<double> seconds = interleavedMedianSeconds(contenders);
    double rlxSeconds = seconds[0], f32Seconds = seconds[1];
    double dnnlSeconds = seconds.size() > 2 ? seconds[2] : 0;
    // rlx's result is the f32 sum rounded to bf16: within a bf16 ulp of
    // oneDNN's f32 result.
    rlx::runtime::TensorList out = bf16Session.call("mm", halves);
    const uint16_t *c = out.at(0).data<uint16_t>();
    rlx::runtime::TensorList exact = f32Session.call("mm", floats);
    double diff = 0;
    for (size_t i = 0; i < dnnl.size(); ++i)
      diff = std::max(diff, double(std::fabs(fromBF16(c[i]) -
                                             exact.at(0).data<float>()[i])));
    double flops = 2.0 * size.m * size.n * size.k;
    double rlxGf = flops / rlxSeconds / 1e9, f32Gf = flops / f32Seconds / 1e9;
    double dnnlGf = dnnlSeconds > 0 ? flops / dnnlSeconds / 1e9 : 0;
    std::printf("%-12s %7d %9.1f %9.1f %9.1f %10.2f %10.2f %10.2e\n",
                size.name().c_str(), threads, rlxGf, dnnlGf, f32Gf,
                dnnlGf > 0 ? rlxGf / dnnlGf : 0.0, rlxGf / f32Gf, diff);
  }
}

/// The --int8 table: rlx i8 x i8 -> i32 against oneDNN's s8s8s32 gemm.
void benchInt8(const std::vector<Size> &sizes, int threads) {
  std::printf("%-12s %7s %9s %9s %9s %10s %10s %10s\n", "matmul int8",
              "threads", "rlx GOP/s", "oneDNN", "rlx f32", "vs oneDNN",
              "vs rlx f32", "max|diff|");
  for (const Size &size : sizes) {
    rlx::runtime::Artifact int8(
        rlx::runtime::Artifact::load(compileMatmul(size, "i8", "i32")));
    rlx::runtime::Artifact f32(
        rlx::runtime::Artifact::load(compileMatmul(size, "f32")));
    rlx::runtime::Session int8Session(int8), f32Session(f32);
    std::mt19937 rng(size.m * 31 + size.n);
    std::uniform_int_distribution<int> dist(-128, 127);
    std::vector<rlx::runtime::HostTensor> bytes, floats;
    for (auto [r, c] : {std::pair{size.m, size.k}, std::pair{size.k, size.n}}) {
      bytes.push_back(rlx::runtime::HostTensor::allocate(RLX_DTYPE_I8, {r, c}));
      floats.push_back(
          rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {r, c}));
      for (size_t i = 0; i < bytes.back().element_count(); ++i) {
        int v = dist(rng);
        bytes.back().data<int8_t>()[i] = static_cast<int8_t>(v);
        floats.back().data<float>()[i] = static_cast<float>(v) / 128;
      }
    }
    std::vector<int32_t> dnnl(size_t(size.m) * size.n);
    std::vector<std::function<void()>> contenders = {
        [&] { int8Session.call("mm", bytes); },
        [&] { f32Session.call("mm", floats); }};
#ifdef RLX_BENCH_HAVE_DNNL
    const int32_t zero = 0;
    contenders.push_back([&] {
      dnnl_gemm_s8s8s32('N', 'N', 'F', size.m, size.n, size.k, 1.0f,
                        bytes[0].data<int8_t>(), size.k, 0,
                        bytes[1].data<int8_t>(), size.n, 0, 0.0f, dnnl.data(),
                        size.n, &zero);
    });
#endif
    std::vector<double> seconds = interleavedMedianSeconds(contenders);
    double rlxSeconds = seconds[0], f32Seconds = seconds[1];
    double dnnlSeconds = seconds.size() > 2 ? seconds[2] : 0;
    rlx::runtime::TensorList out = int8Session.call("mm", bytes);
    double diff = 0;
    if (dnnlSeconds > 0)
      for (size_t i = 0; i < dnnl.size(); ++i)
        diff = std::max(diff, std::fabs(double(out.at(0).data<int32_t>()[i]) -
                                        double(dnnl[i])));
    double ops = 2.0 * size.m * size.n * size.k;
    double rlxG = ops / rlxSeconds / 1e9, f32G = ops / f32Seconds / 1e9;
    double dnnlG = dnnlSeconds > 0 ? ops / dnnlSeconds / 1e9 : 0;
    std::printf("%-12s %7d %9.1f %9.1f %9.1f %10.2f %10.2f %10.2e\n",
                size.name().c_str(), threads, rlxG, dnnlG, f32G,
                dnnlG > 0 ? rlxG / dnnlG : 0.0, rlxG / f32G, diff);
  }
}

} // namespace

int main(int argc, char **argv) {
  int threads = 1;
  bool bf16 = false, int8 = false;
  std::vector<Size> sizes;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (arg == "--bf16")
      bf16 = true;
    else if (arg == "--int8")
      int8 = true;
    else
      sizes.push_back(parseSize(arg));
  }
  if (sizes.empty())
    for (const char *s : {"256", "512", "1024", "2048", "129x257x511"})
      sizes.push_back(parseSize(s));
  openblas_set_num_threads(threads);
  rlx_set_num_threads(threads);
#ifdef RLX_BENCH_HAVE_DNNL
  // oneDNN on the same pool size as rlx's (setting OMP_NUM_THREADS here, as
  // this bench once did, left oneDNN on every core).
  if (!rlx::bench::ensureOmpThreads(threads, argv))
    return 1;
  const bool haveDnnl = true;
#else
  const bool haveDnnl = false;
#endif
  if (bf16) {
    benchBF16(sizes, threads);
    return 0;
  }
  if (int8) {
    benchInt8(sizes, threads);
    return 0;
  }

  std::printf("%-12s %7s %9s %9s %9s %10s %10s %10s\n", "matmul f32", "threads",
              "rlx GF/s", "oneDNN", "OpenBLAS", "vs oneDNN", "vs OpenBLAS",
              "max|diff|");
  for (const Size &size : sizes) {
    rlx::runtime::Artifact artifact =
        rlx::runtime::Artifact::load(compileMatmul(size, "f32"));
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

    std::vector<std::function<void()>> contenders = {
        [&] { session.call("mm", inputs); },
        [&] {
          cblas_sgemm(101, 111, 111, size.m, size.n, size.k, 1.0f, a, size.k,
                      b, size.n, 0.0f, blas.data(), size.n);
        }};
#ifdef RLX_BENCH_HAVE_DNNL
    contenders.push_back([&] {
      dnnl_sgemm('N', 'N', size.m, size.n, size.k, 1.0f, a, size.k, b, size.n,
                 0.0f, dnnl.data(), size.n);
    });
#endif
    std::vector<double> seconds = interleavedMedianSeconds(contenders);
    double rlxSeconds = seconds[0], blasSeconds = seconds[1];
    double dnnlSeconds = seconds.size() > 2 ? seconds[2] : 0;
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
