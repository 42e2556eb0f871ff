//===- ShapeUtils.cpp - Shape arithmetic shared by rlx ops ----------------===//

#include "dialects/RLX/IR/ShapeUtils.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mlir::rlx {

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

std::string formatArray(llvm::ArrayRef<int64_t> values) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleave(values, os, ",");
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

std::optional<llvm::SmallVector<ReshapeGroup>>
groupReshape(llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> out) {
  llvm::SmallVector<ReshapeGroup> groups;
  int64_t n = in.size(), m = out.size(), i = 0, j = 0;
  while (i < n || j < m) {
    ReshapeGroup g{i, i, j, j};
    int64_t inCount = 1, outCount = 1, inDynamic = 0, outDynamic = 0;
    auto takeIn = [&] {
      if (ShapedType::isDynamic(in[i]))
        ++inDynamic;
      else
        inCount *= in[i];
      ++i;
    };
    auto takeOut = [&] {
      if (ShapedType::isDynamic(out[j]))
        ++outDynamic;
      else
        outCount *= out[j];
      ++j;
    };
    if (i < n)
      takeIn();
    if (j < m)
      takeOut();
    while (inDynamic != outDynamic || inCount != outCount) {
      if (inDynamic > 1 || outDynamic > 1)
        return std::nullopt;
      bool wantIn = inDynamic != outDynamic ? inDynamic < outDynamic
                                            : inCount < outCount;
      if (wantIn ? i == n : j == m)
        return std::nullopt;
      wantIn ? takeIn() : takeOut();
    }
    g.inEnd = i;
    g.outEnd = j;
    // A group with nothing on one side (unit dims at an end) joins its
    // neighbour.
    if ((g.inBegin == g.inEnd || g.outBegin == g.outEnd) && !groups.empty()) {
      groups.back().inEnd = g.inEnd;
      groups.back().outEnd = g.outEnd;
    } else {
      groups.push_back(g);
    }
  }
  // Leading unit dims on one side only: merge into the next group.
  if (groups.size() > 1 && (groups[0].inBegin == groups[0].inEnd ||
                            groups[0].outBegin == groups[0].outEnd)) {
    groups[1].inBegin = groups[0].inBegin;
    groups[1].outBegin = groups[0].outBegin;
    groups.erase(groups.begin());
  }
  return groups;
}

} // namespace mlir::rlx
