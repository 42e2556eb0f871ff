//===- FloatFormats.cpp - Narrow float formats as data --------------------===//

#include "dialects/RLX/IR/FloatFormats.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rlx;

using Specials = FloatFormat::Specials;

uint64_t FloatFormat::maxCode() const {
  uint64_t allOnesExponent = (uint64_t(1) << exponentBits) - 1;
  uint64_t allOnesMantissa = (uint64_t(1) << mantissaBits) - 1;
  switch (specials) {
  case Specials::IEEE:
    return ((allOnesExponent - 1) << mantissaBits) | allOnesMantissa;
  case Specials::NaNOnly:
    return (allOnesExponent << mantissaBits) | (allOnesMantissa - 1);
  case Specials::NaNAsNegativeZero:
  case Specials::FiniteOnly:
    return (allOnesExponent << mantissaBits) | allOnesMantissa;
  }
  return 0;
}

double FloatFormat::maxFinite() const {
  uint64_t code = maxCode();
  int exponent = static_cast<int>(code >> mantissaBits) - bias;
  uint64_t mantissaCode = code & ((uint64_t(1) << mantissaBits) - 1);
  double mantissa = 1.0 + std::ldexp(static_cast<double>(mantissaCode),
                                     -static_cast<int>(mantissaBits));
  return std::ldexp(mantissa, exponent);
}

bool FloatFormat::fitsIn(FloatType type) const {
  int typeBias = (1 << (type.getWidth() == 64 ? 10 : 7)) - 1;
  int typeMantissa = type.getFPMantissaWidth() - 1;
  int smallestExponent = minNormalExponent() - static_cast<int>(mantissaBits);
  int largestExponent = (1 << exponentBits) - bias; // one above max's
  return (type.isF32() || type.isF64()) && mantissaBits >= 1 &&
         static_cast<int>(mantissaBits) < typeMantissa &&
         exponentBits >= 1 && smallestExponent > 1 - typeBias &&
         -smallestExponent < typeBias && largestExponent < typeBias;
}

bool FloatFormat::valuesFitIn(FloatType type) const {
  if (!type.isF32() && !type.isF64())
    return false;
  int typeMantissa = type.getFPMantissaWidth() - 1;
  int typeMinNormal = type.isF64() ? -1022 : -126;
  int smallestExponent = minNormalExponent() - static_cast<int>(mantissaBits);
  return static_cast<int>(mantissaBits) <= typeMantissa &&
         smallestExponent >= typeMinNormal - typeMantissa &&
         maxFinite() <= (type.isF64() ? std::numeric_limits<double>::max()
                                      : std::numeric_limits<float>::max());
}

std::optional<FloatFormat> mlir::rlx::narrowFloatFormat(Type type) {
  auto format = [](unsigned e, unsigned m, int bias, Specials s) {
    return std::optional<FloatFormat>(FloatFormat{e, m, bias, s});
  };
  if (isa<Float8E5M2Type>(type))
    return format(5, 2, 15, Specials::IEEE);
  if (isa<Float8E4M3Type>(type))
    return format(4, 3, 7, Specials::IEEE);
  if (isa<Float8E3M4Type>(type))
    return format(3, 4, 3, Specials::IEEE);
  if (isa<Float8E4M3FNType>(type))
    return format(4, 3, 7, Specials::NaNOnly);
  if (isa<Float8E4M3FNUZType>(type))
    return format(4, 3, 8, Specials::NaNAsNegativeZero);
  if (isa<Float8E5M2FNUZType>(type))
    return format(5, 2, 16, Specials::NaNAsNegativeZero);
  if (isa<Float8E4M3B11FNUZType>(type))
    return format(4, 3, 11, Specials::NaNAsNegativeZero);
  if (isa<Float6E3M2FNType>(type))
    return format(3, 2, 3, Specials::FiniteOnly);
  if (isa<Float6E2M3FNType>(type))
    return format(2, 3, 1, Specials::FiniteOnly);
  if (isa<Float4E2M1FNType>(type))
    return format(2, 1, 1, Specials::FiniteOnly);
  return std::nullopt;
}

