//===- DType.cpp - Element types and shape formatting ---------------------===//
//
/// \file
/// rlx_dtype_t's C functions and the helpers behind them.
//
//===----------------------------------------------------------------------===//

#include "DType.h"
#include "Status.h"

#include <cmath>
#include <cstring>

namespace {
struct DTypeInfo {
  const char *name;
  size_t size;
};
/// Indexed by rlx_dtype_t.
constexpr DTypeInfo dtypeInfos[] = {
    {"f16", 2},      {"bf16", 2},     {"f32", 4},        {"f64", 8},
    {"i1", 1},       {"i8", 1},       {"i32", 4},        {"i64", 8},
    {"f8E4M3FN", 1}, {"f8E5M2", 1},   {"f8E4M3FNUZ", 1}, {"f8E5M2FNUZ", 1},
    {"f6E3M2FN", 1}, {"f6E2M3FN", 1}, {"f4E2M1FN", 1},   {"i16", 2},
    {"ui8", 1},      {"ui16", 2},     {"ui32", 4},       {"ui64", 8},
    {"f8E8M0FNU", 1}};

/// The layout of a narrow float dtype: exponent and mantissa bits, bias, and
/// which codes are not numbers (as MLIR's types of the same names define).
struct NarrowFormat {
  int exponentBits, mantissaBits, bias;
  enum { IEEE, NaNOnly, NaNAsNegativeZero, FiniteOnly } specials;
};

const NarrowFormat *narrowFormat(rlx_dtype_t dtype) {
  static const NarrowFormat e4m3fn{4, 3, 7, NarrowFormat::NaNOnly},
      e5m2{5, 2, 15, NarrowFormat::IEEE},
      e4m3fnuz{4, 3, 8, NarrowFormat::NaNAsNegativeZero},
      e5m2fnuz{5, 2, 16, NarrowFormat::NaNAsNegativeZero},
      e3m2fn{3, 2, 3, NarrowFormat::FiniteOnly},
      e2m3fn{2, 3, 1, NarrowFormat::FiniteOnly},
      e2m1fn{2, 1, 1, NarrowFormat::FiniteOnly};
  switch (dtype) {
  case RLX_DTYPE_F8E4M3FN:
    return &e4m3fn;
  case RLX_DTYPE_F8E5M2:
    return &e5m2;
  case RLX_DTYPE_F8E4M3FNUZ:
    return &e4m3fnuz;
  case RLX_DTYPE_F8E5M2FNUZ:
    return &e5m2fnuz;
  case RLX_DTYPE_F6E3M2FN:
    return &e3m2fn;
  case RLX_DTYPE_F6E2M3FN:
    return &e2m3fn;
  case RLX_DTYPE_F4E2M1FN:
    return &e2m1fn;
  default:
    return nullptr;
  }
}
constexpr int numDTypes = sizeof(dtypeInfos) / sizeof(dtypeInfos[0]);
} // namespace

namespace rlxrt {

bool isValidDType(int value) { return value >= 0 && value < numDTypes; }

int dtypeBits(const rlx_dtype_t &dtype) {
  static_assert(sizeof(rlx_dtype_t) == sizeof(int),
                "rlx_dtype_t is passed as an int");
  int value;
  std::memcpy(&value, &dtype, sizeof(value));
  return value;
}

rlx_dtype_t checkedDType(const rlx_dtype_t &dtype) {
  int value = dtypeBits(dtype);
  if (!isValidDType(value))
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "invalid dtype value " + std::to_string(value));
  return static_cast<rlx_dtype_t>(value);
}

bool parseDType(const std::string &name, rlx_dtype_t &dtype) {
  for (int i = 0; i < numDTypes; ++i) {
    if (name == dtypeInfos[i].name) {
      dtype = static_cast<rlx_dtype_t>(i);
      return true;
    }
  }
  return false;
}

std::string formatDims(const int64_t *dims, size_t rank) {
  std::string text = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      text += ",";
    text += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return text + "]";
}

std::string formatDimsType(rlx_dtype_t dtype, const int64_t *dims,
                           size_t rank) {
  return std::string(rlx_dtype_name(dtype)) + formatDims(dims, rank);
}

double halfToDouble(uint16_t bits) {
  int sign = bits >> 15;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0)
    value = std::ldexp(mantissa, -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -value : value;
}

double narrowFloatToDouble(rlx_dtype_t dtype, uint8_t code) {
  // The MX block scale: an exponent alone, no sign, no zero.
  if (dtype == RLX_DTYPE_F8E8M0FNU)
    return code == 255 ? NAN : std::ldexp(1.0, code - 127);
  const NarrowFormat &f = *narrowFormat(dtype);
  int width = 1 + f.exponentBits + f.mantissaBits;
  code &= static_cast<uint8_t>((1u << width) - 1);
  bool negative = code >> (width - 1);
  int magnitude = code & ((1 << (width - 1)) - 1);
  int exponent = magnitude >> f.mantissaBits;
  int mantissa = magnitude & ((1 << f.mantissaBits) - 1);
  int allOnes = (1 << f.exponentBits) - 1;
  if ((f.specials == NarrowFormat::IEEE && exponent == allOnes) ||
      (f.specials == NarrowFormat::NaNOnly &&
       magnitude == (1 << (width - 1)) - 1) ||
      (f.specials == NarrowFormat::NaNAsNegativeZero && negative &&
       magnitude == 0)) {
    if (f.specials == NarrowFormat::IEEE && mantissa == 0)
      return negative ? -INFINITY : INFINITY;
    return NAN;
  }
  double value =
      exponent == 0
          ? std::ldexp(mantissa, 1 - f.bias - f.mantissaBits)
          : std::ldexp(mantissa + (1 << f.mantissaBits),
                       exponent - f.bias - f.mantissaBits);
  return negative ? -value : value;
}

bool isNarrowFloat(rlx_dtype_t dtype) { return narrowFormat(dtype) != nullptr; }

double bfloat16ToDouble(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

size_t checkedElementCount(const int64_t *dims, size_t rank,
                           size_t elementSize) {
  // Cap at 2^62 bytes: far beyond any real tensor, and keeps every later
  // size computation (byte offsets, strides) clear of overflow.
  const uint64_t maxBytes = uint64_t(1) << 62;
  for (size_t i = 0; i < rank; ++i)
    if (dims[i] < 0)
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "negative dimension " + std::to_string(dims[i]) + " in shape " +
               formatDims(dims, rank));
  for (size_t i = 0; i < rank; ++i)
    if (dims[i] == 0)
      return 0;
  uint64_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    uint64_t dim = static_cast<uint64_t>(dims[i]);
    if (count > maxBytes / dim)
      fail(RLX_STATUS_RESOURCE_EXHAUSTED,
           "shape " + formatDims(dims, rank) + " is too large");
    count *= dim;
  }
  if (count > maxBytes / (elementSize ? elementSize : 1))
    fail(RLX_STATUS_RESOURCE_EXHAUSTED,
         "shape " + formatDims(dims, rank) + " is too large");
  return static_cast<size_t>(count);
}

} // namespace rlxrt

extern "C" {

const char *rlx_dtype_name(rlx_dtype_t dtype) {
  int value = rlxrt::dtypeBits(dtype);
  return rlxrt::isValidDType(value) ? dtypeInfos[value].name : "?";
}

size_t rlx_dtype_size(rlx_dtype_t dtype) {
  int value = rlxrt::dtypeBits(dtype);
  return rlxrt::isValidDType(value) ? dtypeInfos[value].size : 0;
}

rlx_status_t rlx_dtype_parse(const char *name, rlx_dtype_t *out_dtype) {
  return rlxrt::guard([&] {
    rlxrt::requireArg(name, "name");
    rlxrt::requireArg(out_dtype, "out_dtype");
    rlx_dtype_t dtype;
    if (!rlxrt::parseDType(name, dtype))
      rlxrt::fail(RLX_STATUS_INVALID_ARGUMENT,
                std::string("unknown dtype '") + name + "'");
    *out_dtype = dtype;
  });
}

} // extern "C"
