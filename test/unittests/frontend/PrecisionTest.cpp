//===- PrecisionTest.cpp - Mixed-precision training ----------------------===//
///
/// \file
/// TrainOptions::precision: a bf16 step's loss and gradients, of a dense
/// net and of a conv net, against a plain f64 backpropagation written here
/// (within bf16's error model), the
/// f32 master weights moving by them, compute_in's IR and errors, and f16's
/// dynamic loss scaling skipping exactly the step that overflows (params
/// and momentum unchanged, scale halved) and doubling the scale after
/// `growth_interval` good steps.
///
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include <algorithm>
#include <cmath>

using namespace rlx;
using namespace rlx::test;

namespace {

constexpr int64_t kRows = 8, kIn = 16, kHidden = 32, kOut = 4;
using HostTree = std::map<std::string, std::vector<double>>;

/// mean over rows of 0.5 |tanh(x W1 + b1) W2 + b2 - y|^2.
Func tinyNet() {
  return Func("tiny", [](Scope &s) {
    Tensor x = s.input("x", {dyn, kIn});
    Tensor y = s.input("y", {dyn, kOut});
    Tensor h = tanh(matmul(x, s.param("W1", {kIn, kHidden})) +
                    s.param("b1", {kHidden}));
    Tensor out = matmul(h, s.param("W2", {kHidden, kOut})) +
                 s.param("b2", {kOut});
    return mean(sum(square(out - y), {1}) * 0.5).named("loss");
  });
}

const std::map<std::string, Shape> kShapes{{"W1", {kIn, kHidden}},
                                           {"b1", {kHidden}},
                                           {"W2", {kHidden, kOut}},
                                           {"b2", {kOut}}};

/// Values as f32 holds them (the params and inputs are bound as f32).
std::vector<double> asF32(std::vector<double> v) {
  for (double &x : v)
    x = static_cast<float>(x);
  return v;
}

/// tinyNet's loss and gradients in f64 by hand.
double tinyNetGrads(const HostTree &p, const std::vector<double> &x,
                    const std::vector<double> &y, HostTree &grads) {
  const auto &W1 = p.at("W1"), &b1 = p.at("b1"), &W2 = p.at("W2"),
             &b2 = p.at("b2");
  grads.clear();
  for (const auto &[name, v] : p)
    grads[name] = std::vector<double>(v.size(), 0);
  double loss = 0;
  for (int64_t r = 0; r < kRows; ++r) {
    std::vector<double> h(kHidden), dOut(kOut);
    for (int64_t j = 0; j < kHidden; ++j) {
      double z = b1[j];
      for (int64_t k = 0; k < kIn; ++k)
        z += x[r * kIn + k] * W1[k * kHidden + j];
      h[j] = std::tanh(z);
    }
    for (int64_t o = 0; o < kOut; ++o) {
      double out = b2[o];
      for (int64_t j = 0; j < kHidden; ++j)
        out += h[j] * W2[j * kOut + o];
      dOut[o] = (out - y[r * kOut + o]) / kRows;
      loss += 0.5 * (out - y[r * kOut + o]) * (out - y[r * kOut + o]) / kRows;
      grads["b2"][o] += dOut[o];
    }
    for (int64_t j = 0; j < kHidden; ++j) {
      double dh = 0;
      for (int64_t o = 0; o < kOut; ++o) {
        grads["W2"][j * kOut + o] += h[j] * dOut[o];
        dh += dOut[o] * W2[j * kOut + o];
      }
      double dz = dh * (1 - h[j] * h[j]);
      grads["b1"][j] += dz;
      for (int64_t k = 0; k < kIn; ++k)
        grads["W1"][k * kHidden + j] += x[r * kIn + k] * dz;
    }
  }
  return loss;
}

/// Keeps each gradient as state `grad.<p>` (output `new.grad.<p>`).
optim::GradientTransformation recordGradients() {
  optim::GradientTransformation t;
  t.init = [](const std::vector<detail::Arg> &params) {
    std::vector<optim::StateSpec> specs;
    for (const detail::Arg &p : params)
      specs.push_back({"grad." + p.name, p.type, 0});
    return specs;
  };
  t.update = [](const optim::Tree &updates, optim::Tree &state,
                const optim::StepContext &) {
    for (const auto &[name, g] : updates)
      state.at("grad." + name) = g;
    return updates;
  };
  return t;
}

HostTree someParams(unsigned seed) {
  HostTree params;
  for (const auto &[name, shape] : kShapes) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    params[name] = asF32(values(n, seed++));
  }
  return params;
}

void bindParams(TrainStep &step, const HostTree &params) {
  for (const auto &[name, v] : params)
    step.with_param(name, Array::from(v, kShapes.at(name), f32));
}

std::map<std::string, Array> batch(const std::vector<double> &x,
                                   const std::vector<double> &y) {
  return {{"x", Array::from(x, {kRows, kIn}, f32)},
          {"y", Array::from(y, {kRows, kOut}, f32)}};
}

double maxAbs(const std::vector<double> &v) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  return m;
}

} // namespace

TEST(TrainPrecision, Bf16GradientsWithinBf16ErrorOfF64) {
  HostTree params = someParams(90);
  std::vector<double> x = asF32(values(kRows * kIn, 95)),
                      y = asF32(values(kRows * kOut, 96));
  HostTree grads;
  double loss = tinyNetGrads(params, x, y, grads);

  // bf16 keeps 8 significant bits: unit roundoff u = 2^-8. Every value of
  // the forward and backward pass is rounded to bf16 once per op (matmuls
  // and sums accumulate in f32 and round once); a gradient element is the
  // end of a chain of about 10 such roundings (x and W1 read, their
  // product, + b1, tanh, its derivative, the product with W2, the
  // residual, ...), each a relative error of at most u of the terms it
  // combines. So |g - g_ref| <= 16 u max|g_ref| per tensor, normwise: the
  // terms of a sum may cancel, so an element is judged against the
  // tensor's scale, not its own size.
  const double u = std::ldexp(1.0, -8);
  const double lr = 0.0625;
  TrainOptions options;
  options.precision = Precision::bf16();
  TrainStep step = make_train_step(
      tinyNet(), optim::chain(recordGradients(), Optimizer::sgd()),
      Schedule::constant(lr), options);
  EXPECT_NE(step.func().to_mlir().find("bf16"), std::string::npos);
  step.jit();
  bindParams(step, params);
  double got = step.step(batch(x, y));
  EXPECT_NEAR(got, loss, 16 * u * std::fabs(loss));
  EXPECT_EQ(step.last_outputs()["loss"].dtype(), f32);

  // The same step in f32, to show that the bf16 one is really coarser.
  TrainStep plain = make_train_step(
      tinyNet(), optim::chain(recordGradients(), Optimizer::sgd()),
      Schedule::constant(lr));
  plain.jit();
  bindParams(plain, params);
  plain.step(batch(x, y));

  for (const auto &[name, g] : grads) {
    SCOPED_TRACE(name);
    Array recorded = step.last_outputs()["new.grad." + name];
    EXPECT_EQ(recorded.dtype(), f32);
    std::vector<double> bf = recorded.to_vector();
    std::vector<double> full =
        plain.last_outputs()["new.grad." + name].to_vector();
    double scale = maxAbs(g), errBf16 = 0, errF32 = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      errBf16 = std::max(errBf16, std::fabs(bf[i] - g[i]));
      errF32 = std::max(errF32, std::fabs(full[i] - g[i]));
    }
    EXPECT_LE(errBf16, 16 * u * scale);
    // f32's roundoff is 2^-24: 2^16 times smaller. bf16's error must show.
    EXPECT_GT(errBf16, 64 * errF32) << "the step did not compute in bf16";
    // The f32 master weights move by the bf16 gradient, in f32.
    Array after = step.param(name);
    EXPECT_EQ(after.dtype(), f32);
    std::vector<double> want = params[name];
    for (size_t i = 0; i < want.size(); ++i)
      want[i] = static_cast<float>(static_cast<float>(want[i]) -
                                   static_cast<float>(lr * bf[i]));
    expectNear(after.to_vector(), want, 1e-6, 1e-7);
  }
}

/// A bf16 step whose weight is large enough to be prepacked for the f32
/// kernel (256 KiB: rlx-pack-dot-operands' bound) on a CPU without bf16
/// dot products, where the matmul's lhs is a bf16 value widened: it did
/// not compile (an extension of the f32 panels to f32), and then ran as a
/// scalar loop nest. Loss and dW of 0.5 mean(|x W|^2) against f64 loops:
/// every term is rounded to bf16 a few times (x, W, the product's output,
/// its cotangent, dW), so each result is within 16 u of the same sum over
/// absolute values.
TEST(TrainPrecision, Bf16StepOverAPrepackedWeight) {
  constexpr int64_t rows = 8, n = 256;
  Func net("wide", [](Scope &s) {
    Tensor x = s.input("x", {dyn, n});
    Tensor out = matmul(x, s.param("W", {n, n}));
    return mean(sum(square(out), {1}) * 0.5).named("loss");
  });
  std::vector<double> x = asF32(values(rows * n, 140)),
                      w = asF32(values(n * n, 141));
  std::vector<double> out(rows * n), outAbs(rows * n);
  double loss = 0, lossAbs = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t k = 0; k < n; ++k) {
        out[r * n + j] += x[r * n + k] * w[k * n + j];
        outAbs[r * n + j] += std::fabs(x[r * n + k] * w[k * n + j]);
      }
      loss += 0.5 * out[r * n + j] * out[r * n + j] / rows;
      lossAbs += 0.5 * outAbs[r * n + j] * outAbs[r * n + j] / rows;
    }
  TrainOptions options;
  options.precision = Precision::bf16();
  TrainStep step = make_train_step(
      net, optim::chain(recordGradients(), Optimizer::sgd()),
      Schedule::constant(0.0), options);
  step.jit();
  step.with_param("W", Array::from(w, {n, n}, f32));
  const double u = std::ldexp(1.0, -8);
  double got = step.step({{"x", Array::from(x, {rows, n}, f32)}});
  EXPECT_NEAR(got, loss, 16 * u * lossAbs);
  std::vector<double> dw = step.last_outputs()["new.grad.W"].to_vector();
  ASSERT_EQ(dw.size(), size_t(n * n));
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0, bound = 0;
      for (int64_t r = 0; r < rows; ++r) {
        want += x[r * n + k] * out[r * n + j] / rows;
        bound += std::fabs(x[r * n + k]) * outAbs[r * n + j] / rows;
      }
      ASSERT_NEAR(dw[k * n + j], want, 16 * u * bound) << k << ", " << j;
    }
}

/// A bf16 step of a conv net: 0.5 / N sum |conv1x1/2(tanh(conv3x3(x)))|^2,
/// 16 -> 32 -> 8 channels on 8x8 images (a padded 3x3 by im2col and a
/// strided 1x1, each a bf16 conv into f32 on a CPU with AVX512-BF16, and
/// their backward convs and filter products likewise). Loss and both
/// filter gradients against f64 backpropagation written here, within the
/// error model of the tiny net above (16 u of the tensor's scale), and
/// coarser than the same step in f32.
TEST(TrainPrecision, Bf16ConvNetGradientsWithinBf16ErrorOfF64) {
  constexpr int64_t n = 2, hw = 8, c = 16, f = 32, g = 8, o = 4;
  Func net("convs", [](Scope &s) {
    Tensor x = s.input("x", {dyn, hw, hw, c});
    Tensor h = tanh(conv2d(x, s.param("W1", {3, 3, c, f}), {1, 1},
                           {1, 1, 1, 1}));
    Tensor out = conv2d(h, s.param("W2", {1, 1, f, g}), {2, 2});
    return (sum(square(out)) * (0.5 / n)).named("loss");
  });
  std::vector<double> x = asF32(values(n * hw * hw * c, 150)),
                      w1 = asF32(values(9 * c * f, 151)),
                      w2 = asF32(values(f * g, 152));
  // Forward and backward in f64.
  auto xAt = [&](int64_t b, int64_t i, int64_t j, int64_t ch) {
    if (i < 0 || j < 0 || i >= hw || j >= hw)
      return 0.0;
    return x[((b * hw + i) * hw + j) * c + ch];
  };
  std::vector<double> h(n * hw * hw * f), z2(n * o * o * g);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < hw; ++i)
      for (int64_t j = 0; j < hw; ++j)
        for (int64_t m = 0; m < f; ++m) {
          double z = 0;
          for (int64_t a = 0; a < 3; ++a)
            for (int64_t e = 0; e < 3; ++e)
              for (int64_t ch = 0; ch < c; ++ch)
                z += xAt(b, i + a - 1, j + e - 1, ch) *
                     w1[((a * 3 + e) * c + ch) * f + m];
          h[((b * hw + i) * hw + j) * f + m] = std::tanh(z);
        }
  double loss = 0;
  std::vector<double> dW1(w1.size()), dW2(w2.size()), dz1(h.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t p = 0; p < o; ++p)
      for (int64_t q = 0; q < o; ++q) {
        const double *hp = &h[((b * hw + 2 * p) * hw + 2 * q) * f];
        for (int64_t k = 0; k < g; ++k) {
          double z = 0;
          for (int64_t m = 0; m < f; ++m)
            z += hp[m] * w2[m * g + k];
          loss += 0.5 * z * z / n;
          double dz = z / n;
          for (int64_t m = 0; m < f; ++m) {
            dW2[m * g + k] += hp[m] * dz;
            dz1[((b * hw + 2 * p) * hw + 2 * q) * f + m] +=
                dz * w2[m * g + k] * (1 - hp[m] * hp[m]);
          }
        }
      }
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < hw; ++i)
      for (int64_t j = 0; j < hw; ++j)
        for (int64_t m = 0; m < f; ++m) {
          double d = dz1[((b * hw + i) * hw + j) * f + m];
          for (int64_t a = 0; a < 3; ++a)
            for (int64_t e = 0; e < 3; ++e)
              for (int64_t ch = 0; ch < c; ++ch)
                dW1[((a * 3 + e) * c + ch) * f + m] +=
                    xAt(b, i + a - 1, j + e - 1, ch) * d;
        }

  const double u = std::ldexp(1.0, -8);
  auto stepOf = [&](bool bf16Compute) {
    TrainOptions options;
    if (bf16Compute)
      options.precision = Precision::bf16();
    TrainStep step = make_train_step(
        net, optim::chain(recordGradients(), Optimizer::sgd()),
        Schedule::constant(0.0), options);
    step.jit();
    step.with_param("W1", Array::from(w1, {3, 3, c, f}, f32));
    step.with_param("W2", Array::from(w2, {1, 1, f, g}, f32));
    double got = step.step({{"x", Array::from(x, {n, hw, hw, c}, f32)}});
    return std::make_pair(got, step.last_outputs());
  };
  auto [bfLoss, bfOut] = stepOf(true);
  auto [f32Loss, f32Out] = stepOf(false);
  EXPECT_NEAR(bfLoss, loss, 16 * u * loss);
  const std::pair<const char *, const std::vector<double> *> grads[] = {
      {"W1", &dW1}, {"W2", &dW2}};
  for (const auto &[name, want] : grads) {
    SCOPED_TRACE(name);
    std::vector<double> bf = bfOut["new.grad." + std::string(name)].to_vector(),
                        full =
                            f32Out["new.grad." + std::string(name)].to_vector();
    ASSERT_EQ(bf.size(), want->size());
    double scale = maxAbs(*want), errBf16 = 0, errF32 = 0;
    for (size_t i = 0; i < want->size(); ++i) {
      errBf16 = std::max(errBf16, std::fabs(bf[i] - (*want)[i]));
      errF32 = std::max(errF32, std::fabs(full[i] - (*want)[i]));
    }
    EXPECT_LE(errBf16, 16 * u * scale);
    EXPECT_GT(errBf16, 64 * errF32) << "the step did not compute in bf16";
  }
}

TEST(TrainPrecision, ComputeInRewritesOnlyF32) {
  Func low = compute_in(tinyNet(), bf16);
  EXPECT_EQ(low.name(), "tiny");
  ASSERT_EQ(low.inputs().size(), 2u);
  EXPECT_EQ(low.inputs()[0].type.dtype, f32);
  EXPECT_EQ(low.outputs()[0].type.dtype, f32);
  EXPECT_EQ(low.params().size(), 4u);
  std::string text = low.to_mlir();
  // Param reads stay f32 (the bound weights) and are cast after.
  EXPECT_NE(text.find("rlx.param \"W1\""), std::string::npos) << text;
  EXPECT_NE(text.find("tensor<16x32xf32> -> tensor<16x32xbf16>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rlx.tanh"), std::string::npos);

  // The forward in bf16 against the f64 loss (u = 2^-8 as above).
  HostTree params = someParams(100), unused;
  std::vector<double> x = asF32(values(kRows * kIn, 105)),
                      y = asF32(values(kRows * kOut, 106));
  Compiled c = low.jit(Device::cpu());
  for (const auto &[name, v] : params)
    c.with_param(name, Array::from(v, kShapes.at(name), f32));
  double want = tinyNetGrads(params, x, y, unused);
  Outputs out = c.run(batch(x, y));
  EXPECT_EQ(out["loss"].dtype(), f32);
  EXPECT_NEAR(out["loss"].item(), want, 16 * std::ldexp(1.0, -8) * want);

  // A random sampler verifies only in f32/f64: it stays f32 between casts.
  Func noisy("noisy", [](Scope &s) {
    Tensor key = s.input("key", {2}, i32);
    Tensor x = s.input("x", {4, 3});
    Tensor w = s.param("w", {3, 3});
    return sum(matmul(x + random::normal(key, {1, 3}), w)).named("loss");
  });
  Func noisyLow = compute_in(noisy, f16);
  std::string noisyText = noisyLow.to_mlir();
  EXPECT_NE(noisyText.find("tensor<1x3xf32> -> tensor<1x3xf16>"),
            std::string::npos)
      << noisyText;
  Compiled n = noisyLow.jit(Device::cpu());
  n.with_param("w", Array::from(std::vector<double>(9, 1.0), {3, 3}, f32));
  double noisySum = n.run({{"key", Array::from(std::vector<int32_t>{0, 7}, {2})},
                           {"x", Array::zeros({4, 3})}})["loss"]
                        .item();
  EXPECT_TRUE(std::isfinite(noisySum));

  std::string notSixteen = errorOf([&] { compute_in(tinyNet(), f64); });
  EXPECT_NE(notSixteen.find("computes in bf16 or f16, not f64"),
            std::string::npos)
      << notSixteen;
  Func wide("wide", [](Scope &s) {
    Tensor x = s.input("x", {2, 2}, f64);
    return sum(matmul(x, s.param("w", {2, 2}, f64))).named("loss");
  });
  TrainOptions options;
  options.precision = Precision::bf16();
  std::string f64Param = errorOf([&] {
    make_train_step(wide, Optimizer::sgd(), Schedule::constant(0.1), options);
  });
  EXPECT_NE(f64Param.find("keeps f32 master weights, but param 'w' is f64"),
            std::string::npos)
      << f64Param;
  LossScaling bad;
  bad.initial = 0;
  options.precision = Precision::f16(bad);
  std::string badScale = errorOf([&] {
    make_train_step(tinyNet(), Optimizer::sgd(), Schedule::constant(0.1),
                    options);
  });
  EXPECT_NE(badScale.find("LossScaling needs"), std::string::npos) << badScale;
}

TEST(TrainPrecision, F16LossScalingSkipsExactlyTheOverflowingStep) {
  HostTree params = someParams(110);
  std::vector<std::vector<double>> xs, ys;
  for (unsigned i = 0; i < 7; ++i) {
    xs.push_back(asF32(values(kRows * kIn, 120 + i)));
    ys.push_back(asF32(values(kRows * kOut, 130 + i)));
  }
  // Step 3's batch holds 1e6, above f16's largest finite value (65504):
  // read as Inf, it makes W1's gradient Inf or NaN.
  const size_t overflowing = 2;
  xs[overflowing][5] = 1e6;

  LossScaling scaling;
  scaling.initial = 1024;
  scaling.growth_interval = 3;
  TrainOptions options;
  options.precision = Precision::f16(scaling);
  const double lr = 0.05;
  TrainStep step = make_train_step(tinyNet(), Optimizer::sgd(0.9),
                                   Schedule::constant(lr), options);
  std::vector<std::string> names = step.state_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "loss_scale"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "loss_scale.good_steps"),
            names.end());
  step.jit();
  bindParams(step, params);
  EXPECT_EQ(step.loss_scale(), 1024);

  // The same training without the overflowing batch, in f32: the f16 one
  // must follow it (within f16's error) step for step.
  TrainStep reference = make_train_step(tinyNet(), Optimizer::sgd(0.9),
                                        Schedule::constant(lr));
  reference.jit();
  bindParams(reference, params);

  // Scale after each call: 1024 (good 1), 1024 (good 2), skipped -> 512
  // (good 0), 512 (1), 512 (2), 1024 (3: doubled, count restarts), 1024.
  const double scales[] = {1024, 1024, 512, 512, 512, 1024, 1024};
  for (size_t i = 0; i < xs.size(); ++i) {
    SCOPED_TRACE("call " + std::to_string(i + 1));
    HostTree before;
    for (const auto &[name, v] : params)
      before[name] = step.param(name).to_vector();
    std::map<std::string, std::vector<double>> stateBefore;
    for (const char *s : {"momentum.W1", "momentum.b2"})
      if (i > 0)
        stateBefore[s] = step.last_outputs()[std::string("new.") + s]
                             .to_vector();
    double loss = step.step(batch(xs[i], ys[i]));
    EXPECT_EQ(step.loss_scale(), scales[i]);
    if (i == overflowing) {
      EXPECT_TRUE(step.skipped());
      EXPECT_EQ(step.last_outputs()["skipped"].item(), 1);
      // tanh saturates, so the loss stays finite: the Inf is W1's
      // gradient (x times the backpropagated error).
      EXPECT_TRUE(std::isfinite(loss));
      EXPECT_EQ(step.steps_done(), 2);
      for (const auto &[name, v] : before)
        EXPECT_EQ(step.param(name).to_vector(), v) << name << " changed";
      for (const auto &[s, v] : stateBefore)
        EXPECT_EQ(step.last_outputs()["new." + s].to_vector(), v)
            << s << " changed";
      continue;
    }
    EXPECT_FALSE(step.skipped());
    EXPECT_EQ(step.last_outputs()["skipped"].item(), 0);
    double want = reference.step(batch(xs[i], ys[i]));
    // f16 keeps 11 significant bits (u = 2^-11): the loss within 16 u.
    EXPECT_NEAR(loss, want, 16 * std::ldexp(1.0, -11) * std::fabs(want));
    EXPECT_EQ(step.steps_done(), reference.steps_done());
    for (const auto &[name, v] : before) {
      SCOPED_TRACE(name);
      std::vector<double> now = step.param(name).to_vector();
      EXPECT_NE(now, v) << "an applied step left the params";
      // Gradients within 16 u of their scale (about 1) move the params by
      // lr times that per step, momentum summing at most 6 steps.
      expectNear(now, reference.param(name).to_vector(), 0,
                 6 * lr * 16 * std::ldexp(1.0, -11));
    }
  }
  EXPECT_EQ(step.skipped_steps(), 1);

  // The scale and its count are checkpointed with the rest.
  std::string path = freshDir("precision") + "/ckpt.safetensors";
  step.save(path);
  TrainStep resumed = make_train_step(tinyNet(), Optimizer::sgd(0.9),
                                      Schedule::constant(lr), options);
  resumed.jit();
  EXPECT_EQ(resumed.loss_scale(), 1024);
  resumed.load(path);
  EXPECT_EQ(resumed.loss_scale(), step.loss_scale());
  EXPECT_EQ(resumed.steps_done(), step.steps_done());
}

TEST(TrainPrecision, SpecializedF16StepWithQatTrainsLikeTheDynamicOne) {
  // Mixed precision composes with QAT (fake_quant verifies only in f32/f64:
  // compute_in keeps it f32 between casts) and with shape specialization
  // (the step, loss scaling included, is traced again per batch shape).
  Func loss("head", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 4});
    Tensor y = s.input("y", {dyn, 1});
    return mse(linear(s, "out", tanh(linear(s, "hidden", x, 8)), 1), y);
  });
  TrainOptions options;
  options.qat = Qat{formats::f8e4m3fn()};
  options.precision = Precision::f16();
  JitOptions special;
  special.specialize_shapes = true;
  TrainStep dynamic = make_train_step(loss, Optimizer::adam(),
                                      Schedule::constant(0.05), options);
  TrainStep specialized = make_train_step(loss, Optimizer::adam(),
                                          Schedule::constant(0.05), options);
  std::string text = dynamic.func().to_mlir();
  EXPECT_NE(text.find("rlx.fake_quant"), std::string::npos);
  EXPECT_NE(text.find("f16"), std::string::npos);
  dynamic.jit().init_randn(3, 0.5);
  specialized.jit(Device::cpu(), special).init_randn(3, 0.5);
  for (int64_t rows : {8, 5}) {
    std::map<std::string, Array> batch{
        {"x", Array::from(values(rows * 4, 1), {rows, 4})},
        {"y", Array::from(values(rows, 2), {rows, 1})}};
    double a = specialized.step(batch), b = dynamic.step(batch);
    // The same f16 arithmetic, perhaps summed in another order: within a
    // few f16 units of roundoff (u = 2^-11).
    EXPECT_NEAR(a, b, 8 * std::ldexp(1.0, -11) * std::fabs(b));
    EXPECT_FALSE(specialized.skipped());
    EXPECT_EQ(specialized.last_outputs()["skipped"].item(), 0);
  }
  EXPECT_EQ(specialized.loss_scale(), 32768);
  for (const std::string &name : dynamic.param_names())
    expectNear(specialized.param(name).to_vector(),
               dynamic.param(name).to_vector(), 1e-3, 1e-3);
}
