//===- ShapeUtils.h - Shape arithmetic shared by rlx ops -------*- C++ -*-===//
///
/// \file
/// Shape rules used by the verifiers, the TOSA import and the lowering, so
/// that all three agree on what a shape means.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_SHAPEUTILS_H
#define RLX_DIALECTS_RLX_IR_SHAPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace rlx {

/// NumPy broadcast of two shapes aligned from the right. A static 1
/// stretches; a dynamic dim is assumed equal to a static non-1 size on the
/// other side. Returns std::nullopt when two static sizes differ and neither
/// is 1.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Prints a shape as `[?,784]` for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Output extent of a sliding window (convolution, pooling), or
/// ShapedType::kDynamic when `size` is dynamic.
int64_t slidingWindowExtent(int64_t size, int64_t padBefore, int64_t padAfter,
                            int64_t window, int64_t stride, int64_t dilation);

} // namespace rlx

#endif // RLX_DIALECTS_RLX_IR_SHAPEUTILS_H
