//===- Types.h - Dtypes, shapes, errors of the tracing frontend -*- C++ -*-===//
///
/// \file
/// The vocabulary every other frontend header uses: element types, shapes
/// with dynamic dims, the error type, and the user's source location that
/// trace-time errors name.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_TYPES_H
#define RLX_FRONTEND_TYPES_H

#include <cstdint>
#include <stdexcept>
#include "rlx/dtype.hpp"

#include <string>
#include <vector>

namespace rlx {

/// A dimension whose size is known only at run time (`?` in MLIR).
constexpr int64_t dyn = -1;

/// Element types: rlx::DType (rlx/dtype.hpp), the runtime's enum.
constexpr DType f32 = DType::f32, f64 = DType::f64, f16 = DType::f16,
                bf16 = DType::bf16, i8 = DType::i8, i32 = DType::i32,
                i64 = DType::i64, i1 = DType::i1;

/// `f32`, `i1`, ... as MLIR spells them.
const char *dtype_name(DType dtype);
bool is_float(DType dtype);

using Shape = std::vector<int64_t>;

/// `[?,784]`.
std::string format_shape(const Shape &shape);

/// A ranked tensor type.
struct TensorType {
  DType dtype = DType::f32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool is_static() const;
  /// `tensor<?x784xf32>`.
  std::string mlir() const;
  /// `f32[?,784]`, for messages.
  std::string str() const;
  bool operator==(const TensorType &o) const {
    return dtype == o.dtype && shape == o.shape;
  }
  bool operator!=(const TensorType &o) const { return !(*this == o); }
};

/// Where a frontend call was made in the user's code. Frontend functions take
/// it as a defaulted last argument, so `__builtin_FILE()`, `__builtin_LINE()`
/// and `__builtin_COLUMN()` are evaluated at the call site; it becomes the
/// op's location in the traced IR.
struct SourceLoc {
  const char *file = nullptr;
  unsigned line = 0;
  unsigned column = 0;

  static SourceLoc current(const char *file = __builtin_FILE(),
                           unsigned line = __builtin_LINE(),
                           unsigned column = __builtin_COLUMN()) {
    return {file, line, column};
  }
  /// ` (at model.cpp:12)`, or empty when unknown.
  std::string suffix() const;
};

/// Every frontend failure: shape errors while tracing, bad inputs to a jitted
/// function, compile errors (with the compiler's diagnostics).
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

} // namespace rlx

#endif // RLX_FRONTEND_TYPES_H
