//===- rlx/dtype.hpp - The element types of the C++ API ---------*- C++ -*-===//
///
/// \file
/// One element-type enum for every C++ API of rlx (the frontend, and the
/// runtime wrapper's users): its values are the C API's `rlx_dtype_t`, so a
/// conversion is a cast and nothing maps one list onto another.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DTYPE_HPP
#define RLX_DTYPE_HPP

#include "rlx/runtime.h"

#include <cstdint>

namespace rlx {

enum class DType : int32_t {
  f16 = RLX_DTYPE_F16,
  bf16 = RLX_DTYPE_BF16,
  f32 = RLX_DTYPE_F32,
  f64 = RLX_DTYPE_F64,
  i1 = RLX_DTYPE_I1,
  i8 = RLX_DTYPE_I8,
  i32 = RLX_DTYPE_I32,
  i64 = RLX_DTYPE_I64,
  f8e4m3fn = RLX_DTYPE_F8E4M3FN,
  f8e5m2 = RLX_DTYPE_F8E5M2,
  f8e4m3fnuz = RLX_DTYPE_F8E4M3FNUZ,
  f8e5m2fnuz = RLX_DTYPE_F8E5M2FNUZ,
  f6e3m2fn = RLX_DTYPE_F6E3M2FN,
  f6e2m3fn = RLX_DTYPE_F6E2M3FN,
  f4e2m1fn = RLX_DTYPE_F4E2M1FN,
  i16 = RLX_DTYPE_I16,
  ui8 = RLX_DTYPE_UI8,
  ui16 = RLX_DTYPE_UI16,
  ui32 = RLX_DTYPE_UI32,
  ui64 = RLX_DTYPE_UI64,
  f8e8m0fnu = RLX_DTYPE_F8E8M0FNU,
};

/// The C API's value of `dtype`.
constexpr rlx_dtype_t to_c(DType dtype) {
  return static_cast<rlx_dtype_t>(dtype);
}

/// Whether `dtype` is one of rlx_dtype_t's values (C callers may pass others).
constexpr bool is_valid(rlx_dtype_t dtype) {
  return static_cast<int32_t>(dtype) >= RLX_DTYPE_F16 &&
         static_cast<int32_t>(dtype) <= RLX_DTYPE_F8E8M0FNU;
}

} // namespace rlx

#endif // RLX_DTYPE_HPP
