//===- ControlFlowTest.cpp - scan, loops and branches through transforms --===//
///
/// Values against plain C++ loops, derivatives against f64 central
/// differences of the jitted forward, vmap against loops of unbatched calls,
/// and the errors users meet (a body changing its carry's type, branches
/// that disagree, reverse mode through a while loop).
///
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>

using namespace rlx;
using rlx::test::centralDiff;
using rlx::test::centralDiffParam;
using rlx::test::errorOf;
using rlx::test::expectNear;

namespace {

/// h_{t+1} = tanh(h_t * w + x_t + b), y_t = h_{t+1} * x_t over steps
/// xs[T, B, 3]; w a param read inside the body, b captured from outside.
Func rnn(bool reverse, int64_t unroll = 1) {
  return Func("rnn", [reverse, unroll](Scope &s) -> std::vector<Tensor> {
    Tensor h0 = s.input("h0", {dyn, 3}, f64);
    Tensor xs = s.input("xs", {dyn, dyn, 3}, f64);
    Tensor b = s.input("b", {3}, f64) * 0.5;
    ScanOptions options;
    options.reverse = reverse;
    options.unroll = unroll;
    ScanResult r = scan(
        [&](Scope &in, const std::vector<Tensor> &carry,
            const std::vector<Tensor> &x) {
          Tensor w = in.param("w", {3}, f64);
          Tensor h = tanh(carry[0] * w + x[0] + b);
          return ScanStep{{h}, {h * x[0]}};
        },
        {h0}, {xs}, options);
    Tensor loss = sum(r.carry[0] * r.carry[0]) + sum(r.ys[0]);
    return {loss.named("loss"), r.carry[0].named("h"), r.ys[0].named("ys")};
  });
}

struct RnnReference {
  double loss;
  std::vector<double> h, ys;
};

RnnReference rnnReference(const std::vector<double> &h0,
                          const std::vector<double> &xs,
                          const std::vector<double> &b,
                          const std::vector<double> &w, size_t T, size_t B,
                          bool reverse) {
  std::vector<double> h = h0, ys(T * B * 3);
  for (size_t i = 0; i < T; ++i) {
    size_t t = reverse ? T - 1 - i : i;
    for (size_t r = 0; r < B; ++r)
      for (size_t k = 0; k < 3; ++k) {
        double x = xs[(t * B + r) * 3 + k];
        double v = std::tanh(h[r * 3 + k] * w[k] + x + 0.5 * b[k]);
        h[r * 3 + k] = v;
        ys[(t * B + r) * 3 + k] = v * x;
      }
  }
  double loss = 0;
  for (double v : h)
    loss += v * v;
  for (double v : ys)
    loss += v;
  return {loss, h, ys};
}

std::map<std::string, Array> rnnInputs(size_t T, size_t B) {
  return {{"h0", Array::from(test::values(B * 3, 1), {int64_t(B), 3}, f64)},
          {"xs", Array::from(test::values(T * B * 3, 2),
                             {int64_t(T), int64_t(B), 3}, f64)},
          {"b", Array::from(test::values(3, 3), {3}, f64)}};
}

void bindW(Compiled &c) {
  c.with_param("w", Array::from(std::vector<double>{0.9, -0.7, 1.3}, {3}, f64));
}

TEST(ControlFlow, ScanMatchesALoop) {
  // unroll = 3 over 5, 1 and 7 steps (a dynamic length): whole groups of
  // three, then the rest one by one.
  for (auto [reverse, unroll] : {std::pair<bool, int64_t>{false, 1},
                                 {true, 1}, {false, 3}, {true, 3}}) {
    Compiled c = rnn(reverse, unroll).jit(Device::cpu());
    bindW(c);
    for (auto [T, B] : {std::pair<size_t, size_t>{5, 2}, {1, 3}, {7, 1}}) {
      auto in = rnnInputs(T, B);
      Outputs out = c.run(in);
      RnnReference want = rnnReference(in["h0"].to_vector(),
                                       in["xs"].to_vector(),
                                       in["b"].to_vector(), {0.9, -0.7, 1.3},
                                       T, B, reverse);
      EXPECT_NEAR(out["loss"].item(), want.loss, 1e-12);
      expectNear(out["h"].to_vector(), want.h, 1e-12, 1e-14);
      expectNear(out["ys"].to_vector(), want.ys, 1e-12, 1e-14);
    }
  }
}

TEST(ControlFlow, ScanGradAgainstCentralDifferences) {
  for (bool reverse : {false, true}) {
    Func f = rnn(reverse);
    Compiled forward = f.jit(Device::cpu());
    Compiled grad = f.value_and_grad({"h0", "xs", "b", "w"}, /*has_aux=*/true)
                        .jit(Device::cpu());
    bindW(forward);
    bindW(grad);
    auto in = rnnInputs(4, 2);
    Outputs out = grad.run(in);
    for (const char *leaf : {"h0", "xs", "b"})
      expectNear(out[std::string("grad.") + leaf].to_vector(),
                 centralDiff(forward, in, leaf), 1e-6, 1e-8);
    expectNear(out["grad.w"].to_vector(), centralDiffParam(forward, in, "w"),
               1e-6, 1e-8);
  }
}

TEST(ControlFlow, ScanForwardModeAndSecondOrder) {
  // d/dx of a scan-built polynomial: h <- h * x + 1, four steps from 0, so
  // h = x^3 + x^2 + x + 1 and h'' = 6x + 2.
  Func poly("poly", [](Scope &s) {
    Tensor x = s.input("x", {}, f64);
    ScanOptions options;
    options.length = 4;
    ScanResult r = scan(
        [&](Scope &, const std::vector<Tensor> &carry,
            const std::vector<Tensor> &) {
          return ScanStep{{carry[0] * x + 1.0}, {}};
        },
        {s.scalar(0, DType::f64)}, {}, options);
    return r.carry[0];
  });
  Compiled second = poly.grad({"x"}).grad({"x"}).jit(Device::cpu());
  Compiled tangent = poly.jvp({"x"}).jit(Device::cpu());
  for (double x : {-1.5, 0.25, 2.0}) {
    std::map<std::string, Array> in = {{"x", Array::scalar(x, f64)}};
    EXPECT_NEAR(second.run(in)[0].item(), 6 * x + 2, 1e-10);
    Outputs t = tangent.run({{"x", Array::scalar(x, f64)},
                             {"t.x", Array::scalar(1.0, f64)}});
    EXPECT_NEAR(t[1].item(), 3 * x * x + 2 * x + 1, 1e-10);
  }
}

TEST(ControlFlow, VmapOfScanAndOfItsGradient) {
  Func one("one", [](Scope &s) {
    Tensor h0 = s.input("h0", {3}, f64);
    Tensor xs = s.input("xs", {4, 3}, f64);
    ScanResult r = scan(
        [&](Scope &, const std::vector<Tensor> &c,
            const std::vector<Tensor> &x) {
          Tensor h = tanh(c[0] * 1.1 + x[0]);
          return ScanStep{{h}, {h}};
        },
        {h0}, {xs});
    return sum(r.ys[0] * r.ys[0]) + sum(r.carry[0]);
  });
  Compiled single = one.jit(Device::cpu());
  Compiled batched = one.vmap({0, 0}, {0}).jit(Device::cpu());
  Compiled perExample = one.grad({"h0", "xs"}).vmap({0, 0}, {0, 0})
                            .jit(Device::cpu());
  std::vector<double> h0 = test::values(2 * 3, 5), xs = test::values(2 * 12, 6);
  std::map<std::string, Array> in = {{"h0", Array::from(h0, {2, 3}, f64)},
                                     {"xs", Array::from(xs, {2, 4, 3}, f64)}};
  Outputs out = batched.run(in);
  Outputs grads = perExample.run(in);
  for (int e = 0; e < 2; ++e) {
    std::map<std::string, Array> lane = {
        {"h0", Array::from(std::vector<double>(h0.begin() + 3 * e,
                                               h0.begin() + 3 * e + 3),
                           {3}, f64)},
        {"xs", Array::from(std::vector<double>(xs.begin() + 12 * e,
                                               xs.begin() + 12 * e + 12),
                           {4, 3}, f64)}};
    EXPECT_NEAR(out[0].at(e), single.run(lane)[0].item(), 1e-12);
    std::vector<double> fdH = centralDiff(single, lane, "h0");
    std::vector<double> fdX = centralDiff(single, lane, "xs");
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(grads["grad.h0"].at(e * 3 + i), fdH[i], 1e-7);
    for (int i = 0; i < 12; ++i)
      EXPECT_NEAR(grads["grad.xs"].at(e * 12 + i), fdX[i], 1e-7);
  }
}

TEST(ControlFlow, ForiLoopIsDifferentiable) {
  // x <- x * x + i for i in [1, 4): derivatives against central differences.
  Func f("fori", [](Scope &s) {
    Tensor x = s.input("x", {2}, f64);
    std::vector<Tensor> r = fori_loop(
        1, 4,
        [](Scope &, const Tensor &i, const std::vector<Tensor> &c) {
          return std::vector<Tensor>{c[0] * c[0] * 0.5 + cast(i, DType::f64)};
        },
        {x});
    return sum(r[0]);
  });
  Compiled forward = f.jit(Device::cpu());
  Compiled grad = f.grad({"x"}).jit(Device::cpu());
  std::map<std::string, Array> in = {
      {"x", Array::from(std::vector<double>{0.3, -0.8}, {2}, f64)}};
  double want = 0;
  for (double x : {0.3, -0.8}) {
    for (int i = 1; i < 4; ++i)
      x = x * x * 0.5 + i;
    want += x;
  }
  EXPECT_NEAR(forward.run(in)[0].item(), want, 1e-12);
  expectNear(grad.run(in)[0].to_vector(), centralDiff(forward, in, "x"), 1e-6,
             1e-8);
}

Func halving() {
  // Halves x until it is below 1; also counts the steps.
  return Func("halving", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {}, f64);
    Tensor y = s.input("y", {}, f64);
    std::vector<Tensor> r = while_loop(
        [](Scope &, const std::vector<Tensor> &c) { return c[0] > 1.0; },
        [&](Scope &, const std::vector<Tensor> &c) {
          return std::vector<Tensor>{c[0] * 0.5, c[1] * y,
                                     c[2] + s.scalar(1, DType::i32)};
        },
        {x, y, s.scalar(0, DType::i32)});
    return {r[0].named("x"), r[1].named("p"), r[2].named("n")};
  });
}

TEST(ControlFlow, WhileLoopValuesAndForwardMode) {
  Compiled c = halving().jit(Device::cpu());
  Compiled t = halving().jvp({"y"}).jit(Device::cpu());
  for (double x : {0.5, 3.0, 17.0}) {
    double want = x;
    int n = 0;
    while (want > 1.0) {
      want *= 0.5;
      ++n;
    }
    std::map<std::string, Array> in = {{"x", Array::scalar(x, f64)},
                                       {"y", Array::scalar(1.5, f64)}};
    Outputs out = c.run(in);
    EXPECT_DOUBLE_EQ(out["x"].item(), want);
    EXPECT_EQ(out["n"].item(), n);
    // p = y^(n+1), dp/dy = (n+1) y^n.
    EXPECT_NEAR(out["p"].item(), std::pow(1.5, n + 1), 1e-12);
    in["t.y"] = Array::scalar(1.0, f64);
    Outputs tangents = t.run(in);
    EXPECT_NEAR(tangents["tangent.p"].item(), (n + 1) * std::pow(1.5, n),
                1e-10);
  }
}

TEST(ControlFlow, WhileLoopUnderVmapRunsEveryLane) {
  Compiled c = halving().vmap({0, unmapped}, {0, 0, 0}).jit(Device::cpu());
  Outputs out = c.run({{"x", Array::from(std::vector<double>{0.5, 3.0, 17.0},
                                         {3}, f64)},
                       {"y", Array::scalar(2.0, f64)}});
  EXPECT_EQ(out["n"].to_vector(), (std::vector<double>{0, 2, 5}));
  expectNear(out["x"].to_vector(), {0.5, 0.75, 17.0 / 32}, 0, 0);
  expectNear(out["p"].to_vector(), {2, 8, 64}, 0, 0);
}

TEST(ControlFlow, ReverseModeThroughWhileIsAnError) {
  std::string error =
      errorOf([] {
    halving().value_and_grad({"y"}, /*has_aux=*/true).jit(Device::cpu());
  });
  EXPECT_NE(error.find("rlx.while"), std::string::npos) << error;
  EXPECT_NE(error.find("rlx.scan"), std::string::npos) << error;
}

Func branchy() {
  // p ? x * w : exp(x) with w a param read in one branch, c captured.
  return Func("branchy", [](Scope &s) {
    Tensor p = s.input("p", {}, DType::i1);
    Tensor x = s.input("x", {3}, f64);
    Tensor c = s.input("c", {3}, f64);
    std::vector<Tensor> r = cond(
        p,
        [&](Scope &in, const std::vector<Tensor> &a) {
          return std::vector<Tensor>{a[0] * in.param("w", {3}, f64) + c};
        },
        [&](Scope &, const std::vector<Tensor> &a) {
          return std::vector<Tensor>{exp(a[0])};
        },
        {x});
    return sum(r[0] * r[0]);
  });
}

TEST(ControlFlow, CondTakesOneBranchAndDifferentiatesIt) {
  Compiled forward = branchy().jit(Device::cpu());
  Compiled grad = branchy().grad({"x", "c", "w"}).jit(Device::cpu());
  Array w = Array::from(std::vector<double>{0.5, -1.0, 2.0}, {3}, f64);
  forward.with_param("w", w);
  grad.with_param("w", w);
  std::vector<double> x = {0.2, -0.4, 0.9}, c = {1.0, 0.5, -0.25};
  for (bool p : {false, true}) {
    std::map<std::string, Array> in = {
        {"p", Array::scalar(p ? 1 : 0, DType::i1)},
        {"x", Array::from(x, {3}, f64)},
        {"c", Array::from(c, {3}, f64)}};
    double want = 0;
    for (int i = 0; i < 3; ++i) {
      double v = p ? x[i] * w.at(i) + c[i] : std::exp(x[i]);
      want += v * v;
    }
    EXPECT_NEAR(forward.run(in)[0].item(), want, 1e-12);
    Outputs g = grad.run(in);
    expectNear(g["grad.x"].to_vector(), centralDiff(forward, in, "x"), 1e-6,
               1e-8);
    expectNear(g["grad.c"].to_vector(), centralDiff(forward, in, "c"), 1e-6,
               1e-8);
    expectNear(g["grad.w"].to_vector(), centralDiffParam(forward, in, "w"),
               1e-6, 1e-8);
  }
}

TEST(ControlFlow, SwitchUnderVmapSelectsPerExample) {
  Func f("pick", [](Scope &s) {
    Tensor i = s.input("i", {}, DType::i32);
    Tensor x = s.input("x", {2}, f64);
    std::vector<Branch> branches = {
        [](Scope &, const std::vector<Tensor> &a) {
          return std::vector<Tensor>{a[0] + 1.0};
        },
        [](Scope &, const std::vector<Tensor> &a) {
          return std::vector<Tensor>{a[0] * a[0]};
        },
        [](Scope &, const std::vector<Tensor> &a) {
          return std::vector<Tensor>{-a[0]};
        }};
    return switch_(i, branches, {x})[0];
  });
  Compiled c = f.vmap({0, 0}, {0}).jit(Device::cpu());
  std::vector<int32_t> index = {-3, 0, 1, 2, 7};
  std::vector<double> x = test::values(10, 4);
  Outputs out = c.run({{"i", Array::from(index, {5})},
                       {"x", Array::from(x, {5, 2}, f64)}});
  for (int e = 0; e < 5; ++e) {
    int k = std::min(std::max(index[e], 0), 2);
    for (int j = 0; j < 2; ++j) {
      double v = x[e * 2 + j];
      double want = k == 0 ? v + 1 : k == 1 ? v * v : -v;
      EXPECT_DOUBLE_EQ(out[0].at(e * 2 + j), want) << "lane " << e;
    }
  }
}

/// h <- tanh(h * w + x_t) over 10 steps with checkpoint_every = 4 (chunks
/// of 4, 4 and a remainder of 2): the same gradients as storing every
/// carry, forward and reverse.
Func chunked(int64_t every, bool reverse) {
  return Func("chunked", [every, reverse](Scope &s) {
    Tensor h = s.input("h", {2, 3}, f64);
    Tensor xs = s.input("xs", {10, 2, 3}, f64);
    ScanOptions options;
    options.checkpoint_every = every;
    options.reverse = reverse;
    ScanResult r = scan(
        [&](Scope &in, const std::vector<Tensor> &c,
            const std::vector<Tensor> &x) {
          Tensor w = in.param("w", {3}, f64);
          Tensor next = tanh(c[0] * w + x[0]);
          return ScanStep{{next}, {next * x[0]}};
        },
        {h}, {xs}, options);
    return sum(r.carry[0] * r.carry[0]) + sum(r.ys[0]);
  });
}

TEST(ControlFlow, CheckpointedScanGivesTheSameGradients) {
  for (bool reverse : {false, true}) {
    Compiled plain = chunked(1, reverse).grad({"h", "xs", "w"})
                         .jit(Device::cpu());
    Compiled every4 = chunked(4, reverse).grad({"h", "xs", "w"})
                          .jit(Device::cpu());
    Compiled forward = chunked(4, reverse).jit(Device::cpu());
    Array w = Array::from(std::vector<double>{0.8, -1.1, 0.4}, {3}, f64);
    for (Compiled *c : {&plain, &every4, &forward})
      c->with_param("w", w);
    std::map<std::string, Array> in = {
        {"h", Array::from(test::values(6, 31), {2, 3}, f64)},
        {"xs", Array::from(test::values(60, 32), {10, 2, 3}, f64)}};
    Outputs a = plain.run(in), b = every4.run(in);
    for (const char *leaf : {"grad.h", "grad.xs", "grad.w"})
      expectNear(b[leaf].to_vector(), a[leaf].to_vector(), 1e-12, 1e-14);
    expectNear(b["grad.xs"].to_vector(), centralDiff(forward, in, "xs"), 1e-6,
               1e-8);
  }
}

/// An outer scan whose step runs an inner scan (over the step's row of
/// xs) and a remat'd block: reverse mode stores the inner loop's residuals
/// per outer step, and only the remat's inputs.
Func nested() {
  return Func("nested", [](Scope &s) {
    Tensor h = s.input("h", {dyn, 2}, f64);
    Tensor xs = s.input("xs", {dyn, 3, dyn, 2}, f64); // [T, inner, B, 2]
    ScanResult r = scan(
        [&](Scope &in, const std::vector<Tensor> &c,
            const std::vector<Tensor> &x) {
          Tensor w = in.param("w", {2}, f64);
          ScanResult inner = scan(
              [&](Scope &, const std::vector<Tensor> &ic,
                  const std::vector<Tensor> &ix) {
                Tensor v = tanh(ic[0] * w + ix[0]);
                return ScanStep{{v}, {v * ix[0]}};
              },
              {c[0]}, {x[0]});
          std::vector<Tensor> kept = remat(
              in, "block",
              [](Scope &, const std::vector<Tensor> &a) {
                return std::vector<Tensor>{tanh(exp(a[0] * 0.3) * a[1])};
              },
              {inner.carry[0], c[0]});
          return ScanStep{{kept[0]}, {sum(inner.ys[0], {0})}};
        },
        {h}, {xs});
    return sum(r.carry[0] * r.carry[0]) + sum(r.ys[0] * r.ys[0]);
  });
}

/// The same function as plain C++ loops.
double nestedReference(std::vector<double> h, const std::vector<double> &xs,
                       const std::vector<double> &w, size_t T, size_t B) {
  double loss = 0;
  for (size_t t = 0; t < T; ++t) {
    std::vector<double> v = h, ysum(B * 2, 0.0);
    for (size_t i = 0; i < 3; ++i)
      for (size_t e = 0; e < B * 2; ++e) {
        double x = xs[((t * 3 + i) * B) * 2 + e];
        v[e] = std::tanh(v[e] * w[e % 2] + x);
        ysum[e] += v[e] * x;
      }
    for (size_t e = 0; e < B * 2; ++e) {
      h[e] = std::tanh(std::exp(v[e] * 0.3) * h[e]);
      loss += ysum[e] * ysum[e];
    }
  }
  for (double v : h)
    loss += v * v;
  return loss;
}

TEST(ControlFlow, NestedScanAndRematGradAgainstCentralDifferences) {
  Func f = nested();
  Compiled forward = f.jit(Device::cpu());
  Compiled grad = f.value_and_grad({"h", "xs", "w"}).jit(Device::cpu());
  Array w = Array::from(std::vector<double>{0.7, -1.2}, {2}, f64);
  forward.with_param("w", w);
  grad.with_param("w", w);
  // No step at all: the stacked outputs whose size the body computes are
  // empty.
  for (auto [T, B] : std::vector<std::pair<size_t, size_t>>{{4, 2}, {1, 3}, {0, 2}}) {
    std::map<std::string, Array> in = {
        {"h", Array::from(test::values(B * 2, 41), {int64_t(B), 2}, f64)},
        {"xs", Array::from(test::values(T * 3 * B * 2, 42),
                           {int64_t(T), 3, int64_t(B), 2}, f64)}};
    Outputs out = grad.run(in);
    EXPECT_NEAR(out[0].item(),
                nestedReference(in["h"].to_vector(), in["xs"].to_vector(),
                                {0.7, -1.2}, T, B),
                1e-12);
    for (const char *leaf : {"h", "xs"})
      expectNear(out[std::string("grad.") + leaf].to_vector(),
                 centralDiff(forward, in, leaf), 1e-6, 1e-8);
    expectNear(out["grad.w"].to_vector(), centralDiffParam(forward, in, "w"),
               1e-6, 1e-8);
  }
}

TEST(ControlFlow, TrainStepThreadsAKey) {
  // Dropout keyed by the step's key: same seed, same losses; another seed,
  // other losses; the key changes every step.
  Func loss("dropped", [](Scope &s) {
    Tensor x = s.input("x", {4, 8});
    Tensor key = s.input("key", {2}, DType::i32);
    Tensor h = dropout(key, linear(s, "fc", x, 8), 0.5, /*train=*/true);
    return mean(h * h);
  });
  auto losses = [&](uint64_t seed) {
    TrainStep step = make_train_step(loss, Optimizer::sgd(),
                                     Schedule::constant(0.0));
    step.jit(Device::cpu()).init_randn(3, 0.5);
    step.seed(seed);
    std::vector<double> out;
    Array x = Array::from(test::values(32, 33), {4, 8});
    for (int i = 0; i < 4; ++i)
      out.push_back(step.step({{"x", x}}));
    return out;
  };
  std::vector<double> a = losses(5), b = losses(5), c = losses(6);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // A zero learning rate keeps the weights: only the key changes the loss.
  EXPECT_NE(a[0], a[1]);
  EXPECT_NE(a[1], a[2]);
  std::string error = errorOf([&] {
    TrainStep step = make_train_step(loss, Optimizer::sgd(),
                                     Schedule::constant(0.1));
    step.jit(Device::cpu()).init_randn(3, 0.5);
    step.step({{"x", Array::zeros({4, 8})},
               {"key", Array::from(std::vector<int32_t>{0, 1}, {2})}});
  });
  EXPECT_NE(error.find("the PRNG key the step threads"), std::string::npos)
      << error;
}

/// rlx::lstm against PyTorch's nn.LSTM in f64 on the same weights: the
/// loss and every gradient. Runs where Debian's python3 has torch (and
/// numpy); skipped elsewhere.
TEST(ControlFlow, LstmMatchesPyTorchInF64) {
  const int64_t T = 5, B = 3, I = 4, H = 6;
  Func loss("lstm_f64", [&](Scope &s) {
    Tensor xs = s.input("xs", {T, B, I}, f64);
    Tensor h0 = s.input("h0", {B, H}, f64), c0 = s.input("c0", {B, H}, f64);
    LSTMResult r = lstm(s, "lstm", xs, h0, c0);
    return sum(r.ys * r.ys) + sum(r.h) + 0.5 * sum(r.c * r.c);
  });
  std::string dir = test::freshDir("lstm_torch");
  std::map<std::string, Array> in = {
      {"xs", Array::from(test::values(T * B * I, 41), {T, B, I}, f64)},
      {"h0", Array::from(test::values(B * H, 42), {B, H}, f64)},
      {"c0", Array::from(test::values(B * H, 43), {B, H}, f64)}};
  std::map<std::string, Array> weights = {
      {"lstm.w_ih", Array::from(test::values(I * 4 * H, 44), {I, 4 * H}, f64)},
      {"lstm.w_hh", Array::from(test::values(H * 4 * H, 45), {H, 4 * H}, f64)},
      {"lstm.bias", Array::from(test::values(4 * H, 46), {4 * H}, f64)}};
  for (auto &[name, a] : in)
    a.host().write_npy(dir + "/" + name + ".npy");
  for (auto &[name, a] : weights)
    a.host().write_npy(dir + "/" + name + ".npy");
  std::string script = R"(
import sys
d = sys.argv[1]
try:
    import numpy as np, torch
except ImportError:
    sys.exit(3)
L = lambda n: torch.tensor(np.load(f"{d}/{n}.npy"), dtype=torch.float64)
xs, h0, c0 = L("xs").requires_grad_(), L("h0").requires_grad_(), L("c0").requires_grad_()
w_ih, w_hh, b = L("lstm.w_ih"), L("lstm.w_hh"), L("lstm.bias")
m = torch.nn.LSTM(xs.shape[2], h0.shape[1]).double()
with torch.no_grad():
    m.weight_ih_l0.copy_(w_ih.T); m.weight_hh_l0.copy_(w_hh.T)
    m.bias_ih_l0.copy_(b); m.bias_hh_l0.zero_()
ys, (h, c) = m(xs, (h0[None], c0[None]))
loss = (ys * ys).sum() + h.sum() + 0.5 * (c * c).sum()
loss.backward()
out = {"loss": loss.detach().numpy(), "xs": xs.grad.numpy(), "h0": h0.grad.numpy(),
       "c0": c0.grad.numpy(), "lstm.w_ih": m.weight_ih_l0.grad.numpy().T,
       "lstm.w_hh": m.weight_hh_l0.grad.numpy().T, "lstm.bias": m.bias_ih_l0.grad.numpy()}
for k, v in out.items():
    np.save(f"{d}/torch.{k}.npy", np.ascontiguousarray(v, dtype=np.float64))
)";
  {
    std::ofstream(dir + "/ref.py") << script;
  }
  int status = std::system(("/usr/bin/python3 " + dir + "/ref.py " + dir +
                            " >/dev/null 2>&1")
                               .c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 3 ||
      WEXITSTATUS(status) == 127)
    GTEST_SKIP() << "no python3 with torch and numpy";
  ASSERT_EQ(WEXITSTATUS(status), 0) << "the PyTorch reference failed";
  Compiled c = loss.value_and_grad({"xs", "h0", "c0", "lstm.w_ih",
                                    "lstm.w_hh", "lstm.bias"})
                   .jit(Device::cpu());
  for (auto &[name, a] : weights)
    c.with_param(name, a);
  Outputs out = c.run(in);
  auto torchValue = [&](const std::string &name) {
    return Array(runtime::HostTensor::read_npy(dir + "/torch." + name +
                                               ".npy"))
        .to_vector();
  };
  EXPECT_NEAR(out[0].item(), torchValue("loss")[0], 1e-11);
  for (const char *leaf :
       {"xs", "h0", "c0", "lstm.w_ih", "lstm.w_hh", "lstm.bias"})
    expectNear(out[std::string("grad.") + leaf].to_vector(), torchValue(leaf),
               1e-10, 1e-12);
}

/// Jacobians through a scan and a cond: jacfwd (vmap of jvp) and jacrev
/// (vmap of vjp) against central differences, column by column.
TEST(ControlFlow, JacobiansThroughLoopsAndBranches) {
  Func f("jac", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    ScanOptions options;
    options.length = 4;
    Tensor h = scan(
                   [&](Scope &, const std::vector<Tensor> &c,
                       const std::vector<Tensor> &) {
                     return ScanStep{{tanh(c[0] * x + 0.1)}, {}};
                   },
                   {x * 0.5}, {}, options)
                   .carry[0];
    Tensor p = sum(x) > 0.0;
    return cond(
        p,
        [](Scope &, const std::vector<Tensor> &a) {
          return std::vector<Tensor>{a[0] * a[0]};
        },
        [](Scope &, const std::vector<Tensor> &a) {
          return std::vector<Tensor>{exp(a[0])};
        },
        {h})[0];
  });
  Compiled forward = f.jit(Device::cpu());
  Compiled fwd = f.jacfwd("x").jit(Device::cpu());
  Compiled rev = f.jacrev("x").jit(Device::cpu());
  for (std::vector<double> x : {std::vector<double>{0.3, -0.2, 0.8},
                                std::vector<double>{-0.9, 0.1, -0.4}}) {
    std::map<std::string, Array> in = {{"x", Array::from(x, {3}, f64)}};
    std::vector<double> jf = fwd.run(in)[0].to_vector();
    std::vector<double> jr = rev.run(in)[0].to_vector();
    ASSERT_EQ(jf.size(), 9u);
    expectNear(jr, jf, 1e-12, 1e-14);
    // Column j: d y / d x_j by central differences.
    const double eps = 1e-6;
    for (int j = 0; j < 3; ++j) {
      std::vector<double> up = x, down = x;
      up[j] += eps;
      down[j] -= eps;
      std::vector<double> yu =
          forward.run({{"x", Array::from(up, {3}, f64)}})[0].to_vector();
      std::vector<double> yd =
          forward.run({{"x", Array::from(down, {3}, f64)}})[0].to_vector();
      for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(jf[i * 3 + j], (yu[i] - yd[i]) / (2 * eps), 1e-7)
            << "d y" << i << " / d x" << j;
    }
  }
}

TEST(ControlFlow, ErrorsNameTheProblem) {
  std::string carry = errorOf([] {
    Func("bad", [](Scope &s) {
      Tensor x = s.input("x", {3});
      ScanOptions options;
      options.length = 2;
      return scan(
                 [](Scope &, const std::vector<Tensor> &c,
                    const std::vector<Tensor> &) {
                   return ScanStep{{cast(c[0], DType::f64)}, {}};
                 },
                 {x}, {}, options)
          .carry[0];
    });
  });
  EXPECT_NE(carry.find("rlx::scan: the body's carry 0 is f64[3], expected "
                       "f32[3]"),
            std::string::npos)
      << carry;
  EXPECT_NE(carry.find("ControlFlowTest.cpp"), std::string::npos) << carry;

  std::string lengths = errorOf([] {
    Func("bad", [](Scope &s) {
      Tensor a = s.input("a", {4, 2}), b = s.input("b", {5, 2});
      return scan(
                 [](Scope &, const std::vector<Tensor> &c,
                    const std::vector<Tensor> &x) {
                   return ScanStep{{c[0] + x[0] + x[1]}, {}};
                 },
                 {s.full({2}, 0)}, {a, b})
          .carry[0];
    });
  });
  EXPECT_NE(lengths.find("xs 1 has 5 steps, expected 4"), std::string::npos)
      << lengths;

  std::string branches = errorOf([] {
    Func("bad", [](Scope &s) {
      Tensor p = s.input("p", {}, DType::i1), x = s.input("x", {3});
      return cond(
          p,
          [](Scope &, const std::vector<Tensor> &a) {
            return std::vector<Tensor>{a[0]};
          },
          [](Scope &, const std::vector<Tensor> &a) {
            return std::vector<Tensor>{sum(a[0])};
          },
          {x})[0];
    });
  });
  EXPECT_NE(branches.find("branch 1's result 0 is f32[3], expected f32[]"),
            std::string::npos)
      << branches;
}

} // namespace
