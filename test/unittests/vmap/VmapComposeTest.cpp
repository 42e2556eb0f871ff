//===- VmapComposeTest.cpp - vmap composed with vmap, grad, jvp, remat ----===//
//
/// \file
/// Small hand-written f64 modules: vmap(vmap(f)) against a double loop of
/// calls of f; grad(vmap(f)) (an rlx.grad whose callee holds an rlx.vmap)
/// and jvp(vmap(f)) against central finite differences of the batched
/// function; a vmap of a function that holds an rlx.remat against a loop,
/// and the gradient through that vmap against finite differences.
//
//===----------------------------------------------------------------------===//

#include "VmapUtil.h"

#include <cmath>

using namespace rlx::e2e;
using namespace rlx::vmap;

namespace {

const char *kModule = R"(
func.func @f(%x: tensor<3xf64>, %w: tensor<3x2xf64>) -> tensor<2xf64> {
  %x2 = rlx.reshape %x : (tensor<3xf64>) -> tensor<1x3xf64>
  %y = rlx.matmul %x2, %w : (tensor<1x3xf64>, tensor<3x2xf64>) -> tensor<1x2xf64>
  %r = rlx.reshape %y : (tensor<1x2xf64>) -> tensor<2xf64>
  %t = rlx.tanh %r : tensor<2xf64>
  %s = rlx.sum %x {axes = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  %o = rlx.mul %t, %s : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  return %o : tensor<2xf64>
}
func.func @inner(%xs: tensor<4x3xf64>, %w: tensor<3x2xf64>) -> tensor<4x2xf64> {
  %y = rlx.vmap @f(%xs, %w) {in_axes = [0, unit], out_axes = array<i64: 0>} : (tensor<4x3xf64>, tensor<3x2xf64>) -> tensor<4x2xf64>
  return %y : tensor<4x2xf64>
}
func.func @outer(%xss: tensor<4x5x3xf64>, %ws: tensor<3x2x5xf64>) -> tensor<4x2x5xf64> {
  %y = rlx.vmap @inner(%xss, %ws) {in_axes = [1, -1], out_axes = array<i64: -1>} : (tensor<4x5x3xf64>, tensor<3x2x5xf64>) -> tensor<4x2x5xf64>
  return %y : tensor<4x2x5xf64>
}
func.func @loss(%xs: tensor<4x3xf64>, %w: tensor<3x2xf64>) -> tensor<f64> {
  %y = rlx.vmap @f(%xs, %w) {in_axes = [0, unit], out_axes = array<i64: 1>} : (tensor<4x3xf64>, tensor<3x2xf64>) -> tensor<2x4xf64>
  %q = rlx.mul %y, %y : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s = rlx.sum %q {axes = array<i64: 0, 1>} : (tensor<2x4xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad_loss(%xs: tensor<4x3xf64>, %w: tensor<3x2xf64>) -> (tensor<4x3xf64>, tensor<3x2xf64>) {
  %gx, %gw = rlx.grad @loss(%xs, %w) {wrt = array<i64: 0, 1>} : (tensor<4x3xf64>, tensor<3x2xf64>) -> (tensor<4x3xf64>, tensor<3x2xf64>)
  return %gx, %gw : tensor<4x3xf64>, tensor<3x2xf64>
}
func.func @jvp_inner(%xs: tensor<4x3xf64>, %w: tensor<3x2xf64>, %txs: tensor<4x3xf64>, %tw: tensor<3x2xf64>) -> (tensor<4x2xf64>, tensor<4x2xf64>) {
  %y, %ty = rlx.jvp @inner(%xs, %w) tangents(%txs, %tw) {wrt = array<i64: 0, 1>}
      : (tensor<4x3xf64>, tensor<3x2xf64>, tensor<4x3xf64>, tensor<3x2xf64>) -> (tensor<4x2xf64>, tensor<4x2xf64>)
  return %y, %ty : tensor<4x2xf64>, tensor<4x2xf64>
}
func.func private @block(%x: tensor<3xf64>) -> tensor<3xf64> {
  %a = rlx.tanh %x : tensor<3xf64>
  %b = rlx.mul %a, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %b : tensor<3xf64>
}
func.func @g(%x: tensor<3xf64>, %s: tensor<f64>) -> tensor<3xf64> {
  %h = rlx.remat @block(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %e = rlx.exp %h : tensor<3xf64>
  %r = rlx.mul %e, %s : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func @g__vmap(%xs: tensor<3x5xf64>, %s: tensor<f64>) -> tensor<5x3xf64> {
  %y = rlx.vmap @g(%xs, %s) {in_axes = [-1, unit], out_axes = array<i64: 0>} : (tensor<3x5xf64>, tensor<f64>) -> tensor<5x3xf64>
  return %y : tensor<5x3xf64>
}
func.func @remat_loss(%xs: tensor<3x5xf64>, %s: tensor<f64>) -> tensor<f64> {
  %y = rlx.vmap @g(%xs, %s) {in_axes = [-1, unit], out_axes = array<i64: 0>} : (tensor<3x5xf64>, tensor<f64>) -> tensor<5x3xf64>
  %l = rlx.log %y : tensor<5x3xf64>
  %t = rlx.sum %l {axes = array<i64: 0, 1>} : (tensor<5x3xf64>) -> tensor<f64>
  return %t : tensor<f64>
}
func.func @grad_remat_loss(%xs: tensor<3x5xf64>, %s: tensor<f64>) -> (tensor<3x5xf64>, tensor<f64>) {
  %gx, %gs = rlx.grad @remat_loss(%xs, %s) {wrt = array<i64: 0, 1>} : (tensor<3x5xf64>, tensor<f64>) -> (tensor<3x5xf64>, tensor<f64>)
  return %gx, %gs : tensor<3x5xf64>, tensor<f64>
}
)";

Compiled &module() {
  static std::unique_ptr<Compiled> m = compile("vmap_compose", kModule);
  return *m;
}

#define COMPOSE_MODULE(session)                                                \
  Compiled &compiled_ = module();                                              \
  ASSERT_TRUE(compiled_.ok) << "COMPILER BUG: " << compiled_.error;            \
  SCOPED_TRACE("module " + compiled_.mlirPath);                                \
  const rlx::runtime::Session &session = *compiled_.session

Arr draw(std::vector<int64_t> shape, const std::string &seed, double lo = -1,
         double hi = 1) {
  return generate(RLX_DTYPE_F64, shape, uniform(lo, hi), seed);
}

/// Calls `entry`; ADD_FAILURE and an empty vector when the call fails.
std::vector<Arr> call(const rlx::runtime::Session &session,
                      const std::string &entry,
                      const std::vector<Arr> &inputs) {
  std::vector<rlx::runtime::HostTensor> tensors;
  for (const Arr &a : inputs)
    tensors.push_back(toTensor(a));
  CallResult r = callIsolated(session, entry, tensors);
  if (!r.ok)
    ADD_FAILURE() << "calling '" << entry << "': " << r.error;
  return r.outputs;
}

double scalar(const rlx::runtime::Session &session, const std::string &entry,
              const std::vector<Arr> &inputs) {
  std::vector<Arr> r = call(session, entry, inputs);
  return r.empty() ? NAN : r[0].v[0];
}

/// Central differences of the scalar `entry` with respect to input `wrt`.
Arr fdGradient(const rlx::runtime::Session &session, const std::string &entry,
               std::vector<Arr> inputs, size_t wrt, double eps = 1e-6) {
  Arr g = inputs[wrt];
  for (int64_t i = 0; i < g.numel(); ++i) {
    double x = inputs[wrt].v[i];
    inputs[wrt].v[i] = x + eps;
    double up = scalar(session, entry, inputs);
    inputs[wrt].v[i] = x - eps;
    double down = scalar(session, entry, inputs);
    inputs[wrt].v[i] = x;
    g.v[i] = (up - down) / (2 * eps);
  }
  return g;
}

TEST(VmapCompose, VmapOfVmapEqualsDoubleLoop) {
  COMPOSE_MODULE(session);
  Arr xss = draw({4, 5, 3}, "compose/xss");
  Arr ws = draw({3, 2, 5}, "compose/ws");
  std::vector<Arr> out = call(session, "outer", {xss, ws});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape, (std::vector<int64_t>{4, 2, 5}));
  for (int64_t j = 0; j < 5; ++j) {
    Arr xs = takeAlong(xss, 1, j);  // 4x3
    Arr w = takeAlong(ws, 2, j);    // 3x2
    Arr outJ = takeAlong(out[0], 2, j); // 4x2
    for (int64_t i = 0; i < 4; ++i) {
      std::vector<Arr> y = call(session, "f", {takeAlong(xs, 0, i), w});
      ASSERT_EQ(y.size(), 1u);
      EXPECT_TRUE(close(y[0], takeAlong(outJ, 0, i), 1e-12))
          << "example (" << i << ", " << j << ")";
    }
  }
}

TEST(VmapCompose, GradOfVmapAgainstFiniteDifferences) {
  COMPOSE_MODULE(session);
  Arr xs = draw({4, 3}, "compose/grad/xs");
  Arr w = draw({3, 2}, "compose/grad/w");
  std::vector<Arr> g = call(session, "grad_loss", {xs, w});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_TRUE(close(fdGradient(session, "loss", {xs, w}, 0), g[0], 1e-7))
      << "d loss / d xs";
  EXPECT_TRUE(close(fdGradient(session, "loss", {xs, w}, 1), g[1], 1e-7))
      << "d loss / d w";
}

TEST(VmapCompose, JvpOfVmapAgainstFiniteDifferences) {
  COMPOSE_MODULE(session);
  Arr xs = draw({4, 3}, "compose/jvp/xs");
  Arr w = draw({3, 2}, "compose/jvp/w");
  Arr txs = draw({4, 3}, "compose/jvp/txs");
  Arr tw = draw({3, 2}, "compose/jvp/tw");
  std::vector<Arr> r = call(session, "jvp_inner", {xs, w, txs, tw});
  ASSERT_EQ(r.size(), 2u);
  std::vector<Arr> y = call(session, "inner", {xs, w});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_TRUE(close(y[0], r[0], 1e-12)) << "primal of the jvp";
  const double eps = 1e-6;
  auto shifted = [&](double s) {
    Arr a = xs, b = w;
    for (int64_t i = 0; i < a.numel(); ++i)
      a.v[i] += s * txs.v[i];
    for (int64_t i = 0; i < b.numel(); ++i)
      b.v[i] += s * tw.v[i];
    return call(session, "inner", {a, b});
  };
  std::vector<Arr> up = shifted(eps), down = shifted(-eps);
  ASSERT_EQ(up.size(), 1u);
  ASSERT_EQ(down.size(), 1u);
  Arr fd = up[0];
  for (int64_t i = 0; i < fd.numel(); ++i)
    fd.v[i] = (up[0].v[i] - down[0].v[i]) / (2 * eps);
  EXPECT_TRUE(close(fd, r[1], 1e-7)) << "tangent of the jvp";
}

TEST(VmapCompose, VmapOfRematEqualsLoop) {
  COMPOSE_MODULE(session);
  Arr xs = draw({3, 5}, "compose/remat/xs");
  Arr s = draw({}, "compose/remat/s", 0.5, 2);
  std::vector<Arr> out = call(session, "g__vmap", {xs, s});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape, (std::vector<int64_t>{5, 3}));
  for (int64_t k = 0; k < 5; ++k) {
    std::vector<Arr> y = call(session, "g", {takeAlong(xs, 1, k), s});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_TRUE(close(y[0], takeAlong(out[0], 0, k), 1e-12)) << "example " << k;
  }
  // The gradient through the vmap of the remat.
  std::vector<Arr> g = call(session, "grad_remat_loss", {xs, s});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_TRUE(close(fdGradient(session, "remat_loss", {xs, s}, 0), g[0], 1e-7))
      << "d loss / d xs";
  EXPECT_TRUE(close(fdGradient(session, "remat_loss", {xs, s}, 1), g[1], 1e-7))
      << "d loss / d s";
}

} // namespace
