//===- QuantTest.cpp - fake_quant and quantization-aware training --------===//
///
/// \file
/// `rlx::fake_quant` against a plain rounding written here from the format's
/// definition (frexp for the exponent, nearbyint for ties to even), its
/// stochastic rounding against the neighbours and the share that rounds up,
/// its straight-through derivative, and TrainOptions::qat against the gradient
/// of the loss evaluated at the quantized weights.
///
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include <cfenv>
#include <cmath>
#include <limits>
#include <sstream>

using namespace rlx;
using namespace rlx::test;

namespace {

using Specials = FloatFormat::Specials;

/// The largest finite value from the format's definition: the top exponent
/// is reserved by `ieee`, and `fn` gives up only the all-ones mantissa there.
double refMax(const FloatFormat &f) {
  int64_t topExponent = (int64_t(1) << f.exponent_bits) - 1;
  double allOnes = 2 - std::ldexp(1, -int(f.mantissa_bits));
  switch (f.specials) {
  case Specials::ieee:
    return std::ldexp(allOnes, int(topExponent - 1 - f.bias));
  case Specials::fn:
    return std::ldexp(allOnes - std::ldexp(1, -int(f.mantissa_bits)),
                      int(topExponent - f.bias));
  case Specials::fnuz:
  case Specials::finite:
    return std::ldexp(allOnes, int(topExponent - f.bias));
  }
  return 0;
}

/// Round to nearest, ties to even, with the format's exponent unbounded
/// above (so that a tie between max and the next power decides overflow
/// as IEEE does) and subnormals below 2^(1 - bias).
double refQuant(double x, const FloatFormat &f) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(x))
    return nan;
  double max = refMax(f);
  bool saturates = f.saturate || f.specials == Specials::finite;
  if (std::isinf(x)) {
    if (saturates)
      return std::copysign(max, x);
    return f.specials == Specials::ieee ? x : nan;
  }
  if (x == 0)
    return x;
  int exp2;
  std::frexp(std::fabs(x), &exp2); // |x| = fr 2^exp2, fr in [0.5, 1)
  int e = std::max(exp2 - 1, int(1 - f.bias));
  double quantum = std::ldexp(1, e - int(f.mantissa_bits));
  double r = std::nearbyint(std::fabs(x) / quantum) * quantum;
  if (r > max) {
    if (saturates)
      r = max;
    else
      return f.specials == Specials::ieee ? std::copysign(INFINITY, x) : nan;
  }
  return std::copysign(r, x);
}

/// Values across the format's range: random magnitudes from far below its
/// smallest subnormal to beyond its max, exact ties between neighbours
/// (odd multiples of half a quantum), zeros and the f32 specials.
std::vector<float> probeValues(const FloatFormat &f) {
  std::vector<float> xs = {0.0f, -0.0f, INFINITY, -INFINITY, NAN};
  int lowest = int(1 - f.bias - f.mantissa_bits) - 2;
  int highest = int((int64_t(1) << f.exponent_bits) - f.bias) + 1;
  std::vector<double> unit = values(400, 17);
  for (size_t i = 0; i < unit.size(); i += 2) {
    double e = lowest + (unit[i] + 1) / 2 * (highest - lowest);
    xs.push_back(float(std::copysign(std::exp2(e), unit[i + 1])));
  }
  for (int e = int(1 - f.bias); e < highest; ++e)
    for (int k = 1; k < (4 << f.mantissa_bits); k += 2) {
      double tie = k * std::ldexp(1, e - int(f.mantissa_bits) - 1);
      xs.push_back(float(tie));
      xs.push_back(float(-tie));
    }
  xs.push_back(float(f.max_finite()));
  xs.push_back(float(-f.max_finite()));
  return xs;
}

void expectRoundsLike(const FloatFormat &format, DType dtype) {
  SCOPED_TRACE(format.str() + (dtype == f64 ? " f64" : " f32"));
  EXPECT_EQ(format.max_finite(), refMax(format));
  Func f("quant", [format, dtype](Scope &s) {
    return fake_quant(s.input("x", {dyn}, dtype), format).named("y");
  });
  std::vector<float> xs = probeValues(format);
  std::vector<double> asDouble(xs.begin(), xs.end());
  Array in = dtype == f64 ? Array::from(asDouble, {int64_t(xs.size())}, f64)
                          : Array::from(xs, {int64_t(xs.size())});
  std::vector<double> got = f.jit(Device::cpu()).run({{"x", in}})["y"].to_vector();
  ASSERT_EQ(got.size(), xs.size());
  size_t bad = 0;
  for (size_t i = 0; i < xs.size() && bad < 5; ++i) {
    double want = refQuant(xs[i], format);
    bool same = std::isnan(want) ? std::isnan(got[i]) : got[i] == want;
    if (!same) {
      ++bad;
      ADD_FAILURE() << "x = " << xs[i] << ": got " << got[i] << ", expected "
                    << want;
    }
  }
}

} // namespace

TEST(JitFakeQuant, NamedFormatsRoundLikeTheReference) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (const FloatFormat &format :
       {formats::f8e4m3fn(), formats::f8e5m2(), formats::f8e4m3fnuz(),
        formats::f6e3m2fn(), formats::f4e2m1fn(),
        formats::f8e4m3fn(/*saturate=*/true)})
    expectRoundsLike(format, f32);
  // Known values: 448 is e4m3fn's max, 6 e2m1's, 57344 e5m2's.
  EXPECT_EQ(formats::f8e4m3fn().max_finite(), 448);
  EXPECT_EQ(formats::f4e2m1fn().max_finite(), 6);
  EXPECT_EQ(formats::f8e5m2().max_finite(), 57344);
  EXPECT_EQ(formats::named("f6e3m2fn").max_finite(), 28);
}

TEST(JitFakeQuant, CustomFormatAndF64) {
  // e3m4 with bias 5, saturating: not one of MLIR's types.
  FloatFormat e3m4{3, 4, 5, Specials::ieee, /*saturate=*/true};
  expectRoundsLike(e3m4, f32);
  expectRoundsLike(e3m4, f64);
  // bf16's range with a 5-bit mantissa: its smallest ulps (2^-131) are f32
  // subnormals, so f32 scales in two steps.
  expectRoundsLike(FloatFormat{8, 5, 127, Specials::ieee, false}, f64);
  expectRoundsLike(FloatFormat{8, 5, 127, Specials::ieee, false}, f32);
}

TEST(JitFakeQuant, GradientIsStraightThrough) {
  // The cotangent passes unchanged, even where the value saturates or
  // rounds to zero.
  Func f("q", [](Scope &s) {
    Tensor x = s.input("x", {6}, f32);
    return fake_quant(x * x, formats::f8e4m3fn(true)).named("y");
  });
  std::vector<float> x = {0.3f, -1.7f, 1e-5f, 40.f, -0.0f, 2.5f};
  std::vector<float> ct = {1.5f, -0.25f, 3.0f, 0.125f, 7.0f, -2.0f};
  Outputs out = f.vjp({"x"}).jit(Device::cpu()).run(
      {{"x", Array::from(x, {6})}, {"ct.y", Array::from(ct, {6})}});
  std::vector<double> grad = out["grad.x"].to_vector();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(grad[i], float(ct[i] * (2 * x[i]))) << "element " << i;
  Outputs fwd = f.jvp({"x"}).jit(Device::cpu()).run(
      {{"x", Array::from(x, {6})}, {"t.x", Array::from(ct, {6})}});
  std::vector<double> tangent = fwd["tangent.y"].to_vector();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(tangent[i], float(2 * x[i] * ct[i])) << "element " << i;
}

/// Stochastic rounding under K keys (one per row of x): every result is one
/// of x's two neighbours in the format (by frexp, as refQuant), the upper
/// one in a share of rows within 5 standard deviations of x's fraction
/// between them, values of the format stay as they are, and the same keys
/// give the same results. bf16 in f32 (its subnormals scale in two steps)
/// and e4m3fn.
TEST(JitFakeQuant, StochasticRoundingIsUnbiased) {
  const int64_t rows = 4000;
  struct Probe {
    FloatFormat format;
    std::vector<float> xs;
  };
  std::vector<Probe> probes = {
      {FloatFormat{8, 7, 127, Specials::ieee, false},
       {1.0f + 1.0f / 3 * 0x1p-7f, 0.1f, -3.3e-39f, 1.5e38f, 1.25f, -7.7e-3f}},
      {formats::f8e4m3fn(), {200.5f, -0.3f, 0.0017f, 0.01f, 448.0f, -3.0f}},
  };
  for (const Probe &probe : probes) {
    SCOPED_TRACE(probe.format.str());
    const int64_t n = int64_t(probe.xs.size());
    FloatFormat format = probe.format;
    Func f("sr", [format, n](Scope &s) {
      Tensor x = s.input("x", {rows, n}, f32);
      Tensor keys = s.input("keys", {rows, 2}, DType::i32);
      return fake_quant(x, format, keys).named("y");
    });
    std::vector<float> x;
    std::vector<int32_t> keys;
    for (int64_t r = 0; r < rows; ++r) {
      x.insert(x.end(), probe.xs.begin(), probe.xs.end());
      keys.push_back(int32_t(r * 7919));
      keys.push_back(int32_t(r ^ 0x5bd1e995));
    }
    std::map<std::string, Array> in = {{"x", Array::from(x, {rows, n})},
                                       {"keys", Array::from(keys, {rows, 2})}};
    auto jit = f.jit(Device::cpu());
    std::vector<double> got = jit.run(in)["y"].to_vector();
    ASSERT_EQ(got, jit.run(in)["y"].to_vector()) << "same keys, same results";
    for (int64_t i = 0; i < n; ++i) {
      double v = probe.xs[i], ax = std::fabs(v);
      int exp2;
      std::frexp(ax, &exp2);
      int e = std::max(exp2 - 1, int(1 - format.bias));
      double quantum = std::ldexp(1, e - int(format.mantissa_bits));
      double lo = std::floor(ax / quantum) * quantum, hi = lo + quantum;
      double fraction = (ax - lo) / quantum;
      int64_t ups = 0;
      for (int64_t r = 0; r < rows; ++r) {
        double y = std::fabs(got[r * n + i]);
        EXPECT_TRUE(y == lo || y == hi)
            << "x = " << v << ": got " << got[r * n + i] << ", neighbours "
            << lo << " and " << hi;
        EXPECT_EQ(std::signbit(got[r * n + i]), std::signbit(v));
        ups += y == hi && y != lo;
      }
      double sigma = std::sqrt(fraction * (1 - fraction) / rows);
      EXPECT_NEAR(double(ups) / rows, fraction, 5 * sigma + 1e-12)
          << "x = " << v;
      if (fraction == 0)
        EXPECT_EQ(ups, 0) << "x = " << v << " is a value of the format";
    }
  }
}

TEST(JitFakeQuant, StochasticGradientIsStraightThrough) {
  Func f("q", [](Scope &s) {
    Tensor x = s.input("x", {4}, f32);
    Tensor key = s.input("key", {2}, DType::i32);
    return fake_quant(x * x, formats::f8e5m2(), key).named("y");
  });
  std::vector<float> x = {0.3f, -1.7f, 1e-5f, 40.f};
  std::vector<float> ct = {1.5f, -0.25f, 3.0f, 0.125f};
  Outputs out = f.vjp({"x"})
                    .jit(Device::cpu())
                    .run({{"x", Array::from(x, {4})},
                          {"key", Array::from(std::vector<int32_t>{3, 4}, {2})},
                          {"ct.y", Array::from(ct, {4})}});
  std::vector<double> grad = out["grad.x"].to_vector();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(grad[i], float(ct[i] * (2 * x[i]))) << "element " << i;
}

/// cast(x, bf16, key): a stochastic cast into bf16 itself. Each result is
/// one of x's two bf16 neighbours, the upper one in a share of 4000 rows
/// (one key each) within 5 standard deviations of x's fraction between
/// them; the subnormal stays exact (not flushed). Under vmap over the keys
/// each lane rounds the one x with its own key, as the rows did; the
/// gradient through the cast is straight-through.
TEST(JitStochasticCast, Bf16IsUnbiasedBatchedAndStraightThrough) {
  const int64_t rows = 4000;
  const std::vector<float> xs = {1.0f + 1.0f / 3 * 0x1p-7f, -0.1f, 3.3e-39f,
                                 1.25f};
  const int64_t n = int64_t(xs.size());
  Func one("one", [n](Scope &s) {
    Tensor x = s.input("x", {n}, f32);
    Tensor key = s.input("key", {2}, DType::i32);
    return cast(cast(x, DType::bf16, key), f32).named("y");
  });
  Func rowsFn("rows", [n](Scope &s) {
    Tensor x = s.input("x", {rows, n}, f32);
    Tensor keys = s.input("keys", {rows, 2}, DType::i32);
    return cast(cast(x, DType::bf16, keys), f32).named("y");
  });
  std::vector<float> x;
  std::vector<int32_t> keys;
  for (int64_t r = 0; r < rows; ++r) {
    x.insert(x.end(), xs.begin(), xs.end());
    keys.push_back(int32_t(r * 7919));
    keys.push_back(int32_t(r ^ 0x5bd1e995));
  }
  std::vector<double> got =
      rowsFn.jit(Device::cpu())
          .run({{"x", Array::from(x, {rows, n})},
                {"keys", Array::from(keys, {rows, 2})}})["y"]
          .to_vector();
  // vmap over the keys alone: the same numbers lane by lane.
  std::vector<double> batched =
      one.vmap({unmapped, 0}, {0})
          .jit(Device::cpu())
          .run({{"x", Array::from(xs, {n})},
                {"key", Array::from(keys, {rows, 2})}})["y"]
          .to_vector();
  EXPECT_EQ(batched, got);
  for (int64_t i = 0; i < n; ++i) {
    double v = xs[i], ax = std::fabs(v);
    int exp2;
    std::frexp(ax, &exp2);
    double quantum = std::ldexp(1, std::max(exp2 - 1, -126) - 7);
    double lo = std::floor(ax / quantum) * quantum, hi = lo + quantum;
    double fraction = (ax - lo) / quantum;
    int64_t ups = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double y = std::fabs(got[r * n + i]);
      ASSERT_TRUE(y == lo || y == hi) << "x = " << v << ": got "
                                      << got[r * n + i] << ", neighbours "
                                      << lo << " and " << hi;
      EXPECT_EQ(std::signbit(got[r * n + i]), std::signbit(v));
      ups += y == hi && y != lo;
    }
    double sigma = std::sqrt(fraction * (1 - fraction) / rows);
    EXPECT_NEAR(double(ups) / rows, fraction, 5 * sigma + 1e-12)
        << "x = " << v;
  }
  Func squared("sq", [](Scope &s) {
    Tensor x = s.input("x", {4}, f32);
    Tensor key = s.input("key", {2}, DType::i32);
    return cast(cast(x * x, DType::bf16, key), f32).named("y");
  });
  std::vector<float> at = {0.3f, -1.7f, 1e-5f, 40.f};
  std::vector<float> ct = {1.5f, -0.25f, 3.0f, 0.125f};
  Outputs out = squared.vjp({"x"})
                    .jit(Device::cpu())
                    .run({{"x", Array::from(at, {4})},
                          {"key", Array::from(std::vector<int32_t>{3, 4}, {2})},
                          {"ct.y", Array::from(ct, {4})}});
  std::vector<double> grad = out["grad.x"].to_vector();
  for (size_t i = 0; i < at.size(); ++i) {
    // The cotangent passes through bf16 and back (exact for these values).
    EXPECT_EQ(grad[i], float(ct[i] * (2 * at[i]))) << "element " << i;
  }
  std::string widening = errorOf([] {
    Func("bad", [](Scope &s) {
      return cast(s.input("x", {2}, DType::bf16), f32,
                  s.input("key", {2}, DType::i32))
          .named("y");
    });
  });
  EXPECT_NE(widening.find("rounds stochastically (a key) from f32 or f64"),
            std::string::npos)
      << widening;
}

/// An MXFP8 linear layer: f8e4m3fn weight codes with one f8e8m0fnu scale
/// per 32 rows (the reduction dim), dequantized and multiplied, against the
/// codes decoded here from the formats' definitions; x's gradient through
/// the matmul and the weights' (the cotangent scaled by block) too.
TEST(JitBlockDequantize, MxLinearLayer) {
  const int64_t rows = 3, k = 64, n = 5;
  Func f("mx", [&](Scope &s) {
    Tensor x = s.input("x", {rows, k}, f32);
    Tensor w = s.input("w", {k, n}, DType::f8e4m3fn);
    Tensor scales = s.input("scales", {k / 32, n}, DType::f8e8m0fnu);
    Tensor v = s.input("v", {rows, k}, f32);
    Tensor vs = s.input("vs", {rows, 3}, f32);
    return std::vector<Tensor>{
        matmul(x, block_dequantize(w, scales, 0, 32)).named("y"),
        block_dequantize(v, vs, -1, 24).named("z")};
  });
  auto e4m3fn = [](uint8_t code) {
    int e = (code >> 3) & 15, m = code & 7;
    double magnitude = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
    return code & 0x80 ? -magnitude : magnitude;
  };
  Array w = Array::zeros({k, n}, DType::f8e4m3fn);
  Array scales = Array::zeros({k / 32, n}, DType::f8e8m0fnu);
  std::vector<double> x(rows * k), v(rows * k), vs(rows * 3);
  // Codes through every exponent and sign; the NaN codes (0x7f, 0xff)
  // become 1.0.
  for (int64_t i = 0; i < k * n; ++i) {
    auto code = static_cast<uint8_t>((i * 37 + 11) % 256);
    w.data<uint8_t>()[i] = (code & 0x7f) == 0x7f ? 0x38 : code;
  }
  for (int64_t i = 0; i < (k / 32) * n; ++i)
    scales.data<uint8_t>()[i] = static_cast<uint8_t>(120 + i % 12);
  for (int64_t i = 0; i < rows * k; ++i) {
    x[i] = std::sin(0.37 * double(i)) * 2;
    v[i] = std::cos(0.11 * double(i));
  }
  for (int64_t i = 0; i < rows * 3; ++i)
    vs[i] = 0.5 * double(i + 1);
  auto dequantized = [&](int64_t kk, int64_t j) {
    return e4m3fn(w.data<uint8_t>()[kk * n + j]) *
           std::ldexp(1.0, scales.data<uint8_t>()[(kk / 32) * n + j] - 127);
  };
  std::map<std::string, Array> in = {{"x", Array::from(x, {rows, k})},
                                     {"w", w},
                                     {"scales", scales},
                                     {"v", Array::from(v, {rows, k})},
                                     {"vs", Array::from(vs, {rows, 3})}};
  Outputs out = f.jit(Device::cpu()).run(in);
  std::vector<double> y = out["y"].to_vector(), z = out["z"].to_vector();
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double expected = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        expected += float(x[i * k + kk]) * dequantized(kk, j);
      EXPECT_NEAR(y[i * n + j], expected, 1e-5 * (1 + std::fabs(expected)))
          << "y[" << i << "," << j << "]";
    }
    for (int64_t kk = 0; kk < k; ++kk)
      EXPECT_EQ(z[i * k + kk],
                float(float(v[i * k + kk]) * vs[i * 3 + kk / 24]))
          << "z[" << i << "," << kk << "]";
  }

  // Gradients: x's through the matmul, v's the cotangent scaled per block.
  std::vector<double> ctY(rows * n), ctZ(rows * k);
  for (size_t i = 0; i < ctY.size(); ++i)
    ctY[i] = 0.25 * double(int(i % 7) - 3);
  for (size_t i = 0; i < ctZ.size(); ++i)
    ctZ[i] = double(int(i % 5) - 2);
  in["ct.y"] = Array::from(ctY, {rows, n});
  in["ct.z"] = Array::from(ctZ, {rows, k});
  Outputs grads = f.vjp({"x", "v"}).jit(Device::cpu()).run(in);
  std::vector<double> gx = grads["grad.x"].to_vector();
  std::vector<double> gv = grads["grad.v"].to_vector();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      double expected = 0;
      for (int64_t j = 0; j < n; ++j)
        expected += ctY[i * n + j] * dequantized(kk, j);
      EXPECT_NEAR(gx[i * k + kk], expected, 1e-5 * (1 + std::fabs(expected)))
          << "grad.x[" << i << "," << kk << "]";
      EXPECT_EQ(gv[i * k + kk], ctZ[i * k + kk] * vs[i * 3 + kk / 24])
          << "grad.v[" << i << "," << kk << "]";
    }
}

TEST(TraceBlockDequantize, Errors) {
  std::string bad = errorOf([] {
    Func("mx", [](Scope &s) {
      return block_dequantize(s.input("w", {64, 4}, DType::f8e4m3fn),
                              s.input("s", {3, 4}, DType::f8e8m0fnu), 0, 32);
    });
  });
  EXPECT_NE(bad.find("rlx::block_dequantize"), std::string::npos) << bad;
  EXPECT_NE(bad.find("scales dim 0 of 2"), std::string::npos) << bad;
  EXPECT_NE(bad.find("QuantTest.cpp"), std::string::npos) << bad;
}

TEST(TraceFakeQuant, Errors) {
  std::string bad = errorOf([] {
    Func("q", [](Scope &s) {
      return fake_quant(s.input("x", {3}, f32), FloatFormat{0, 3, 7});
    });
  });
  EXPECT_NE(bad.find("rlx::fake_quant"), std::string::npos) << bad;
  EXPECT_NE(bad.find("exponent bits"), std::string::npos) << bad;
  EXPECT_NE(bad.find("QuantTest.cpp"), std::string::npos) << bad;
  // Integers have nothing to round.
  std::string narrow = errorOf([] {
    Func("q", [](Scope &s) {
      return fake_quant(s.input("x", {3}, i32), formats::f8e5m2());
    });
  });
  EXPECT_NE(narrow.find("rlx::fake_quant"), std::string::npos) << narrow;
  std::string unknown = errorOf([] { formats::named("f8e3m4"); });
  EXPECT_NE(unknown.find("'f8e3m4'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("f8e4m3fn"), std::string::npos) << unknown;
}

namespace {

/// tanh(x W1 + b1) W2 + b2 against targets y, loss 0.5 |out - y|^2, in f64.
const int64_t kRows = 5, kIn = 4, kHidden = 6, kOut = 2;

Func tinyNet() {
  return Func("tiny", [](Scope &s) {
    Tensor x = s.input("x", {kRows, kIn}, f64);
    Tensor y = s.input("y", {kRows, kOut}, f64);
    Tensor W1 = s.param("W1", {kIn, kHidden}, f64);
    Tensor b1 = s.param("b1", {kHidden}, f64);
    Tensor W2 = s.param("W2", {kHidden, kOut}, f64);
    Tensor b2 = s.param("b2", {kOut}, f64);
    Tensor out = matmul(tanh(matmul(x, W1) + b1), W2) + b2;
    return (0.5 * sum(square(out - y))).named("loss");
  });
}

using HostTree = std::map<std::string, std::vector<double>>;

/// The loss and its gradients by hand-written backpropagation, the
/// matrices read as given in `p` (quantized or not): gradients are those
/// at these values. With `acts`, the matmuls read x and h rounded to it
/// and the derivative passes the rounding straight through.
double tinyNetGrads(const HostTree &p, std::vector<double> x,
                    const std::vector<double> &y, HostTree &grads,
                    const FloatFormat *acts = nullptr) {
  const std::vector<double> &W1 = p.at("W1"), &b1 = p.at("b1"),
                            &W2 = p.at("W2"), &b2 = p.at("b2");
  if (acts)
    for (double &e : x)
      e = refQuant(e, *acts);
  // h as computed and as the second matmul reads it.
  std::vector<double> h(kRows * kHidden), hRead(kRows * kHidden),
      dOut(kRows * kOut);
  double loss = 0;
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t j = 0; j < kHidden; ++j) {
      double z = b1[j];
      for (int64_t k = 0; k < kIn; ++k)
        z += x[r * kIn + k] * W1[k * kHidden + j];
      h[r * kHidden + j] = std::tanh(z);
      hRead[r * kHidden + j] =
          acts ? refQuant(h[r * kHidden + j], *acts) : h[r * kHidden + j];
    }
    for (int64_t o = 0; o < kOut; ++o) {
      double out = b2[o];
      for (int64_t j = 0; j < kHidden; ++j)
        out += hRead[r * kHidden + j] * W2[j * kOut + o];
      dOut[r * kOut + o] = out - y[r * kOut + o];
      loss += 0.5 * dOut[r * kOut + o] * dOut[r * kOut + o];
    }
  }
  grads = {{"W1", std::vector<double>(W1.size(), 0)},
           {"b1", std::vector<double>(b1.size(), 0)},
           {"W2", std::vector<double>(W2.size(), 0)},
           {"b2", std::vector<double>(b2.size(), 0)}};
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = 0; j < kHidden; ++j) {
      double dh = 0;
      for (int64_t o = 0; o < kOut; ++o) {
        grads["W2"][j * kOut + o] +=
            hRead[r * kHidden + j] * dOut[r * kOut + o];
        dh += dOut[r * kOut + o] * W2[j * kOut + o];
      }
      double dz = dh * (1 - h[r * kHidden + j] * h[r * kHidden + j]);
      grads["b1"][j] += dz;
      for (int64_t k = 0; k < kIn; ++k)
        grads["W1"][k * kHidden + j] += x[r * kIn + k] * dz;
    }
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t o = 0; o < kOut; ++o)
      grads["b2"][o] += dOut[r * kOut + o];
  return loss;
}

/// A stateless-looking transformation that keeps each gradient as state
/// `grad.<p>` (so the step outputs it as `new.grad.<p>`) and passes it on.
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

} // namespace

TEST(TrainQat, GradientsAreThoseAtTheQuantizedWeights) {
  FloatFormat format = formats::f8e4m3fn();
  HostTree params{{"W1", values(kIn * kHidden, 60)},
                  {"b1", values(kHidden, 61)},
                  {"W2", values(kHidden * kOut, 62)},
                  {"b2", values(kOut, 63)}};
  std::vector<double> x = values(kRows * kIn, 64), y = values(kRows * kOut, 65);
  // The reference: the matrices rounded on the host, the vectors as they are.
  HostTree quantized = params, grads, rawGrads;
  for (const char *m : {"W1", "W2"})
    for (double &w : quantized[m])
      w = refQuant(w, format);
  double loss = tinyNetGrads(quantized, x, y, grads);
  double rawLoss = tinyNetGrads(params, x, y, rawGrads);
  ASSERT_GT(std::fabs(loss - rawLoss), 1e-3) << "quantization changes nothing";

  TrainOptions qat;
  qat.qat = Qat{format};
  const double lr = 0.125;
  TrainStep step =
      make_train_step(tinyNet(), optim::chain(recordGradients(), Optimizer::sgd()),
                      Schedule::constant(lr), qat);
  step.jit();
  std::map<std::string, Shape> shapes{{"W1", {kIn, kHidden}},
                                      {"b1", {kHidden}},
                                      {"W2", {kHidden, kOut}},
                                      {"b2", {kOut}}};
  for (const auto &[name, v] : params)
    step.with_param(name, Array::from(v, shapes[name], f64));
  double got = step.step({{"x", Array::from(x, {kRows, kIn}, f64)},
                          {"y", Array::from(y, {kRows, kOut}, f64)}});
  EXPECT_NEAR(got, loss, 1e-12 * std::fabs(loss));
  for (const auto &[name, g] : grads) {
    SCOPED_TRACE(name);
    expectNear(step.last_outputs()["new.grad." + name].to_vector(), g, 1e-11,
               1e-13);
    // The master weights move from their full-precision values.
    std::vector<double> expected = params[name];
    for (size_t i = 0; i < expected.size(); ++i)
      expected[i] -= lr * g[i];
    expectNear(step.param(name).to_vector(), expected, 1e-12, 1e-14);
  }
}

TEST(TrainQat, QuantizedModelAndErrors) {
  // fake_quant_params reads the matrices rounded: the loss at raw weights
  // equals the reference loss at the quantized ones.
  FloatFormat format = formats::f4e2m1fn();
  Func q = fake_quant_params(tinyNet(), format);
  EXPECT_EQ(q.name(), "tiny");
  EXPECT_NE(q.to_mlir().find("rlx.fake_quant"), std::string::npos);
  HostTree params{{"W1", values(kIn * kHidden, 70)},
                  {"b1", values(kHidden, 71)},
                  {"W2", values(kHidden * kOut, 72)},
                  {"b2", values(kOut, 73)}};
  std::vector<double> x = values(kRows * kIn, 74), y = values(kRows * kOut, 75);
  HostTree quantized = params, unused;
  for (const char *m : {"W1", "W2"})
    for (double &w : quantized[m])
      w = refQuant(w, format);
  Compiled c = q.jit(Device::cpu());
  c.with_param("W1", Array::from(params["W1"], {kIn, kHidden}, f64))
      .with_param("b1", Array::from(params["b1"], {kHidden}, f64))
      .with_param("W2", Array::from(params["W2"], {kHidden, kOut}, f64))
      .with_param("b2", Array::from(params["b2"], {kOut}, f64));
  double got = c.run({{"x", Array::from(x, {kRows, kIn}, f64)},
                      {"y", Array::from(y, {kRows, kOut}, f64)}})["loss"]
                   .item();
  double want = tinyNetGrads(quantized, x, y, unused);
  EXPECT_NEAR(got, want, 1e-12 * std::fabs(want));

  // The matrices by default; a vector when named.
  auto quantLines = [](const Func &f) {
    std::vector<std::string> lines;
    std::istringstream text(f.to_mlir());
    for (std::string line; std::getline(text, line);)
      if (line.find("rlx.fake_quant") != std::string::npos)
        lines.push_back(line);
    return lines;
  };
  EXPECT_EQ(quantLines(q).size(), 2u);
  std::vector<std::string> onlyB1 =
      quantLines(fake_quant_params(tinyNet(), format, {"b1"}));
  ASSERT_EQ(onlyB1.size(), 1u);
  EXPECT_NE(onlyB1[0].find("tensor<6xf64>"), std::string::npos) << onlyB1[0];
  std::string unknown =
      errorOf([&] { fake_quant_params(tinyNet(), format, {"W3"}); });
  EXPECT_NE(unknown.find("reads no param 'W3'"), std::string::npos) << unknown;
  std::string bits = errorOf(
      [&] { fake_quant_params(tinyNet(), FloatFormat{3, 0, 3}); });
  EXPECT_NE(bits.find("mantissa bits"), std::string::npos) << bits;
}

TEST(TrainQat, ActivationsToo) {
  // f8e5m2 for the weights and the matmuls' other operands (x and h).
  FloatFormat format = formats::f8e5m2();
  HostTree params{{"W1", values(kIn * kHidden, 80)},
                  {"b1", values(kHidden, 81)},
                  {"W2", values(kHidden * kOut, 82)},
                  {"b2", values(kOut, 83)}};
  std::vector<double> x = values(kRows * kIn, 84), y = values(kRows * kOut, 85);
  HostTree quantized = params, grads, weightsOnly;
  for (const char *m : {"W1", "W2"})
    for (double &w : quantized[m])
      w = refQuant(w, format);
  double loss = tinyNetGrads(quantized, x, y, grads, &format);
  ASSERT_GT(std::fabs(loss - tinyNetGrads(quantized, x, y, weightsOnly)),
            1e-4)
      << "rounding the activations changes nothing";

  TrainOptions qat;
  qat.qat = Qat{format, /*activations=*/true};
  TrainStep step = make_train_step(
      tinyNet(), optim::chain(recordGradients(), Optimizer::sgd()),
      Schedule::constant(0.125), qat);
  step.jit();
  std::map<std::string, Shape> shapes{{"W1", {kIn, kHidden}},
                                      {"b1", {kHidden}},
                                      {"W2", {kHidden, kOut}},
                                      {"b2", {kOut}}};
  for (const auto &[name, v] : params)
    step.with_param(name, Array::from(v, shapes[name], f64));
  double got = step.step({{"x", Array::from(x, {kRows, kIn}, f64)},
                          {"y", Array::from(y, {kRows, kOut}, f64)}});
  EXPECT_NEAR(got, loss, 1e-12 * std::fabs(loss));
  for (const auto &[name, g] : grads) {
    SCOPED_TRACE(name);
    expectNear(step.last_outputs()["new.grad." + name].to_vector(), g, 1e-11,
               1e-13);
  }
}

TEST(TrainQat, ShapeSpecializedStepTrainsLikeTheDynamicOne) {
  // The step traced again per batch shape quantizes the same reads: the
  // losses and the params match the dynamic-shape step's.
  Func loss("head", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 4});
    Tensor y = s.input("y", {dyn, 1});
    return mse(linear(s, "out", tanh(linear(s, "hidden", x, 8)), 1), y);
  });
  TrainOptions qat;
  qat.qat = Qat{formats::f8e4m3fn(), /*activations=*/true};
  JitOptions special;
  special.specialize_shapes = true;
  TrainStep dynamic =
      make_train_step(loss, Optimizer::adam(), Schedule::constant(0.05), qat);
  TrainStep specialized =
      make_train_step(loss, Optimizer::adam(), Schedule::constant(0.05), qat);
  dynamic.jit().init_randn(3, 0.5);
  specialized.jit(Device::cpu(), special).init_randn(3, 0.5);
  EXPECT_NE(dynamic.func().to_mlir().find("rlx.fake_quant"), std::string::npos);
  for (int64_t rows : {8, 5}) {
    std::map<std::string, Array> batch{
        {"x", Array::from(values(rows * 4, 1), {rows, 4})},
        {"y", Array::from(values(rows, 2), {rows, 1})}};
    EXPECT_NEAR(specialized.step(batch), dynamic.step(batch), 1e-6);
  }
  for (const std::string &name : dynamic.param_names())
    expectNear(specialized.param(name).to_vector(),
               dynamic.param(name).to_vector(), 1e-5, 1e-6);
}
