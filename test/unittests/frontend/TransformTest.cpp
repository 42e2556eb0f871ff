//===- TransformTest.cpp - Transforms against independent references -----===//
///
/// \file
/// Every gradient is checked against f64 central differences of the jitted
/// forward function or against a closed form; never against another
/// derivative code path.
///
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include <cmath>

using namespace rlx;
using rlx::test::centralDiff;
using rlx::test::centralDiffParam;
using rlx::test::errorOf;
using rlx::test::expectNear;

namespace {

Array f64Array(const Shape &shape, unsigned seed) {
  size_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return Array::from(test::values(n, seed), shape, f64);
}

/// loss(x, y; w, b) = mean((tanh(x w + b) - y)^2) + 0.1 sum(x^3), in f64.
Func lossFunc() {
  return Func("loss", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 3}, f64);
    Tensor y = s.input("y", {dyn, 2}, f64);
    Tensor h = tanh(linear(s, "fc", x, 2));
    return (mse(h, y) + 0.1 * sum(x * x * x)).named("loss");
  });
}

std::map<std::string, Array> lossInputs() {
  return {{"x", f64Array({4, 3}, 1)}, {"y", f64Array({4, 2}, 2)}};
}

void bindSame(Compiled &a, Compiled &b, uint64_t seed) {
  a.init_randn(seed, 0.5);
  for (const std::string &p : a.param_names())
    b.with_param(p, a.param(p));
}

TEST(Transform, GradAgainstCentralDifferences) {
  Func loss = lossFunc();
  Compiled forward = loss.jit(Device::cpu());
  Func g = loss.grad({"x", "fc.weight"});
  EXPECT_EQ(g.output_names(),
            (std::vector<std::string>{"grad.x", "grad.fc.weight"}));
  Compiled grad = g.jit(Device::cpu());
  bindSame(forward, grad, 11);
  auto in = lossInputs();
  Outputs out = grad.run(in);
  expectNear(out["grad.x"].to_vector(), centralDiff(forward, in, "x"), 1e-6,
             1e-8);
  expectNear(out["grad.fc.weight"].to_vector(),
             centralDiffParam(forward, in, "fc.weight"), 1e-6, 1e-8);
}

TEST(Transform, ValueAndGradAll) {
  Func loss = lossFunc();
  Compiled forward = loss.jit(Device::cpu());
  Func vg = loss.value_and_grad_all();
  EXPECT_EQ(vg.output_names(), (std::vector<std::string>{
                                   "loss", "grad.fc.weight", "grad.fc.bias"}));
  Compiled c = vg.jit(Device::cpu());
  bindSame(forward, c, 12);
  auto in = lossInputs();
  Outputs out = c.run(in);
  EXPECT_NEAR(out["loss"].item(), forward.run(in)[0].item(), 1e-12);
  expectNear(out["grad.fc.bias"].to_vector(),
             centralDiffParam(forward, in, "fc.bias"), 1e-6, 1e-8);
  expectNear(out["grad.fc.weight"].to_vector(),
             centralDiffParam(forward, in, "fc.weight"), 1e-6, 1e-8);
  // grad_all gives the same leaves without the value.
  Compiled ga = loss.grad_all().jit(Device::cpu());
  bindSame(forward, ga, 12);
  expectNear(ga.run(in)["grad.fc.bias"].to_vector(),
             out["grad.fc.bias"].to_vector(), 1e-12, 0);
}

TEST(Transform, ValueAndGradWithAux) {
  Func f("aux", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {3}, f64);
    return {sum(exp(x)).named("l"), (x * 2.0).named("twice")};
  });
  Compiled c = f.value_and_grad({"x"}, /*has_aux=*/true).jit(Device::cpu());
  std::vector<double> x = {0.1, -0.4, 0.7};
  Outputs out = c.run({{"x", Array::from(x, {3}, f64)}});
  EXPECT_EQ(out.names, (std::vector<std::string>{"l", "twice", "grad.x"}));
  expectNear(out["grad.x"].to_vector(),
             {std::exp(x[0]), std::exp(x[1]), std::exp(x[2])}, 1e-12);
  expectNear(out["twice"].to_vector(), {0.2, -0.8, 1.4}, 1e-12);
}

TEST(Transform, VjpAndJvpClosedForms) {
  // f(x) = x exp(x), elementwise: f'(x) = (1 + x) exp(x).
  Func f("xexp", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    return (x * exp(x)).named("y");
  });
  std::vector<double> x = {0.3, -1.2, 0.8}, v = {1.5, -0.5, 2.0};
  std::vector<double> y, dy;
  for (size_t i = 0; i < 3; ++i) {
    y.push_back(x[i] * std::exp(x[i]));
    dy.push_back(v[i] * (1 + x[i]) * std::exp(x[i]));
  }
  Func vjp = f.vjp({"x"});
  EXPECT_EQ(vjp.input_names(), (std::vector<std::string>{"x", "ct.y"}));
  Outputs rv = vjp.jit(Device::cpu())
                   .run({{"x", Array::from(x, {3}, f64)},
                         {"ct.y", Array::from(v, {3}, f64)}});
  expectNear(rv["y"].to_vector(), y, 1e-12);
  expectNear(rv["grad.x"].to_vector(), dy, 1e-12);
  Func jvp = f.jvp({"x"});
  EXPECT_EQ(jvp.input_names(), (std::vector<std::string>{"x", "t.x"}));
  Outputs fv = jvp.jit(Device::cpu())
                   .run({{"x", Array::from(x, {3}, f64)},
                         {"t.x", Array::from(v, {3}, f64)}});
  expectNear(fv["tangent.y"].to_vector(), dy, 1e-12);
}

/// f(x) = sum(x^3) + sum(x)^2: H = diag(6x) + 2.
Func cubic() {
  return Func("cubic", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    Tensor t = sum(x);
    return sum(x * x * x) + t * t;
  });
}

TEST(Transform, HvpHessianJacobians) {
  std::vector<double> x = {0.5, -1.0, 2.0}, v = {1.0, 0.25, -2.0};
  double sv = v[0] + v[1] + v[2];
  std::vector<double> hv, h;
  for (int i = 0; i < 3; ++i) {
    hv.push_back(6 * x[i] * v[i] + 2 * sv);
    for (int j = 0; j < 3; ++j)
      h.push_back((i == j ? 6 * x[i] : 0) + 2);
  }
  Array ax = Array::from(x, {3}, f64);
  Outputs r = cubic()
                  .hvp({"x"})
                  .jit(Device::cpu())
                  .run({{"x", ax}, {"t.x", Array::from(v, {3}, f64)}});
  expectNear(r["hvp.x"].to_vector(), hv, 1e-12);
  Outputs hess = cubic().hessian("x").jit(Device::cpu()).run({{"x", ax}});
  EXPECT_EQ(hess[0].type_string(), "f64[3,3]");
  expectNear(hess[0].to_vector(), h, 1e-12);
  // J of g(x) = exp(x) sum(x): J_ij = delta_ij exp(x_i) S + exp(x_i).
  Func g("g", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    return exp(x) * sum(x);
  });
  double S = x[0] + x[1] + x[2];
  std::vector<double> jac;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      jac.push_back((i == j ? std::exp(x[i]) * S : 0) + std::exp(x[i]));
  expectNear(g.jacfwd("x").jit(Device::cpu()).run({{"x", ax}})[0].to_vector(),
             jac, 1e-12);
  expectNear(g.jacrev("x").jit(Device::cpu()).run({{"x", ax}})[0].to_vector(),
             jac, 1e-12);
}

TEST(Transform, VmapMatchesPerExampleCalls) {
  Func f("per", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    Tensor a = s.input("a", {}, f64);
    return (tanh(x * s.param("w", {3}, f64)) * a).named("y");
  });
  Func batched = f.vmap({0, unmapped}, {1});
  EXPECT_EQ(batched.inputs()[0].type.str(), "f64[?,3]");
  EXPECT_EQ(batched.outputs()[0].type.str(), "f64[3,?]");
  Compiled one = f.jit(Device::cpu()), many = batched.jit(Device::cpu());
  bindSame(one, many, 3);
  std::vector<double> xs = test::values(12, 5);
  Array a = Array::scalar(1.5, f64);
  Array ys = many.run({{"x", Array::from(xs, {4, 3}, f64)}, {"a", a}})[0];
  EXPECT_EQ(ys.type_string(), "f64[3,4]");
  for (int b = 0; b < 4; ++b) {
    std::vector<double> row(xs.begin() + 3 * b, xs.begin() + 3 * b + 3);
    std::vector<double> y =
        one.run({{"x", Array::from(row, {3}, f64)}, {"a", a}})[0].to_vector();
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(ys.at(i * 4 + b), y[i], 1e-12);
  }
}

TEST(Transform, VmapOfGradGivesPerExampleGradients) {
  Func loss("ex", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    return sum(sigmoid(x * s.param("w", {3}, f64)) * x);
  });
  Func perExample = loss.grad({"x", "w"}).vmap({0}, {0, 0});
  Compiled forward = loss.jit(Device::cpu()),
           grads = perExample.jit(Device::cpu());
  bindSame(forward, grads, 21);
  std::vector<double> xs = test::values(9, 8);
  Outputs out = grads.run({{"x", Array::from(xs, {3, 3}, f64)}});
  EXPECT_EQ(out["grad.w"].type_string(), "f64[3,3]");
  for (int b = 0; b < 3; ++b) {
    std::map<std::string, Array> in = {
        {"x", Array::from(std::vector<double>(xs.begin() + 3 * b,
                                              xs.begin() + 3 * b + 3),
                          {3}, f64)}};
    std::vector<double> fdX = centralDiff(forward, in, "x");
    std::vector<double> fdW = centralDiffParam(forward, in, "w");
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(out["grad.x"].at(b * 3 + i), fdX[i], 1e-7);
      EXPECT_NEAR(out["grad.w"].at(b * 3 + i), fdW[i], 1e-7);
    }
  }
}

TEST(Transform, GradOfGrad) {
  // d/dx of d/dx (x^3 sin-free: x^3 + 2 x^4) = 6x + 24x^2.
  Func f("poly", [](Scope &s) {
    Tensor x = s.input("x", {}, f64);
    return x * x * x + 2.0 * pow(x, 4.0);
  });
  Func second = f.grad({"x"}).grad({"x"});
  for (double x : {-0.7, 0.3, 1.1}) {
    double got =
        second.jit(Device::cpu()).run({{"x", Array::scalar(x, f64)}})[0].item();
    EXPECT_NEAR(got, 6 * x + 24 * x * x, 1e-10) << "at " << x;
  }
  // And against central differences of the jitted first derivative.
  Compiled first = f.grad({"x"}).jit(Device::cpu());
  std::map<std::string, Array> in = {{"x", Array::scalar(0.4, f64)}};
  EXPECT_NEAR(second.jit(Device::cpu()).run(in)[0].item(),
              centralDiff(first, in, "x")[0], 1e-6);
}

TEST(Transform, GradOfVmap) {
  // g(xs) = sum over the batch of f(x) = sum(tanh(x) * x): dg/dxs per row is
  // tanh(x) + x (1 - tanh(x)^2).
  Func f("row", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    return sum(tanh(x) * x);
  });
  Func batched = f.vmap({0}, {0}, 4);
  Func total("total", [&](Scope &s) {
    return sum(batched(s, {s.input("xs", {4, 3}, f64)})[0]);
  });
  std::vector<double> xs = test::values(12, 2), want;
  for (double x : xs)
    want.push_back(std::tanh(x) + x * (1 - std::tanh(x) * std::tanh(x)));
  expectNear(total.grad({"xs"})
                 .jit(Device::cpu())
                 .run({{"xs", Array::from(xs, {4, 3}, f64)}})[0]
                 .to_vector(),
             want, 1e-12);
}

TEST(Transform, LayersAgainstCentralDifferences) {
  Func f("layers", [](Scope &s) {
    Tensor x = s.input("x", {2, 3, 4}, f64);
    Tensor h = layer_norm(s, "ln", x);
    Tensor a = attention(h, h, linear(s, "v", h, 4));
    return mean(gelu(a) * a);
  });
  Compiled forward = f.jit(Device::cpu());
  Compiled grad = f.grad({"x", "ln.weight", "v.weight"}).jit(Device::cpu());
  bindSame(forward, grad, 9);
  // layer_norm's scale around 1 so normalization matters.
  std::vector<double> ones = test::values(4, 30);
  for (double &v : ones)
    v = 1 + 0.3 * v;
  forward.with_param("ln.weight", Array::from(ones, {4}, f64));
  grad.with_param("ln.weight", Array::from(ones, {4}, f64));
  std::map<std::string, Array> in = {{"x", f64Array({2, 3, 4}, 10)}};
  Outputs out = grad.run(in);
  expectNear(out["grad.x"].to_vector(), centralDiff(forward, in, "x"), 1e-6,
             1e-9);
  expectNear(out["grad.ln.weight"].to_vector(),
             centralDiffParam(forward, in, "ln.weight"), 1e-6, 1e-9);
  expectNear(out["grad.v.weight"].to_vector(),
             centralDiffParam(forward, in, "v.weight"), 1e-6, 1e-9);
}

TEST(Transform, ConvAndPoolGradients) {
  Func f("conv", [](Scope &s) {
    Tensor x = s.input("x", {1, 5, 5, 2}, f64);
    Tensor y = conv2d(x, s.param("k", {3, 3, 2, 3}, f64), {1, 1}, {1, 1, 1, 1});
    Tensor p = max_pool2d(tanh(y), {2, 2}, {2, 2});
    Tensor q = avg_pool2d(y, {3, 3}, {2, 2});
    return sum(p * p) + mean(q);
  });
  EXPECT_EQ(f.to_mlir().find("rlx.conv2d") != std::string::npos, true);
  Compiled forward = f.jit(Device::cpu());
  Compiled grad = f.grad({"x", "k"}).jit(Device::cpu());
  bindSame(forward, grad, 13);
  std::map<std::string, Array> in = {{"x", f64Array({1, 5, 5, 2}, 14)}};
  Outputs out = grad.run(in);
  expectNear(out["grad.x"].to_vector(), centralDiff(forward, in, "x"), 1e-5,
             1e-8);
  expectNear(out["grad.k"].to_vector(), centralDiffParam(forward, in, "k"),
             1e-5, 1e-8);
}

TEST(Transform, RematKeepsGradients) {
  Func block("block", [](Scope &s) {
    return tanh(tanh(s.input("h", {3}, f64)) * s.param("w", {3}, f64));
  });
  Func viaFunc("remat_loss", [&](Scope &s) {
    return sum(remat(block)(s, {s.input("x", {3}, f64)})[0]);
  });
  Func scoped("scoped_loss", [&](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    Tensor h = remat(
        s, "inner",
        [](Scope &s, const std::vector<Tensor> &in) -> std::vector<Tensor> {
          return {tanh(tanh(in[0]) * s.param("w", {3}, f64))};
        },
        {x})[0];
    return sum(h);
  });
  EXPECT_NE(viaFunc.to_mlir().find("rlx.remat @block"), std::string::npos);
  for (Func loss : {viaFunc, scoped}) {
    Compiled forward = loss.jit(Device::cpu());
    Compiled grad = loss.grad({"x", "w"}).jit(Device::cpu());
    bindSame(forward, grad, 4);
    std::map<std::string, Array> in = {{"x", f64Array({3}, 6)}};
    Outputs out = grad.run(in);
    expectNear(out["grad.x"].to_vector(), centralDiff(forward, in, "x"), 1e-6,
               1e-9);
    expectNear(out["grad.w"].to_vector(), centralDiffParam(forward, in, "w"),
               1e-6, 1e-9);
  }
}

TEST(Transform, CustomRulesAreUsed) {
  Func sq("sq", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    return x * x;
  });
  Func fwd("sq_fwd", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {3}, f64);
    return {x * x, x};
  });
  // Deliberately half the true adjoint: g * x.
  Func bwd("sq_bwd", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    return s.input("g", {3}, f64) * x;
  });
  Func custom = custom_vjp(sq, fwd, bwd);
  Func loss("custom_loss", [&](Scope &s) {
    return sum(custom(s, {s.input("x", {3}, f64)})[0]);
  });
  std::vector<double> x = {-3, -2, -1};
  Outputs vg = loss.value_and_grad({"x"})
                   .jit(Device::cpu())
                   .run({{"x", Array::from(x, {3}, f64)}});
  EXPECT_NEAR(vg[0].item(), 14, 1e-12);
  expectNear(vg[1].to_vector(), x, 1e-12);

  Func ex("ex", [](Scope &s) { return exp(s.input("x", {3}, f64)); });
  Func exJvp("ex_jvp", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {3}, f64);
    Tensor t = s.input("t", {3}, f64);
    return {exp(x), t * 3.0};
  });
  Outputs jv = custom_jvp(ex, exJvp)
                   .jvp({"x"})
                   .jit(Device::cpu())
                   .run({{"x", Array::from(x, {3}, f64)},
                         {"t.x", Array::from(x, {3}, f64)}});
  expectNear(jv[1].to_vector(), {-9, -6, -3}, 1e-12);
}

TEST(Transform, StopGradient) {
  Func f("sg", [](Scope &s) {
    Tensor x = s.input("x", {3}, f64);
    return sum(x * stop_gradient(x));
  });
  std::vector<double> x = {0.5, -2, 3};
  expectNear(f.grad({"x"})
                 .jit(Device::cpu())
                 .run({{"x", Array::from(x, {3}, f64)}})[0]
                 .to_vector(),
             x, 1e-12);
}

/// lossFunc with static per-example shapes.
Func staticLoss() {
  return Func("loss", [](Scope &s) {
    Tensor x = s.input("x", {4, 3}, f64);
    Tensor y = s.input("y", {4, 2}, f64);
    return mse(tanh(linear(s, "fc", x, 2)), y);
  });
}

TEST(Transform, ComposedTextCompilesWithRlxc) {
  Func composed = staticLoss().grad({"x"}).vmap({0, 0}, {0});
  std::string text = composed.to_mlir();
  EXPECT_NE(text.find("rlx.vmap @loss_grad("), std::string::npos) << text;
  EXPECT_NE(text.find("rlx.grad @loss("), std::string::npos) << text;
  std::string dir = test::freshDir("composed");
  composed.export_mlir(dir + "/c.mlir");
  std::string cmd =
      std::string(RLXC_PATH) + " " + dir + "/c.mlir -o " + dir + "/c.so";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// Regression: vmap over a gradient whose per-example inputs have a dynamic
// dim reshapes ?x2 into ?x?x2, which crashed MLIR 22's
// expand-strided-metadata until rlx-lower-dynamic-expand-shapes.
TEST(Transform, VmapOfGradWithDynamicInnerDims) {
  std::string dir = test::freshDir("composed-dyn");
  lossFunc().grad({"x"}).vmap({0, 0}, {0}).export_mlir(dir + "/c.mlir");
  std::string cmd =
      std::string(RLXC_PATH) + " " + dir + "/c.mlir -o " + dir + "/c.so";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

Func noParamsScalar() {
  return Func("scalar", [](Scope &s) { return s.input("x", {}); });
}

TEST(Transform, ErrorPaths) {
  Func loss = lossFunc();
  EXPECT_NE(errorOf([&] { loss.grad({"z"}); })
                .find("'z' is neither an input nor a param of 'loss' "
                      "(leaves: x, y, fc.weight, fc.bias)"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              loss.grad({"x", "x"});
            }).find("given twice"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { loss.grad({}); }).find("no leaves"),
            std::string::npos);
  Func vec("vec", [](Scope &s) { return exp(s.input("x", {3})); });
  EXPECT_NE(errorOf([&] { vec.grad({"x"}); }).find("must have one element"),
            std::string::npos);
  Func ints("ints",
            [](Scope &s) { return sum(cast(s.input("i", {3}, i32), f32)); });
  EXPECT_NE(errorOf([&] { ints.grad({"i"}); }).find("not a float"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              vec.vmap({0, 0}, {0});
            }).find("2 in_axes for 1"),
            std::string::npos);
  EXPECT_NE(
      errorOf([&] { vec.vmap({unmapped}, {0}); }).find("no input is mapped"),
      std::string::npos);
  EXPECT_NE(errorOf([&] { vec.vmap({3}, {0}); }).find("out of range"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { loss.jacfwd("x"); }).find("static shapes"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { vec.jacrev("q"); }).find("not an input"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              custom_vjp(vec, vec, noParamsScalar());
            }).find("bwd's inputs"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { custom_jvp(vec, vec); }).find("jvp's inputs"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              lossFunc().grad_all().grad_all();
            }).find("'loss_grad' has 2 outputs"),
            std::string::npos);
  Func noParams("np", [](Scope &s) { return sum(s.input("x", {3})); });
  EXPECT_NE(errorOf([&] { noParams.grad_all(); }).find("has no params"),
            std::string::npos);
}

} // namespace
