//===- conv.cpp - rlx convolutions against oneDNN -------------------------===//
///
/// \file
/// Compiles each distinct convolution of ResNet-50 (NHWC, HWIO filter, f32)
/// with rlxc, runs it through the runtime and times it beside oneDNN's
/// forward-inference convolution in the same process with the same thread
/// count: once with NHWC activations (rlx's layout) and once with the
/// layouts oneDNN picks itself (blocked channels; inputs reordered outside
/// the timed call, as a model kept in that layout would). Filters are
/// reordered once, outside the timing, as a deployed model pre-packs them:
/// rlx's filter is a weight (`rlx.param`) bound once, so rlx packs it at
/// binding where its kernel reads packed panels, as in a compiled model.
/// The three are timed in turns, so a slow spell of a shared machine falls
/// on each alike.
/// The ratio is rlx's time over the faster oneDNN one (higher is better:
/// oneDNN ms / rlx ms). Checks that rlx and oneDNN agree.
/// Usage: rlx-bench-conv [--threads N] [--batch N] [NAME...]; default all
/// shapes, batch 1, one thread.
///
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"
#include "rlx/runtime.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#ifdef RLX_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace {

/// One convolution: square input and window, same stride and padding on
/// both spatial dims.
struct Conv {
  const char *name;
  int h, c, f, k, stride, pad;
  int out() const { return (h + 2 * pad - k) / stride + 1; }
};

/// Every distinct conv of ResNet-50 v1.5 (torchvision: the stride of a
/// bottleneck's first block on its 3x3) at 224x224.
const Conv kResNet50[] = {
    {"stem7x7s2_3-64@224", 224, 3, 64, 7, 2, 3},
    {"1x1_64-64@56", 56, 64, 64, 1, 1, 0},
    {"3x3_64-64@56", 56, 64, 64, 3, 1, 1},
    {"1x1_64-256@56", 56, 64, 256, 1, 1, 0},
    {"1x1_256-64@56", 56, 256, 64, 1, 1, 0},
    {"1x1_256-128@56", 56, 256, 128, 1, 1, 0},
    {"3x3s2_128-128@56", 56, 128, 128, 3, 2, 1},
    {"1x1s2_256-512@56", 56, 256, 512, 1, 2, 0},
    {"1x1_128-512@28", 28, 128, 512, 1, 1, 0},
    {"1x1_512-128@28", 28, 512, 128, 1, 1, 0},
    {"3x3_128-128@28", 28, 128, 128, 3, 1, 1},
    {"1x1_512-256@28", 28, 512, 256, 1, 1, 0},
    {"3x3s2_256-256@28", 28, 256, 256, 3, 2, 1},
    {"1x1s2_512-1024@28", 28, 512, 1024, 1, 2, 0},
    {"1x1_256-1024@14", 14, 256, 1024, 1, 1, 0},
    {"1x1_1024-256@14", 14, 1024, 256, 1, 1, 0},
    {"3x3_256-256@14", 14, 256, 256, 3, 1, 1},
    {"1x1_1024-512@14", 14, 1024, 512, 1, 1, 0},
    {"3x3s2_512-512@14", 14, 512, 512, 3, 2, 1},
    {"1x1s2_1024-2048@14", 14, 1024, 2048, 1, 2, 0},
    {"1x1_512-2048@7", 7, 512, 2048, 1, 1, 0},
    {"1x1_2048-512@7", 7, 2048, 512, 1, 1, 0},
    {"3x3_512-512@7", 7, 512, 512, 3, 1, 1},
};

std::string tensorType(std::vector<int> dims) {
  std::string t = "tensor<";
  for (int d : dims)
    t += std::to_string(d) + "x";
  return t + "f32>";
}

std::string compileConv(const Conv &conv, int batch) {
  std::string dir = "/tmp/rlx-bench-conv";
  std::system(("mkdir -p " + dir).c_str());
  std::string stem = dir + "/" + conv.name + "_b" + std::to_string(batch);
  std::replace(stem.begin() + dir.size(), stem.end(), '@', '_');
  int o = conv.out();
  std::string tx = tensorType({batch, conv.h, conv.h, conv.c}),
              tw = tensorType({conv.k, conv.k, conv.c, conv.f}),
              ty = tensorType({batch, o, o, conv.f});
  std::string s = std::to_string(conv.stride), p = std::to_string(conv.pad);
  std::ofstream(stem + ".mlir")
      << "func.func @conv(%x: " << tx << ") -> " << ty
      << " {\n  %w = rlx.param \"w\" : " << tw
      << "\n  %y = rlx.conv2d %x, %w {strides = array<i64: " << s << ", "
      << s << ">, padding = array<i64: " << p << ", " << p << ", " << p
      << ", " << p << ">} : (" << tx << ", " << tw << ") -> " << ty
      << "\n  return %y : " << ty << "\n}\n";
  std::string cmd =
      std::string(RLXC_PATH) + " " + stem + ".mlir -o " + stem + ".so";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "rlxc failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return stem + ".so";
}

#ifdef RLX_BENCH_HAVE_DNNL
/// oneDNN's forward-inference convolution of `conv`, with activations in
/// NHWC or in the layouts oneDNN prefers; the filter comes from HWIO.
struct DnnlConv {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward primitive;
  dnnl::memory src, weights, dst, nhwcDst;
  bool blocked;

  DnnlConv(const Conv &conv, int batch, bool blocked, const float *x,
           const float *w)
      : blocked(blocked) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    dnnl::memory::dim o = conv.out();
    dnnl::memory::desc nhwcSrc({batch, conv.c, conv.h, conv.h}, dt::f32,
                               tag::nhwc);
    dnnl::memory::desc nhwcOut({batch, conv.f, o, o}, dt::f32, tag::nhwc);
    dnnl::memory::desc hwio({conv.f, conv.c, conv.k, conv.k}, dt::f32,
                            tag::hwio);
    dnnl::memory::desc anySrc({batch, conv.c, conv.h, conv.h}, dt::f32,
                              tag::any);
    dnnl::memory::desc anyOut({batch, conv.f, o, o}, dt::f32, tag::any);
    dnnl::memory::desc anyWeights({conv.f, conv.c, conv.k, conv.k}, dt::f32,
                                  tag::any);
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::convolution_direct, blocked ? anySrc : nhwcSrc,
        anyWeights, blocked ? anyOut : nhwcOut, {conv.stride, conv.stride},
        {0, 0}, {conv.pad, conv.pad}, {conv.pad, conv.pad});
    dnnl::convolution_forward::primitive_desc pd(desc, engine);
    primitive = dnnl::convolution_forward(pd);
    // Inputs and the filter into the primitive's layouts, outside the timing.
    dnnl::memory userSrc(nhwcSrc, engine, const_cast<float *>(x));
    dnnl::memory userWeights(hwio, engine, const_cast<float *>(w));
    src = dnnl::memory(pd.src_desc(), engine);
    weights = dnnl::memory(pd.weights_desc(), engine);
    dst = dnnl::memory(pd.dst_desc(), engine);
    nhwcDst = dnnl::memory(nhwcOut, engine);
    dnnl::reorder(userSrc, src).execute(stream, userSrc, src);
    dnnl::reorder(userWeights, weights).execute(stream, userWeights, weights);
    stream.wait();
  }

  void run() {
    primitive.execute(stream, {{DNNL_ARG_SRC, src},
                               {DNNL_ARG_WEIGHTS, weights},
                               {DNNL_ARG_DST, dst}});
    stream.wait();
  }

  /// The last result in NHWC.
  const float *result() {
    dnnl::reorder(dst, nhwcDst).execute(stream, dst, nhwcDst);
    stream.wait();
    return static_cast<const float *>(nhwcDst.get_data_handle());
  }
};
#endif

} // namespace

int main(int argc, char **argv) {
  int threads = 1, batch = 1;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (arg == "--batch" && i + 1 < argc)
      batch = std::atoi(argv[++i]);
    else
      names.push_back(arg);
  }
#ifdef RLX_BENCH_HAVE_DNNL
  // oneDNN on the same pool size as rlx's.
  if (!rlx::bench::ensureOmpThreads(threads, argv))
    return 1;
#endif
  rlx_set_num_threads(threads);

  std::printf("%-20s %3s %2s %8s %9s %9s %9s %7s %9s\n", "conv f32 NHWC", "N",
              "T", "GFLOP", "rlx ms", "dnnl nhwc", "dnnl blk", "ratio",
              "max|diff|");
  for (const Conv &conv : kResNet50) {
    if (!names.empty() &&
        std::find(names.begin(), names.end(), conv.name) == names.end())
      continue;
    rlx::runtime::Artifact artifact =
        rlx::runtime::Artifact::load(compileConv(conv, batch));
    rlx::runtime::Session session(artifact);
    std::mt19937 rng(conv.h * 31 + conv.c * 7 + conv.f);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<rlx::runtime::HostTensor> inputs;
    inputs.push_back(rlx::runtime::HostTensor::allocate(
        RLX_DTYPE_F32, {batch, conv.h, conv.h, conv.c}));
    rlx::runtime::HostTensor filter = rlx::runtime::HostTensor::allocate(
        RLX_DTYPE_F32, {conv.k, conv.k, conv.c, conv.f});
    for (rlx::runtime::HostTensor *t : {&inputs[0], &filter})
      for (size_t i = 0; i < t->element_count(); ++i)
        t->data<float>()[i] = dist(rng);
    session.bind_tensor("w", filter);
    // oneDNN first: its GNU OpenMP workers are created before libomp binds
    // the main thread (KMP_AFFINITY), so they do not inherit its one core.
    // Timed in turns (interleavedMedianSeconds): rlx first in the list,
    // each contender's median over the same slow and fast spells.
    std::vector<std::function<void()>> contenders = {
        [&] { session.call("conv", inputs); }};
    double nhwcSeconds = 0, blockedSeconds = 0, diff = 0;
#ifdef RLX_BENCH_HAVE_DNNL
    const float *x = inputs[0].data<float>(), *w = filter.data<float>();
    DnnlConv nhwc(conv, batch, /*blocked=*/false, x, w);
    DnnlConv blocked(conv, batch, /*blocked=*/true, x, w);
    contenders.push_back([&] { nhwc.run(); });
    contenders.push_back([&] { blocked.run(); });
#endif
    std::vector<double> medians =
        rlx::bench::interleavedMedianSeconds(contenders);
    double rlxSeconds = medians[0];
#ifdef RLX_BENCH_HAVE_DNNL
    nhwcSeconds = medians[1];
    blockedSeconds = medians[2];
#endif
    rlx::runtime::TensorList out = session.call("conv", inputs);
#ifdef RLX_BENCH_HAVE_DNNL
    const float *y = out.at(0).data<float>(), *ref = nhwc.result();
    for (size_t i = 0; i < out.at(0).element_count(); ++i)
      diff = std::max(diff, double(std::fabs(y[i] - ref[i])));
#endif
    double best = std::min(nhwcSeconds, blockedSeconds);
    double o = conv.out();
    double gflop =
        2.0 * batch * o * o * conv.f * conv.k * conv.k * conv.c / 1e9;
    std::printf("%-20s %3d %2d %8.3f %9.3f %9.3f %9.3f %7.2f %9.2e\n",
                conv.name, batch, threads, gflop, rlxSeconds * 1e3,
                nhwcSeconds * 1e3, blockedSeconds * 1e3,
                best > 0 ? best / rlxSeconds : 0.0, diff);
    std::fflush(stdout);
  }
  return 0;
}
