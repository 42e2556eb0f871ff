//===- NarrowFloats.cpp - Rounding to and decoding narrow floats ----------===//
///
/// \file
/// Rounding scales |x| so that one unit in the last place of the target
/// format is 1, rounds to an integer with `math.roundeven` and scales back:
/// both scalings are by powers of two, so they are exact and the only
/// rounding is the roundeven (the same single rounding as ml_dtypes). The
/// powers of two are built from their exponent bits. Encoding then reads the
/// exponent and the top mantissa bits of the rounded value.
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/NarrowFloats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

using Specials = FloatFormat::Specials;

namespace {

/// Scalar arith over one float type F (f32 or f64) and the integer type of
/// its bits.
struct Bits {
  OpBuilder &b;
  Location loc;
  FloatType floatType;
  IntegerType intType;
  int mantissaBits; // of F
  int bias;         // of F

  Bits(OpBuilder &b, Location loc, FloatType type)
      : b(b), loc(loc), floatType(type),
        intType(b.getIntegerType(type.getWidth())),
        mantissaBits(type.getFPMantissaWidth() - 1),
        bias(type.isF64() ? 1023 : 127) {}

  Value i(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(intType, v));
  }
  Value f(double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, v));
  }
  Value toInt(Value x) {
    return arith::BitcastOp::create(b, loc, intType, x);
  }
  Value toFloat(Value x) {
    return arith::BitcastOp::create(b, loc, floatType, x);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, int64_t n) { return arith::ShLIOp::create(b, loc, x, i(n)); }
  Value shr(Value x, int64_t n) {
    return arith::ShRUIOp::create(b, loc, x, i(n));
  }
  Value mulF(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value cmpI(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value cmpF(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  /// 2^k for an integer k (of intType) in F's normal range.
  Value pow2(Value k) {
    return toFloat(shl(add(k, i(bias)), mantissaBits));
  }
  /// The unbiased exponent of a positive normal F given as bits.
  Value exponentOf(Value absBits) {
    return sub(shr(absBits, mantissaBits), i(bias));
  }
};

/// |x| rounded to `format` (before any overflow handling), the sign bit of
/// x (0 or 1) and whether x is NaN or beyond the largest finite value.
struct Rounded {
  Value magnitude, sign, isNaN, overflows;
};

Rounded roundMagnitude(Bits &k, Value x, const FloatFormat &format,
                       Value uniform = {}) {
  int width = k.floatType.getWidth();
  Value bits = k.toInt(x);
  Value absBits = k.andI(bits, k.i(int64_t((uint64_t(1) << (width - 1)) - 1)));
  Value ax = k.toFloat(absBits);
  // The exponent whose ulp the format has at |x|: subnormals share emin's.
  Value exponent = arith::MaxSIOp::create(k.b, k.loc, k.exponentOf(absBits),
                                          k.i(format.minNormalExponent()));
  Value m = k.i(format.mantissaBits);
  // Values of the format whose ulps are below x's type's normal range (bf16
  // in f32: 2^-133) scale in two exact steps, each power normal.
  bool split = !format.fitsIn(k.floatType);
  auto scale = [&](Value v, Value power) {
    if (!split)
      return k.mulF(v, k.pow2(power));
    Value half = arith::DivSIOp::create(k.b, k.loc, power, k.i(2));
    return k.mulF(k.mulF(v, k.pow2(half)), k.pow2(k.sub(power, half)));
  };
  Value scaled = scale(ax, k.sub(m, exponent));
  Value rounded;
  if (uniform) {
    // floor and the fraction are exact (scaled has at most F's mantissa
    // bits): the neighbour above with probability fraction, to within the
    // uniform's resolution.
    Value below = math::FloorOp::create(k.b, k.loc, scaled);
    Value fraction = arith::SubFOp::create(k.b, k.loc, scaled, below);
    Value up = k.cmpF(arith::CmpFPredicate::OLT, uniform, fraction);
    rounded =
        arith::AddFOp::create(k.b, k.loc, below, k.select(up, k.f(1), k.f(0)));
  } else {
    rounded = math::RoundEvenOp::create(k.b, k.loc, scaled);
  }
  Value magnitude = scale(rounded, k.sub(exponent, m));
  Value isNaN = k.cmpF(arith::CmpFPredicate::UNO, x, x);
  Value overflows =
      arith::OrIOp::create(
          k.b, k.loc,
          k.cmpF(arith::CmpFPredicate::OGT, magnitude, k.f(format.maxFinite())),
          k.cmpF(arith::CmpFPredicate::OEQ, ax, k.f(INFINITY)));
  return {magnitude, k.shr(bits, width - 1), isNaN, overflows};
}

/// Whether values beyond the largest finite one become ±max.
bool saturates(const FloatFormat &format, bool saturate) {
  return saturate || format.specials == Specials::FiniteOnly;
}

/// `x` (any int or float) as an f32 or f64 that holds it exactly where it
/// can: the source of the rounding.
Value widenForRounding(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  if (type.isF32() || type.isF64())
    return x;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    if (narrowFloatFormat(floatType))
      return narrowFloatToF32(b, loc, x);
    return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  }
  // Integers: f64 holds every i32 exactly; an i64 beyond 2^53 overflows
  // every narrow format anyway.
  if (type.isInteger(1))
    return arith::UIToFPOp::create(b, loc, b.getF64Type(), x);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), x);
}

} // namespace

Value mlir::rlx::roundToFormat(OpBuilder &b, Location loc, Value x,
                               const FloatFormat &format, bool saturate,
                               Value uniform) {
  Bits k(b, loc, cast<FloatType>(x.getType()));
  Rounded r = roundMagnitude(k, x, format, uniform);
  Value beyond = saturates(format, saturate) ? k.f(format.maxFinite())
                 : format.specials == Specials::IEEE ? k.f(INFINITY)
                                                     : k.f(NAN);
  Value magnitude = k.select(r.overflows, beyond, r.magnitude);
  // Put x's sign back (NaN keeps its own bits); FNUZ has no -0.
  Value signed_ = k.toFloat(k.orI(k.toInt(magnitude),
                                  k.shl(r.sign, k.floatType.getWidth() - 1)));
  if (format.specials == Specials::NaNAsNegativeZero)
    signed_ = k.select(k.cmpF(arith::CmpFPredicate::OEQ, magnitude, k.f(0)),
                       magnitude, signed_);
  return k.select(r.isNaN, x, signed_);
}

Value mlir::rlx::convertToNarrowFloat(OpBuilder &b, Location loc, Value x,
                                      FloatType to, bool saturate) {
  FloatFormat format = *narrowFloatFormat(to);
  Value wide = widenForRounding(b, loc, x);
  Bits k(b, loc, cast<FloatType>(wide.getType()));
  Rounded r = roundMagnitude(k, wide, format);
  unsigned m = format.mantissaBits;
  int typeMantissa = k.mantissaBits;

  // The magnitude code of the rounded value: a normal reads its exponent
  // and top mantissa bits, a subnormal is its count of smallest ulps.
  Value rBits = k.toInt(r.magnitude);
  Value exponent = k.exponentOf(rBits);
  Value isNormal = k.cmpI(arith::CmpIPredicate::sge, exponent,
                          k.i(format.minNormalExponent()));
  Value normalCode = k.orI(
      k.shl(k.add(exponent, k.i(format.bias)), m),
      k.andI(k.shr(rBits, typeMantissa - m), k.i((int64_t(1) << m) - 1)));
  Value ulps = k.mulF(r.magnitude, k.pow2(k.i(m - format.minNormalExponent())));
  Value subnormalCode = arith::FPToUIOp::create(b, loc, k.intType, ulps);
  Value code = k.select(isNormal, normalCode, subnormalCode);

  int64_t allOnesExponent = (int64_t(1) << format.exponentBits) - 1;
  int64_t signBit = int64_t(1) << (format.width() - 1);
  int64_t beyond = saturates(format, saturate) ? format.maxCode()
                   : format.specials == Specials::IEEE
                       ? allOnesExponent << m
                   : format.specials == Specials::NaNOnly
                       ? (allOnesExponent << m) | ((int64_t(1) << m) - 1)
                       : signBit; // FNUZ's NaN
  code = k.select(r.overflows, k.i(beyond), code);
  Value signBits = k.shl(r.sign, format.width() - 1);
  Value result = k.orI(code, signBits);

  switch (format.specials) {
  case Specials::IEEE:
    // A quiet NaN keeps x's sign.
    result = k.select(
        r.isNaN,
        k.orI(k.i((allOnesExponent << m) | (int64_t(1) << (m - 1))), signBits),
        result);
    break;
  case Specials::NaNOnly:
    result = k.select(r.isNaN, k.orI(k.i(signBit - 1), signBits), result);
    break;
  case Specials::NaNAsNegativeZero: {
    // No -0: zero and NaN both come out unsigned-looking, NaN as 0x80.
    Value isZero = k.cmpI(arith::CmpIPredicate::eq, code, k.i(0));
    Value zeroOrNaN = k.select(r.isNaN, k.i(signBit), k.i(0));
    Value special = arith::OrIOp::create(b, loc, isZero, r.isNaN);
    result = k.select(special, zeroOrNaN, result);
    break;
  }
  case Specials::FiniteOnly:
    // No code means NaN; ml_dtypes gives zero with the sign bit of x flipped
    // (the sign of the default NaN is clear, so NaN becomes -0), and so do
    // we, to stay bit-exact with it.
    result = k.select(r.isNaN, k.shl(k.sub(k.i(1), r.sign),
                                     format.width() - 1),
                      result);
    break;
  }
  Value narrowBits = arith::TruncIOp::create(
      b, loc, b.getIntegerType(format.width()), result);
  return arith::BitcastOp::create(b, loc, to, narrowBits);
}

namespace {

/// A narrow float's bits `narrowBits` (a format f16 holds) as an f32:
/// sign-extended to 16 bits and shifted so that its exponent and mantissa
/// fields end where f16's do, then masked to the sign and those fields.
/// That is an f16 with x's sign and significand and an exponent 15 - bias
/// below x's, subnormals included (both have emin's exponent); the
/// format's specials become f16's inf and NaN by selects on 16-bit lanes.
/// Extended to f32 (vcvtph2ps) and multiplied by 2^(15 - bias) last, so
/// that a kernel summing such values may apply that power once to the sum.
/// The sign in the f16 saves the separate sign path on 32-bit lanes.
Value decodeThroughF16(OpBuilder &b, Location loc, Value narrowBits,
                       const FloatFormat &format) {
  IntegerType i16 = b.getI16Type();
  auto c16 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, IntegerAttr::get(i16, APInt(16, uint64_t(v) & 0xFFFF)));
  };
  unsigned m = format.mantissaBits, width = format.width();
  int64_t shift = 10 - m;
  int64_t magnitudeMask = (int64_t(1) << (width - 1)) - 1;
  Value code = arith::ExtSIOp::create(b, loc, i16, narrowBits);
  Value shifted = arith::ShLIOp::create(b, loc, code, c16(shift));
  Value bits = arith::AndIOp::create(b, loc, shifted,
                                     c16(0x8000 | (magnitudeMask << shift)));
  auto equals = [&](Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, c16(v));
  };
  // The code without its sign, for the formats with special codes.
  auto magnitude = [&] {
    return arith::AndIOp::create(b, loc, code, c16(magnitudeMask));
  };
  switch (format.specials) {
  case Specials::IEEE:
    if (format.exponentBits < 5) {
      Value magnitudeCode = magnitude();
      int64_t top = ((int64_t(1) << format.exponentBits) - 1) << m;
      Value exponentField =
          arith::AndIOp::create(b, loc, magnitudeCode, c16(top));
      Value mantissa = arith::AndIOp::create(b, loc, magnitudeCode,
                                             c16((int64_t(1) << m) - 1));
      Value special = arith::SelectOp::create(b, loc, equals(mantissa, 0),
                                              c16(0x7C00), c16(0x7E00));
      special = arith::OrIOp::create(
          b, loc, special, arith::AndIOp::create(b, loc, bits, c16(0x8000)));
      bits = arith::SelectOp::create(b, loc, equals(exponentField, top),
                                     special, bits);
    }
    break;
  case Specials::NaNOnly:
    bits = arith::SelectOp::create(
        b, loc, equals(magnitude(), magnitudeMask),
        arith::OrIOp::create(b, loc, bits, c16(0x7E00)), bits);
    break;
  case Specials::NaNAsNegativeZero:
    // The code of -0 (sign-extended: -2^(width-1)) is NaN, -NaN as the
    // integer decoding gives it.
    bits = arith::SelectOp::create(
        b, loc, equals(code, -(int64_t(1) << (width - 1))), c16(0xFE00), bits);
    break;
  case Specials::FiniteOnly:
    break;
  }
  Value half = arith::BitcastOp::create(b, loc, b.getF16Type(), bits);
  Value value = arith::ExtFOp::create(b, loc, b.getF32Type(), half);
  if (format.bias == 15)
    return value;
  return arith::MulFOp::create(
      b, loc, value,
      arith::ConstantOp::create(
          b, loc, b.getF32FloatAttr(std::ldexp(1.0, 15 - format.bias))));
}

} // namespace

Value mlir::rlx::narrowFloatToF32(OpBuilder &b, Location loc, Value x,
                                  bool throughF16) {
  auto type = cast<FloatType>(x.getType());
  FloatFormat format = *narrowFloatFormat(type);
  Bits k(b, loc, b.getF32Type());
  Value narrowBits =
      arith::BitcastOp::create(b, loc, b.getIntegerType(format.width()), x);
  unsigned m = format.mantissaBits;
  // f16 has 5 exponent bits and 10 mantissa bits: a format with at most
  // those decodes through it (decodeThroughF16); its top exponent is
  // inf/NaN, the format's own only for IEEE formats with 5.
  bool f16Holds =
      m <= 10 &&
      (format.exponentBits < 5 ||
       (format.exponentBits == 5 && format.specials == Specials::IEEE));
  if (throughF16 && f16Holds)
    return decodeThroughF16(b, loc, narrowBits, format);
  Value code = arith::ExtUIOp::create(b, loc, k.intType, narrowBits);
  int64_t allOnesExponent = (int64_t(1) << format.exponentBits) - 1;
  Value sign = k.shr(code, format.width() - 1);
  Value magnitudeCode = k.andI(code, k.i((int64_t(1) << (format.width() - 1)) - 1));
  Value exponentField = k.shr(magnitudeCode, m);
  Value mantissa = k.andI(code, k.i((int64_t(1) << m) - 1));
  // (mantissa + implicit one) * 2^(exponent - bias - m); subnormals have
  // no implicit one and emin's exponent.
  Value isSubnormal = k.cmpI(arith::CmpIPredicate::eq, exponentField, k.i(0));
  Value significand =
      k.select(isSubnormal, mantissa, k.orI(mantissa, k.i(int64_t(1) << m)));
  Value exponent = arith::MaxSIOp::create(b, loc, exponentField, k.i(1));
  Value scale = k.pow2(k.sub(exponent, k.i(format.bias + m)));
  Value magnitude =
      k.mulF(arith::UIToFPOp::create(b, loc, k.floatType, significand), scale);

  Value quietNaN = k.i(0x7fc00000);
  Value magnitudeBits = k.toInt(magnitude);
  switch (format.specials) {
  case Specials::IEEE: {
    Value top = k.cmpI(arith::CmpIPredicate::eq, exponentField,
                       k.i(allOnesExponent));
    Value isInf = k.cmpI(arith::CmpIPredicate::eq, mantissa, k.i(0));
    Value special = k.select(isInf, k.i(0x7f800000), quietNaN);
    magnitudeBits = k.select(top, special, magnitudeBits);
    break;
  }
  case Specials::NaNOnly:
    magnitudeBits = k.select(
        k.cmpI(arith::CmpIPredicate::eq, magnitudeCode,
               k.i((int64_t(1) << (format.width() - 1)) - 1)),
        quietNaN, magnitudeBits);
    break;
  case Specials::NaNAsNegativeZero:
    // The code of -0 is NaN; with its sign bit set it decodes as -NaN.
    magnitudeBits = k.select(
        k.cmpI(arith::CmpIPredicate::eq, code,
               k.i(int64_t(1) << (format.width() - 1))),
        quietNaN, magnitudeBits);
    break;
  case Specials::FiniteOnly:
    break;
  }
  return k.toFloat(k.orI(magnitudeBits, k.shl(sign, 31)));
}

Value mlir::rlx::e8m0ToF32(OpBuilder &b, Location loc, Value x) {
  Bits k(b, loc, b.getF32Type());
  Value code = arith::ExtUIOp::create(
      b, loc, k.intType, arith::BitcastOp::create(b, loc, b.getI8Type(), x));
  // 2^(code - 127) is f32's exponent field itself, but for code 0 (2^-127,
  // an f32 subnormal) and code 255 (NaN).
  Value bits = k.shl(code, 23);
  bits = k.select(k.cmpI(arith::CmpIPredicate::eq, code, k.i(0)),
                  k.i(0x00400000), bits);
  bits = k.select(k.cmpI(arith::CmpIPredicate::eq, code, k.i(255)),
                  k.i(0x7fc00000), bits);
  return k.toFloat(bits);
}
