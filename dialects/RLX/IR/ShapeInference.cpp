//===- ShapeInference.cpp - Result shapes of rlx ops ----------------------===//

#include "dialects/RLX/IR/ShapeInference.h"
#include "dialects/RLX/IR/ShapeUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;

namespace mlir::rlx {

LogicalResult checkAxis(int64_t axis, int64_t rank, EmitErrorFn emitError,
                        StringRef what) {
  if (axis < 0 || axis >= rank)
    return emitError() << "expects " << what << " in [0, " << rank << "), got "
                       << axis;
  return success();
}

ShapeOrFailure inferBroadcastShape(TypeRange operands, EmitErrorFn emitError) {
  SmallVector<int64_t> shape;
  for (Type operand : operands) {
    auto type = dyn_cast<RankedTensorType>(operand);
    if (!type)
      return emitError() << "expects ranked tensor operands";
    std::optional<SmallVector<int64_t>> next =
        broadcastShapes(shape, type.getShape());
    if (!next)
      return emitError() << "expects operand shapes that broadcast, got "
                         << formatShape(shape) << " and "
                         << formatShape(type.getShape());
    shape = std::move(*next);
  }
  return shape;
}

ShapeOrFailure inferMatmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                EmitErrorFn emitError) {
  if (lhs.size() < 2 || rhs.size() < 2)
    return emitError() << "expects operands of rank 2 or more, got "
                       << formatShape(lhs) << " and " << formatShape(rhs);
  int64_t k = lhs.back(), k2 = rhs[rhs.size() - 2];
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(k2) && k != k2)
    return emitError() << "expects contracting dims to match: lhs "
                       << formatShape(lhs) << " has K = " << k << ", rhs "
                       << formatShape(rhs) << " has K = " << k2;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!shape)
    return emitError() << "expects batch dims that broadcast, got "
                       << formatShape(lhs.drop_back(2)) << " and "
                       << formatShape(rhs.drop_back(2));
  shape->push_back(lhs[lhs.size() - 2]);
  shape->push_back(rhs.back());
  return *shape;
}

/// The NHWC output of a sliding window over `input` with `channels` output
/// channels, after checking the attributes conv2d and pooling share.
static ShapeOrFailure
inferWindowShape(ArrayRef<int64_t> input, ArrayRef<int64_t> window,
                 ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                 ArrayRef<int64_t> dilations, int64_t channels,
                 EmitErrorFn emitError) {
  if (input.size() != 4)
    return emitError() << "expects an NHWC input of rank 4, got "
                       << formatShape(input);
  if (window.size() != 2 || strides.size() != 2 || dilations.size() != 2)
    return emitError() << "expects 2 window sizes, 2 strides and 2 dilations";
  if (padding.size() != 4)
    return emitError() << "expects padding [top, bottom, left, right], got "
                       << formatArray(padding);
  auto nonPositive = [](int64_t v) { return v < 1; };
  if (llvm::any_of(window, nonPositive) || llvm::any_of(strides, nonPositive) ||
      llvm::any_of(dilations, nonPositive))
    return emitError() << "expects positive window sizes, strides and "
                          "dilations";
  if (llvm::any_of(padding, [](int64_t v) { return v < 0; }))
    return emitError() << "expects non-negative padding, got "
                       << formatArray(padding);
  return SmallVector<int64_t>{
      input[0],
      slidingWindowExtent(input[1], padding[0], padding[1], window[0],
                          strides[0], dilations[0]),
      slidingWindowExtent(input[2], padding[2], padding[3], window[1],
                          strides[1], dilations[1]),
      channels};
}

ShapeOrFailure inferConv2DShape(ArrayRef<int64_t> input,
                                ArrayRef<int64_t> filter,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> padding,
                                ArrayRef<int64_t> dilations, int64_t groups,
                                EmitErrorFn emitError) {
  if (filter.size() != 4)
    return emitError() << "expects an HWIO filter of rank 4, got "
                       << formatShape(filter);
  if (llvm::any_of(filter, ShapedType::isDynamic))
    return emitError() << "expects a static filter shape, got "
                       << formatShape(filter);
  if (groups < 1)
    return emitError() << "expects groups >= 1, got " << groups;
  if (input.size() == 4 && !ShapedType::isDynamic(input[3]) &&
      input[3] != filter[2] * groups)
    return emitError() << "expects input channels " << input[3]
                       << " = filter input channels " << filter[2]
                       << " x groups " << groups;
  if (filter[3] % groups != 0)
    return emitError() << "expects filter output channels " << filter[3]
                       << " divisible by groups " << groups;
  return inferWindowShape(input, filter.take_front(2), strides, padding,
                          dilations, filter[3], emitError);
}

ShapeOrFailure inferPool2DShape(ArrayRef<int64_t> input,
                                ArrayRef<int64_t> window,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> padding,
                                EmitErrorFn emitError) {
  if (input.size() == 4 && window.size() == 2 && padding.size() == 4 &&
      (padding[0] >= window[0] || padding[1] >= window[0] ||
       padding[2] >= window[1] || padding[3] >= window[1]))
    return emitError() << "expects padding smaller than the window, got "
                       << formatArray(padding);
  int64_t channels = input.size() == 4 ? input[3] : 0;
  return inferWindowShape(input, window, strides, padding, {1, 1}, channels,
                          emitError);
}

ShapeOrFailure inferReductionShape(ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> axes, bool keepdims,
                                   EmitErrorFn emitError) {
  int64_t rank = input.size();
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t axis : axes) {
    if (failed(checkAxis(axis, rank, emitError, "axes")))
      return failure();
    if (!seen.insert(axis).second)
      return emitError() << "expects distinct axes, got " << formatArray(axes);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!seen.contains(d))
      shape.push_back(input[d]);
    else if (keepdims)
      shape.push_back(1);
  }
  return shape;
}

ShapeOrFailure inferTransposeShape(ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> permutation,
                                   EmitErrorFn emitError) {
  int64_t rank = input.size();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitError() << "expects a permutation of " << rank << " dims, got "
                       << formatArray(permutation);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : permutation) {
    if (p < 0 || p >= rank || seen[p])
      return emitError() << "expects a permutation of [0, " << rank << "), got "
                         << formatArray(permutation);
    seen[p] = true;
    shape.push_back(input[p]);
  }
  return shape;
}

ShapeOrFailure inferSliceShape(ArrayRef<int64_t> input, ArrayRef<int64_t> start,
                               ArrayRef<int64_t> limit,
                               ArrayRef<int64_t> strides,
                               EmitErrorFn emitError) {
  int64_t rank = input.size();
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(limit.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank)
    return emitError() << "expects start, limit and strides with one entry "
                          "per dim ("
                       << rank << ")";
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = input[d], first = start[d], last = limit[d],
            stride = strides[d];
    if (stride < 1)
      return emitError() << "expects positive strides, got "
                         << formatArray(strides);
    if (ShapedType::isDynamic(size)) {
      if (stride != 1)
        return emitError() << "expects stride 1 on dynamic dim " << d;
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    if (last == -1)
      last = size;
    if (first < 0 || first > last || last > size)
      return emitError() << "expects 0 <= start <= limit <= size on dim " << d
                         << ", got start " << first << ", limit " << last
                         << ", size " << size;
    shape.push_back((last - first + stride - 1) / stride);
  }
  return shape;
}

ShapeOrFailure inferPadShape(ArrayRef<int64_t> input,
                             ArrayRef<int64_t> paddingValue,
                             ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                             ArrayRef<int64_t> interior,
                             EmitErrorFn emitError) {
  if (!paddingValue.empty())
    return emitError() << "expects a rank-0 padding value, got "
                       << formatShape(paddingValue);
  int64_t rank = input.size();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank ||
      static_cast<int64_t>(interior.size()) != rank)
    return emitError() << "expects low, high and interior with one entry per "
                          "dim ("
                       << rank << ")";
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t lo = low[d], hi = high[d], inner = interior[d], size = input[d];
    if (lo < 0 || hi < 0 || inner < 0)
      return emitError() << "expects non-negative padding on dim " << d;
    if (ShapedType::isDynamic(size)) {
      if (lo || hi || inner)
        return emitError() << "expects no padding on dynamic dim " << d;
      shape.push_back(size);
      continue;
    }
    shape.push_back(lo + size + std::max<int64_t>(size - 1, 0) * inner + hi);
  }
  return shape;
}

ShapeOrFailure inferConcatShape(TypeRange inputs, int64_t axis,
                                EmitErrorFn emitError) {
  if (inputs.empty())
    return emitError() << "expects at least one input";
  auto first = dyn_cast<RankedTensorType>(inputs.front());
  if (!first)
    return emitError() << "expects ranked tensor inputs";
  int64_t rank = first.getRank();
  if (failed(checkAxis(axis, rank, emitError)))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(input);
    if (!type)
      return emitError() << "expects ranked tensor inputs";
    if (type.getRank() != rank)
      return emitError() << "expects every input of rank " << rank << ", input "
                         << i << " is " << formatShape(type.getShape());
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && type.getDimSize(d) != first.getDimSize(d))
        return emitError() << "expects input " << i << " "
                           << formatShape(type.getShape())
                           << " to match input 0 "
                           << formatShape(first.getShape()) << " on dim " << d;
    }
    int64_t size = type.getDimSize(axis);
    shape[axis] =
        ShapedType::isDynamic(shape[axis]) || ShapedType::isDynamic(size)
            ? ShapedType::kDynamic
            : shape[axis] + size;
  }
  return shape;
}

ShapeOrFailure inferGatherShape(ArrayRef<int64_t> input,
                                ArrayRef<int64_t> indices, int64_t axis,
                                EmitErrorFn emitError) {
  if (failed(checkAxis(axis, input.size(), emitError)))
    return failure();
  SmallVector<int64_t> shape(input.take_front(axis));
  llvm::append_range(shape, indices);
  llvm::append_range(shape, input.drop_front(axis + 1));
  return shape;
}

ShapeOrFailure inferKeyBatchShape(Type key, EmitErrorFn emitError) {
  auto type = dyn_cast<RankedTensorType>(key);
  if (!type || type.getRank() < 1 || type.getShape().back() != 2 ||
      !type.getElementType().isInteger(32))
    return emitError() << "expects a key of type tensor<...x2xi32> (batch "
                          "dims, then two 32-bit words), got "
                       << key;
  return SmallVector<int64_t>(type.getShape().drop_back());
}

LogicalResult verifyRoundingKey(Type key, RankedTensorType xType,
                                EmitErrorFn emitError) {
  // The random ops' rule for a key: batch dims, then two words.
  ShapeOrFailure batch = inferKeyBatchShape(key, emitError);
  if (failed(batch))
    return failure();
  int64_t batchRank = static_cast<int64_t>(batch->size());
  if (batchRank > xType.getRank())
    return emitError() << "expects the key's batch dims to be x's leading "
                          "dims, got a key of "
                       << batchRank << " batch dims for x of rank "
                       << xType.getRank();
  for (int64_t d = 0; d < batchRank; ++d) {
    int64_t k = (*batch)[d], x = xType.getDimSize(d);
    if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(x) && k != x)
      return emitError() << "expects the key's batch dims to be x's leading "
                            "dims, got key dim "
                         << d << " of " << k << " for x's " << x;
  }
  return success();
}

ShapeOrFailure inferRandomSplitShape(Type key, int64_t num,
                                     EmitErrorFn emitError) {
  ShapeOrFailure shape = inferKeyBatchShape(key, emitError);
  if (failed(shape))
    return failure();
  if (num < 1)
    return emitError() << "expects num >= 1, got " << num;
  shape->append({num, 2});
  return shape;
}

ShapeOrFailure inferRandomFoldInShape(Type key, Type data,
                                      EmitErrorFn emitError) {
  ShapeOrFailure batch = inferKeyBatchShape(key, emitError);
  if (failed(batch))
    return failure();
  auto dataType = dyn_cast<RankedTensorType>(data);
  if (!dataType || !dataType.getElementType().isInteger(32))
    return emitError() << "expects ranked i32 data, got " << data;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(*batch, dataType.getShape());
  if (!shape)
    return emitError() << "expects key batch dims " << formatShape(*batch)
                       << " and data dims " << formatShape(dataType.getShape())
                       << " that broadcast";
  shape->push_back(2);
  return *shape;
}

} // namespace mlir::rlx
