//===- scan_lstm.cpp - Loops: scan overhead, an LSTM, checkpoint memory ---===//
///
/// \file
/// Three figures of rlx.scan, built with the C++ frontend and jit:
///   - `scan_step_us`: microseconds per step of a 10,000-step scan whose
///     carry is 16 floats (h <- h * 0.999 + 0.001): the loop's own cost.
///   - `lstm_fwd_bwd_ms`: a one-layer LSTM (input and hidden 256, batch 32,
///     100 steps; rlx::lstm) forward and backward (value_and_grad w.r.t.
///     every weight and the inputs), median of the calls.
///   - `checkpoint_workspace`: the workspace (manifest) of the gradient of
///     a 1,000-step scan with a [32, 64] carry, stored carries vs
///     checkpoint_every = 32, and their ratio; the gradients are compared.
/// Prints `rlx <name> <value>` lines (bench/reference_scan.py prints JAX's
/// and PyTorch's); bench/run-all.sh puts them side by side.
/// Usage: rlx-bench-scan [calls]
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend.h"
#include "rlx/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double medianMs(const std::function<void()> &fn, int calls) {
  fn();
  std::vector<double> ms;
  for (int i = 0; i < calls; ++i) {
    auto t0 = Clock::now();
    fn();
    ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::vector<double> ramp(size_t n, double scale) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = scale * std::sin(0.37 * static_cast<double>(i) + 0.1);
  return v;
}

void scanOverhead(int calls) {
  const int64_t steps = 10000;
  rlx::Func f("scan_overhead", [&](rlx::Scope &s) {
    rlx::Tensor h = s.input("h", {16});
    rlx::ScanOptions options;
    options.length = steps;
    return rlx::scan(
               [](rlx::Scope &, const std::vector<rlx::Tensor> &c,
                  const std::vector<rlx::Tensor> &) {
                 return rlx::ScanStep{{c[0] * 0.999 + 0.001}, {}};
               },
               {h}, {}, options)
        .carry[0];
  });
  rlx::Compiled c = f.jit(rlx::Device::cpu());
  std::map<std::string, rlx::Array> in = {
      {"h", rlx::Array::from(ramp(16, 1.0), {16})}};
  double ms = medianMs([&] { c.run(in); }, calls);
  std::printf("rlx scan_step_us %.4f\n", ms * 1000.0 / steps);
}

void lstm(int calls) {
  const int64_t T = 100, B = 32, H = 256;
  rlx::Func loss("lstm_loss", [&](rlx::Scope &s) {
    rlx::Tensor xs = s.input("xs", {T, B, H});
    rlx::Tensor h0 = s.input("h0", {B, H}), c0 = s.input("c0", {B, H});
    rlx::LSTMResult r = rlx::lstm(s, "lstm", xs, h0, c0);
    return rlx::mean(r.ys * r.ys);
  });
  rlx::Compiled step =
      loss.value_and_grad({"xs", "lstm.w_ih", "lstm.w_hh", "lstm.bias"})
          .jit(rlx::Device::cpu());
  step.init_randn(0, 0.05);
  std::map<std::string, rlx::Array> in = {
      {"xs", rlx::Array::from(ramp(T * B * H, 1.0), {T, B, H})},
      {"h0", rlx::Array::from(ramp(B * H, 0.1), {B, H})},
      {"c0", rlx::Array::from(ramp(B * H, 0.2), {B, H})}};
  double ms = medianMs([&] { step.run(in); }, calls);
  std::printf("rlx lstm_fwd_bwd_ms %.3f\n", ms);
}

rlx::Func longScan(int64_t every) {
  return rlx::Func("long_scan", [every](rlx::Scope &s) {
    rlx::Tensor h = s.input("h", {32, 64});
    rlx::Tensor w = s.param("w", {64});
    rlx::ScanOptions options;
    options.length = 1000;
    options.checkpoint_every = every;
    rlx::Tensor last =
        rlx::scan(
            [&](rlx::Scope &, const std::vector<rlx::Tensor> &c,
                const std::vector<rlx::Tensor> &) {
              return rlx::ScanStep{{rlx::tanh(c[0] * w + 0.01)}, {}};
            },
            {h}, {}, options)
            .carry[0];
    return rlx::mean(last * last);
  });
}

void checkpointMemory() {
  uint64_t bytes[2];
  std::vector<double> grads[2];
  for (int k = 0; k < 2; ++k) {
    rlx::Func grad = longScan(k ? 32 : 1).grad({"h", "w"});
    auto artifact = rlx::compile_module(grad, rlx::Device::cpu(), {});
    bytes[k] = artifact->entry_point(grad.name()).workspace_bytes();
    rlx::Compiled c = grad.jit(rlx::Device::cpu());
    c.with_param("w", rlx::Array::from(ramp(64, 1.0), {64}));
    rlx::Outputs out = c.run(
        {{"h", rlx::Array::from(ramp(32 * 64, 1.0), {32, 64})}});
    grads[k] = out["grad.w"].to_vector();
  }
  double worst = 0;
  for (size_t i = 0; i < grads[0].size(); ++i)
    worst = std::max(worst, std::fabs(grads[0][i] - grads[1][i]));
  std::printf("rlx checkpoint_workspace_stored %llu\n",
              static_cast<unsigned long long>(bytes[0]));
  std::printf("rlx checkpoint_workspace_every32 %llu\n",
              static_cast<unsigned long long>(bytes[1]));
  std::printf("rlx checkpoint_workspace_ratio %.4f\n",
              bytes[0] ? double(bytes[1]) / double(bytes[0]) : 0.0);
  std::printf("rlx checkpoint_grad_max_abs_diff %.3g\n", worst);
}

} // namespace

int main(int argc, char **argv) {
  int calls = argc > 1 ? std::atoi(argv[1]) : 20;
  try {
    scanOverhead(calls);
    lstm(std::max(3, calls / 4));
    checkpointMemory();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rlx-bench-scan: %s\n", e.what());
    return 1;
  }
  return 0;
}
