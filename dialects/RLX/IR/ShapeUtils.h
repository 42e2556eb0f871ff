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

namespace mlir::rlx {

/// NumPy broadcast of two shapes aligned from the right. A static 1
/// stretches; a dynamic dim is assumed equal to a static non-1 size on the
/// other side. Returns std::nullopt when two static sizes differ and neither
/// is 1.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Prints a shape as `[?,784]` for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Prints integers as `[1,2]` for diagnostics (attribute arrays, where -1
/// is a value rather than a dynamic dim).
std::string formatArray(llvm::ArrayRef<int64_t> values);

/// Output extent of a sliding window (convolution, pooling), or
/// ShapedType::kDynamic when `size` is dynamic.
int64_t slidingWindowExtent(int64_t size, int64_t padBefore, int64_t padAfter,
                            int64_t window, int64_t stride, int64_t dilation);

/// Consecutive operand dims [inBegin, inEnd) that hold the same elements as
/// consecutive result dims [outBegin, outEnd) of a reshape.
struct ReshapeGroup {
  int64_t inBegin, inEnd, outBegin, outEnd;
};

/// Splits a reshape from `in` to `out` into the finest consecutive groups
/// whose static sizes multiply to the same count on both sides and that hold
/// the same number, zero or one, of dynamic dims on each side; the dynamic
/// result dim of a group then equals its dynamic operand dim. Unit dims at
/// either end join the neighbouring group. Returns std::nullopt when no such
/// split exists (a dynamic dim would have to be divided between several).
/// This is how a reshape with several dynamic result dims is sized: the
/// verifier accepts it only when the split exists, and the lowering and the
/// dim relations of entry points follow the groups.
std::optional<llvm::SmallVector<ReshapeGroup>>
groupReshape(llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> out);

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_IR_SHAPEUTILS_H
