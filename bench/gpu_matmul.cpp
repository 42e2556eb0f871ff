//===- gpu_matmul.cpp - rlx GPU matmul against cuBLAS ---------------------===//
///
/// \file
/// Compiles an f32 matmul per size with `rlxc --target=T` (cuda by default,
/// or vulkan/rocm), keeps A and B on the device and the product there too
/// (device-resident tensors, so the timing is the kernels plus the call's
/// synchronization, not the copies), and prints GFLOP/s next to cuBLAS's
/// sgemm on the same device and sizes when the target is cuda. A sample of
/// the product is checked against f64 dot products on the host. With
/// `--bf16` A and B are bf16 and the product f32 (on CUDA's tensor cores),
/// against cuBLAS's bf16 GEMM into f32 with f32 accumulation; rlx's product
/// is rounded to bf16 once (rlx.matmul's result type), so its error is
/// about 2^-9 relative.
///
///   rlx-bench-gpu-matmul [--target cuda|vulkan|rocm] [--bf16] [N | MxNxK]...
///
//===----------------------------------------------------------------------===//

#include "rlx/runtime.h"

#ifdef RLX_BENCH_HAVE_CUBLAS
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

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

namespace {

struct Size {
  int64_t m, n, k;
};

bool check(rlx_status_t status, const char *what) {
  if (!status)
    return true;
  std::fprintf(stderr, "%s: %s\n", what, rlx_status_message(status));
  rlx_status_free(status);
  return false;
}

/// The bf16 bits of `x`, rounded to nearest even (finite inputs).
uint16_t toBF16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

float fromBF16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

std::string compile(const std::string &target, const Size &s, bool bf16) {
  std::string stem = "/tmp/rlx-bench-gpu-mm-" + target + (bf16 ? "-bf16-" : "-") +
                     std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                     std::to_string(s.k);
  auto type = [](int64_t rows, int64_t cols, const char *element) {
    return "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) +
           "x" + element + ">";
  };
  const char *in = bf16 ? "bf16" : "f32";
  std::string a = type(s.m, s.k, in), b = type(s.k, s.n, in),
              c = type(s.m, s.n, in), out = type(s.m, s.n, "f32");
  std::ofstream mlir(stem + ".mlir");
  mlir << "func.func @mm(%a: " << a << ", %b: " << b << ") -> " << out
       << " {\n  %c = rlx.matmul %a, %b : (" << a << ", " << b << ") -> " << c
       << "\n";
  if (bf16)
    mlir << "  %d = rlx.cast %c : " << c << " -> " << out
         << "\n  return %d : " << out << "\n}\n";
  else
    mlir << "  return %c : " << out << "\n}\n";
  mlir.close();
  // $RLX_RLXC: bench/rlxc_replay.sh on a GPU machine without MLIR.
  const char *rlxc = std::getenv("RLX_RLXC");
  std::string cmd = std::string(rlxc && *rlxc ? rlxc : RLXC_PATH) + " " + stem +
                    ".mlir --target=" + target + " -o " + stem + ".so";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "rlxc failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return stem + ".so";
}

double medianMs(const std::vector<double> &times) {
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  return sorted[sorted.size() / 2];
}

#ifdef RLX_BENCH_HAVE_CUBLAS
/// cuBLAS sgemm on row-major A (MxK) and B (KxN): C^T = B^T A^T in
/// column-major terms. Median ms over `reps`, or a negative value.
/// With `bf16`, `a` and `b` hold bf16 bits (2 bytes an element) and the
/// GEMM is cublasGemmEx's bf16 x bf16 -> f32 with f32 accumulation.
double cublasMs(const Size &s, const void *a, const void *b, bool bf16,
                int reps) {
  size_t element = bf16 ? 2 : 4;
  size_t aBytes = size_t(s.m * s.k) * element,
         bBytes = size_t(s.k * s.n) * element;
  void *da, *db, *dc;
  if (cudaMalloc(&da, aBytes) || cudaMalloc(&db, bBytes) ||
      cudaMalloc(&dc, size_t(s.m * s.n) * 4))
    return -1;
  cudaMemcpy(da, a, aBytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bBytes, cudaMemcpyHostToDevice);
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
    return -1;
  const float one = 1, zero = 0;
  auto run = [&] {
    if (bf16)
      cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, db,
                   CUDA_R_16BF, s.n, da, CUDA_R_16BF, s.k, &zero, dc,
                   CUDA_R_32F, s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    else
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one,
                  static_cast<float *>(db), s.n, static_cast<float *>(da),
                  s.k, &zero, static_cast<float *>(dc), s.n);
    cudaDeviceSynchronize();
  };
  run();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count());
  }
  cublasDestroy(handle);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return medianMs(times);
}
#endif

} // namespace

int main(int argc, char **argv) {
  std::string target = "cuda";
  bool bf16 = false;
  std::vector<Size> sizes;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--target" && i + 1 < argc) {
      target = argv[++i];
      continue;
    }
    if (arg == "--bf16") {
      bf16 = true;
      continue;
    }
    Size s{};
    if (std::sscanf(arg.c_str(), "%ldx%ldx%ld", &s.m, &s.n, &s.k) != 3)
      s.m = s.n = s.k = std::atol(arg.c_str());
    sizes.push_back(s);
  }
  if (sizes.empty())
    sizes = target == "vulkan" ? std::vector<Size>{{256, 256, 256}}
                               : std::vector<Size>{{1024, 1024, 1024},
                                                   {2048, 2048, 2048},
                                                   {4096, 4096, 4096},
                                                   {8192, 8192, 8192}};
  std::printf("%-16s %10s %10s %10s %8s %10s\n", "size", "rlx ms", "GFLOP/s",
              "cuBLAS", "ratio", "max err");
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0, 1);
  for (const Size &s : sizes) {
    rlx_artifact_t *artifact = nullptr;
    rlx_session_t *session = nullptr;
    std::string so = compile(target, s, bf16);
    if (!check(rlx_artifact_load(so.c_str(), &artifact), "load") ||
        !check(rlx_session_create(artifact, &session), "session"))
      return 1;
    // With bf16 the f32 values are the bf16 ones exactly (the reference's
    // operands), their bits what the device reads.
    std::vector<float> a(size_t(s.m * s.k)), b(size_t(s.k * s.n));
    std::vector<uint16_t> a16, b16;
    for (float &x : a)
      x = normal(rng);
    for (float &x : b)
      x = normal(rng);
    if (bf16) {
      for (float &x : a)
        a16.push_back(toBF16(x)), x = fromBF16(a16.back());
      for (float &x : b)
        b16.push_back(toBF16(x)), x = fromBF16(b16.back());
    }
    const void *aData = bf16 ? static_cast<const void *>(a16.data()) : a.data();
    const void *bData = bf16 ? static_cast<const void *>(b16.data()) : b.data();
    rlx_dtype_t dtype = bf16 ? RLX_DTYPE_BF16 : RLX_DTYPE_F32;
    int64_t aDims[] = {s.m, s.k}, bDims[] = {s.k, s.n};
    rlx_tensor_t *hostA, *hostB, *devA, *devB;
    check(rlx_tensor_wrap(dtype, 2, aDims, const_cast<void *>(aData), nullptr,
                          nullptr, &hostA),
          "wrap");
    check(rlx_tensor_wrap(dtype, 2, bDims, const_cast<void *>(bData), nullptr,
                          nullptr, &hostB),
          "wrap");
    if (!check(rlx_session_to_device(session, hostA, &devA), "upload") ||
        !check(rlx_session_to_device(session, hostB, &devB), "upload"))
      return 1;
    rlx_call_options_t options;
    rlx_call_options_initialize(&options);
    options.outputs_on_device = 1;
    rlx_tensor_t *inputs[] = {devA, devB};
    rlx_tensor_list_t *outputs = nullptr;
    auto call = [&]() -> bool {
      if (outputs)
        rlx_tensor_list_free(outputs);
      outputs = nullptr;
      return check(rlx_session_call_with_options(session, "mm", inputs, 2,
                                                 &options, &outputs),
                   "call");
    };
    if (!call())
      return 1;
    int reps = s.m * s.n * s.k > (int64_t(1) << 33) ? 5 : 20;
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      if (!call())
        return 1;
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - t0)
                          .count());
    }
    double ms = medianMs(times);
    // Check 64 entries of the product against f64 dot products.
    rlx_tensor_t *host = nullptr;
    check(rlx_tensor_to_host(rlx_tensor_list_get(outputs, 0), &host),
          "download");
    const float *c = static_cast<const float *>(rlx_tensor_data(host));
    double maxErr = 0;
    std::uniform_int_distribution<int64_t> row(0, s.m - 1), col(0, s.n - 1);
    for (int t = 0; t < 64; ++t) {
      int64_t i = row(rng), j = col(rng);
      double ref = 0;
      for (int64_t p = 0; p < s.k; ++p)
        ref += double(a[i * s.k + p]) * double(b[p * s.n + j]);
      maxErr = std::max(maxErr, std::abs(ref - c[i * s.n + j]) /
                                    std::max(1.0, std::abs(ref)));
    }
    double gflops = 2.0 * s.m * s.n * s.k / (ms * 1e6);
    double refMs = -1;
#ifdef RLX_BENCH_HAVE_CUBLAS
    if (target == "cuda")
      refMs = cublasMs(s, aData, bData, bf16, reps);
#endif
    char name[64];
    std::snprintf(name, sizeof name, "%ldx%ldx%ld", s.m, s.n, s.k);
    if (refMs > 0) {
      double refGflops = 2.0 * s.m * s.n * s.k / (refMs * 1e6);
      std::printf("%-16s %10.3f %10.1f %10.1f %8.3f %10.2e\n", name, ms,
                  gflops, refGflops, gflops / refGflops, maxErr);
    } else {
      std::printf("%-16s %10.3f %10.1f %10s %8s %10.2e\n", name, ms, gflops,
                  "-", "-", maxErr);
    }
    rlx_tensor_release(host);
    rlx_tensor_list_free(outputs);
    rlx_tensor_release(devA);
    rlx_tensor_release(devB);
    rlx_tensor_release(hostA);
    rlx_tensor_release(hostB);
    rlx_session_release(session);
    rlx_artifact_release(artifact);
  }
  return 0;
}
