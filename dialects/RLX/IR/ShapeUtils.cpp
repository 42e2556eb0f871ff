//===- ShapeUtils.cpp - Shape arithmetic shared by rlx ops ----------------===//

#include "dialects/RLX/IR/ShapeUtils.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace rlx {

std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  llvm::SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == 1) {
      result[i] = y;
    } else if (y == 1) {
      result[i] = x;
    } else if (ShapedType::isDynamic(x)) {
      result[i] = y;
    } else if (ShapedType::isDynamic(y) || x == y) {
      result[i] = x;
    } else {
      return std::nullopt;
    }
  }
  return result;
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      ",");
  os << "]";
  return text;
}

int64_t slidingWindowExtent(int64_t size, int64_t padBefore, int64_t padAfter,
                            int64_t window, int64_t stride, int64_t dilation) {
  if (ShapedType::isDynamic(size))
    return ShapedType::kDynamic;
  int64_t span = dilation * (window - 1) + 1;
  int64_t padded = size + padBefore + padAfter;
  if (padded < span)
    return 0;
  return (padded - span) / stride + 1;
}

} // namespace rlx
