//===- RandomCases.cpp - The e2e cases of the random ops ------------------===//

#include "RandomCases.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace rlx::e2e {

namespace {

using In = std::vector<Arr>;
using Outs = std::vector<Arr>;

//===----------------------------------------------------------------------===//
// Reference generator
//===----------------------------------------------------------------------===//

struct Words {
  uint32_t a, b;
};

uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/// Threefry-2x32 with 20 rounds: the key schedule k0, k1, k0 ^ k1 ^ C240
/// injected (with the injection count added to the second word) after
/// every four rounds.
Words threefry(uint32_t k0, uint32_t k1, uint32_t c0, uint32_t c1) {
  static const int kRot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t schedule[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
  uint32_t x0 = c0 + schedule[0], x1 = c1 + schedule[1];
  for (int round = 0; round < 20; ++round) {
    x0 += x1;
    x1 = rotl(x1, kRot[round % 8]) ^ x0;
    if (round % 4 == 3) {
      uint32_t s = round / 4 + 1;
      x0 += schedule[s % 3];
      x1 += schedule[(s + 1) % 3] + s;
    }
  }
  return {x0, x1};
}

uint32_t word(double v) { return static_cast<uint32_t>(static_cast<int32_t>(v)); }
double asI32(uint32_t w) { return static_cast<int32_t>(w); }

/// JAX's uniform in [lo, hi) in `dtype` from the words of counter i.
double uniformOf(rlx_dtype_t dtype, Words w, double lo, double hi) {
  if (dtype == RLX_DTYPE_F32) {
    uint32_t bits = ((w.a ^ w.b) >> 9) | 0x3F800000u;
    float one;
    std::memcpy(&one, &bits, 4);
    float l = static_cast<float>(lo), h = static_cast<float>(hi);
    return std::max(l, std::fma(one - 1.0f, h - l, l));
  }
  uint64_t bits = ((uint64_t(w.a) << 32 | w.b) >> 12) | 0x3FF0000000000000ull;
  double one;
  std::memcpy(&one, &bits, 8);
  return std::max(lo, std::fma(one - 1.0, hi - lo, lo));
}

/// The inverse error function by Newton's method on std::erf.
double erfInv(double y) {
  double x = 0;
  if (std::fabs(y) > 0.7) {
    double z = std::sqrt(-std::log((1 - std::fabs(y)) / 2));
    x = std::copysign((((1.641345311 * z + 3.429567803) * z - 1.624906493) * z -
                       1.970840454) /
                          ((1.637067800 * z + 3.543889200) * z + 1.0),
                      y);
  } else {
    double z = y * y;
    x = y * (((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z +
             0.886226899) /
        ((((0.012229801 * z - 0.329097515) * z + 1.442710462) * z -
          2.118377725) *
             z +
         1.0);
  }
  for (int i = 0; i < 4; ++i)
    x -= (std::erf(x) - y) / (2 / std::sqrt(M_PI) * std::exp(-x * x));
  return x;
}

double normalOf(rlx_dtype_t dtype, Words w) {
  double lo = dtype == RLX_DTYPE_F32
                  ? std::nextafter(-1.0f, 0.0f)
                  : std::nextafter(-1.0, 0.0);
  return std::sqrt(2.0) * erfInv(uniformOf(dtype, w, lo, 1.0));
}

/// A standard normal truncated to (lo, hi): the normal quantile of a uniform
/// between the normal CDFs of the bounds (std::erf in double, then the
/// Newton erfinv above), clamped inside the bounds in `dtype`.
double truncatedNormalOf(rlx_dtype_t dtype, Words w, double lo, double hi) {
  double a = std::erf(lo / std::sqrt(2.0)), b = std::erf(hi / std::sqrt(2.0));
  double x = std::sqrt(2.0) * erfInv(uniformOf(dtype, w, a, b));
  if (dtype == RLX_DTYPE_F32)
    return std::clamp(x, static_cast<double>(std::nextafter(float(lo), 1e9f)),
                      static_cast<double>(std::nextafter(float(hi), -1e9f)));
  return std::clamp(x, std::nextafter(lo, 1e300), std::nextafter(hi, -1e300));
}

/// A sampler over keys `[B, 2]`: per lane, the sample `[n]` of counters
/// 0..n-1 mapped by `fn`.
Arr sampleRows(rlx_dtype_t dtype, const Arr &keys, int64_t n,
               const std::function<double(Words)> &fn) {
  int64_t batch = keys.shape[0];
  Arr out(dtype, {batch, n});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      out.v[b * n + i] = fn(threefry(word(keys.v[2 * b]),
                                     word(keys.v[2 * b + 1]), 0,
                                     static_cast<uint32_t>(i)));
  return out;
}

const Gen kWords = ints(-2147483648.0, 2147483647.0);

/// `x` rounded stochastically to the binary float format with
/// `mantissaBits` and normal exponents from `minExponent` up: |x| lies
/// between two multiples of the ulp at its exponent and goes to the upper
/// one when `u` is below its fraction; beyond `maxFinite` it becomes
/// `beyond`. By frexp and floor in double, where |x| / ulp is exact.
double stochasticRound(double x, double u, int mantissaBits, int minExponent,
                       double maxFinite, double beyond) {
  if (std::isnan(x))
    return x;
  double ax = std::fabs(x);
  int e = 0;
  std::frexp(ax, &e); // ax = f * 2^e, f in [0.5, 1)
  double ulp = std::ldexp(1.0, std::max(e - 1, minExponent) - mantissaBits);
  double scaled = ax / ulp, below = std::floor(scaled);
  double r = (below + (u < scaled - below ? 1.0 : 0.0)) * ulp;
  if (std::isinf(ax) || r > maxFinite)
    r = beyond;
  return std::copysign(r, x);
}

/// A binary float format as stochasticRound takes it.
struct RoundingFormat {
  int mantissaBits, minExponent;
  double maxFinite, beyond;
};
constexpr double kInf = std::numeric_limits<double>::infinity();
const RoundingFormat kE4M3FNSaturating{3, -6, 448, 448};
const RoundingFormat kBF16Format{7, -126, 3.3895313892515355e38, kInf};
const RoundingFormat kF16Format{10, -14, 65504, kInf};

/// The reference of the stochastic rounding cases: x (B x 6) rounded to
/// `perRow` with one key per row of `keys` (counters over the row) and to
/// `whole` with one key (counters over every element). Each element's
/// uniform is JAX's, as random_uniform draws it.
RefFn
stochasticRoundingRef(RoundingFormat perRow, RoundingFormat whole) {
  return [perRow, whole](const In &in, const Ctx &ctx) -> Outs {
    rlx_dtype_t F = ctx.F;
    int64_t rows = in[0].shape[0], n = in[0].numel();
    auto uniform = [F](Words w) { return uniformOf(F, w, 0.0, 1.0); };
    Arr rowUniforms = sampleRows(F, in[1], 6, uniform);
    Arr key(RLX_DTYPE_I32, {1, 2});
    key.v = in[2].v;
    Arr wholeUniforms = sampleRows(F, key, rows * 6, uniform);
    Arr s(F, in[0].shape), t(F, in[0].shape);
    for (int64_t i = 0; i < n; ++i) {
      double x = in[0].v[i];
      s.v[i] = stochasticRound(x, rowUniforms.v[i], perRow.mantissaBits,
                               perRow.minExponent, perRow.maxFinite,
                               perRow.beyond);
      t.v[i] = stochasticRound(x, wholeUniforms.v[i], whole.mantissaBits,
                               whole.minExponent, whole.maxFinite,
                               whole.beyond);
    }
    return {s, t};
  };
}

} // namespace

void appendRandomCases(std::vector<Case> &cases) {
  // Keys and bits, exact: a batch of keys (one per row), a split, a fold_in
  // of one key with a batch of data.
  {
    Case c;
    c.name = "random_keys";
    c.mlir = R"(
func.func @{N}(%key: tensor<2xi32>, %keys: tensor<{B}x2xi32>, %d: tensor<{B}xi32>)
    -> (tensor<{B}x3x2xi32>, tensor<3x2xi32>, tensor<{B}x2xi32>) {
  %b = rlx.random_bits %keys : tensor<{B}x2xi32> -> tensor<{B}x3x2xi32>
  %s = rlx.random_split %key {num = 3 : i64} : (tensor<2xi32>) -> tensor<3x2xi32>
  %f = rlx.random_fold_in %key, %d : (tensor<2xi32>, tensor<{B}xi32>) -> tensor<{B}x2xi32>
  return %b, %s, %f : tensor<{B}x3x2xi32>, tensor<3x2xi32>, tensor<{B}x2xi32>
}
)";
    c.inputs = {{"key", El::I32, {2}, kWords},
                {"keys", El::I32, {kB, 2}, kWords},
                {"d", El::I32, {kB}, kWords}};
    c.ref = [](const In &in, const Ctx &) -> Outs {
      uint32_t k0 = word(in[0].v[0]), k1 = word(in[0].v[1]);
      Arr bits = sampleRows(RLX_DTYPE_I32, in[1], 6, [](Words w) {
        return asI32(w.a ^ w.b);
      });
      bits.shape = {in[1].shape[0], 3, 2};
      Arr split(RLX_DTYPE_I32, {3, 2});
      for (uint32_t n = 0; n < 3; ++n) {
        Words w = threefry(k0, k1, 0, n);
        split.v[2 * n] = asI32(w.a);
        split.v[2 * n + 1] = asI32(w.b);
      }
      Arr folded(RLX_DTYPE_I32, {in[2].shape[0], 2});
      for (int64_t b = 0; b < in[2].shape[0]; ++b) {
        Words w = threefry(k0, k1, 0, word(in[2].v[b]));
        folded.v[2 * b] = asI32(w.a);
        folded.v[2 * b + 1] = asI32(w.b);
      }
      return {bits, split, folded};
    };
    c.tol = Tol::Exact;
    c.variants = kAllVariants;
    cases.push_back(std::move(c));
  }

  // The samplers in the variant's float type, each batch row with its key,
  // and x scaled by them: the gradient case (samples are constants of x's
  // derivative) and the f32/f64 conversions.
  {
    Case c;
    c.name = "random_samplers";
    c.mlir = R"(
func.func @{N}(%x: tensor<{B}x4x{F}>, %keys: tensor<{B}x2xi32>, %key: tensor<2xi32>)
    -> (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) {
  %u = rlx.random_uniform %keys {minval = -2.0, maxval = 3.0} : tensor<{B}x2xi32> -> tensor<{B}x4x{F}>
  %n = rlx.random_normal %keys : tensor<{B}x2xi32> -> tensor<{B}x4x{F}>
  %ks = rlx.random_split %key {num = 4 : i64} : (tensor<2xi32>) -> tensor<4x2xi32>
  %v = rlx.random_uniform %ks : tensor<4x2xi32> -> tensor<4x{F}>
  %d = rlx.constant dense<5> : tensor<i32>
  %kf = rlx.random_fold_in %key, %d : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  %w = rlx.random_normal %kf : tensor<2xi32> -> tensor<4x{F}>
  %b = rlx.random_bits %kf : tensor<2xi32> -> tensor<4xi32>
  %bf = rlx.cast %b : tensor<4xi32> -> tensor<4x{F}>
  %scale = rlx.constant dense<4.656612873077393e-10> : tensor<{F}>
  %bs = rlx.mul %bf, %scale : (tensor<4x{F}>, tensor<{F}>) -> tensor<4x{F}>
  %xu = rlx.mul %x, %u : (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}>
  %xx = rlx.mul %x, %x : (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}>
  %xn = rlx.mul %xx, %n : (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}>
  %vw = rlx.add %v, %w : (tensor<4x{F}>, tensor<4x{F}>) -> tensor<4x{F}>
  %vwb = rlx.add %vw, %bs : (tensor<4x{F}>, tensor<4x{F}>) -> tensor<4x{F}>
  %xv = rlx.mul %x, %vwb : (tensor<{B}x4x{F}>, tensor<4x{F}>) -> tensor<{B}x4x{F}>
  %y = rlx.add %xu, %xn : (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}>
  %r = rlx.add %y, %xv : (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}>
  return %r, %u, %n : tensor<{B}x4x{F}>, tensor<{B}x4x{F}>, tensor<{B}x4x{F}>
}
)";
    c.inputs = {{"x", El::F, {kB, 4}, uniform(-2, 2)},
                {"keys", El::I32, {kB, 2}, kWords},
                {"key", El::I32, {2}, kWords}};
    c.ref = [](const In &in, const Ctx &ctx) -> Outs {
      rlx_dtype_t F = ctx.F;
      Arr u = sampleRows(F, in[1], 4, [F](Words w) {
        return uniformOf(F, w, -2.0, 3.0);
      });
      Arr n = sampleRows(F, in[1], 4, [F](Words w) { return normalOf(F, w); });
      uint32_t k0 = word(in[2].v[0]), k1 = word(in[2].v[1]);
      Words kf = threefry(k0, k1, 0, 5);
      std::vector<double> row(4);
      for (uint32_t i = 0; i < 4; ++i) {
        Words sub = threefry(k0, k1, 0, i);
        double v = uniformOf(F, threefry(sub.a, sub.b, 0, 0), 0.0, 1.0);
        double w = normalOf(F, threefry(kf.a, kf.b, 0, i));
        Words bw = threefry(kf.a, kf.b, 0, i);
        double bits = asI32(bw.a ^ bw.b) * 4.656612873077393e-10;
        row[i] = v + w + bits;
      }
      Arr r(F, in[0].shape);
      for (int64_t i = 0; i < r.numel(); ++i) {
        double x = in[0].v[i];
        r.v[i] = x * u.v[i] + x * x * n.v[i] + x * row[i % 4];
      }
      return {r, u, n};
    };
    c.tol = Tol::Trans;
    // The samplers produce f32 or f64, as JAX's do.
    c.variants = kWideFloatVariants;
    cases.push_back(std::move(c));
  }

  // Truncated normal over a batch of keys, scaling x (its gradient is the
  // sample), and one key's sample between one-sided bounds.
  {
    Case c;
    c.name = "random_truncated_normal";
    c.mlir = R"(
func.func @{N}(%x: tensor<{B}x4x{F}>, %keys: tensor<{B}x2xi32>, %key: tensor<2xi32>)
    -> (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>, tensor<6x{F}>) {
  %t = rlx.random_truncated_normal %keys {lower = -1.5, upper = 2.0} : tensor<{B}x2xi32> -> tensor<{B}x4x{F}>
  %r = rlx.mul %x, %t : (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}>
  %o = rlx.random_truncated_normal %key {lower = 0.25, upper = 0x7FF0000000000000 : f64} : tensor<2xi32> -> tensor<6x{F}>
  return %r, %t, %o : tensor<{B}x4x{F}>, tensor<{B}x4x{F}>, tensor<6x{F}>
}
)";
    c.inputs = {{"x", El::F, {kB, 4}, uniform(-2, 2)},
                {"keys", El::I32, {kB, 2}, kWords},
                {"key", El::I32, {2}, kWords}};
    c.ref = [](const In &in, const Ctx &ctx) -> Outs {
      rlx_dtype_t F = ctx.F;
      Arr t = sampleRows(F, in[1], 4, [F](Words w) {
        return truncatedNormalOf(F, w, -1.5, 2.0);
      });
      Arr r(F, in[0].shape);
      for (int64_t i = 0; i < r.numel(); ++i)
        r.v[i] = in[0].v[i] * t.v[i];
      Arr key(RLX_DTYPE_I32, {1, 2});
      key.v = in[2].v;
      Arr one = sampleRows(F, key, 6,
                           [F](Words w) {
                             return truncatedNormalOf(
                                 F, w, 0.25,
                                 std::numeric_limits<double>::infinity());
                           });
      one.shape = {6};
      return {r, t, one};
    };
    c.tol = Tol::Trans;
    // The samplers produce f32 or f64, as JAX's do.
    c.variants = kWideFloatVariants;
    cases.push_back(std::move(c));
  }

  // Stochastic rounding (fake_quant with a key): to e4m3fn saturating with
  // one key per batch row (counters over the row), and to bf16 (its
  // subnormal ulps are f32 subnormals: scaled in two steps) with one key for
  // the whole tensor (counters over every element). Each element's uniform
  // is JAX's, as random_uniform draws it; the rounding by frexp and floor.
  {
    Case c;
    c.name = "fake_quant_stochastic";
    c.mlir = R"(
func.func @{N}(%x: tensor<{B}x6x{F}>, %keys: tensor<{B}x{K}xi32>, %key: tensor<{K}xi32>)
    -> (tensor<{B}x6x{F}>, tensor<{B}x6x{F}>) {
  %s = rlx.fake_quant %x key %keys {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7, specials = "fn", saturate} : tensor<{B}x6x{F}>, tensor<{B}x{K}xi32>
  %t = rlx.fake_quant %x key %key {exponent_bits = 8, mantissa_bits = 7, exponent_bias = 127} : tensor<{B}x6x{F}>, tensor<{K}xi32>
  return %s, %t : tensor<{B}x6x{F}>, tensor<{B}x6x{F}>
}
)";
    c.inputs = {{"x",
                 El::F,
                 {kB, 6},
                 cycle({0.3, -1.0e-5, 500, -449, 0.0625, 3.0e-3, -2.5, 1.125,
                        1.0009765625, 7.0e-6, -0.0, 3.1e-39, 1.7e38, 100.7,
                        -0.0029296875, 0.33})},
                {"keys", El::I32, {kB, 2}, kWords},
                {"key", El::I32, {2}, kWords}};
    c.ref = stochasticRoundingRef(kE4M3FNSaturating, kBF16Format);
    c.tol = Tol::Exact;
    c.variants = kWideFloatVariants;
    cases.push_back(std::move(c));
  }

  // rlx.cast with a key: stochastic rounding into the types themselves,
  // read back exactly. To f8E4M3FN saturating with a key per row and to
  // f16 with one key (on every target), and to bf16 (not on Vulkan, which
  // has no bf16), with the same uniforms as fake_quant's.
  {
    const Case &roundings = cases.back();
    Case c;
    c.name = "cast_stochastic";
    c.mlir = R"(
func.func @{N}(%x: tensor<{B}x6x{F}>, %keys: tensor<{B}x{K}xi32>, %key: tensor<{K}xi32>)
    -> (tensor<{B}x6x{F}>, tensor<{B}x6x{F}>) {
  %s8 = rlx.cast %x key %keys {saturate} : tensor<{B}x6x{F}>, tensor<{B}x{K}xi32> -> tensor<{B}x6xf8E4M3FN>
  %s = rlx.cast %s8 : tensor<{B}x6xf8E4M3FN> -> tensor<{B}x6x{F}>
  %t16 = rlx.cast %x key %key : tensor<{B}x6x{F}>, tensor<{K}xi32> -> tensor<{B}x6xf16>
  %t = rlx.cast %t16 : tensor<{B}x6xf16> -> tensor<{B}x6x{F}>
  return %s, %t : tensor<{B}x6x{F}>, tensor<{B}x6x{F}>
}
)";
    c.inputs = roundings.inputs;
    c.ref = stochasticRoundingRef(kE4M3FNSaturating, kF16Format);
    c.tol = Tol::Exact;
    c.variants = kWideFloatVariants;
    cases.push_back(std::move(c));
  }
  {
    const Case &roundings = cases.back();
    Case c;
    c.name = "cast_stochastic_bf16";
    c.mlir = R"(
func.func @{N}(%x: tensor<{B}x6x{F}>, %keys: tensor<{B}x{K}xi32>, %key: tensor<{K}xi32>)
    -> (tensor<{B}x6x{F}>, tensor<{B}x6x{F}>) {
  %s8 = rlx.cast %x key %keys {saturate} : tensor<{B}x6x{F}>, tensor<{B}x{K}xi32> -> tensor<{B}x6xf8E4M3FN>
  %s = rlx.cast %s8 : tensor<{B}x6xf8E4M3FN> -> tensor<{B}x6x{F}>
  %t16 = rlx.cast %x key %key : tensor<{B}x6x{F}>, tensor<{K}xi32> -> tensor<{B}x6xbf16>
  %t = rlx.cast %t16 : tensor<{B}x6xbf16> -> tensor<{B}x6x{F}>
  return %s, %t : tensor<{B}x6x{F}>, tensor<{B}x6x{F}>
}
)";
    c.inputs = roundings.inputs;
    c.ref = stochasticRoundingRef(kE4M3FNSaturating, kBF16Format);
    c.tol = Tol::Exact;
    c.variants = kWideFloatVariants;
    c.holdsBF16 = true;
    cases.push_back(std::move(c));
  }
}

} // namespace rlx::e2e
