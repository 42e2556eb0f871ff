//===- BufferAliases.h - The buffer behind a memref view --------*- C++ -*-===//
///
/// \file
/// Result ownership, deallocation placement and workspace accounting all
/// ask which allocation a memref value is a view of, and how big it is.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_COMMON_BUFFERALIASES_H
#define RLX_CODEGEN_COMMON_BUFFERALIASES_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>
#include <cstdint>

namespace mlir::rlx {

/// The buffer a chain of views and casts starts from.
inline mlir::Value rootBuffer(mlir::Value v) {
  while (mlir::Operation *def = v.getDefiningOp()) {
    if (auto view = llvm::dyn_cast<mlir::ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    if (auto cast = llvm::dyn_cast<mlir::memref::CastOp>(def)) {
      v = cast.getSource();
      continue;
    }
    break;
  }
  return v;
}

/// Bytes of a statically shaped buffer (i1 takes a byte, index 8), or 0
/// when dynamic or of another element type (the deallocation pipeline's
/// buffers around loops can be of `index`).
inline int64_t staticBytes(mlir::MemRefType type) {
  mlir::Type element = type.getElementType();
  if (!type.hasStaticShape() || !(element.isIntOrFloat() || element.isIndex()))
    return 0;
  int64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

} // namespace mlir::rlx

#endif // RLX_CODEGEN_COMMON_BUFFERALIASES_H
