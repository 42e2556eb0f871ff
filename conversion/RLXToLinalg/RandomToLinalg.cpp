//===- RandomToLinalg.cpp - rlx random ops to linalg ----------------------===//
///
/// \file
/// Each random op becomes one `linalg.generic` over its result: the counter
/// of an element comes from `linalg.index`, the key words from the key's two
/// columns (inputs of the generic, broadcast over the sample dims), and the
/// body runs the 20 rounds of threefry2x32 in `arith` (u32 wraparound adds,
/// xors, rotates by shifts), then turns the bits into floats in the same
/// kernel. No loads of other buffers: the CPU vectorizes it like any
/// elementwise op, and the GPU targets run it one thread per element.
///
/// The algorithms are JAX's (partitionable mode, its default): element `i`
/// of a sample hashes the counter `(i >> 32, i & 0xffffffff)`; bits are the
/// xor of the two words (f64 uniforms take both, first word high); uniform
/// puts the top mantissa bits under the exponent of 1.0; normal is
/// `sqrt(2) * erfinv(u)` with XLA's erfinv polynomials; truncated normal
/// draws u between the erf of its bounds (XLA's f32 erf, on the host) and
/// clamps into the open interval.
///
/// fake_quant with a key (stochastic rounding) draws the same uniforms over
/// its operand's shape, which may be dynamic, and rounds with them in the
/// same kernel.
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "conversion/RLXToLinalg/NarrowFloats.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rlx;

namespace {

//===----------------------------------------------------------------------===//
// Scalar threefry2x32
//===----------------------------------------------------------------------===//

/// Scalar arith on one type, for the bodies below.
struct Arith {
  OpBuilder &b;
  Location loc;

  Value i32(uint32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value rotl(Value x, unsigned r) {
    Value left = arith::ShLIOp::create(b, loc, x, i32(r));
    Value right = arith::ShRUIOp::create(b, loc, x, i32(32 - r));
    return arith::OrIOp::create(b, loc, left, right);
  }
  Value f(Type type, double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
  }
  Value fAttr(FloatAttr v) { return arith::ConstantOp::create(b, loc, v); }
  Value addf(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  /// x * y + z rounded once: XLA contracts these on CPU, and so must we to
  /// give its bits.
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value lt(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
  }
};

/// threefry2x32 of the counter `(c0, c1)` under the key `(k0, k1)`, all i32
/// read as unsigned: the 20 rounds with a key injection after every 4.
std::pair<Value, Value> threefry2x32(Arith a, Value k0, Value k1, Value c0,
                                     Value c1) {
  static constexpr unsigned kRotations[2][4] = {{13, 15, 26, 6},
                                                {17, 29, 16, 24}};
  Value ks[3] = {k0, k1, a.xori(a.xori(k0, k1), a.i32(0x1BD11BDA))};
  Value x0 = a.add(c0, ks[0]), x1 = a.add(c1, ks[1]);
  for (unsigned i = 0; i < 5; ++i) {
    for (unsigned r : kRotations[i % 2]) {
      x0 = a.add(x0, x1);
      x1 = a.xori(a.rotl(x1, r), x0);
    }
    x0 = a.add(x0, ks[(i + 1) % 3]);
    x1 = a.add(a.add(x1, ks[(i + 2) % 3]), a.i32(i + 1));
  }
  return {x0, x1};
}

//===----------------------------------------------------------------------===//
// Bits to floats
//===----------------------------------------------------------------------===//

/// JAX's uniform in [lo, hi) of `type` from the threefry words `(x0, x1)`:
/// the top mantissa bits of the sample's bits under the exponent of 1.0,
/// minus one, times (hi - lo) plus lo, at least lo. `hi - lo` is rounded in
/// `type`, as JAX computes it; the scaling is one fma, as XLA's CPU code
/// contracts it.
Value uniformFromBits(Arith a, FloatType type, Value x0, Value x1, double lo,
                      double hi) {
  Value floatBits;
  if (type.isF32()) {
    Value bits = a.xori(x0, x1);
    Value mantissa = arith::ShRUIOp::create(a.b, a.loc, bits, a.i32(32 - 23));
    floatBits = arith::OrIOp::create(a.b, a.loc, mantissa, a.i32(0x3F800000));
  } else {
    Type i64 = a.b.getI64Type();
    auto c64 = [&](uint64_t v) -> Value {
      return arith::ConstantOp::create(a.b, a.loc, a.b.getI64IntegerAttr(v));
    };
    Value hi64 = arith::ExtUIOp::create(a.b, a.loc, i64, x0);
    Value lo64 = arith::ExtUIOp::create(a.b, a.loc, i64, x1);
    Value bits = arith::OrIOp::create(
        a.b, a.loc, arith::ShLIOp::create(a.b, a.loc, hi64, c64(32)), lo64);
    Value mantissa = arith::ShRUIOp::create(a.b, a.loc, bits, c64(64 - 52));
    floatBits =
        arith::OrIOp::create(a.b, a.loc, mantissa, c64(0x3FF0000000000000ull));
  }
  Value one = arith::BitcastOp::create(a.b, a.loc, type, floatBits);
  Value unit = arith::SubFOp::create(a.b, a.loc, one, a.f(type, 1.0));
  // lo and hi - lo in the sample's precision, as JAX converts them first.
  APFloat loF(lo), hiF(hi);
  bool lossy;
  loF.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lossy);
  hiF.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lossy);
  APFloat span = hiF;
  span.subtract(loF, APFloat::rmNearestTiesToEven);
  Value loV = a.fAttr(FloatAttr::get(type, loF));
  Value scaled = a.fma(unit, a.fAttr(FloatAttr::get(type, span)), loV);
  return arith::MaximumFOp::create(a.b, a.loc, loV, scaled);
}

/// Horner's rule `c[0] * w^(n-1) + ... + c[n-1]` with coefficients chosen
/// per element: `pick(i)` is the coefficient i (XLA's order of operations,
/// each step one fma).
template <typename PickFn>
Value horner(Arith a, Value w, unsigned n, PickFn pick) {
  Value p = pick(0);
  for (unsigned i = 1; i < n; ++i)
    p = a.fma(p, w, pick(i));
  return p;
}

/// XLA's CPU f32 log (Eigen's `plog_float`, Cephes' polynomial), with the
/// fma contractions of XLA's compiled code, so that the erfinv below gives
/// JAX's bits in f32; `math.log` lowers to MLIR's own approximation, which
/// rounds differently in about 1 in 200 of the random kernels' arguments.
/// Subnormal inputs are taken as they are (XLA's CPU code flushes them to 0
/// and returns -inf); the random kernels never pass them.
Value logXlaF32(Arith a, Value xIn) {
  OpBuilder &b = a.b;
  Location loc = a.loc;
  Type f32 = xIn.getType();
  Type i32 = b.getI32Type();
  auto bits = [&](uint32_t v) {
    return a.fAttr(
        FloatAttr::get(f32, APFloat(APFloat::IEEEsingle(), APInt(32, v))));
  };
  auto asInt = [&](Value v) {
    return arith::BitcastOp::create(b, loc, i32, v).getResult();
  };
  auto asFloat = [&](Value v) {
    return arith::BitcastOp::create(b, loc, f32, v).getResult();
  };
  auto cmp = [&](arith::CmpFPredicate pred, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, pred, x, y).getResult();
  };
  // x = max(x, FLT_MIN); split into the exponent e and m in [0.5, 1).
  Value minNormal = bits(0x00800000);
  Value x =
      a.select(cmp(arith::CmpFPredicate::OGT, xIn, minNormal), xIn, minNormal);
  Value xBits = asInt(x);
  Value biased = arith::ShRUIOp::create(b, loc, xBits, a.i32(23));
  Value unbiased = arith::SubIOp::create(b, loc, biased, a.i32(127));
  Value e =
      a.addf(arith::SIToFPOp::create(b, loc, f32, unbiased), a.f(f32, 1.0));
  Value m = asFloat(arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, xBits, a.i32(0x807FFFFFu)),
      a.i32(0x3F000000u)));
  // Below sqrt(1/2): m <- 2m - 1 (as m - 1 + m), e <- e - 1; else m - 1.
  Value belowSqrtHalf = a.lt(m, bits(0x3F3504F3));
  Value zero = a.f(f32, 0.0);
  Value r = a.addf(arith::SubFOp::create(b, loc, m, a.f(f32, 1.0)),
                   a.select(belowSqrtHalf, m, zero));
  e = arith::SubFOp::create(b, loc, e,
                            a.select(belowSqrtHalf, a.f(f32, 1.0), zero));
  Value r2 = a.mulf(r, r);
  Value r3 = a.mulf(r2, r);
  // The degree 8 polynomial as three interleaved Horner chains.
  Value y0 =
      a.fma(a.fma(r, bits(0x3D9021BB), bits(0xBDEBD1B8)), r, bits(0x3DEF251A));
  Value y1 =
      a.fma(a.fma(r, bits(0xBDFE5D4F), bits(0x3E11E9BF)), r, bits(0xBE2AAE50));
  Value y2 =
      a.fma(a.fma(r, bits(0x3E4CCEAC), bits(0xBE7FFFFC)), r, bits(0x3EAAAAAA));
  Value y = a.fma(a.fma(y0, r3, y1), r3, y2);
  // r - r^2/2 + y r^3 + e ln2, ln2 split as 0.693359375 - 2.12194440e-4.
  Value tail = a.fma(y, r3, a.mulf(e, bits(0xB95E8083)));
  Value sum = a.addf(a.fma(a.f(f32, -0.5), r2, r), tail);
  Value result = a.fma(e, bits(0x3F318000), sum);
  // log(0) = -inf, log(inf) = inf, log(x < 0 or NaN) = NaN.
  double inf = std::numeric_limits<double>::infinity();
  result = a.select(cmp(arith::CmpFPredicate::ULE, xIn, zero),
                    a.f(f32, std::numeric_limits<double>::quiet_NaN()), result);
  result = a.select(cmp(arith::CmpFPredicate::OEQ, xIn, a.f(f32, inf)),
                    a.f(f32, inf), result);
  return a.select(cmp(arith::CmpFPredicate::OEQ, xIn, zero), a.f(f32, -inf),
                  result);
}

/// XLA's log1p: for |x| < sqrt(2) - 1 Cephes' rational approximation
/// (rounding differently from a correctly rounded log1p near the
/// threshold, and erfinv shows it), else log(1 + x), the log in f32 being
/// XLA's (logXlaF32).
Value log1pXla(Arith a, Value x) {
  static constexpr double kNumerator[7] = {
      4.5270000862445199635215E-5, 4.9854102823193375972212E-1,
      6.5787325942061044846969E0,  2.9911919328553073277375E1,
      6.0949667980987787057556E1,  5.7112963590585538103336E1,
      2.0039553499201281259648E1};
  static constexpr double kDenominator[7] = {
      1.0,
      1.5062909083469192043167E1,
      8.3047565967967209469434E1,
      2.2176239823732856465394E2,
      3.0909872225312059774938E2,
      2.1642788614495947685003E2,
      6.0118660497603843919306E1};
  Type t = x.getType();
  Value onePlusX = a.addf(x, a.f(t, 1.0));
  Value large = t.isF32()
                    ? logXlaF32(a, onePlusX)
                    : math::LogOp::create(a.b, a.loc, onePlusX).getResult();
  Value square = a.mulf(x, x);
  Value num = horner(a, x, 7, [&](unsigned i) { return a.f(t, kNumerator[i]); });
  Value den =
      horner(a, x, 7, [&](unsigned i) { return a.f(t, kDenominator[i]); });
  Value ratio = arith::DivFOp::create(a.b, a.loc, num, den);
  Value tail = a.mulf(a.mulf(x, square), ratio);
  Value small = a.addf(x, a.fma(a.f(t, -0.5), square, tail));
  Value isSmall = a.lt(math::AbsFOp::create(a.b, a.loc, x),
                       a.f(t, 0.41421356237309504880));
  return a.select(isSmall, small, large);
}

/// XLA's f32 erfinv (Giles' single-precision approximation).
Value erfInvF32(Arith a, Value x) {
  static constexpr float kSmall[9] = {
      2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
      -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
      -0.00417768164f,  0.246640727f,    1.50140941f};
  static constexpr float kLarge[9] = {
      -0.000200214257f, 0.000100950558f, 0.00134934322f,
      -0.00367342844f,  0.00573950773f,  -0.0076224613f,
      0.00943887047f,   1.00167406f,     2.83297682f};
  Type t = x.getType();
  Value negSquare = a.mulf(x, arith::NegFOp::create(a.b, a.loc, x));
  Value w = arith::NegFOp::create(a.b, a.loc,
                                  log1pXla(a, negSquare));
  Value small = a.lt(w, a.f(t, 5.0));
  Value shifted = a.select(
      small, a.addf(w, a.f(t, -2.5)),
      a.addf(math::SqrtOp::create(a.b, a.loc, w), a.f(t, -3.0)));
  Value p = horner(a, shifted, 9, [&](unsigned i) {
    return a.select(small, a.f(t, kSmall[i]), a.f(t, kLarge[i]));
  });
  return a.mulf(p, x);
}

/// XLA's f64 erfinv (Giles' double-precision approximation, three ranges).
Value erfInvF64(Arith a, Value x) {
  static constexpr double kBelow625[23] = {
      -3.64441206401782e-21,   -1.6850591381820166e-19,
      1.28584807152564e-18,    1.1157877678025181e-17,
      -1.3331716628546209e-16, 2.0972767875968562e-17,
      6.6376381343583238e-15,  -4.0545662729752069e-14,
      -8.1519341976054722e-14, 2.6335093153082323e-12,
      -1.2975133253453532e-11, -5.4154120542946279e-11,
      1.0512122733215323e-09,  -4.1126339803469837e-09,
      -2.9070369957882005e-08, 4.2347877827932404e-07,
      -1.3654692000834679e-06, -1.3882523362786469e-05,
      0.00018673420803405714,  -0.000740702534166267,
      -0.0060336708714301491,  0.24015818242558962,
      1.6536545626831027};
  static constexpr double kBelow16[19] = {
      2.2137376921775787e-09,  9.0756561938885391e-08,
      -2.7517406297064545e-07, 1.8239629214389228e-08,
      1.5027403968909828e-06,  -4.013867526981546e-06,
      2.9234449089955446e-06,  1.2475304481671779e-05,
      -4.7318229009055734e-05, 6.8284851459573175e-05,
      2.4031110387097894e-05,  -0.00035503752036284748,
      0.0009532893797373805,   -0.0016882755560235047,
      0.0024914420961078508,   -0.0037512085075692412,
      0.0053709145535900636,   1.0052589676941592,
      3.0838856104922208};
  static constexpr double kAbove16[17] = {
      -2.7109920616438573e-11, -2.5556418169965252e-10,
      1.5076572693500548e-09,  -3.789465440126737e-09,
      7.61570120807834e-09,    -1.496002662714924e-08,
      2.9147953450901081e-08,  -6.7711997758452339e-08,
      2.2900482228026655e-07,  -9.9298272942317e-07,
      4.5260625972231537e-06,  -1.9681778105531671e-05,
      7.5995277030017761e-05,  -0.00021503011930044477,
      -0.00013871931833623122, 1.0103004648645344,
      4.8499064014085844};
  Type t = x.getType();
  Value negSquare = a.mulf(x, arith::NegFOp::create(a.b, a.loc, x));
  Value w = arith::NegFOp::create(a.b, a.loc,
                                  log1pXla(a, negSquare));
  Value below625 = a.lt(w, a.f(t, 6.25));
  Value below16 = a.lt(w, a.f(t, 16.0));
  Value sqrtW = math::SqrtOp::create(a.b, a.loc, w);
  Value shifted = a.select(
      below625, a.addf(w, a.f(t, -3.125)),
      arith::SubFOp::create(
          a.b, a.loc, sqrtW,
          a.select(below16, a.f(t, 3.25), a.f(t, 5.0))));
  auto pick = [&](unsigned i) {
    Value c = a.f(t, kBelow625[i]);
    if (i < 19)
      c = a.select(below625, c, a.f(t, kBelow16[i]));
    if (i < 17)
      c = a.select(below16, c, a.f(t, kAbove16[i]));
    return c;
  };
  Value p = horner(a, shifted, 17, pick);
  for (unsigned i = 17; i < 19; ++i)
    p = a.select(below16, a.fma(p, shifted, pick(i)), p);
  for (unsigned i = 19; i < 23; ++i)
    p = a.select(below625, a.fma(p, shifted, pick(i)), p);
  return a.mulf(p, x);
}

/// JAX's normal: `sqrt(2) * erfinv(u)`, u uniform in
/// [nextafter(-1, 0), 1). erfinv(+-1) = +-inf never arises: |u| < 1.
Value normalFromBits(Arith a, FloatType type, Value x0, Value x1) {
  APFloat lo(-1.0);
  bool lossy;
  lo.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lossy);
  lo.next(/*nextDown=*/false);
  Value u = uniformFromBits(a, type, x0, x1, lo.convertToDouble(), 1.0);
  Value erfInv = type.isF32() ? erfInvF32(a, u) : erfInvF64(a, u);
  return a.mulf(a.f(type, 1.41421356237309504880), erfInv);
}

/// XLA's f32 erf on the host (its CPU emitter's rational approximation,
/// fma for each multiply-add as LLVM contracts them; +-1 beyond
/// |x| > 3.8325): truncated_normal's bounds, computed at compile time as JAX
/// computes them at run time.
float erfXlaF32(float x) {
  static constexpr float kAlpha[5] = {0.00022905065861350646f,
                                      0.0034082910107109506f,
                                      0.050955695062380861f,
                                      0.18520832239976145f, 1.128379143519084f};
  static constexpr float kBeta[7] = {
      -1.1791602954361697e-7f, 0.000023547966471313185f,
      0.0010179625278914885f,  0.014070470171167667f,
      0.11098505178285362f,    0.49746925110067538f,
      1.0f};
  if (!(std::fabs(x) <= 3.832506856900711f))
    return std::isnan(x) ? x : std::copysign(1.0f, x);
  float x2 = x * x;
  float p = std::fma(x2, kAlpha[0], kAlpha[1]);
  for (unsigned i = 2; i < 5; ++i)
    p = std::fma(x2, p, kAlpha[i]);
  float q = std::fma(x2, kBeta[0], kBeta[1]);
  for (unsigned i = 2; i < 7; ++i)
    q = std::fma(x2, q, kBeta[i]);
  return x * p / q;
}

/// JAX's truncated normal: u uniform in [erf(lower / sqrt2),
/// erf(upper / sqrt2)), `sqrt(2) * erfinv(u)`, clamped into the open
/// interval. The bounds are rounded to `type` first and divided by sqrt(2)
/// as XLA does (a multiply by the rounded reciprocal); f32's erf is XLA's,
/// f64's the C library's (XLA's differs in the last bits).
Value truncatedNormalFromBits(Arith a, FloatType type, Value x0, Value x1,
                              double lower, double upper) {
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  bool lossy;
  APFloat lo(lower), hi(upper);
  lo.convert(sem, APFloat::rmNearestTiesToEven, &lossy);
  hi.convert(sem, APFloat::rmNearestTiesToEven, &lossy);
  double erfLo, erfHi;
  if (type.isF32()) {
    float invSqrt2 = 1.0f / static_cast<float>(M_SQRT2);
    erfLo = erfXlaF32(lo.convertToFloat() * invSqrt2);
    erfHi = erfXlaF32(hi.convertToFloat() * invSqrt2);
  } else {
    double invSqrt2 = 1.0 / M_SQRT2;
    erfLo = std::erf(lo.convertToDouble() * invSqrt2);
    erfHi = std::erf(hi.convertToDouble() * invSqrt2);
  }
  Value u = uniformFromBits(a, type, x0, x1, erfLo, erfHi);
  Value erfInv = type.isF32() ? erfInvF32(a, u) : erfInvF64(a, u);
  // erfinv(+-1) = +-inf (u reaches a bound of +-1 when it is far out).
  Value atOne = arith::CmpFOp::create(a.b, a.loc, arith::CmpFPredicate::OEQ,
                                      math::AbsFOp::create(a.b, a.loc, u),
                                      a.f(type, 1.0));
  erfInv = a.select(atOne,
                    a.mulf(u, a.f(type, std::numeric_limits<double>::infinity())),
                    erfInv);
  Value out = a.mulf(a.f(type, 1.41421356237309504880), erfInv);
  APFloat above = lo, below = hi;
  above.next(/*nextDown=*/false);
  below.next(/*nextDown=*/true);
  out = arith::MaximumFOp::create(a.b, a.loc,
                                  a.fAttr(FloatAttr::get(type, above)), out);
  return arith::MinimumFOp::create(a.b, a.loc,
                                   a.fAttr(FloatAttr::get(type, below)), out);
}

//===----------------------------------------------------------------------===//
// The kernels
//===----------------------------------------------------------------------===//

/// Column `word` (0 or 1) of `key` (`[batch..., 2]`): its batch shape.
Value keyWord(OpBuilder &b, Location loc, Value key, int64_t word) {
  auto type = cast<RankedTensorType>(key.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  offsets.back() = b.getIndexAttr(word);
  for (int64_t d = 0; d + 1 < rank; ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, key, d))
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  sizes.push_back(b.getIndexAttr(1));
  auto wordType = RankedTensorType::get(type.getShape().drop_back(),
                                        type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, wordType, key, offsets, sizes,
                                        strides);
}

/// The map reading `operand` (shape aligned from the right with the first
/// `batchRank` dims of a `rank`-dim iteration space whose sizes are
/// `iteration`): a stretched size-1 dim reads index 0.
AffineMap batchMap(MLIRContext *ctx, ArrayRef<int64_t> operand,
                   ArrayRef<int64_t> iteration, int64_t batchRank,
                   int64_t rank) {
  SmallVector<AffineExpr> exprs;
  int64_t offset = batchRank - static_cast<int64_t>(operand.size());
  for (auto [od, size] : llvm::enumerate(operand)) {
    int64_t d = offset + static_cast<int64_t>(od);
    exprs.push_back(size == 1 && iteration[d] != 1 ? getAffineConstantExpr(0, ctx)
                                                   : getAffineDimExpr(d, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// The body of a kernel: the key words and any other inputs' scalars in,
/// the result element out.
using KernelBodyFn =
    llvm::function_ref<Value(Arith, Value k0, Value k1, ValueRange rest)>;

/// One generic over `resultType` whose first `batchRank` dims are the batch
/// dims of `key` and the `extra` operands (broadcast from the right, as
/// fold_in's data); the body gets the key words and the extra scalars.
Value buildKernel(OpBuilder &b, Location loc, RankedTensorType resultType,
                  int64_t batchRank, Value key, ValueRange extra,
                  KernelBodyFn body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<Value> inputs = {keyWord(b, loc, key, 0),
                               keyWord(b, loc, key, 1)};
  llvm::append_range(inputs, extra);
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(batchMap(ctx, cast<RankedTensorType>(input.getType()).getShape(),
                            resultType.getShape(), batchRank, rank));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  // Dynamic dims are batch dims: sized by an input dim aligned with them.
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    Value size;
    for (Value input : inputs) {
      auto type = cast<RankedTensorType>(input.getType());
      int64_t od = d - (batchRank - type.getRank());
      if (od >= 0 && od < type.getRank() && type.isDynamicDim(od)) {
        size = tensor::DimOp::create(b, loc, input, od);
        break;
      }
    }
    assert(size && "a dynamic result dim is a dynamic batch dim of an input");
    dynamicSizes.push_back(size);
  }
  Value init = emptyTensor(b, loc, resultType, dynamicSizes);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(Arith{nb, nloc}, args[0], args[1],
                       args.drop_front(2).drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

/// The counter of a sample element: its row-major index over the sample
/// dims (those after `batchRank`), as the two i32 words (high, low).
/// `dimSizes` holds the result's dynamic dim sizes in order (index values
/// from outside the kernel; a sampler's sample dims are static).
std::pair<Value, Value> sampleCounter(Arith a, RankedTensorType resultType,
                                      int64_t batchRank,
                                      ValueRange dimSizes = {}) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(a.b, a.loc, v);
  };
  int64_t count = 1, stride = 1;
  Value dynamicStride; // the stride so far once a dynamic dim is passed
  Value index = constant(0);
  for (int64_t d = resultType.getRank() - 1; d >= batchRank; --d) {
    Value i = linalg::IndexOp::create(a.b, a.loc, d);
    Value s = dynamicStride ? arith::MulIOp::create(a.b, a.loc, dynamicStride,
                                                    constant(stride))
                            : constant(stride);
    index = arith::AddIOp::create(a.b, a.loc, index,
                                  arith::MulIOp::create(a.b, a.loc, i, s));
    if (!resultType.isDynamicDim(d)) {
      stride *= resultType.getDimSize(d);
      count *= resultType.getDimSize(d);
      continue;
    }
    Value size = dimSizes[resultType.getDynamicDimIndex(d)];
    dynamicStride = dynamicStride
                        ? arith::MulIOp::create(a.b, a.loc, dynamicStride, size)
                        : size;
  }
  // Samples of up to 2^32 elements (all in practice) have a zero high word
  // and need no 64-bit index (SPIR-V indices are 32 bits).
  if (!dynamicStride && count <= (int64_t(1) << 32))
    return {a.i32(0), arith::IndexCastUIOp::create(a.b, a.loc,
                                                   a.b.getI32Type(), index)};
  Type i64 = a.b.getI64Type();
  Value wide = arith::IndexCastUIOp::create(a.b, a.loc, i64, index);
  Value high = arith::ShRUIOp::create(
      a.b, a.loc, wide,
      arith::ConstantOp::create(a.b, a.loc, a.b.getI64IntegerAttr(32)));
  return {arith::TruncIOp::create(a.b, a.loc, a.b.getI32Type(), high),
          arith::TruncIOp::create(a.b, a.loc, a.b.getI32Type(), wide)};
}

/// random_bits, random_uniform, random_normal, random_truncated_normal: the
/// sample's counters hashed under each lane's key, then `finish(x0, x1)`.
template <typename OpTy>
struct SamplePattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t batchRank = op.getKey().getType().getRank() - 1;
    Value result = buildKernel(
        rewriter, op.getLoc(), type, batchRank, op.getKey(), {},
        [&](Arith a, Value k0, Value k1, ValueRange) {
          auto [c0, c1] = sampleCounter(a, type, batchRank);
          auto [x0, x1] = threefry2x32(a, k0, k1, c0, c1);
          return finish(op, a, type.getElementType(), x0, x1);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value finish(RandomBitsOp, Arith a, Type, Value x0, Value x1) {
    return a.xori(x0, x1);
  }
  static Value finish(RandomUniformOp op, Arith a, Type element, Value x0,
                      Value x1) {
    return uniformFromBits(a, cast<FloatType>(element), x0, x1,
                           op.getMinval().convertToDouble(),
                           op.getMaxval().convertToDouble());
  }
  static Value finish(RandomNormalOp, Arith a, Type element, Value x0,
                      Value x1) {
    return normalFromBits(a, cast<FloatType>(element), x0, x1);
  }
  static Value finish(RandomTruncatedNormalOp op, Arith a, Type element,
                      Value x0, Value x1) {
    return truncatedNormalFromBits(a, cast<FloatType>(element), x0, x1,
                                   op.getLower().convertToDouble(),
                                   op.getUpper().convertToDouble());
  }
};

/// Word `word` (the last result dim's index) of a new key `(x0, x1)`.
Value keyWordOf(Arith a, int64_t rank, Value x0, Value x1) {
  Value word = linalg::IndexOp::create(a.b, a.loc, rank - 1);
  Value first = arith::CmpIOp::create(
      a.b, a.loc, arith::CmpIPredicate::eq, word,
      arith::ConstantIndexOp::create(a.b, a.loc, 0));
  return a.select(first, x0, x1);
}

/// random_split: key n of a lane is the hash of the counter (0, n).
struct SplitPattern : OpRewritePattern<RandomSplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RandomSplitOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), batchRank = rank - 2;
    Value result = buildKernel(
        rewriter, op.getLoc(), type, batchRank, op.getKey(), {},
        [&](Arith a, Value k0, Value k1, ValueRange) {
          Value n = linalg::IndexOp::create(a.b, a.loc, batchRank);
          Value c1 =
              arith::IndexCastUIOp::create(a.b, a.loc, a.b.getI32Type(), n);
          auto [x0, x1] = threefry2x32(a, k0, k1, a.i32(0), c1);
          return keyWordOf(a, rank, x0, x1);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// random_fold_in: the hash of the counter (0, data).
struct FoldInPattern : OpRewritePattern<RandomFoldInOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RandomFoldInOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Value result = buildKernel(
        rewriter, op.getLoc(), type, rank - 1, op.getKey(), {op.getData()},
        [&](Arith a, Value k0, Value k1, ValueRange rest) {
          auto [x0, x1] = threefry2x32(a, k0, k1, a.i32(0), rest[0]);
          return keyWordOf(a, rank, x0, x1);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// fake_quant with a key (stochastic rounding): one generic over x, whose
/// leading dims are the key's batch dims; each element draws JAX's uniform
/// in [0, 1) from its counter over the sample dims, as random_uniform would
/// for x's shape, and rounds with it. Dynamic dims are x's.
struct StochasticRoundingPattern : OpRewritePattern<FakeQuantOp> {
  StochasticRoundingPattern(MLIRContext *ctx)
      : OpRewritePattern<FakeQuantOp>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(FakeQuantOp op,
                                PatternRewriter &rewriter) const override {
    Value key = op.getKey();
    if (!key)
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    int64_t batchRank = cast<RankedTensorType>(key.getType()).getRank() - 1;
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, op.getX(), d));
    // A key batch dim or x's dim known only at run time must agree there:
    // the kernel reads key row i for x's row i.
    auto keyType = cast<RankedTensorType>(key.getType());
    for (int64_t d = 0; d < batchRank; ++d)
      if (keyType.isDynamicDim(d) || type.isDynamicDim(d)) {
        Value keyDim = tensor::DimOp::create(rewriter, loc, key, d);
        Value xDim = tensor::DimOp::create(rewriter, loc, op.getX(), d);
        checkAtRunTime(rewriter, loc,
                       arith::CmpIOp::create(rewriter, loc,
                                             arith::CmpIPredicate::eq, keyDim,
                                             xDim),
                       "rlx.fake_quant: the key's batch dim " + llvm::Twine(d) +
                           " differs from x's dim " + llvm::Twine(d));
      }
    SmallVector<Value> inputs = {keyWord(rewriter, loc, key, 0),
                                 keyWord(rewriter, loc, key, 1), op.getX()};
    SmallVector<AffineExpr> batchDims;
    for (int64_t d = 0; d < batchRank; ++d)
      batchDims.push_back(getAffineDimExpr(d, ctx));
    AffineMap keyMap = AffineMap::get(rank, 0, batchDims, ctx);
    SmallVector<AffineMap> maps = {keyMap, keyMap};
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    Value init = emptyTensor(rewriter, loc, type, dynamicSizes);
    FloatFormat format = *op.getFormat();
    bool saturate = op.getSaturate();
    auto floatType = cast<FloatType>(type.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Arith a{nb, nloc};
          auto [c0, c1] = sampleCounter(a, type, batchRank, dynamicSizes);
          auto [x0, x1] = threefry2x32(a, args[0], args[1], c0, c1);
          Value u = uniformFromBits(a, floatType, x0, x1, 0.0, 1.0);
          linalg::YieldOp::create(
              nb, nloc, roundToFormat(nb, nloc, args[2], format, saturate, u));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// rlx.cast with a key: the stochastic rounding to the result type's
/// format (an rlx.fake_quant with the key, lowered above), then the cast
/// of values the format holds exactly, which rounding to nearest keeps.
struct StochasticCastPattern : OpRewritePattern<CastOp> {
  StochasticCastPattern(MLIRContext *ctx)
      : OpRewritePattern<CastOp>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Value key = op.getKey();
    std::optional<FloatFormat> format = op.getStochasticFormat();
    if (!key || !format)
      return failure();
    const char *specials[] = {"ieee", "fn", "fnuz", "finite"};
    Value rounded = FakeQuantOp::create(
        rewriter, op.getLoc(), op.getX(), key,
        rewriter.getI64IntegerAttr(format->exponentBits),
        rewriter.getI64IntegerAttr(format->mantissaBits),
        rewriter.getI64IntegerAttr(format->bias),
        rewriter.getStringAttr(specials[static_cast<int>(format->specials)]),
        op.getSaturate() ? rewriter.getUnitAttr() : UnitAttr());
    rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), rounded,
                                        op.getSaturate());
    return success();
  }
};

} // namespace

void mlir::rlx::populateRandomToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SamplePattern<RandomBitsOp>, SamplePattern<RandomUniformOp>,
               SamplePattern<RandomNormalOp>,
               SamplePattern<RandomTruncatedNormalOp>, SplitPattern,
               FoldInPattern, StochasticRoundingPattern,
               StochasticCastPattern>(patterns.getContext());
}
