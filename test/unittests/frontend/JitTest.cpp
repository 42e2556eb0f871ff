//===- JitTest.cpp - Compiling, running, caching, input errors ------------===//

#include "FrontendTestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace rlx;
using rlx::test::errorOf;
using rlx::test::expectNear;

namespace {

Func mlp() {
  return Func("mlp", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 3});
    Tensor h = tanh(linear(s, "fc1", x, 4));
    return linear(s, "fc2", h, 2).named("y");
  });
}

/// The MLP in plain C++ doubles, as the reference.
std::vector<double> mlpReference(const std::vector<double> &x, size_t rows,
                                 const std::map<std::string, Array> &w) {
  auto W1 = w.at("fc1.weight").to_vector(), b1 = w.at("fc1.bias").to_vector();
  auto W2 = w.at("fc2.weight").to_vector(), b2 = w.at("fc2.bias").to_vector();
  std::vector<double> y(rows * 2);
  for (size_t r = 0; r < rows; ++r) {
    double h[4];
    for (int j = 0; j < 4; ++j) {
      double a = b1[j];
      for (int i = 0; i < 3; ++i)
        a += x[r * 3 + i] * W1[i * 4 + j];
      h[j] = std::tanh(a);
    }
    for (int k = 0; k < 2; ++k) {
      double a = b2[k];
      for (int j = 0; j < 4; ++j)
        a += h[j] * W2[j * 2 + k];
      y[r * 2 + k] = a;
    }
  }
  return y;
}

TEST(Jit, RunsAnMlpWithParamsByName) {
  Func f = mlp();
  Compiled c = f.jit(Device::cpu());
  std::map<std::string, Array> weights;
  unsigned seed = 1;
  c.init_params([&](const std::string &name, const Shape &dims) {
    size_t n = 1;
    for (int64_t d : dims)
      n *= d;
    weights[name] = Array::from(test::values(n, seed++), dims);
    return weights[name];
  });
  std::vector<double> x = test::values(5 * 3, 99);
  Outputs out = c.run({{"x", Array::from(x, {5, 3})}});
  ASSERT_EQ(out.names, (std::vector<std::string>{"y"}));
  EXPECT_EQ(out["y"].type_string(), "f32[5,2]");
  expectNear(out["y"].to_vector(), mlpReference(x, 5, weights), 1e-5, 1e-5);
  EXPECT_EQ(c.param_names(),
            (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight",
                                      "fc2.bias"}));
  // A different batch size runs the same artifact.
  std::vector<double> x2 = test::values(2 * 3, 7);
  expectNear(c.run({{"x", Array::from(x2, {2, 3})}})[0].to_vector(),
             mlpReference(x2, 2, weights), 1e-5, 1e-5);
}

/// y = x @ transpose(w) + b * 2: transpose(w) and b * 2 depend on weights
/// alone, so they are computed once per binding (rlx-prepare-params); a new
/// binding must be seen by the next call, and concurrent first calls must
/// all see the prepared values.
TEST(Jit, WeightOnlyComputationsFollowEveryBinding) {
  Func f("linear_t", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 3}, f64);
    Tensor w = s.param("w", {2, 3}, f64);
    Tensor b = s.param("b", {2}, f64);
    return matmul(x, transpose(w)) + b * 2.0;
  });
  Compiled c = f.jit(Device::cpu());
  EXPECT_EQ(c.param_names(), (std::vector<std::string>{"w", "b"}));
  std::vector<double> x = test::values(4 * 3, 5);
  // Before any binding the error names the weight and the entry point the
  // user called, the second time too (a failed preparation is not kept).
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string e =
        errorOf([&] { c.run({{"x", Array::from(x, {4, 3}, f64)}}); });
    EXPECT_NE(e.find("weight 'w'"), std::string::npos) << e;
    EXPECT_NE(e.find("'linear_t'"), std::string::npos) << e;
    EXPECT_EQ(e.find("prepare"), std::string::npos) << e;
  }
  auto reference = [&](const std::vector<double> &w,
                       const std::vector<double> &b) {
    std::vector<double> y(4 * 2);
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < 2; ++j) {
        double a = 2.0 * b[j];
        for (int k = 0; k < 3; ++k)
          a += x[r * 3 + k] * w[j * 3 + k];
        y[r * 2 + j] = a;
      }
    return y;
  };
  for (unsigned seed : {11u, 12u, 13u}) {
    std::vector<double> w = test::values(6, seed), b = test::values(2, seed + 50);
    c.with_param("w", Array::from(w, {2, 3}, f64))
        .with_param("b", Array::from(b, {2}, f64));
    std::vector<std::vector<double>> got(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        got[t] = c.run({{"x", Array::from(x, {4, 3}, f64)}})[0].to_vector();
      });
    for (std::thread &thread : threads)
      thread.join();
    for (const std::vector<double> &y : got)
      expectNear(y, reference(w, b), 1e-12, 1e-14);
  }
}

TEST(Jit, InitRandnIsSeeded) {
  Compiled a = mlp().jit(Device::cpu()), b = mlp().jit(Device::cpu());
  a.init_randn(3, 0.5);
  b.init_randn(3, 0.5);
  EXPECT_EQ(a.param("fc1.weight").to_vector(),
            b.param("fc1.weight").to_vector());
  b.init_randn(4, 0.5);
  EXPECT_NE(a.param("fc1.weight").to_vector(),
            b.param("fc1.weight").to_vector());
}

TEST(Jit, OpsAgainstClosedForms) {
  Func f("ops", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {2, 3}, f64);
    Tensor ids = s.input("ids", {2}, i32);
    return {sigmoid(x),
            log_softmax(x),
            max(x, {1}),
            sqrt(x * x + 1.0),
            where(x > 0.0, x, 2.0 * x),
            gather(x, ids, 1),
            slice(x, {{}, {0, end, 2}}),
            gelu(x, "erf"),
            sign(x)};
  });
  Compiled c = f.jit(Device::cpu());
  std::vector<double> x = {-1.5, 0.25, 2.0, 0.5, -0.75, 1.0};
  Outputs out = c.run({{"x", Array::from(x, {2, 3}, f64)},
                       {"ids", Array::from(std::vector<int32_t>{2, 0}, {2})}});
  std::vector<double> sig, lsm, mx, sq, wh, ga, sl, ge, sg;
  for (int r = 0; r < 2; ++r) {
    double m = std::max({x[r * 3], x[r * 3 + 1], x[r * 3 + 2]});
    double z = 0;
    for (int i = 0; i < 3; ++i)
      z += std::exp(x[r * 3 + i] - m);
    for (int i = 0; i < 3; ++i) {
      double v = x[r * 3 + i];
      sig.push_back(1 / (1 + std::exp(-v)));
      lsm.push_back(v - m - std::log(z));
      sq.push_back(std::sqrt(v * v + 1));
      wh.push_back(v > 0 ? v : 2 * v);
      ge.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
      sg.push_back(v > 0 ? 1 : v < 0 ? -1 : 0);
    }
    mx.push_back(m);
    sl.push_back(x[r * 3]);
    sl.push_back(x[r * 3 + 2]);
  }
  ga = {x[2], x[0], x[5], x[3]};
  expectNear(out[0].to_vector(), sig, 1e-12);
  expectNear(out[1].to_vector(), lsm, 1e-12);
  expectNear(out[2].to_vector(), mx, 1e-12);
  expectNear(out[3].to_vector(), sq, 1e-12);
  expectNear(out[4].to_vector(), wh, 1e-12);
  expectNear(out[5].to_vector(), ga, 1e-12);
  expectNear(out[6].to_vector(), sl, 1e-12);
  expectNear(out[7].to_vector(), ge, 1e-7);
  expectNear(out[8].to_vector(), sg, 0);
}

TEST(Jit, ShapeOpsAgainstIndexing) {
  Func f("shape_ops", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {dyn, 3}, f64);
    Tensor y = s.input("y", {2, 3}, f64);
    return {slice(x, {{1, -1}}),              // rows 1 .. n-2
            slice(x, {{-2, end}, {0, 3, 2}}), // last two rows, cols 0, 2
            transpose(y),
            concat({y, y * 10.0}, 0),
            stack({y, y * 10.0}, 2),
            pad(y, {1, 0}, {0, 1}, -1.0),
            broadcast_to(take(y, 0, 1), {2, 3}),
            reshape(y, {3, 2})};
  });
  Compiled c = f.jit(Device::cpu());
  std::vector<double> x = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32};
  std::vector<double> y = {1, 2, 3, 4, 5, 6};
  Outputs out = c.run(
      {{"x", Array::from(x, {4, 3}, f64)}, {"y", Array::from(y, {2, 3}, f64)}});
  EXPECT_EQ(out[0].type_string(), "f64[2,3]");
  EXPECT_EQ(out[0].to_vector(), (std::vector<double>{10, 11, 12, 20, 21, 22}));
  EXPECT_EQ(out[1].to_vector(), (std::vector<double>{20, 22, 30, 32}));
  EXPECT_EQ(out[2].to_vector(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(out[3].to_vector(),
            (std::vector<double>{1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60}));
  EXPECT_EQ(out[4].to_vector(),
            (std::vector<double>{1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60}));
  EXPECT_EQ(out[5].type_string(), "f64[3,4]");
  EXPECT_EQ(out[5].to_vector(),
            (std::vector<double>{-1, -1, -1, -1, 1, 2, 3, -1, 4, 5, 6, -1}));
  EXPECT_EQ(out[6].to_vector(), (std::vector<double>{4, 5, 6, 4, 5, 6}));
  EXPECT_EQ(out[7].to_vector(), y);
}

TEST(Jit, DynamicShapeCombinationsVerify) {
  // The frontend's inferred types must be what the op verifiers accept, also
  // where dynamic and static dims meet.
  Func f("mixed", [](Scope &s) -> std::vector<Tensor> {
    Tensor a = s.input("a", {dyn, 4});
    Tensor b = s.input("b", {3, 4});
    Tensor c = s.input("c", {dyn, 1});
    Tensor d = s.input("d", {2, dyn, 4, 5});
    Tensor e = s.input("e", {dyn, 5, 6});
    Tensor ids = s.input("ids", {dyn}, i32);
    return {a + b,
            a * c,
            c + b,
            matmul(d, e),
            concat({a, b}, 0),
            concat({a, a}, 1),
            gather(b, ids, 0),
            sum(d, {1}, true),
            max(a, {0}),
            take(d, 1, 0),
            where(a > 0.0, a, b),
            broadcast_to(c, {dyn, 4}),
            softmax(e, 1),
            stack({a, a}, 1),
            transpose(d, {1, 0, 3, 2})};
  });
  JitOptions o0;
  o0.opt_level = 0;
  Compiled c = f.jit(Device::cpu(), o0);
  std::map<std::string, Array> in = {
      {"a", Array::from(test::values(12, 1), {3, 4})},
      {"b", Array::from(test::values(12, 2), {3, 4})},
      {"c", Array::from(test::values(3, 3), {3, 1})},
      {"d", Array::from(test::values(2 * 3 * 4 * 5, 4), {2, 3, 4, 5})},
      {"e", Array::from(test::values(3 * 5 * 6, 5), {3, 5, 6})},
      {"ids", Array::from(std::vector<int32_t>{2, 0}, {2})}};
  Outputs out = c.run(in);
  EXPECT_EQ(out[3].type_string(), "f32[2,3,4,6]");
  EXPECT_EQ(out[4].type_string(), "f32[6,4]");
  EXPECT_EQ(out[6].type_string(), "f32[2,4]");
  EXPECT_EQ(out[9].type_string(), "f32[2,4,5]");
  for (int i = 0; i < 2; ++i)
    for (int jk = 0; jk < 20; ++jk)
      EXPECT_EQ(out[9].at(i * 20 + jk), in["d"].at(i * 60 + jk));
  EXPECT_EQ(out[13].type_string(), "f32[3,2,4]");
}

TEST(Jit, InputErrorsNameTheInput) {
  Compiled c = mlp().jit(Device::cpu());
  c.init_randn(0);
  Array good = Array::zeros({2, 3});
  std::string e = errorOf([&] { c.run({{"x", good}, {"z", good}}); });
  EXPECT_NE(e.find("has no input 'z' (inputs: x: f32[?,3])"), std::string::npos)
      << e;
  e = errorOf([&] { c.run({}); });
  EXPECT_NE(e.find("missing input 'x' (f32[?,3])"), std::string::npos) << e;
  EXPECT_NE(e.find("0 given, 1 expected"), std::string::npos) << e;
  e = errorOf([&] { c.run({{"x", Array::zeros({2, 3}, f64)}}); });
  EXPECT_NE(e.find("input 'x' of 'mlp' is f64[2,3], expected f32[?,3]"),
            std::string::npos)
      << e;
  e = errorOf([&] { c.run({{"x", Array::zeros({2, 4})}}); });
  EXPECT_NE(e.find("is f32[2,4], expected f32[?,3]"), std::string::npos) << e;
  e = errorOf([&] { c.run({{"x", Array::zeros({6})}}); });
  EXPECT_NE(e.find("is f32[6], expected f32[?,3]"), std::string::npos) << e;
  e = errorOf([&] { c.with_param("fc1.weight", Array::zeros({4, 3})); });
  EXPECT_NE(e.find("param 'fc1.weight' of 'mlp' is f32[3,4], got f32[4,3]"),
            std::string::npos)
      << e;
  e = errorOf([&] { c.with_param("fc3.weight", Array::zeros({4, 3})); });
  EXPECT_NE(e.find("no param 'fc3.weight'"), std::string::npos) << e;
  Compiled unbound = mlp().jit(Device::cpu());
  e = errorOf([&] { unbound.run({{"x", good}}); });
  EXPECT_NE(e.find("fc1.weight"), std::string::npos) << e;
  e = errorOf([&] { mlp().jit(Device{"tpu"}); });
  EXPECT_NE(e.find("target 'tpu'"), std::string::npos) << e;
}

TEST(Jit, DebugChecksNameTheOpProducingAnInf) {
  int logLine = 0;
  Func f("debug_log", [&logLine](Scope &s) {
    Tensor x = s.input("x", {4});
    logLine = __LINE__ + 1;
    return log(x * x);
  });
  JitOptions checked;
  checked.debug_checks = true;
  Compiled c = f.jit(Device::cpu(), checked);
  Array zero = Array::from(std::vector<float>{1, 2, 0, 3}, {4});
  std::string e = errorOf([&] { c.run({{"x", zero}}); });
  EXPECT_NE(e.find("JitTest.cpp:" + std::to_string(logLine) + ":"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("rlx.log produced -inf"), std::string::npos) << e;
  Array finite = Array::from(std::vector<float>{1, 2, 4, 3}, {4});
  EXPECT_NEAR(c.run({{"x", finite}})[0].at(2), std::log(16.0), 1e-5);
  // Without the option: no checks, the -inf comes back.
  Compiled plain = f.jit(Device::cpu());
  double y = plain.run({{"x", zero}})[0].at(2);
  EXPECT_TRUE(std::isinf(y) && y < 0) << y;
}

/// x @ w as JitOptions::quantize_int8 computes it, in plain loops: x per
/// tensor and w per column, symmetric, to [-127, 127] with ties to even.
std::vector<double> int8Reference(const std::vector<float> &x,
                                  const std::vector<float> &w, int rows,
                                  int k, int n) {
  auto scaleOf = [](float absMax) {
    return std::max(absMax / 127.0f, std::numeric_limits<float>::min());
  };
  auto code = [](float v, float scale) {
    return std::clamp(std::nearbyint(v / scale), -127.0f, 127.0f);
  };
  float xMax = 0;
  for (float v : x)
    xMax = std::max(xMax, std::fabs(v));
  float sx = scaleOf(xMax);
  std::vector<double> y(rows * n);
  for (int j = 0; j < n; ++j) {
    float wMax = 0;
    for (int i = 0; i < k; ++i)
      wMax = std::max(wMax, std::fabs(w[i * n + j]));
    float sw = scaleOf(wMax);
    for (int r = 0; r < rows; ++r) {
      int64_t acc = 0;
      for (int i = 0; i < k; ++i)
        acc += int64_t(code(x[r * k + i], sx)) * int64_t(code(w[i * n + j], sw));
      y[r * n + j] = float(acc) * (sx * sw);
    }
  }
  return y;
}

TEST(Jit, QuantizeInt8RunsMatmulsInInt8) {
  Func f("q8", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 40});
    return matmul(x, s.param("w", {40, 6})).named("y");
  });
  std::vector<float> x(3 * 40), w(40 * 6);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.7 * i) * 3;
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = std::cos(1.3 * i) * (1 + i % 6);
  JitOptions int8;
  int8.quantize_int8 = true;
  Compiled c = f.jit(Device::cpu(), int8);
  c.with_param("w", Array::from(w, {40, 6}));
  std::vector<double> got = c.run({{"x", Array::from(x, {3, 40})}})[0].to_vector();
  std::vector<double> want = int8Reference(x, w, 3, 40, 6);
  expectNear(got, want, 1e-5, 1e-5);
  // Quantized, not the f32 product: close to it, but not equal.
  double worst = 0, top = 0;
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 6; ++j) {
      double exact = 0;
      for (int i = 0; i < 40; ++i)
        exact += double(x[r * 40 + i]) * w[i * 6 + j];
      worst = std::max(worst, std::fabs(got[r * 6 + j] - exact));
      top = std::max(top, std::fabs(exact));
    }
  EXPECT_GT(worst, 1e-4 * top);
  EXPECT_LT(worst, 0.1 * top); // the sums cancel: the terms are larger
}

TEST(Jit, MemoryAndDiskCache) {
  std::string dir = test::freshDir("cache");
  setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  unsetenv("RLX_CACHE");
  EXPECT_EQ(disk_cache_dir(), dir + "/rlx");
  Func f("cached", [](Scope &s) { return exp(s.input("x", {4})) * 3.0; });
  CacheStats before = cache_stats();
  f.jit(Device::cpu());
  CacheStats afterFirst = cache_stats();
  EXPECT_EQ(afterFirst.compiles, before.compiles + 1);
  // Same text, same device and options: a memory hit.
  Func same("cached", [](Scope &s) { return exp(s.input("x", {4})) * 3.0; });
  same.jit(Device::cpu());
  CacheStats afterSecond = cache_stats();
  EXPECT_EQ(afterSecond.compiles, afterFirst.compiles);
  EXPECT_EQ(afterSecond.memory_hits, afterFirst.memory_hits + 1);
  // A new optimization level is a miss.
  JitOptions o0;
  o0.opt_level = 0;
  f.jit(Device::cpu(), o0);
  EXPECT_EQ(cache_stats().compiles, afterSecond.compiles + 1);
  // Forgetting the memory cache: the disk cache answers.
  clear_memory_cache();
  Compiled c = f.jit(Device::cpu());
  CacheStats afterDisk = cache_stats();
  EXPECT_EQ(afterDisk.compiles, afterSecond.compiles + 1);
  EXPECT_EQ(afterDisk.disk_hits, afterSecond.disk_hits + 1);
  EXPECT_EQ(
      c.run({{"x", Array::from(std::vector<double>{0, 1, 0, 0}, {4})}})[0].at(
          1),
      float(3 * std::exp(1.0)));
  size_t entries = 0;
  for (auto &e : std::filesystem::directory_iterator(dir + "/rlx"))
    entries += e.path().extension() == ".so";
  EXPECT_EQ(entries, 2u);
  // Each entry's key names the compiler version, so a new compiler misses.
  for (auto &e : std::filesystem::directory_iterator(dir + "/rlx")) {
    if (e.path().extension() != ".key")
      continue;
    std::ifstream key(e.path());
    std::string text((std::istreambuf_iterator<char>(key)),
                     std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(" compiler="), std::string::npos);
    EXPECT_NE(text.find(" build="), std::string::npos);
    EXPECT_EQ(text.find("build=unknown"), std::string::npos);
    EXPECT_NE(text.find("func.func @cached("), std::string::npos);
  }
  // A changed graph is a miss.
  Func changed("cached", [](Scope &s) { return exp(s.input("x", {4})) * 4.0; });
  changed.jit(Device::cpu());
  EXPECT_EQ(cache_stats().compiles, afterDisk.compiles + 1);
  // RLX_CACHE=0: nothing on disk, compiled again after clearing memory.
  setenv("RLX_CACHE", "0", 1);
  EXPECT_EQ(disk_cache_dir(), "");
  clear_memory_cache();
  CacheStats offBefore = cache_stats();
  f.jit(Device::cpu());
  EXPECT_EQ(cache_stats().compiles, offBefore.compiles + 1);
  EXPECT_EQ(cache_stats().disk_hits, offBefore.disk_hits);
  unsetenv("RLX_CACHE");
}

TEST(Jit, DebugLogSaysWhyItRecompiled) {
  setenv("RLX_DEBUG", "1", 1);
  setenv("RLX_CACHE", "0", 1);
  testing::internal::CaptureStderr();
  Func a("logged", [](Scope &s) { return exp(s.input("x", {dyn, 4})); });
  a.jit(Device::cpu());
  a.jit(Device::cpu());
  Func b("logged", [](Scope &s) { return exp(s.input("x", {dyn, 8})); });
  b.jit(Device::cpu());
  std::string log = testing::internal::GetCapturedStderr();
  unsetenv("RLX_DEBUG");
  unsetenv("RLX_CACHE");
  EXPECT_NE(log.find("first compile of 'logged'"), std::string::npos) << log;
  EXPECT_NE(log.find("compiled 'logged' in"), std::string::npos) << log;
  EXPECT_NE(log.find("cache hit (memory) for 'logged'"), std::string::npos)
      << log;
  EXPECT_NE(log.find("recompiling 'logged': input signature changed"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("tensor<?x8xf32>"), std::string::npos) << log;
}

TEST(Jit, CompileErrorsCarryTheDiagnostics) {
  // custom_jvp differentiated in reverse mode: the compiler rejects it, and
  // jit reports its diagnostic instead of crashing.
  Func ex("ex", [](Scope &s) { return exp(s.input("x", {3}, f64)); });
  Func exJvp("ex_jvp", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {3}, f64);
    return {exp(x), s.input("t", {3}, f64)};
  });
  int line = 0;
  Func loss("rev", [&](Scope &s) {
    line = __LINE__ + 1;
    return sum(custom_jvp(ex, exJvp)(s, {s.input("x", {3}, f64)})[0]);
  });
  std::string e = errorOf([&] { loss.grad({"x"}).jit(Device::cpu()); });
  // Traced ops are located at the user's line: so are compile errors.
  EXPECT_NE(e.find("JitTest.cpp:" + std::to_string(line) + ":"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("rlx::jit: compiling 'rev_grad' failed"), std::string::npos)
      << e;
  EXPECT_NE(e.find("error: 'rlx.custom_jvp' op cannot be differentiated in "
                   "reverse mode"),
            std::string::npos)
      << e;
}

TEST(Jit, ArrayAndOutputErrors) {
  EXPECT_NE(errorOf([] {
              Array::from(std::vector<double>{1, 2}, {3});
            }).find("2 values for shape [3]"),
            std::string::npos);
  EXPECT_NE(errorOf([] {
              Array::zeros({dyn, 2});
            }).find("must be known"),
            std::string::npos);
  EXPECT_NE(errorOf([] { Array().item(); }).find("empty"), std::string::npos);
  Func f("one", [](Scope &s) { return (s.input("x", {2}) * 2.0).named("y"); });
  Compiled c = f.jit(Device::cpu());
  Outputs out = c({{"x", Array::from(std::vector<float>{1, 2}, {2})}});
  EXPECT_EQ(out["y"].to_vector(), (std::vector<double>{2, 4}));
  EXPECT_NE(errorOf([&] { out["z"]; }).find("no output 'z' (outputs: y)"),
            std::string::npos);
}

TEST(Jit, SpecializesPerInputSignature) {
  setenv("RLX_CACHE", "0", 1);
  setenv("RLX_DEBUG", "1", 1);
  JitOptions special;
  special.specialize_shapes = true;
  Func f = mlp();
  Compiled dynamic = f.jit(Device::cpu());
  dynamic.init_randn(8);
  testing::internal::CaptureStderr();
  Compiled c = f.jit(Device::cpu(), special);
  for (const std::string &p : c.param_names())
    c.with_param(p, dynamic.param(p));
  unsigned compiles = cache_stats().compiles;
  Array x4 = Array::from(test::values(12, 1), {4, 3});
  Array x2 = Array::from(test::values(6, 2), {2, 3});
  Outputs a = c.run({{"x", x4}});
  EXPECT_EQ(cache_stats().compiles, compiles + 1);
  c.run({{"x", x4}});
  EXPECT_EQ(cache_stats().compiles, compiles + 1);
  Outputs b = c.run({{"x", x2}});
  EXPECT_EQ(cache_stats().compiles, compiles + 2);
  std::string log = testing::internal::GetCapturedStderr();
  unsetenv("RLX_DEBUG");
  unsetenv("RLX_CACHE");
  EXPECT_NE(log.find("'mlp' called with a new input signature (x: f32[2,3]); "
                     "the last call had (x: f32[4,3]): specializing"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("input signature changed: was `func.func @mlp(%arg0: "
                     "tensor<4x3xf32>"),
            std::string::npos)
      << log;
  // The same numbers as the dynamic artifact.
  expectNear(a["y"].to_vector(), dynamic.run({{"x", x4}})["y"].to_vector(),
             1e-6, 1e-6);
  expectNear(b["y"].to_vector(), dynamic.run({{"x", x2}})["y"].to_vector(),
             1e-6, 1e-6);
  // Params bound later reach every specialization.
  c.init_randn(9);
  dynamic.init_randn(9);
  expectNear(c.run({{"x", x2}})["y"].to_vector(),
             dynamic.run({{"x", x2}})["y"].to_vector(), 1e-6, 1e-6);
}

TEST(Jit, SpecializesTransformsAndCalls) {
  JitOptions special;
  special.specialize_shapes = true;
  Func row("rowsum", [](Scope &s) { return sum(exp(s.input("r", {dyn}))); });
  Func f("outer", [&](Scope &s) {
    Tensor x = s.input("x", {dyn, 3});
    return sum(row(s, {reshape(x, {dyn})})[0] * 1.0);
  });
  Func g = f.grad({"x"}).vmap({0}, {0});
  Compiled c = g.jit(Device::cpu(), special);
  std::vector<double> xs = test::values(2 * 2 * 3, 4);
  Outputs out = c.run({{"x", Array::from(xs, {2, 2, 3})}});
  EXPECT_EQ(out[0].type_string(), "f32[2,2,3]");
  std::vector<double> want;
  for (double v : xs)
    want.push_back(std::exp(float(v)));
  expectNear(out[0].to_vector(), want, 1e-5, 1e-6);
}

TEST(Jit, ExportedMlirCompilesWithRlxc) {
  std::string dir = test::freshDir("rlxc");
  Func f = mlp();
  f.export_mlir(dir + "/mlp.mlir");
  std::string cmd =
      std::string(RLXC_PATH) + " " + dir + "/mlp.mlir -o " + dir + "/mlp.so";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  runtime::Artifact artifact = runtime::Artifact::load(dir + "/mlp.so");
  runtime::Session session(artifact);
  Compiled c = f.jit(Device::cpu());
  c.init_randn(5);
  for (const std::string &p : c.param_names())
    session.bind_tensor(p, c.param(p).host());
  Array x = Array::from(test::values(6, 3), {2, 3});
  runtime::TensorList out =
      session.call("mlp", std::vector<const runtime::HostTensor *>{&x.host()});
  expectNear(Array(out.at("y")).to_vector(), c.run({{"x", x}})["y"].to_vector(),
             0, 0);
}

} // namespace
