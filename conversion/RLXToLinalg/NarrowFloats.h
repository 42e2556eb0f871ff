//===- NarrowFloats.h - Rounding to and decoding narrow floats --*- C++ -*-===//
///
/// \file
/// Scalar arith for the float formats narrower than f16: MLIR's f8, f6 and
/// f4 types (which LLVM and SPIR-V cannot compute in) and the formats of
/// rlx.fake_quant. Rounding works on the bits of an f32 or f64, so every
/// backend runs it and the result is bit-exact with the `ml_dtypes` package:
/// round to nearest even, one rounding from the source type.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_RLXTOLINALG_NARROWFLOATS_H
#define RLX_CONVERSION_RLXTOLINALG_NARROWFLOATS_H

#include "dialects/RLX/IR/FloatFormats.h"

#include "mlir/IR/Builders.h"

namespace mlir::rlx {

/// `x` (f32 or f64) rounded to the nearest value of `format`, ties to even,
/// kept in x's type. Beyond the largest finite value: ±max when `saturate`
/// or the format has no inf or NaN, else ±inf (IEEE) or NaN. NaN stays NaN.
/// With `uniform` (a sample in [0, 1) of x's type), stochastic rounding
/// instead: |x| goes to the neighbour above when `uniform` is below its
/// distance from the neighbour beneath, in ulps.
Value roundToFormat(OpBuilder &b, Location loc, Value x,
                    const FloatFormat &format, bool saturate,
                    Value uniform = {});

/// Converts `x` of any int or float type to the narrow float type `to`.
Value convertToNarrowFloat(OpBuilder &b, Location loc, Value x, FloatType to,
                           bool saturate);

/// The value of narrow float `x` as an f32 (exact). `throughF16` decodes
/// a format whose values f16 holds through an f16 (a shift and a mask on
/// 16-bit lanes, one conversion, then a multiplication by a power of two as
/// the last op: vcvtph2ps on a CPU with F16C, half the vector instructions
/// of the integer decoding); for kernels that may use f16 (not Vulkan's).
Value narrowFloatToF32(OpBuilder &b, Location loc, Value x,
                       bool throughF16 = false);

/// The value of an f8E8M0FNU scale as an f32 (exact): 2^(code - 127), NaN
/// for code 255.
Value e8m0ToF32(OpBuilder &b, Location loc, Value x);

} // namespace mlir::rlx

#endif // RLX_CONVERSION_RLXTOLINALG_NARROWFLOATS_H
