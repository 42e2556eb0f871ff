//===- MuonTest.cpp - Muon against plain loops ----------------------------===//
///
/// \file
/// Optimizer::muon against Muon written here from its definition in double
/// loops (momentum, Nesterov, Newton-Schulz, width scaling, the AdamW of
/// the other params) on a loss with closed-form gradients; the iteration's
/// orthogonality with the classic cubic coefficients; and a small MLP whose
/// loss Muon brings down.
///
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include <cmath>

using namespace rlx;
using namespace rlx::optim;
using namespace rlx::test;

namespace {

/// A row-major matrix.
struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  double &at(int64_t i, int64_t j) { return v[i * cols + j]; }
  double at(int64_t i, int64_t j) const { return v[i * cols + j]; }
};

Mat transposed(const Mat &a) {
  Mat t{a.cols, a.rows, std::vector<double>(a.v.size())};
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j)
      t.at(j, i) = a.at(i, j);
  return t;
}

Mat product(const Mat &a, const Mat &b) {
  Mat c{a.rows, b.cols, std::vector<double>(a.rows * b.cols, 0)};
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j)
      for (int64_t k = 0; k < a.cols; ++k)
        c.at(i, j) += a.at(i, k) * b.at(k, j);
  return c;
}

/// X / (|X|_F + eps), then X <- a X + (b A + c A^2) X with A = X X^T, on
/// the wide orientation.
Mat newtonSchulz(Mat x, int steps, double a, double b, double c, double eps) {
  bool tall = x.rows > x.cols;
  if (tall)
    x = transposed(x);
  double norm = 0;
  for (double e : x.v)
    norm += e * e;
  for (double &e : x.v)
    e /= std::sqrt(norm) + eps;
  for (int s = 0; s < steps; ++s) {
    Mat A = product(x, transposed(x));
    Mat AA = product(A, A);
    Mat B = A;
    for (size_t i = 0; i < B.v.size(); ++i)
      B.v[i] = b * A.v[i] + c * AA.v[i];
    Mat BX = product(B, x);
    for (size_t i = 0; i < x.v.size(); ++i)
      x.v[i] = a * x.v[i] + BX.v[i];
  }
  return tall ? transposed(x) : x;
}

/// 0.5 |W - X|^2 + 0.5 |T - Y|^2 + 0.5 |b - z|^2: gradients W - X, T - Y,
/// b - z. W is wide, T tall, b a vector (AdamW's).
const Shape kW{3, 5}, kT{5, 2}, kB{4};

Func threeParams() {
  return Func("three", [](Scope &s) {
    auto half = [](const Tensor &p, const Tensor &target) {
      return 0.5 * sum(square(p - target));
    };
    Tensor W = s.param("W", kW, f64), T = s.param("T", kT, f64),
           b = s.param("b", kB, f64);
    return (half(W, s.input("X", kW, f64)) + half(T, s.input("Y", kT, f64)) +
            half(b, s.input("z", kB, f64)))
        .named("loss");
  });
}

size_t count(const Shape &shape) {
  size_t n = 1;
  for (int64_t d : shape)
    n *= size_t(d);
  return n;
}

/// Muon as its papers write it, with Optax's defaults for what they leave
/// open (bias correction, NAdam for the non-matrices).
struct HostMuon {
  MuonOptions o;
  std::map<std::string, std::vector<double>> mu, m, v;

  void step(std::map<std::string, Mat> &params,
            const std::map<std::string, Mat> &targets, int t, double lr) {
    for (auto &[name, p] : params) {
      const Mat &target = targets.at(name);
      std::vector<double> g(p.v.size());
      for (size_t i = 0; i < g.size(); ++i)
        g[i] = p.v[i] - target.v[i];
      if (p.rows > 1 && p.cols > 1) {
        std::vector<double> &buf = mu[name];
        buf.resize(g.size(), 0);
        Mat hat{p.rows, p.cols, std::vector<double>(g.size())};
        double b = o.beta;
        for (size_t i = 0; i < g.size(); ++i) {
          buf[i] = b * buf[i] + (1 - b) * g[i];
          hat.v[i] = o.nesterov ? b * buf[i] / (1 - std::pow(b, t + 1)) +
                                      (1 - b) * g[i] / (1 - std::pow(b, t))
                                : buf[i] / (1 - std::pow(b, t));
        }
        Mat u = newtonSchulz(hat, int(o.ns_steps), o.ns_coeffs[0],
                             o.ns_coeffs[1], o.ns_coeffs[2], o.eps);
        double width = std::sqrt(std::max(1.0, double(p.cols) / p.rows));
        for (size_t i = 0; i < g.size(); ++i)
          p.v[i] -= lr * (width * u.v[i] + o.weight_decay * p.v[i]);
      } else {
        std::vector<double> &m1 = m[name], &m2 = v[name];
        m1.resize(g.size(), 0);
        m2.resize(g.size(), 0);
        double b1 = o.adam_beta1, b2 = o.adam_beta2;
        for (size_t i = 0; i < g.size(); ++i) {
          m1[i] = b1 * m1[i] + (1 - b1) * g[i];
          m2[i] = b2 * m2[i] + (1 - b2) * g[i] * g[i];
          double mHat = o.nesterov
                            ? b1 * m1[i] / (1 - std::pow(b1, t + 1)) +
                                  (1 - b1) * g[i] / (1 - std::pow(b1, t))
                            : m1[i] / (1 - std::pow(b1, t));
          double vHat = m2[i] / (1 - std::pow(b2, t));
          double u = mHat / (std::sqrt(vHat) + o.eps) +
                     o.adam_weight_decay * p.v[i];
          p.v[i] -= lr * o.adam_lr_scale * u;
        }
      }
    }
  }
};

Mat asMat(const Shape &shape, std::vector<double> v) {
  return {shape[0], shape.size() > 1 ? shape[1] : 1, std::move(v)};
}

/// Three steps of Optimizer::muon(o) and of HostMuon{o} from the same start.
void expectMuonLike(const MuonOptions &o, const Schedule &schedule) {
  std::map<std::string, Shape> shapes{{"W", kW}, {"T", kT}, {"b", kB}};
  std::map<std::string, Mat> params, targets;
  unsigned seed = 3;
  for (const auto &[name, shape] : shapes) {
    params[name] = asMat(shape, values(count(shape), seed++));
    targets[name] = asMat(shape, values(count(shape), seed++));
  }
  TrainStep step = make_train_step(threeParams(), Optimizer::muon(o), schedule);
  step.jit();
  for (const auto &[name, p] : params)
    step.with_param(name, Array::from(p.v, shapes[name], f64));
  std::map<std::string, Array> inputs{
      {"X", Array::from(targets["W"].v, kW, f64)},
      {"Y", Array::from(targets["T"].v, kT, f64)},
      {"z", Array::from(targets["b"].v, kB, f64)}};
  HostMuon host{o, {}, {}, {}};
  for (int t = 1; t <= 3; ++t) {
    step.step(inputs);
    // The step's rate is an f32 input.
    host.step(params, targets, t, double(float(schedule.at(t))));
  }
  for (const auto &[name, p] : params) {
    SCOPED_TRACE(name);
    expectNear(step.param(name).to_vector(), p.v, 1e-9, 1e-12);
  }
}

} // namespace

TEST(OptimMuon, MatchesPlainLoops) {
  MuonOptions defaults;
  expectMuonLike(defaults, Schedule::constant(0.05));

  MuonOptions heavyBall;
  heavyBall.nesterov = false;
  heavyBall.beta = 0.8;
  heavyBall.ns_steps = 3;
  heavyBall.weight_decay = 0.1;
  heavyBall.adam_weight_decay = 0.01;
  heavyBall.adam_lr_scale = 0.5;
  expectMuonLike(heavyBall, Schedule::cosine(0.1, 10));
}

TEST(OptimMuon, StateNamesAndErrors) {
  TrainStep step = make_train_step(threeParams(), Optimizer::muon(),
                                   Schedule::constant(0.01));
  EXPECT_EQ(step.state_names(),
            (std::vector<std::string>{"mu.W", "mu.T", "m.b", "v.b"}));
  std::string bad = errorOf([] {
    make_train_step(threeParams(), chain(scale_by_muon(), scale_by_learning_rate()),
                    Schedule::constant(0.01));
  });
  EXPECT_NE(bad.find("scale_by_muon: 'b' is"), std::string::npos) << bad;
  EXPECT_NE(bad.find("Optimizer::muon"), std::string::npos) << bad;
  EXPECT_NE(errorOf([] { scale_by_muon(1.0); }).find("beta"),
            std::string::npos);
}

TEST(OptimMuon, NewtonSchulzOrthogonalizes) {
  // The cubic 1.5 X - 0.5 X X^T X converges to U V^T from singular values
  // in (0, sqrt(3)); after one step of plain scale_by_muon (no momentum)
  // and a rate of 1, the update of W (wide) has orthonormal rows and that
  // of T (tall) orthonormal columns.
  TrainOptions matrices;
  matrices.wrt = {"W", "T"};
  TrainStep step = make_train_step(
      threeParams(),
      chain(scale_by_muon(0, false, 25, {1.5, -0.5, 0}),
            scale_by_learning_rate()),
      Schedule::constant(1), matrices);
  step.jit();
  using Named = std::vector<std::pair<std::string, Shape>>;
  std::map<std::string, std::vector<double>> start;
  unsigned seed = 40;
  for (const auto &[name, shape] : Named{{"W", kW}, {"T", kT}, {"b", kB}}) {
    start[name] = values(count(shape), seed++);
    step.with_param(name, Array::from(start[name], shape, f64));
  }
  step.step({{"X", Array::from(values(15, 50), kW, f64)},
             {"Y", Array::from(values(10, 51), kT, f64)},
             {"z", Array::from(values(4, 52), kB, f64)}});
  for (const auto &[name, shape] : Named{{"W", kW}, {"T", kT}}) {
    SCOPED_TRACE(name);
    std::vector<double> now = step.param(name).to_vector();
    Mat u = asMat(shape, std::vector<double>(now.size()));
    for (size_t i = 0; i < now.size(); ++i)
      u.v[i] = start[name][i] - now[i];
    Mat gram = u.rows < u.cols ? product(u, transposed(u))
                               : product(transposed(u), u);
    std::vector<double> identity(gram.v.size(), 0);
    for (int64_t i = 0; i < gram.rows; ++i)
      identity[i * gram.cols + i] = 1;
    expectNear(gram.v, identity, 0, 1e-9);
  }
}

TEST(OptimMuon, TrainsAnMlp) {
  // Labels from a fixed linear teacher; Muon on fc1/fc2 weights, AdamW on
  // the biases.
  const int64_t n = 64, in = 8, classes = 4;
  std::vector<double> x = values(n * in, 7), teacher = values(in * classes, 8);
  std::vector<int32_t> labels(n);
  for (int64_t i = 0; i < n; ++i) {
    int best = 0;
    double bestScore = -1e30;
    for (int k = 0; k < classes; ++k) {
      double score = 0;
      for (int64_t j = 0; j < in; ++j)
        score += x[i * in + j] * teacher[j * classes + k];
      if (score > bestScore)
        bestScore = score, best = k;
    }
    labels[i] = best;
  }
  Func loss("mlp", [&](Scope &s) {
    Tensor xs = s.input("x", {dyn, in});
    Tensor ys = s.input("y", {dyn}, i32);
    Tensor h = relu(linear(s, "fc1", xs, 32));
    return cross_entropy(linear(s, "fc2", h, classes), ys).named("loss");
  });
  TrainStep step =
      make_train_step(loss, Optimizer::muon(), Schedule::constant(0.02));
  step.jit().init_randn(0, 0.1);
  std::map<std::string, Array> batch{
      {"x", Array::from(std::vector<float>(x.begin(), x.end()), {n, in})},
      {"y", Array::from(labels, {n})}};
  double first = step.step(batch), last = first;
  for (int t = 0; t < 60; ++t)
    last = step.step(batch);
  EXPECT_LT(last, 0.3 * first) << "first " << first << ", last " << last;
}
