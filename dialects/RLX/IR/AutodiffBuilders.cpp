//===- AutodiffBuilders.cpp - Building rlx ops in derivative rules --------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlir::rlx::ad {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

Value scalar(RuleBuilder b, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  Attribute attr;
  if (auto f = dyn_cast<FloatType>(element))
    attr = FloatAttr::get(f, value);
  else
    attr = IntegerAttr::get(element, static_cast<int64_t>(value));
  return ConstantOp::create(b.b, b.loc, DenseElementsAttr::get(type, attr));
}

Value scalarLike(RuleBuilder b, Value like, double value) {
  return scalar(b, tensorType(like).getElementType(), value);
}

Value zerosLike(RuleBuilder b, Value like) {
  RankedTensorType type = tensorType(like);
  if (type.hasStaticShape()) {
    Attribute zero = b.b.getZeroAttr(type.getElementType());
    return ConstantOp::create(b.b, b.loc, DenseElementsAttr::get(type, zero));
  }
  // Dynamic: select(false, like, 0) has like's shape and is all zeros, even
  // where like holds NaN or inf.
  Value no = scalar(b, b.b.getI1Type(), 0);
  return SelectOp::create(b.b, b.loc, no, like, scalarLike(b, like, 0));
}

Value add(RuleBuilder b, Value x, Value y) {
  return AddOp::create(b.b, b.loc, x, y);
}
Value sub(RuleBuilder b, Value x, Value y) {
  return SubOp::create(b.b, b.loc, x, y);
}
Value mul(RuleBuilder b, Value x, Value y) {
  return MulOp::create(b.b, b.loc, x, y);
}
Value div(RuleBuilder b, Value x, Value y) {
  return DivOp::create(b.b, b.loc, x, y);
}
Value neg(RuleBuilder b, Value x) { return NegOp::create(b.b, b.loc, x); }

Value select(RuleBuilder b, Value cond, Value x, Value y) {
  return SelectOp::create(b.b, b.loc, cond, x, y);
}

Value compare(RuleBuilder b, StringRef direction, Value x, Value y) {
  return CompareOp::create(b.b, b.loc, direction, x, y);
}

Value castTo(RuleBuilder b, Value x, Type element) {
  RankedTensorType type = tensorType(x);
  if (type.getElementType() == element)
    return x;
  return CastOp::create(b.b, b.loc, type.clone(element), x);
}

Value sum(RuleBuilder b, Value x, ArrayRef<int64_t> axes, bool keepdims) {
  if (axes.empty())
    return x;
  return SumOp::create(b.b, b.loc, x, axes, keepdims);
}

Value reshapeTo(RuleBuilder b, Value x, RankedTensorType type) {
  RankedTensorType from = tensorType(x);
  if (from == type)
    return x;
  if (from.getShape().size() == type.getShape().size() &&
      llvm::all_of(llvm::zip(from.getShape(), type.getShape()), [](auto p) {
        auto [f, t] = p;
        return f == t || ShapedType::isDynamic(f) || ShapedType::isDynamic(t);
      }))
    return tensor::CastOp::create(b.b, b.loc, type, x);
  return ReshapeOp::create(b.b, b.loc, type, x);
}

Value sumToType(RuleBuilder b, Value g, RankedTensorType target) {
  RankedTensorType type = tensorType(g);
  int64_t lead = type.getRank() - target.getRank();
  SmallVector<int64_t> leading;
  for (int64_t d = 0; d < lead; ++d)
    leading.push_back(d);
  g = sum(b, g, leading, /*keepdims=*/false);
  type = tensorType(g);
  SmallVector<int64_t> stretched;
  for (int64_t d = 0; d < target.getRank(); ++d)
    if (target.getDimSize(d) == 1 && type.getDimSize(d) != 1)
      stretched.push_back(d);
  g = sum(b, g, stretched, /*keepdims=*/true);
  return reshapeTo(b, g, target.clone(tensorType(g).getElementType()));
}

Value transpose(RuleBuilder b, Value x, ArrayRef<int64_t> perm) {
  return TransposeOp::create(b.b, b.loc, x, perm);
}

Value transposeLast2(RuleBuilder b, Value x) {
  int64_t rank = tensorType(x).getRank();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return transpose(b, x, perm);
}

Value roundHalfToEven(RuleBuilder b, Value x) {
  Value shift = scalarLike(b, x, 12582912.0); // 1.5 * 2^23
  return sub(b, add(b, x, shift), shift);
}

Value matmul(RuleBuilder b, Value x, Value y) {
  return MatmulOp::create(b.b, b.loc, x, y);
}

Value broadcastLike(RuleBuilder b, Value x, Value like) {
  if (tensorType(x).getShape() == tensorType(like).getShape())
    return x;
  return add(b, zerosLike(b, like), x);
}

/// Gives a batched value of original rank `rank` the rank `target` by
/// inserting unit dims right after the batch dim.
Value alignBatched(RuleBuilder b, Value v, int64_t target) {
  RankedTensorType type = tensorType(v);
  int64_t missing = target + 1 - type.getRank();
  if (missing <= 0)
    return v;
  SmallVector<int64_t> shape = {type.getDimSize(0)};
  shape.append(missing, 1);
  llvm::append_range(shape, type.getShape().drop_front());
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 1; d < type.getRank(); ++d)
    dims.push_back(d + missing);
  return BroadcastInDimOp::create(b.b, b.loc, type.clone(shape), v,
                                  b.b.getDenseI64ArrayAttr(dims));
}

/// Broadcasts unbatched `v` along a new leading batch dim taken from
/// `batchedLike` (works for a dynamic batch: zeros shaped [B, 1, ...]).
Value broadcastToBatch(RuleBuilder b, Value v, Value batchedLike) {
  RankedTensorType like = tensorType(batchedLike);
  SmallVector<int64_t> rest;
  for (int64_t d = 1; d < like.getRank(); ++d)
    rest.push_back(d);
  Value zeros = sum(b, zerosLike(b, batchedLike), rest, /*keepdims=*/false);
  // zeros: [B]; lift to [B, 1, ..., 1] of v's rank + 1.
  int64_t rank = tensorType(v).getRank();
  Value column = alignBatched(b, zeros, rank);
  Value cast = castTo(b, column, tensorType(v).getElementType());
  return add(b, cast, v);
}

} // namespace mlir::rlx::ad
