//===- TrainReference.cpp - The train tests' host optimizers --------------===//

#include "TrainReference.h"

#include <algorithm>
#include <cmath>

namespace rlx::test {

Func quadratic(DType dtype) {
  return Func("quad", [dtype](Scope &s) {
    Tensor x = s.input("x", {3}, dtype);
    Tensor w = s.param("w", {3}, dtype), b = s.param("b", {3}, dtype);
    return 0.5 * sum(square(w - x)) + 0.5 * sum(square(b - x));
  });
}

const std::vector<double> kX = {0.5, -1.0, 2.0};
const std::vector<double> kW0 = {1.0, 0.5, -0.5}, kB0 = {-0.25, 0.0, 0.75};

HostParams initialParams() { return {{"w", kW0}, {"b", kB0}}; }

HostParams hostTrain(const HostOptimizer &o, const Schedule &schedule,
                     int steps, HostParams params,
                     const std::vector<std::string> &trained) {
  using Rule = HostOptimizer::Rule;
  std::vector<std::string> names = trained;
  if (names.empty())
    for (const auto &[name, p] : params)
      names.push_back(name);
  HostParams m, v;
  for (const std::string &n : names)
    m[n] = v[n] = std::vector<double>(params[n].size(), 0.0);
  for (int t = 1; t <= steps; ++t) {
    double lr = schedule.at(t);
    HostParams grads;
    double norm2 = 0;
    for (const std::string &n : names)
      for (size_t i = 0; i < params[n].size(); ++i) {
        grads[n].push_back(params[n][i] - kX[i]);
        norm2 += grads[n][i] * grads[n][i];
      }
    double clipScale =
        o.clip > 0 ? std::min(1.0, o.clip / (std::sqrt(norm2) + 1e-6)) : 1.0;
    for (const std::string &n : names) {
      double decay = o.decay.count(n) ? o.decay.at(n) : 0.0;
      std::vector<double> &w = params[n];
      for (size_t i = 0; i < w.size(); ++i) {
        double g = grads[n][i] * clipScale;
        double d = 0;
        switch (o.rule) {
        case Rule::SGD:
          g += decay * w[i];
          d = g;
          if (o.momentum != 0) {
            m[n][i] = o.momentum * m[n][i] + g;
            d = o.nesterov ? g + o.momentum * m[n][i] : m[n][i];
          }
          break;
        case Rule::Adam:
        case Rule::AdamW: {
          if (o.rule == Rule::Adam)
            g += decay * w[i];
          m[n][i] = o.beta1 * m[n][i] + (1 - o.beta1) * g;
          v[n][i] = o.beta2 * v[n][i] + (1 - o.beta2) * g * g;
          double mHat = m[n][i] / (1 - std::pow(o.beta1, t));
          double vHat = v[n][i] / (1 - std::pow(o.beta2, t));
          d = mHat / (std::sqrt(vHat) + o.eps);
          if (o.rule == Rule::AdamW)
            d += decay * w[i];
          break;
        }
        case Rule::Lion: {
          double c = o.beta1 * m[n][i] + (1 - o.beta1) * g;
          d = (c > 0) - (c < 0) + decay * w[i];
          m[n][i] = o.beta2 * m[n][i] + (1 - o.beta2) * g;
          break;
        }
        }
        w[i] -= lr * d;
      }
    }
  }
  return params;
}

void runQuadratic(TrainStep &step, int steps, DType dtype) {
  step.with_param("w", Array::from(kW0, {3}, dtype));
  step.with_param("b", Array::from(kB0, {3}, dtype));
  for (int t = 0; t < steps; ++t)
    step.step({{"x", Array::from(kX, {3}, dtype)}});
}

void expectTrainsLike(const optim::GradientTransformation &optimizer,
                      const HostOptimizer &host, const Schedule &schedule,
                      int steps) {
  TrainStep step = make_train_step(quadratic(), optimizer, schedule);
  step.jit();
  runQuadratic(step, steps);
  EXPECT_EQ(step.steps_done(), steps);
  HostParams expected = hostTrain(host, schedule, steps);
  for (const char *p : {"w", "b"}) {
    SCOPED_TRACE(p);
    expectNear(step.param(p).to_vector(), expected[p], 1e-6, 1e-7);
  }
}

} // namespace rlx::test
