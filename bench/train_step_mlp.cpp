//===- train_step_mlp.cpp - ms per compiled Adam train step of an MLP ----===//
///
/// \file
/// The frontend's make_train_step on an MLP 784-512-512-10 (ReLU, softmax
/// cross-entropy), batch 128, Adam: compiles once (jit, timed separately),
/// warms up, then prints the median, min and max milliseconds per step over
/// `steps` calls (default 50), once traced with a dynamic batch dim and once
/// with the batch static. One call per step: forward, backward and the
/// update in one entry point. Then the static step in mixed precision
/// (TrainOptions::precision: bf16, and f16 with loss scaling; f32 master
/// weights and Adam state) and its speed-up over f32. PyTorch's CPU
/// autocast bf16 step is bench/reference.py's
/// `train_step_adam_b128_autocast_bf16`.
/// Usage: rlx-bench-train-step [steps]
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

namespace {

/// The median ms per step.
double run(int steps, bool staticBatch,
           rlx::Precision precision = rlx::Precision::f32(),
           const char *label = nullptr) {
  const int64_t batch = 128;
  int64_t traced = staticBatch ? batch : rlx::dyn;
  rlx::Func loss("mlp_loss", [traced](rlx::Scope &s) {
    rlx::Tensor x = s.input("x", {traced, 784});
    rlx::Tensor y = s.input("labels", {traced}, rlx::i32);
    rlx::Tensor h = rlx::relu(rlx::linear(s, "fc1", x, 512));
    h = rlx::relu(rlx::linear(s, "fc2", h, 512));
    return rlx::cross_entropy(rlx::linear(s, "fc3", h, 10), y);
  });
  rlx::TrainOptions options;
  options.precision = precision;
  rlx::TrainStep step = rlx::make_train_step(
      loss, rlx::Optimizer::adam(), rlx::Schedule::constant(1e-3), options);
  auto t0 = std::chrono::steady_clock::now();
  step.jit().init_randn(0, 0.03);
  double compileS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<float> x(batch * 784);
  std::vector<int32_t> labels(batch);
  for (float &v : x)
    v = normal(rng);
  for (int32_t &l : labels)
    l = rng() % 10;
  std::map<std::string, rlx::Array> inputs = {
      {"x", rlx::Array::from(x, {batch, 784})},
      {"labels", rlx::Array::from(labels, {batch})}};
  for (int i = 0; i < 5; ++i)
    step.step(inputs);
  std::vector<double> ms;
  double last = 0;
  for (int i = 0; i < steps; ++i) {
    auto start = std::chrono::steady_clock::now();
    last = step.step(inputs);
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%s%s batch: jit %.2f s; ms/step over %d steps: median %.3f, "
              "min %.3f, max %.3f (last loss %.4f)\n",
              label ? label : "", staticBatch ? "static " : "dynamic",
              compileS, steps, ms[ms.size() / 2], ms.front(), ms.back(),
              last);
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 50;
  std::printf("MLP 784-512-512-10, batch 128, Adam, one entry point per "
              "step (jit: compile or cache load)\n");
  run(steps, /*staticBatch=*/false);
  double f32 = run(steps, /*staticBatch=*/true);
  double bf16 = run(steps, true, rlx::Precision::bf16(), "bf16 ");
  double f16 = run(steps, true, rlx::Precision::f16(), "f16 ");
  std::printf("mixed precision, static batch: bf16 %.2fx, f16 %.2fx the "
              "speed of f32\n",
              f32 / bf16, f32 / f16);
  return 0;
}
