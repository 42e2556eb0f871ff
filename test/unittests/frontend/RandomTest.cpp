//===- RandomTest.cpp - rlx::random against JAX and statistics ------------===//
//
/// \file
/// Bit for bit against JAX (test/data/random/jax_reference.json, written by
/// make_jax_reference.py with JAX's default threefry2x32, partitionable):
/// keys, split, fold_in, bits, uniform (f32, f64, a range), bernoulli and
/// f64 normal, permutation (one and two sort rounds, rows of an array); f32
/// normal and truncated normal within 2 ulp, exact for at least 98% of the
/// elements (XLA's f32 log is not ours). Then statistics at fixed seeds
/// (Kolmogorov-Smirnov for uniform and normal, chi-square for bernoulli and
/// categorical), vmap over keys, thread counts, dropout, and the errors.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "rlx/frontend/Random.h"
#include "rlx/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "llvm/Support/JSON.h"

using namespace rlx;
using rlx::test::errorOf;

namespace {

//===----------------------------------------------------------------------===//
// The JAX reference
//===----------------------------------------------------------------------===//

struct JaxCase {
  uint64_t seed = 0;
  std::map<std::string, std::vector<uint64_t>> arrays;
};

const std::vector<JaxCase> &jaxCases() {
  static const std::vector<JaxCase> cases = [] {
    std::ifstream in(RLX_RANDOM_REFERENCE);
    std::stringstream text;
    text << in.rdbuf();
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text.str());
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return std::vector<JaxCase>{};
    }
    std::vector<JaxCase> out;
    for (const llvm::json::Value &c :
         *parsed->getAsObject()->getArray("cases")) {
      JaxCase jc;
      for (const auto &[name, value] : *c.getAsObject()) {
        if (name == "seed") {
          jc.seed = static_cast<uint64_t>(*value.getAsUINT64());
          continue;
        }
        std::vector<uint64_t> words;
        for (const llvm::json::Value &w : *value.getAsArray())
          words.push_back(*w.getAsUINT64());
        jc.arrays[name.str()] = words;
      }
      out.push_back(jc);
    }
    return out;
  }();
  return cases;
}

uint32_t u32(double v) { return static_cast<uint32_t>(static_cast<int32_t>(v)); }
uint32_t f32Bits(double v) {
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}
uint64_t f64Bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return bits;
}

/// Every sampler of one seed in one function (the key from the seed).
Func samplers(uint64_t seed) {
  return Func("samplers", [seed](Scope &s) {
    Tensor k = random::key(s, seed);
    return std::vector<Tensor>{
        k.named("key"),
        random::split(k, 3).named("split3"),
        random::fold_in(k, 7).named("fold_in_7"),
        random::fold_in(k, 123456789).named("fold_in_123456789"),
        random::bits(k, {5, 7}).named("bits_5x7"),
        random::uniform(k, {1000}).named("uniform_f32_1000"),
        random::uniform(k, {1000}, DType::f32, -2.0, 3.0)
            .named("uniform_f32_m2_3_1000"),
        random::normal(k, {1000}).named("normal_f32_1000"),
        random::uniform(k, {100}, DType::f64).named("uniform_f64_100"),
        random::normal(k, {100}, DType::f64).named("normal_f64_100"),
        cast(random::bernoulli(k, 0.3, {1000}), DType::i32)
            .named("bernoulli_0.3_1000")};
  });
}

/// ulp distance of two finite floats of one sign convention.
int64_t ulps32(uint32_t a, uint32_t b) {
  auto key = [](uint32_t x) -> int64_t {
    return (x & 0x80000000u) ? -int64_t(x & 0x7fffffffu) : int64_t(x);
  };
  return std::llabs(key(a) - key(b));
}
int64_t ulps64(uint64_t a, uint64_t b) {
  auto key = [](uint64_t x) -> long double {
    return (x >> 63) ? -(long double)(x & ~(1ull << 63)) : (long double)x;
  };
  return static_cast<int64_t>(std::fabs(key(a) - key(b)));
}

TEST(Random, BitForBitWithJax) {
  ASSERT_EQ(jaxCases().size(), 4u) << "cannot read " << RLX_RANDOM_REFERENCE;
  for (const JaxCase &jc : jaxCases()) {
    SCOPED_TRACE("seed " + std::to_string(jc.seed));
    Compiled c = samplers(jc.seed).jit(Device::cpu());
    Outputs out = c.run({});
    for (const char *name :
         {"key", "split3", "fold_in_7", "fold_in_123456789", "bits_5x7",
          "bernoulli_0.3_1000"}) {
      std::vector<double> got = out[name].to_vector();
      const std::vector<uint64_t> &want = jc.arrays.at(name);
      ASSERT_EQ(got.size(), want.size()) << name;
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(u32(got[i]), want[i]) << name << "[" << i << "]";
    }
    for (const char *name : {"uniform_f32_1000", "uniform_f32_m2_3_1000"}) {
      std::vector<double> got = out[name].to_vector();
      const std::vector<uint64_t> &want = jc.arrays.at(name);
      ASSERT_EQ(got.size(), want.size()) << name;
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(f32Bits(got[i]), want[i]) << name << "[" << i << "]";
    }
    {
      std::vector<double> got = out["uniform_f64_100"].to_vector();
      const std::vector<uint64_t> &want = jc.arrays.at("uniform_f64_100");
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(f64Bits(got[i]), want[i]) << "uniform_f64_100[" << i << "]";
    }
    // Normal: XLA's erfinv and log1p, fma for fma, and in f32 XLA's log in
    // log1p's log(1 + x) branch: f32 and f64 agree exactly.
    size_t exact = 0, total = 0;
    int64_t worst32 = 0, worst64 = 0;
    std::vector<double> n32 = out["normal_f32_1000"].to_vector();
    const std::vector<uint64_t> &w32 = jc.arrays.at("normal_f32_1000");
    ASSERT_EQ(n32.size(), w32.size());
    for (size_t i = 0; i < n32.size(); ++i) {
      int64_t d = ulps32(f32Bits(n32[i]), static_cast<uint32_t>(w32[i]));
      worst32 = std::max(worst32, d);
      exact += d == 0;
      ++total;
    }
    std::vector<double> n64 = out["normal_f64_100"].to_vector();
    const std::vector<uint64_t> &w64 = jc.arrays.at("normal_f64_100");
    ASSERT_EQ(n64.size(), w64.size());
    for (size_t i = 0; i < n64.size(); ++i)
      worst64 = std::max(worst64, ulps64(f64Bits(n64[i]), w64[i]));
    std::fprintf(stderr,
                 "seed %llu: normal f32 %zu/%zu exact, at most %lld ulp; "
                 "f64 at most %lld ulp\n",
                 static_cast<unsigned long long>(jc.seed), exact, total,
                 static_cast<long long>(worst32),
                 static_cast<long long>(worst64));
    EXPECT_LE(worst32, RLX_NORMAL_F32_ULPS);
    EXPECT_LE(worst64, RLX_NORMAL_F64_ULPS);
    EXPECT_GE(exact, total * 98 / 100);
  }
}

/// truncated_normal and permutation of one seed (the key from the seed).
Func sortsAndTails(uint64_t seed) {
  return Func("sorts_and_tails", [seed](Scope &s) {
    Tensor k = random::key(s, seed);
    double inf = std::numeric_limits<double>::infinity();
    std::vector<double> iota(15);
    for (int i = 0; i < 15; ++i)
      iota[i] = i;
    return std::vector<Tensor>{
        random::truncated_normal(k, -2.0, 2.0, {1000})
            .named("truncated_normal_f32_m2_2_1000"),
        random::truncated_normal(k, 0.5, 3.0, {1000})
            .named("truncated_normal_f32_0.5_3_1000"),
        random::truncated_normal(k, -1.0, inf, {1000})
            .named("truncated_normal_f32_m1_inf_1000"),
        random::truncated_normal(k, -8.0, -6.0, {10})
            .named("truncated_normal_f32_m8_m6_10"),
        random::permutation(k, 10).named("permutation_10"),
        random::permutation(k, 37).named("permutation_37"),
        random::permutation(k, 2000).named("permutation_2000"),
        random::permutation(k, s.constant(iota, {5, 3}, DType::i32))
            .named("permutation_rows_5x3")};
  });
}

TEST(Random, TruncatedNormalAndPermutationBitForBitWithJax) {
  ASSERT_EQ(jaxCases().size(), 4u) << "cannot read " << RLX_RANDOM_REFERENCE;
  for (const JaxCase &jc : jaxCases()) {
    SCOPED_TRACE("seed " + std::to_string(jc.seed));
    Outputs out = sortsAndTails(jc.seed).jit(Device::cpu()).run({});
    for (const char *name : {"permutation_10", "permutation_37",
                             "permutation_2000", "permutation_rows_5x3"}) {
      std::vector<double> got = out[name].to_vector();
      const std::vector<uint64_t> &want = jc.arrays.at(name);
      ASSERT_EQ(got.size(), want.size()) << name;
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(u32(got[i]), want[i]) << name << "[" << i << "]";
    }
    // The erf of the bounds is XLA's exactly, and erfinv (with XLA's f32
    // log) random_normal's: exact.
    for (const char *name :
         {"truncated_normal_f32_m2_2_1000", "truncated_normal_f32_0.5_3_1000",
          "truncated_normal_f32_m1_inf_1000",
          "truncated_normal_f32_m8_m6_10"}) {
      std::vector<double> got = out[name].to_vector();
      const std::vector<uint64_t> &want = jc.arrays.at(name);
      ASSERT_EQ(got.size(), want.size()) << name;
      size_t exact = 0;
      int64_t worst = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        int64_t d = ulps32(f32Bits(got[i]), static_cast<uint32_t>(want[i]));
        worst = std::max(worst, d);
        exact += d == 0;
      }
      std::fprintf(stderr, "seed %llu: %s %zu/%zu exact, at most %lld ulp\n",
                   static_cast<unsigned long long>(jc.seed), name, exact,
                   got.size(), static_cast<long long>(worst));
      EXPECT_LE(worst, RLX_NORMAL_F32_ULPS) << name;
      EXPECT_GE(exact, got.size() * 98 / 100) << name;
    }
  }
}

//===----------------------------------------------------------------------===//
// Statistics at fixed seeds
//===----------------------------------------------------------------------===//

/// Kolmogorov-Smirnov statistic of `xs` against `cdf`.
double ksStatistic(std::vector<double> xs, double (*cdf)(double)) {
  std::sort(xs.begin(), xs.end());
  double n = static_cast<double>(xs.size()), d = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    double f = cdf(xs[i]);
    d = std::max({d, f - i / n, (i + 1) / n - f});
  }
  return d;
}

double uniformCdf(double x) { return std::clamp(x, 0.0, 1.0); }
double normalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

/// Chi-square of `counts` against `expected` (same length).
double chiSquare(const std::vector<double> &counts,
                 const std::vector<double> &expected) {
  double chi = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    chi += (counts[i] - expected[i]) * (counts[i] - expected[i]) / expected[i];
  return chi;
}

TEST(Random, UniformAndNormalPassKolmogorovSmirnov) {
  const int64_t n = 20000;
  Compiled c = Func("dists", [&](Scope &s) {
                 Tensor k = random::key(s, 1234);
                 std::vector<Tensor> ks = random::split_keys(k, 4);
                 return std::vector<Tensor>{
                     random::uniform(ks[0], {n}),
                     random::normal(ks[1], {n}),
                     random::uniform(ks[2], {n}, DType::f64),
                     random::normal(ks[3], {n}, DType::f64)};
               }).jit(Device::cpu());
  Outputs out = c.run({});
  // Critical value at alpha = 0.001: 1.95 / sqrt(n).
  double critical = 1.95 / std::sqrt(static_cast<double>(n));
  EXPECT_LT(ksStatistic(out[0].to_vector(), uniformCdf), critical);
  EXPECT_LT(ksStatistic(out[1].to_vector(), normalCdf), critical);
  EXPECT_LT(ksStatistic(out[2].to_vector(), uniformCdf), critical);
  EXPECT_LT(ksStatistic(out[3].to_vector(), normalCdf), critical);
  // And the whole range is used: min, max, mean and variance.
  std::vector<double> u = out[0].to_vector();
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 0.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 1.0);
}

double normalCdfAt(double x) {
  return std::isinf(x) ? (x > 0 ? 1.0 : 0.0) : normalCdf(x);
}
template <int Lo10, int Hi10> double truncatedCdf(double x) {
  double lo = Lo10 / 10.0,
         hi = Hi10 == 1000 ? std::numeric_limits<double>::infinity()
                           : Hi10 / 10.0;
  double a = normalCdfAt(lo), b = normalCdfAt(hi);
  return std::clamp((normalCdfAt(x) - a) / (b - a), 0.0, 1.0);
}

TEST(Random, TruncatedNormalPassesKolmogorovSmirnov) {
  const int64_t n = 20000;
  double inf = std::numeric_limits<double>::infinity();
  Compiled c = Func("truncated", [&](Scope &s) {
                 std::vector<Tensor> ks =
                     random::split_keys(random::key(s, 4321), 3);
                 return std::vector<Tensor>{
                     random::truncated_normal(ks[0], -1.0, 2.0, {n}),
                     random::truncated_normal(ks[1], 0.5, inf, {n},
                                              DType::f64),
                     random::truncated_normal(ks[2], -3.0, -2.5, {n})};
               }).jit(Device::cpu());
  Outputs out = c.run({});
  double critical = 1.95 / std::sqrt(static_cast<double>(n));
  std::vector<double> a = out[0].to_vector(), b = out[1].to_vector(),
                      t = out[2].to_vector();
  EXPECT_LT(ksStatistic(a, truncatedCdf<-10, 20>), critical);
  EXPECT_LT(ksStatistic(b, truncatedCdf<5, 1000>), critical);
  EXPECT_LT(ksStatistic(t, truncatedCdf<-30, -25>), critical);
  // Inside the open intervals.
  EXPECT_GT(*std::min_element(a.begin(), a.end()), -1.0);
  EXPECT_LT(*std::max_element(a.begin(), a.end()), 2.0);
  EXPECT_GT(*std::min_element(b.begin(), b.end()), 0.5);
  EXPECT_GT(*std::min_element(t.begin(), t.end()), -3.0);
  EXPECT_LT(*std::max_element(t.begin(), t.end()), -2.5);
}

TEST(Random, PermutationTakesEachIndexOnceAndVmapsOverKeys) {
  const int64_t n = 300;
  Func perm("perm", [&](Scope &s) {
    Tensor k = s.input("key", {2}, DType::i32);
    return std::vector<Tensor>{random::permutation(k, n)};
  });
  Compiled batched = perm.vmap({0}, {0}).jit(Device::cpu());
  Compiled single = perm.jit(Device::cpu());
  // Lanes 0 and 2 share a key; lane 1 differs.
  std::vector<int32_t> keys = {0, 42, 0, 43, 0, 42};
  Outputs out = batched.run({{"key", Array::from(keys, {3, 2})}});
  std::vector<double> p = out[0].to_vector();
  ASSERT_EQ(p.size(), size_t(3 * n));
  for (int lane = 0; lane < 3; ++lane) {
    std::vector<double> row(p.begin() + n * lane, p.begin() + n * (lane + 1));
    std::vector<double> sorted = row;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(sorted[i], static_cast<double>(i)) << "lane " << lane;
    Outputs one = single.run(
        {{"key", Array::from(std::vector<int32_t>{keys[2 * lane],
                                                  keys[2 * lane + 1]},
                             {2})}});
    EXPECT_EQ(row, one[0].to_vector()) << "lane " << lane;
  }
  EXPECT_EQ(std::vector<double>(p.begin(), p.begin() + n),
            std::vector<double>(p.begin() + 2 * n, p.end()));
  size_t same = 0;
  for (int64_t i = 0; i < n; ++i)
    same += p[i] == p[n + i];
  EXPECT_LT(same, 10u) << "different keys, different permutations";
  // A batched key straight into the frontend: one permutation per key.
  Compiled direct = Func("direct", [&](Scope &s) {
                      Tensor ks = s.input("keys", {3, 2}, DType::i32);
                      Tensor x = s.input("x", {n, 2});
                      return std::vector<Tensor>{
                          random::permutation(ks, n),
                          random::permutation(ks, x)};
                    }).jit(Device::cpu());
  std::vector<double> x(2 * n);
  for (int64_t i = 0; i < 2 * n; ++i)
    x[i] = static_cast<double>(i);
  Outputs d = direct.run({{"keys", Array::from(keys, {3, 2})},
                          {"x", Array::from(x, {n, 2})}});
  EXPECT_EQ(d[0].to_vector(), p);
  std::vector<double> rows = d[1].to_vector();
  ASSERT_EQ(rows.size(), size_t(3 * n * 2));
  for (int64_t i = 0; i < 3 * n; ++i) {
    EXPECT_EQ(rows[2 * i], 2 * p[i]);
    EXPECT_EQ(rows[2 * i + 1], 2 * p[i] + 1);
  }
}

TEST(Random, BernoulliAndCategoricalPassChiSquare) {
  const int64_t n = 20000;
  std::vector<double> logits = {0.0, 1.0, -1.0, 2.0, 0.5};
  Compiled c = Func("discrete", [&](Scope &s) {
                 Tensor k = random::key(s, 99);
                 std::vector<Tensor> ks = random::split_keys(k, 2);
                 Tensor l = broadcast_to(s.constant(logits, {5}), {n, 5});
                 return std::vector<Tensor>{
                     cast(random::bernoulli(ks[0], 0.3, {n}), DType::i32),
                     random::categorical(ks[1], l, -1)};
               }).jit(Device::cpu());
  Outputs out = c.run({});
  std::vector<double> b = out[0].to_vector();
  double ones = std::count(b.begin(), b.end(), 1.0);
  // 1 degree of freedom, alpha = 0.001: 10.83.
  EXPECT_LT(chiSquare({ones, n - ones}, {0.3 * n, 0.7 * n}), 10.83);
  std::vector<double> idx = out[1].to_vector();
  ASSERT_EQ(idx.size(), size_t(n));
  std::vector<double> counts(5, 0), expected(5);
  for (double i : idx) {
    ASSERT_GE(i, 0);
    ASSERT_LT(i, 5);
    counts[static_cast<size_t>(i)] += 1;
  }
  double z = 0;
  for (double l : logits)
    z += std::exp(l);
  for (size_t i = 0; i < 5; ++i)
    expected[i] = n * std::exp(logits[i]) / z;
  // 4 degrees of freedom, alpha = 0.001: 18.47.
  EXPECT_LT(chiSquare(counts, expected), 18.47);
}

TEST(Random, ArgmaxTakesTheFirstMaximum) {
  Compiled c = Func("am", [](Scope &s) {
                 Tensor x = s.input("x", {2, 4});
                 return std::vector<Tensor>{random::argmax(x, 1),
                                            random::argmax(x, 0)};
               }).jit(Device::cpu());
  Outputs out = c.run({{"x", Array::from(std::vector<double>{1, 3, 3, 2,
                                                             5, 0, 5, 5},
                                         {2, 4})}});
  EXPECT_EQ(out[0].to_vector(), (std::vector<double>{1, 0}));
  EXPECT_EQ(out[1].to_vector(), (std::vector<double>{1, 0, 1, 1}));
}

//===----------------------------------------------------------------------===//
// vmap over keys, thread counts
//===----------------------------------------------------------------------===//

TEST(Random, VmapGivesEachLaneItsKey) {
  Func sampler("sampler", [](Scope &s) {
    Tensor k = s.input("key", {2}, DType::i32);
    return std::vector<Tensor>{random::uniform(k, {16}),
                               random::bits(random::fold_in(k, 3), {4})};
  });
  Compiled batched = sampler.vmap({0}, {0, 0}).jit(Device::cpu());
  Compiled single = sampler.jit(Device::cpu());
  // Lanes 0 and 2 share a key; lane 1 differs.
  std::vector<int32_t> keys = {0, 42, 0, 43, 0, 42};
  Outputs out = batched.run({{"key", Array::from(keys, {3, 2})}});
  std::vector<double> u = out[0].to_vector(), b = out[1].to_vector();
  ASSERT_EQ(u.size(), 48u);
  for (int lane = 0; lane < 3; ++lane) {
    Outputs one = single.run(
        {{"key", Array::from(std::vector<int32_t>{keys[2 * lane],
                                                  keys[2 * lane + 1]},
                             {2})}});
    EXPECT_EQ(std::vector<double>(u.begin() + 16 * lane,
                                  u.begin() + 16 * (lane + 1)),
              one[0].to_vector())
        << "lane " << lane << " against the unbatched call";
    EXPECT_EQ(std::vector<double>(b.begin() + 4 * lane,
                                  b.begin() + 4 * (lane + 1)),
              one[1].to_vector());
  }
  EXPECT_EQ(std::vector<double>(u.begin(), u.begin() + 16),
            std::vector<double>(u.begin() + 32, u.end()))
      << "same key, same values";
  size_t same = 0;
  for (int i = 0; i < 16; ++i)
    same += u[i] == u[16 + i];
  EXPECT_EQ(same, 0u) << "different keys, different values";
}

TEST(Random, SameBitsOnOneAndTwoThreads) {
  // Large enough for the kernels to run in parallel.
  Compiled c = Func("big", [](Scope &s) {
                 Tensor k = random::key(s, 7);
                 return std::vector<Tensor>{random::bits(k, {512, 1024}),
                                            random::normal(k, {512, 1024})};
               }).jit(Device::cpu());
  rlx_set_num_threads(1);
  Outputs one = c.run({});
  rlx_set_num_threads(2);
  Outputs two = c.run({});
  rlx_set_num_threads(0);
  EXPECT_EQ(one[0].to_vector(), two[0].to_vector());
  EXPECT_EQ(one[1].to_vector(), two[1].to_vector());
}

//===----------------------------------------------------------------------===//
// Gradients, dropout, errors
//===----------------------------------------------------------------------===//

TEST(Random, SamplesAreConstantsOfTheGradient) {
  // d/dx sum(x * u) = u, the same u the forward pass draws.
  Func f("f", [](Scope &s) {
    Tensor k = s.input("key", {2}, DType::i32);
    Tensor x = s.input("x", {8});
    return sum(mul(x, random::uniform(k, {8})));
  });
  Func u("u", [](Scope &s) {
    return random::uniform(s.input("key", {2}, DType::i32), {8});
  });
  std::map<std::string, Array> in = {
      {"key", Array::from(std::vector<int32_t>{1, 2}, {2})},
      {"x", Array::from(test::values(8, 3), {8})}};
  Outputs g = f.grad({"x"}).jit(Device::cpu()).run(in);
  Outputs want = u.jit(Device::cpu()).run({{"key", in.at("key")}});
  EXPECT_EQ(g[0].to_vector(), want[0].to_vector());
}

TEST(Random, GradientWithRespectToAKeyIsAnError) {
  Func f("f", [](Scope &s) {
    Tensor k = s.input("key", {2}, DType::i32);
    Tensor x = s.input("x", {8});
    return sum(mul(x, random::uniform(k, {8})));
  });
  std::string error = errorOf([&] { f.grad({"key"}).jit(Device::cpu()); });
  EXPECT_NE(error.find("leaf 'key' is i32[2], not a float: integer data, "
                       "such as a PRNG key, carries no gradient"),
            std::string::npos)
      << error;
}

TEST(Random, DropoutKeepsAndScales) {
  Compiled c = Func("drop", [](Scope &s) {
                 Tensor x = s.input("x", {4000});
                 Tensor k = random::key(s, 5);
                 return std::vector<Tensor>{dropout(k, x, 0.25, true),
                                            dropout(k, x, 0.25, false)};
               }).jit(Device::cpu());
  std::vector<double> x(4000, 2.0);
  Outputs out = c.run({{"x", Array::from(x, {4000})}});
  std::vector<double> train = out[0].to_vector();
  size_t kept = 0;
  for (double v : train) {
    EXPECT_TRUE(v == 0.0 || std::fabs(v - 2.0 / 0.75) < 1e-6) << v;
    kept += v != 0.0;
  }
  // 3000 expected, sd ~27.
  EXPECT_NEAR(static_cast<double>(kept), 3000.0, 150.0);
  EXPECT_EQ(out[1].to_vector(), x);
}

TEST(Random, ErrorsNameTheOpAndLine) {
  std::string error = errorOf([] {
    Scope s("bad");
    Tensor k = s.input("k", {3}, DType::i32);
    random::uniform(k, {4});
  });
  EXPECT_NE(error.find("expects a key of type tensor<...x2xi32>"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("RandomTest.cpp:"), std::string::npos) << error;
  error = errorOf([] {
    Scope s("bad");
    random::split(random::key(s, 0), 0);
  });
  EXPECT_NE(error.find("expects num >= 1, got 0"), std::string::npos) << error;
  error = errorOf([] {
    Scope s("bad");
    random::normal(random::key(s, 0), {3}, DType::i32);
  });
  EXPECT_NE(error.find("expects an f32 or f64 result"), std::string::npos)
      << error;
  error = errorOf([] {
    Scope s("bad");
    random::truncated_normal(random::key(s, 0), 2.0, 1.0, {3});
  });
  EXPECT_NE(error.find("expects lower < upper"), std::string::npos) << error;
  error = errorOf([] {
    Scope s("bad");
    random::permutation(random::key(s, 0), 0);
  });
  EXPECT_NE(error.find("rlx::random::permutation: expects n >= 1, got 0"),
            std::string::npos)
      << error;
}

} // namespace
