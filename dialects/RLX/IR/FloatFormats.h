//===- FloatFormats.h - Narrow float formats as data ------------*- C++ -*-===//
///
/// \file
/// The bit layout of the float formats narrower than f16 that rlx.cast
/// converts (MLIR's f8, f6 and f4 types) and that rlx.fake_quant rounds to:
/// what the verifiers check and what the lowering builds its integer code
/// from.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_FLOATFORMATS_H
#define RLX_DIALECTS_RLX_IR_FLOATFORMATS_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <optional>

namespace mlir::rlx {

/// A binary float format: sign, exponent and mantissa bits, and which codes
/// are not finite numbers.
struct FloatFormat {
  enum class Specials {
    /// The top exponent holds inf (mantissa 0) and NaN (f8E5M2, f8E4M3).
    IEEE,
    /// No inf; the all-ones magnitude is NaN (f8E4M3FN).
    NaNOnly,
    /// No inf, no -0; the code of -0 is the one NaN (f8E4M3FNUZ).
    NaNAsNegativeZero,
    /// Every code is a finite number (f6E3M2FN, f4E2M1FN).
    FiniteOnly,
  };
  unsigned exponentBits = 0;
  unsigned mantissaBits = 0;
  int bias = 0;
  Specials specials = Specials::IEEE;

  unsigned width() const { return 1 + exponentBits + mantissaBits; }
  int minNormalExponent() const { return 1 - bias; }
  /// The magnitude code of the largest finite value.
  uint64_t maxCode() const;
  double maxFinite() const;
  /// Whether every value of the format, subnormals included, is a normal or
  /// subnormal number of `type` (f32 or f64) with room to scale: the
  /// rounding below computes in it.
  bool fitsIn(FloatType type) const;
  /// Whether every value of the format is a value of `type` (f32 or f64),
  /// subnormals included, though its ulps may be below the type's normal
  /// numbers (bf16 in f32): the rounding then scales in two steps.
  bool valuesFitIn(FloatType type) const;
};

/// The format of an MLIR float type narrower than 16 bits, if rlx computes
/// it (f8E8M0FNU, unsigned and without mantissa, is not).
std::optional<FloatFormat> narrowFloatFormat(Type type);

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_IR_FLOATFORMATS_H
