//===- per_example_grads.cpp - vmap(grad) against a loop of grad calls ----===//
///
/// \file
/// Per-example gradients of an MLP (tanh hidden layers, softmax cross
/// entropy) at batch 64: one call of `loss_per_example_grad` (rlxc
/// --per-example-grad, a vmap of the gradient) against 64 calls of
/// `loss_grad` on one example each, same process, same weights; checks that
/// both agree. Usage: rlx-bench-per-example [in hidden out] (default
/// 784 512 10).
///
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"
#include "rlx/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace {

std::string model(int in, int hidden, int out) {
  auto t = [](std::initializer_list<int> dims) {
    std::string s = "tensor<";
    for (int d : dims)
      s += std::to_string(d) + "x";
    return s + "f32>";
  };
  std::ostringstream os;
  os << "func.func @loss(%x: " << t({in}) << " {rlx.name = \"x\"}, %y: "
     << t({out}) << " {rlx.name = \"y\"}) -> tensor<f32> {\n"
     << "  %w1 = rlx.param \"fc1.w\" : " << t({in, hidden}) << "\n"
     << "  %b1 = rlx.param \"fc1.b\" : " << t({hidden}) << "\n"
     << "  %w2 = rlx.param \"fc2.w\" : " << t({hidden, out}) << "\n"
     << "  %x2 = rlx.reshape %x : (" << t({in}) << ") -> " << t({1, in}) << "\n"
     << "  %h0 = rlx.matmul %x2, %w1 : (" << t({1, in}) << ", " << t({in, hidden})
     << ") -> " << t({1, hidden}) << "\n"
     << "  %h1 = rlx.add %h0, %b1 : (" << t({1, hidden}) << ", " << t({hidden})
     << ") -> " << t({1, hidden}) << "\n"
     << "  %h2 = rlx.tanh %h1 : " << t({1, hidden}) << "\n"
     << "  %l0 = rlx.matmul %h2, %w2 : (" << t({1, hidden}) << ", "
     << t({hidden, out}) << ") -> " << t({1, out}) << "\n"
     << "  %l = rlx.reshape %l0 : (" << t({1, out}) << ") -> " << t({out}) << "\n"
     << "  %lp = rlx.log_softmax %l {axis = 0 : i64} : " << t({out}) << "\n"
     << "  %m = rlx.mul %lp, %y : (" << t({out}) << ", " << t({out}) << ") -> "
     << t({out}) << "\n"
     << "  %s = rlx.sum %m {axes = array<i64: 0>} : (" << t({out})
     << ") -> tensor<f32>\n"
     << "  %n = rlx.neg %s : tensor<f32>\n  return %n : tensor<f32>\n}\n";
  return os.str();
}


} // namespace

using rlx::bench::medianMs;

int main(int argc, char **argv) {
  int in = argc > 3 ? std::atoi(argv[1]) : 784;
  int hidden = argc > 3 ? std::atoi(argv[2]) : 512;
  int out = argc > 3 ? std::atoi(argv[3]) : 10;
  const int batch = 64;
  std::ofstream("/tmp/rlx-bench-pex.mlir") << model(in, hidden, out);
  std::string cmd = std::string(RLXC_PATH) +
                    " /tmp/rlx-bench-pex.mlir --per-example-grad=loss "
                    "--grad=loss -o /tmp/rlx-bench-pex.so";
  if (std::system(cmd.c_str()) != 0)
    return 1;
  rlx::runtime::Artifact artifact =
      rlx::runtime::Artifact::load("/tmp/rlx-bench-pex.so");
  rlx::runtime::Session session(artifact);
  std::mt19937 rng(0);
  auto randn = [&](std::vector<int64_t> dims, float scale) {
    return rlx::bench::randn(rng, std::move(dims), scale);
  };
  session.bind_tensor("fc1.w", randn({in, hidden}, 0.05f));
  session.bind_tensor("fc1.b", randn({hidden}, 0.1f));
  session.bind_tensor("fc2.w", randn({hidden, out}, 0.05f));
  rlx::runtime::HostTensor xs = randn({batch, in}, 1.0f);
  rlx::runtime::HostTensor ys =
      rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {batch, out});
  for (int i = 0; i < batch; ++i)
    ys.data<float>()[i * out + i % out] = 1;
  // One example at a time, as views of the batch.
  std::vector<rlx::runtime::HostTensor> xi, yi;
  for (int i = 0; i < batch; ++i) {
    xi.push_back(rlx::runtime::HostTensor::borrow(
        RLX_DTYPE_F32, {in}, xs.data<float>() + size_t(i) * in));
    yi.push_back(rlx::runtime::HostTensor::borrow(
        RLX_DTYPE_F32, {out}, ys.data<float>() + size_t(i) * out));
  }
  std::vector<rlx::runtime::HostTensor> batched;
  batched.push_back(xs.share());
  batched.push_back(ys.share());
  double vmapMs = medianMs(
      [&] { session.call("loss_per_example_grad", batched); }, 10);
  double loopMs = medianMs(
      [&] {
        for (int i = 0; i < batch; ++i) {
          std::vector<rlx::runtime::HostTensor> one;
          one.push_back(xi[i].share());
          one.push_back(yi[i].share());
          session.call("loss_grad", one);
        }
      },
      10);
  // Agreement on every example and param.
  rlx::runtime::TensorList all = session.call("loss_per_example_grad", batched);
  double diff = 0;
  for (int i = 0; i < batch; ++i) {
    std::vector<rlx::runtime::HostTensor> one;
    one.push_back(xi[i].share());
    one.push_back(yi[i].share());
    rlx::runtime::TensorList g = session.call("loss_grad", one);
    for (size_t p = 0; p < g.size(); ++p) {
      rlx::runtime::HostTensor a = g.at(p), b = all.at(p);
      size_t n = a.element_count();
      for (size_t k = 0; k < n; ++k)
        diff = std::max(diff, std::fabs(a.get_f64(k) - b.get_f64(i * n + k)));
    }
  }
  std::printf("per-example gradients, MLP %d-%d-%d, batch %d\n", in, hidden,
              out, batch);
  std::printf("vmap(grad), one call      %9.3f ms\n", vmapMs);
  std::printf("grad, %d calls            %9.3f ms\n", batch, loopMs);
  std::printf("speedup %.2fx   max |diff| %.3g\n", loopMs / vmapMs, diff);
  return diff < 1e-4 ? 0 : 1;
}
