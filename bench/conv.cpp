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
/// With --backward, the training halves instead: the gradients with respect
/// to the input (dx) and the filter (dw) of rlx's autodiff, each against
/// oneDNN's backward-data and backward-weights convolution.
/// With --bf16, the forward conv of bf16 activations and filters summed in
/// f32 (a bf16 model's conv as rlx-accumulate-in-f32 leaves it, with an f32
/// result), against oneDNN's bf16 convolution with an f32 destination.
/// Usage: rlx-bench-conv [--threads N] [--batch N] [--backward | --bf16]
/// [NAME...]; default all shapes, batch 1, one thread, forward f32.
///
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"
#include "rlx/runtime.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

std::string tensorType(std::vector<int> dims, const char *element = "f32") {
  std::string t = "tensor<";
  for (int d : dims)
    t += std::to_string(d) + "x";
  return t + element + ">";
}

/// The conv's attributes in rlx's syntax.
std::string convAttributes(const Conv &conv) {
  std::string s = std::to_string(conv.stride), p = std::to_string(conv.pad);
  return "{strides = array<i64: " + s + ", " + s +
         ">, padding = array<i64: " + p + ", " + p + ", " + p + ", " + p + ">}";
}

/// Compiles `conv` with rlxc. Forward: `conv(x) -> y` with the filter a
/// weight `w`. Backward: `dx(x, w, dy)` and `dw(x, w, dy)`, the conv's
/// vector-Jacobian products with respect to its input and its filter (the
/// two halves of a training step's conv), through rlx's autodiff. bf16
/// (forward only): `x` and `w` bf16, widened to f32 for the conv.
std::string compileConv(const Conv &conv, int batch, bool backward,
                        bool bf16 = false) {
  std::string dir = "/tmp/rlx-bench-conv";
  std::system(("mkdir -p " + dir).c_str());
  std::string stem = dir + "/" + conv.name + "_b" + std::to_string(batch) +
                     (backward ? "_bwd" : "") + (bf16 ? "_bf16" : "");
  std::replace(stem.begin() + dir.size(), stem.end(), '@', '_');
  int o = conv.out();
  std::string tx = tensorType({batch, conv.h, conv.h, conv.c}),
              tw = tensorType({conv.k, conv.k, conv.c, conv.f}),
              ty = tensorType({batch, o, o, conv.f});
  std::ofstream mlir(stem + ".mlir");
  if (bf16) {
    std::string hx = tensorType({batch, conv.h, conv.h, conv.c}, "bf16"),
                hw = tensorType({conv.k, conv.k, conv.c, conv.f}, "bf16");
    mlir << "func.func @conv(%xh: " << hx << ") -> " << ty
         << " {\n  %wh = rlx.param \"w\" : " << hw
         << "\n  %x = rlx.cast %xh : " << hx << " -> " << tx
         << "\n  %w = rlx.cast %wh : " << hw << " -> " << tw
         << "\n  %y = rlx.conv2d %x, %w " << convAttributes(conv) << " : ("
         << tx << ", " << tw << ") -> " << ty << "\n  return %y : " << ty
         << "\n}\n";
  } else if (!backward) {
    mlir << "func.func @conv(%x: " << tx << ") -> " << ty
         << " {\n  %w = rlx.param \"w\" : " << tw
         << "\n  %y = rlx.conv2d %x, %w " << convAttributes(conv) << " : ("
         << tx << ", " << tw << ") -> " << ty << "\n  return %y : " << ty
         << "\n}\n";
  } else {
    mlir << "func.func private @f(%x: " << tx << ", %w: " << tw << ") -> " << ty
         << " {\n  %y = rlx.conv2d %x, %w " << convAttributes(conv) << " : ("
         << tx << ", " << tw << ") -> " << ty << "\n  return %y : " << ty
         << "\n}\n";
    const std::tuple<const char *, int, std::string> entries[] = {
        {"dx", 0, tx}, {"dw", 1, tw}};
    for (const auto &[name, wrt, type] : entries)
      mlir << "func.func @" << name << "(%x: " << tx << ", %w: " << tw
           << ", %dy: " << ty << ") -> " << type
           << " {\n  %r:2 = rlx.vjp @f(%x, %w) cotangents(%dy) {wrt = "
              "array<i64: "
           << wrt << ">} : (" << tx << ", " << tw << ", " << ty << ") -> ("
           << ty << ", " << type << ")\n  return %r#1 : " << type << "\n}\n";
  }
  mlir.close();
  std::string cmd =
      std::string(RLXC_PATH) + " " + stem + ".mlir -o " + stem + ".so";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "rlxc failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return stem + ".so";
}

#ifdef RLX_BENCH_HAVE_DNNL
/// `from` reordered into `to` (a memory in rlx's layout), its values.
const float *readBack(dnnl::stream &stream, dnnl::memory &from,
                      dnnl::memory &to) {
  dnnl::reorder(from, to).execute(stream, from, to);
  stream.wait();
  return static_cast<const float *>(to.get_data_handle());
}

/// oneDNN's forward-inference convolution of `conv`, with activations in
/// NHWC or in the layouts oneDNN prefers; the filter comes from HWIO. With
/// `bf16`, its source and filter are bf16 (`x` and `w` hold bf16 bits) and
/// its destination f32.
struct DnnlConv {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward primitive;
  dnnl::memory src, weights, dst, nhwcDst;
  bool blocked;

  DnnlConv(const Conv &conv, int batch, bool blocked, const void *x,
           const void *w, bool bf16 = false)
      : blocked(blocked) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    dt in = bf16 ? dt::bf16 : dt::f32;
    dnnl::memory::dim o = conv.out();
    dnnl::memory::desc nhwcSrc({batch, conv.c, conv.h, conv.h}, in,
                               tag::nhwc);
    dnnl::memory::desc nhwcOut({batch, conv.f, o, o}, dt::f32, tag::nhwc);
    dnnl::memory::desc hwio({conv.f, conv.c, conv.k, conv.k}, in, tag::hwio);
    dnnl::memory::desc anySrc({batch, conv.c, conv.h, conv.h}, in, tag::any);
    dnnl::memory::desc anyOut({batch, conv.f, o, o}, dt::f32, tag::any);
    dnnl::memory::desc anyWeights({conv.f, conv.c, conv.k, conv.k}, in,
                                  tag::any);
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::convolution_direct, blocked ? anySrc : nhwcSrc,
        anyWeights, blocked ? anyOut : nhwcOut, {conv.stride, conv.stride},
        {0, 0}, {conv.pad, conv.pad}, {conv.pad, conv.pad});
    dnnl::convolution_forward::primitive_desc pd(desc, engine);
    primitive = dnnl::convolution_forward(pd);
    // Inputs and the filter into the primitive's layouts, outside the timing.
    dnnl::memory userSrc(nhwcSrc, engine, const_cast<void *>(x));
    dnnl::memory userWeights(hwio, engine, const_cast<void *>(w));
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
  const float *result() { return readBack(stream, dst, nhwcDst); }
};

/// oneDNN's backward convolutions of `conv` (data and weights gradients),
/// with activations in NHWC or in the layouts oneDNN prefers; the filter
/// and the output gradient come from rlx's layouts, reordered outside the
/// timing.
struct DnnlConvBackward {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_backward_data data;
  dnnl::convolution_backward_weights weights;
  dnnl::memory src, filter, diffDst, diffSrc, diffWeights, nhwcDiffSrc,
      hwioDiffWeights;

  DnnlConvBackward(const Conv &conv, int batch, bool blocked, const float *x,
                   const float *w, const float *dy) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    dnnl::memory::dim o = conv.out();
    dnnl::memory::dims srcDims = {batch, conv.c, conv.h, conv.h},
                       dstDims = {batch, conv.f, o, o},
                       weightDims = {conv.f, conv.c, conv.k, conv.k},
                       strides = {conv.stride, conv.stride},
                       pad = {conv.pad, conv.pad};
    dnnl::memory::desc nhwcSrc(srcDims, dt::f32, tag::nhwc),
        nhwcDst(dstDims, dt::f32, tag::nhwc),
        hwio(weightDims, dt::f32, tag::hwio);
    dnnl::memory::desc srcDesc =
        blocked ? dnnl::memory::desc(srcDims, dt::f32, tag::any) : nhwcSrc;
    dnnl::memory::desc dstDesc =
        blocked ? dnnl::memory::desc(dstDims, dt::f32, tag::any) : nhwcDst;
    dnnl::memory::desc anyWeights(weightDims, dt::f32, tag::any);
    dnnl::convolution_forward::primitive_desc hint(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                        dnnl::algorithm::convolution_direct,
                                        srcDesc, anyWeights, dstDesc, strides,
                                        pad, pad),
        engine);
    dnnl::convolution_backward_data::primitive_desc dataPd(
        dnnl::convolution_backward_data::desc(
            dnnl::algorithm::convolution_direct, srcDesc, anyWeights, dstDesc,
            strides, pad, pad),
        engine, hint);
    dnnl::convolution_backward_weights::primitive_desc weightsPd(
        dnnl::convolution_backward_weights::desc(
            dnnl::algorithm::convolution_direct, srcDesc, anyWeights, dstDesc,
            strides, pad, pad),
        engine, hint);
    data = dnnl::convolution_backward_data(dataPd);
    weights = dnnl::convolution_backward_weights(weightsPd);
    src = into(weightsPd.src_desc(), nhwcSrc, x);
    filter = into(dataPd.weights_desc(), hwio, w);
    diffDst = into(dataPd.diff_dst_desc(), nhwcDst, dy);
    diffSrc = dnnl::memory(dataPd.diff_src_desc(), engine);
    diffWeights = dnnl::memory(weightsPd.diff_weights_desc(), engine);
    nhwcDiffSrc = dnnl::memory(nhwcSrc, engine);
    hwioDiffWeights = dnnl::memory(hwio, engine);
  }

  /// `values` (in `user`'s layout) reordered into a new memory of `desc`.
  dnnl::memory into(const dnnl::memory::desc &desc,
                    const dnnl::memory::desc &user, const float *values) {
    dnnl::memory from(user, engine, const_cast<float *>(values));
    dnnl::memory to(desc, engine);
    dnnl::reorder(from, to).execute(stream, from, to);
    stream.wait();
    return to;
  }

  void runData() {
    data.execute(stream, {{DNNL_ARG_DIFF_DST, diffDst},
                          {DNNL_ARG_WEIGHTS, filter},
                          {DNNL_ARG_DIFF_SRC, diffSrc}});
    stream.wait();
  }

  void runWeights() {
    weights.execute(stream, {{DNNL_ARG_SRC, src},
                             {DNNL_ARG_DIFF_DST, diffDst},
                             {DNNL_ARG_DIFF_WEIGHTS, diffWeights}});
    stream.wait();
  }

  /// The last input gradient in NHWC.
  const float *dataResult() { return readBack(stream, diffSrc, nhwcDiffSrc); }

  /// The last filter gradient in HWIO.
  const float *weightsResult() {
    return readBack(stream, diffWeights, hwioDiffWeights);
  }
};
#endif

/// The largest absolute difference between `n` values of `a` and `b`.
double maxDiff(const float *a, const float *b, size_t n) {
  double diff = 0;
  for (size_t i = 0; i < n; ++i)
    diff = std::max(diff, double(std::fabs(a[i] - b[i])));
  return diff;
}

/// `t`'s f32 values rounded to bf16 (nearest even), as a new bf16 tensor.
rlx::runtime::HostTensor toBF16(const rlx::runtime::HostTensor &t) {
  rlx::runtime::HostTensor h =
      rlx::runtime::HostTensor::allocate(RLX_DTYPE_BF16, t.dims());
  for (size_t i = 0; i < t.element_count(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &t.data<float>()[i], 4);
    bits += 0x7fff + ((bits >> 16) & 1);
    h.data<uint16_t>()[i] = uint16_t(bits >> 16);
  }
  return h;
}

/// Random values in [-1, 1) of `shape`.
rlx::runtime::HostTensor uniform(std::mt19937 &rng,
                                 std::vector<int64_t> shape) {
  std::uniform_real_distribution<float> dist(-1, 1);
  rlx::runtime::HostTensor t =
      rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, shape);
  for (size_t i = 0; i < t.element_count(); ++i)
    t.data<float>()[i] = dist(rng);
  return t;
}

double gflopOf(const Conv &conv, int batch) {
  double o = conv.out();
  return 2.0 * batch * o * o * conv.f * conv.k * conv.k * conv.c / 1e9;
}

void benchForward(const Conv &conv, int batch, int threads, bool bf16) {
  rlx::runtime::Artifact artifact =
      rlx::runtime::Artifact::load(compileConv(conv, batch, false, bf16));
  rlx::runtime::Session session(artifact);
  std::mt19937 rng(conv.h * 31 + conv.c * 7 + conv.f);
  std::vector<rlx::runtime::HostTensor> inputs;
  inputs.push_back(uniform(rng, {batch, conv.h, conv.h, conv.c}));
  rlx::runtime::HostTensor filter =
      uniform(rng, {conv.k, conv.k, conv.c, conv.f});
  if (bf16) {
    inputs[0] = toBF16(inputs[0]);
    filter = toBF16(filter);
  }
  session.bind_tensor("w", filter);
  // oneDNN first: its GNU OpenMP workers are created before libomp binds
  // the main thread (KMP_AFFINITY), so they do not inherit its one core.
  // Timed in turns (interleavedMedianSeconds): rlx first in the list,
  // each contender's median over the same slow and fast spells.
  std::vector<std::function<void()>> contenders = {
      [&] { session.call("conv", inputs); }};
  double nhwcSeconds = 0, blockedSeconds = 0, diff = 0;
#ifdef RLX_BENCH_HAVE_DNNL
  const void *x = inputs[0].data(), *w = filter.data();
  DnnlConv nhwc(conv, batch, /*blocked=*/false, x, w, bf16);
  DnnlConv blocked(conv, batch, /*blocked=*/true, x, w, bf16);
  contenders.push_back([&] { nhwc.run(); });
  contenders.push_back([&] { blocked.run(); });
#endif
  std::vector<double> medians =
      rlx::bench::interleavedMedianSeconds(contenders);
  double rlxSeconds = medians[0];
#ifdef RLX_BENCH_HAVE_DNNL
  nhwcSeconds = medians[1];
  blockedSeconds = medians[2];
  rlx::runtime::TensorList out = session.call("conv", inputs);
  diff = maxDiff(out.at(0).data<float>(), nhwc.result(),
                 out.at(0).element_count());
#endif
  double best = std::min(nhwcSeconds, blockedSeconds);
  std::printf("%-20s %3d %2d %8.3f %9.3f %9.3f %9.3f %7.2f %9.2e\n", conv.name,
              batch, threads, gflopOf(conv, batch), rlxSeconds * 1e3,
              nhwcSeconds * 1e3, blockedSeconds * 1e3,
              best > 0 ? best / rlxSeconds : 0.0, diff);
}

/// The input and filter gradients, each timed against oneDNN's faster
/// layout; the differences are relative to the largest oneDNN value.
void benchBackward(const Conv &conv, int batch, int threads) {
  rlx::runtime::Artifact artifact =
      rlx::runtime::Artifact::load(compileConv(conv, batch, true));
  rlx::runtime::Session session(artifact);
  std::mt19937 rng(conv.h * 31 + conv.c * 7 + conv.f);
  int o = conv.out();
  std::vector<rlx::runtime::HostTensor> inputs;
  inputs.push_back(uniform(rng, {batch, conv.h, conv.h, conv.c}));
  inputs.push_back(uniform(rng, {conv.k, conv.k, conv.c, conv.f}));
  inputs.push_back(uniform(rng, {batch, o, o, conv.f}));
  std::vector<std::function<void()>> contenders = {
      [&] { session.call("dx", inputs); }, [&] { session.call("dw", inputs); }};
  double dnnl[4] = {0, 0, 0, 0}, dxDiff = 0, dwDiff = 0;
#ifdef RLX_BENCH_HAVE_DNNL
  const float *x = inputs[0].data<float>(), *w = inputs[1].data<float>(),
              *dy = inputs[2].data<float>();
  DnnlConvBackward nhwc(conv, batch, /*blocked=*/false, x, w, dy);
  DnnlConvBackward blocked(conv, batch, /*blocked=*/true, x, w, dy);
  contenders.push_back([&] { nhwc.runData(); });
  contenders.push_back([&] { blocked.runData(); });
  contenders.push_back([&] { nhwc.runWeights(); });
  contenders.push_back([&] { blocked.runWeights(); });
#endif
  std::vector<double> medians =
      rlx::bench::interleavedMedianSeconds(contenders);
#ifdef RLX_BENCH_HAVE_DNNL
  for (int i = 0; i < 4; ++i)
    dnnl[i] = medians[2 + i];
  auto relative = [](const rlx::runtime::TensorList &out, const float *ref) {
    size_t n = out.at(0).element_count();
    double scale = 0;
    for (size_t i = 0; i < n; ++i)
      scale = std::max(scale, double(std::fabs(ref[i])));
    return maxDiff(out.at(0).data<float>(), ref, n) / std::max(scale, 1e-30);
  };
  dxDiff = relative(session.call("dx", inputs), nhwc.dataResult());
  dwDiff = relative(session.call("dw", inputs), nhwc.weightsResult());
#endif
  double bestData = std::min(dnnl[0], dnnl[1]);
  double bestWeights = std::min(dnnl[2], dnnl[3]);
  std::printf("%-20s %3d %2d %8.3f %9.3f %9.3f %7.2f %9.3f %9.3f %7.2f "
              "%9.2e %9.2e\n",
              conv.name, batch, threads, gflopOf(conv, batch), medians[0] * 1e3,
              bestData * 1e3, bestData > 0 ? bestData / medians[0] : 0.0,
              medians[1] * 1e3, bestWeights * 1e3,
              bestWeights > 0 ? bestWeights / medians[1] : 0.0, dxDiff, dwDiff);
}

} // namespace

int main(int argc, char **argv) {
  int threads = 1, batch = 1;
  bool backward = false, bf16 = false;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (arg == "--batch" && i + 1 < argc)
      batch = std::atoi(argv[++i]);
    else if (arg == "--backward")
      backward = true;
    else if (arg == "--bf16")
      bf16 = true;
    else
      names.push_back(arg);
  }
#ifdef RLX_BENCH_HAVE_DNNL
  // oneDNN on the same pool size as rlx's.
  if (!rlx::bench::ensureOmpThreads(threads, argv))
    return 1;
#else
  std::fprintf(stderr, "rlx-bench-conv: built without oneDNN (run "
                       "bench/install-references.sh, then rebuild): its "
                       "columns and the ratios read 0\n");
#endif
  rlx_set_num_threads(threads);

  if (backward)
    std::printf("%-20s %3s %2s %8s %9s %9s %7s %9s %9s %7s %9s %9s\n",
                "conv f32 NHWC bwd", "N", "T", "GFLOP", "rlx dx", "dnnl dx",
                "ratio", "rlx dw", "dnnl dw", "ratio", "dx rel", "dw rel");
  else
    std::printf("%-20s %3s %2s %8s %9s %9s %9s %7s %9s\n",
                bf16 ? "conv bf16 NHWC" : "conv f32 NHWC", "N",
                "T", "GFLOP", "rlx ms", "dnnl nhwc", "dnnl blk", "ratio",
                "max|diff|");
  for (const Conv &conv : kResNet50) {
    if (!names.empty() &&
        std::find(names.begin(), names.end(), conv.name) == names.end())
      continue;
    if (backward)
      benchBackward(conv, batch, threads);
    else
      benchForward(conv, batch, threads, bf16);
    std::fflush(stdout);
  }
  return 0;
}
