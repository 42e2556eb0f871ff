//===- Types.cpp - Dtypes, shapes and source locations --------------------===//

#include "rlx/frontend/Types.h"

namespace rlx {

const char *dtype_name(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return "f32";
  case DType::f64:
    return "f64";
  case DType::f16:
    return "f16";
  case DType::bf16:
    return "bf16";
  case DType::i8:
    return "i8";
  case DType::i32:
    return "i32";
  case DType::i64:
    return "i64";
  case DType::i1:
    return "i1";
  default:
    // The narrow floats: MLIR's spelling, as the runtime names them.
    return rlx_dtype_name(to_c(dtype));
  }
}

bool is_float(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::f16 ||
         dtype == DType::bf16;
}

std::string format_shape(const Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") +
            (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return text + "]";
}

bool TensorType::is_static() const {
  for (int64_t d : shape)
    if (d < 0)
      return false;
  return true;
}

std::string TensorType::mlir() const {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return text + dtype_name(dtype) + ">";
}

std::string TensorType::str() const {
  return dtype_name(dtype) + format_shape(shape);
}

std::string SourceLoc::suffix() const {
  if (!file || !line)
    return "";
  std::string path = file;
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos)
    path = path.substr(slash + 1);
  return " (at " + path + ":" + std::to_string(line) + ")";
}

} // namespace rlx
