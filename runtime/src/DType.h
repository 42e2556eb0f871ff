//===- DType.h - Element types and shape formatting -------------*- C++ -*-===//
//
/// \file
/// Element type helpers shared by the file formats, the manifest and calls,
/// and the one spelling of a type in messages: `f32[?,784]`.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_DTYPE_H
#define RLX_RUNTIME_SRC_DTYPE_H

#include "rlx/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rlxrt {

/// True for the integer value of an rlx_dtype_t enumerator.
bool isValidDType(int value);

/// The integer a caller passed as `dtype`, read as bytes: C callers may pass
/// any int, and loading a value outside the enum's range as rlx_dtype_t is
/// undefined in C++ (UBSan's enum check). Every public entry taking a dtype
/// reads it through this before anything else.
int dtypeBits(const rlx_dtype_t &dtype);

/// `dtype` once its integer is checked; INVALID_ARGUMENT naming the value
/// otherwise.
rlx_dtype_t checkedDType(const rlx_dtype_t &dtype);

/// Parses a manifest spelling ("f32"); false if unknown.
bool parseDType(const std::string &name, rlx_dtype_t &dtype);

/// `[?,784]`: -1 (dynamic) prints as `?`.
std::string formatDims(const int64_t *dims, size_t rank);
inline std::string formatDims(const std::vector<int64_t> &dims) {
  return formatDims(dims.data(), dims.size());
}

/// `f32[?,784]`.
std::string formatDimsType(rlx_dtype_t dtype, const int64_t *dims, size_t rank);
inline std::string formatDimsType(rlx_dtype_t dtype,
                                  const std::vector<int64_t> &dims) {
  return formatDimsType(dtype, dims.data(), dims.size());
}

/// IEEE half and bfloat16 bit patterns widened exactly.
double halfToDouble(uint16_t bits);
double bfloat16ToDouble(uint16_t bits);
/// The f8/f6/f4 dtypes (RLX_DTYPE_F8E4M3FN ...).
bool isNarrowFloat(rlx_dtype_t dtype);
/// The value of one element of a narrow float dtype (its code in the low
/// bits of the byte; higher bits ignored, as ml_dtypes does).
double narrowFloatToDouble(rlx_dtype_t dtype, uint8_t code);

/// The number of elements of `dims`; throws INVALID_ARGUMENT for a negative
/// size and RESOURCE_EXHAUSTED when the byte size of `elementSize`-byte
/// elements would not fit in memory.
size_t checkedElementCount(const int64_t *dims, size_t rank,
                           size_t elementSize);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_DTYPE_H
