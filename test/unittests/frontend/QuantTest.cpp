//===- QuantTest.cpp - fake_quant and quantization-aware training --------===//
///
/// \file
/// `rlx::fake_quant` against a plain rounding written here from the format's
/// definition (frexp for the exponent, nearbyint for ties to even), its
/// straight-through derivative, and TrainOptions::qat against the gradient
/// of the loss evaluated at the quantized weights.
///
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include <cfenv>
#include <cmath>
#include <limits>

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
  // bf16's range with a 5-bit mantissa needs f64 to compute in.
  expectRoundsLike(FloatFormat{8, 5, 127, Specials::ieee, false}, f64);
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
