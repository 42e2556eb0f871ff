//===- IndexedOps.cpp - ONNX GatherND, ScatterND and ScatterElements ------===//
///
/// \file
/// Reads and writes at index tuples. GatherND is one rlx.gather at linear
/// indices. rlx has no scatter op, so the scatters compare each output
/// position with every index (a one-hot the size of positions times
/// indices, capped): ScatterND's plain write gathers, for each position,
/// the update of the last index naming it; the reductions sum (or
/// multiply) the updates each position is named by, through selects, so an
/// infinite or NaN update reaches only its own positions.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

namespace mlir::rlx::onnx_import {
namespace {

/// The most elements of a scatter's one-hot (positions x indices, times
/// the update's trailing elements for the reductions).
constexpr int64_t kMaxOneHot = int64_t(1) << 26;
/// The most updates a `mul` reduction multiplies one by one.
constexpr int64_t kMaxMulUpdates = 256;

/// Index tuples (the last dim of `index`, k components into the first k
/// dims of `x` after `batchDims` batch dims) as linear indices into `x`
/// with its batch and indexed dims folded into one: [index.shape[:-1]],
/// i64, negative components wrapped. The folded dims must be static.
struct Linearized {
  Value linear;
  /// x's shape with the folded dims as one.
  Ints flatShape;
};
FailureOr<Linearized> linearize(NodeContext &ctx, Value x, Value index,
                                int64_t b) {
  RankedTensorType xType = typeOf(x), iType = typeOf(index);
  int64_t r = xType.getRank(), q = iType.getRank();
  if (q < 1 || b < 0 || b >= std::min(r, q))
    return ctx.error() << "batch_dims " << b
                       << " must be less than the ranks of data (" << r
                       << ") and indices (" << q << ")";
  if (!isa<IntegerType>(iType.getElementType()))
    return ctx.error() << "indices must be integers";
  int64_t k = iType.getShape().back();
  if (ShapedType::isDynamic(k) || k < 1 || k > r - b)
    return ctx.error() << "the indices' last dim must be static and in [1, "
                       << r - b << "]";
  ArrayRef<int64_t> folded = xType.getShape().take_front(b + k);
  if (llvm::any_of(folded, ShapedType::isDynamic))
    return ctx.error() << "the data's batch and indexed dims must be static";
  std::optional<int64_t> rows = checkedProduct(folded);
  if (!rows || *rows > (int64_t(1) << 40))
    return ctx.error() << "the data's indexed dims are too large";
  for (int64_t d = 0; d < b; ++d)
    if (iType.getDimSize(d) != xType.getDimSize(d))
      return ctx.error() << "batch dim " << d
                         << " of indices must equal the data's ("
                         << xType.getDimSize(d) << ")";
  Type i64 = ctx.builder().getIntegerType(64);
  Value idx = index;
  if (iType.getElementType() != i64)
    idx = CastOp::create(ctx.builder(), ctx.loc, iType.clone(i64), idx);
  Ints outer(iType.getShape().drop_back());
  std::optional<Value> linear;
  int64_t stride = 1;
  for (int64_t d = b + k - 1; d >= 0; --d) {
    int64_t size = xType.getDimSize(d);
    FailureOr<Value> term = failure();
    if (d >= b) {
      // Component d - b of each tuple, negatives counted from the end.
      Ints start(q, 0), limit(q, -1), strides(q, 1);
      start[q - 1] = d - b;
      limit[q - 1] = d - b + 1;
      FailureOr<Value> c = ctx.create<SliceOp>(idx, start, limit, strides);
      if (failed(c))
        return failure();
      Value component = reshape(ctx, *c, outer);
      FailureOr<Value> negative =
          ctx.create<CompareOp>("lt", component, scalar(ctx, i64, 0.0));
      FailureOr<Value> wrapped =
          ctx.create<AddOp>(component, scalar(ctx, i64, double(size)));
      if (failed(negative) || failed(wrapped))
        return failure();
      term = ctx.create<SelectOp>(*negative, *wrapped, component);
    } else {
      // The batch position along dim d.
      term = indicesAlong(ctx, size, d, outer.size(), i64);
    }
    if (failed(term) ||
        (stride != 1 &&
         failed(term = ctx.create<MulOp>(
                    *term, scalar(ctx, i64, double(stride))))) ||
        (linear && failed(term = ctx.create<AddOp>(*linear, *term))))
      return failure();
    linear = *term;
    stride *= size;
  }
  Linearized result{*linear, {*rows}};
  llvm::append_range(result.flatShape, xType.getShape().drop_front(b + k));
  return result;
}

/// GatherND: one rlx.gather at the linear indices; the output is
/// indices.shape[:-1] + data.shape[batch_dims + k:].
LogicalResult convertGatherND(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"batch_dims"})))
    return failure();
  FailureOr<int64_t> batchDims = ctx.getInt("batch_dims", 0);
  FailureOr<Value> x = ctx.input(0), index = ctx.input(1);
  if (failed(batchDims) || failed(x) || failed(index))
    return failure();
  FailureOr<Linearized> l = linearize(ctx, *x, *index, *batchDims);
  if (failed(l))
    return failure();
  FailureOr<Value> y = ctx.create<GatherOp>(reshape(ctx, *x, l->flatShape),
                                            l->linear, uint64_t(0));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

enum class Reduction { None, Add, Mul };

FailureOr<Reduction> readReduction(NodeContext &ctx) {
  FailureOr<std::string> r = ctx.getString("reduction", "none");
  if (failed(r))
    return failure();
  if (*r == "none")
    return Reduction::None;
  if (*r == "add")
    return Reduction::Add;
  if (*r == "mul")
    return Reduction::Mul;
  (void)ctx.unsupportedAttribute("reduction",
                                 "'" + *r + "' (none, add and mul are)");
  return failure();
}

/// `updates` reduced into `data` where `match` holds: match is [P, N]
/// (position p is named by update n), updates [N, R...] and data
/// [P, R...]. None: each named position takes the update of the largest
/// n naming it (a gather); add and mul combine all of them.
FailureOr<Value> scatterRows(NodeContext &ctx, Value data, Value updates,
                             Value match, Reduction reduction) {
  RankedTensorType dType = typeOf(data), uType = typeOf(updates);
  int64_t P = dType.getDimSize(0), N = uType.getDimSize(0);
  int64_t trailing = dType.getRank() - 1;
  Type i64 = ctx.builder().getIntegerType(64);
  Type elementType = dType.getElementType();
  // match as [P, N, 1...] against updates as [1, N, R...].
  Ints matchShape{P, N};
  matchShape.append(trailing, 1);
  Value m = reshape(ctx, match, matchShape);
  if (reduction == Reduction::None) {
    FailureOr<Value> positions = indicesAlong(ctx, N, 1, 2, i64);
    if (failed(positions))
      return failure();
    FailureOr<Value> last = ctx.create<SelectOp>(match, *positions,
                                                 scalar(ctx, i64, -1.0));
    if (failed(last) ||
        failed(last = ctx.create<MaxOp>(*last, ArrayRef<int64_t>{1}, false)))
      return failure();
    FailureOr<Value> named =
        ctx.create<CompareOp>("ge", *last, scalar(ctx, i64, 0.0));
    FailureOr<Value> safe =
        ctx.create<MaximumOp>(*last, scalar(ctx, i64, 0.0));
    if (failed(named) || failed(safe))
      return failure();
    FailureOr<Value> picked = ctx.create<GatherOp>(updates, *safe, uint64_t(0));
    if (failed(picked))
      return failure();
    Ints namedShape{P};
    namedShape.append(trailing, 1);
    return ctx.create<SelectOp>(reshape(ctx, *named, namedShape), *picked,
                                data);
  }
  Ints spread(uType.getShape());
  spread.insert(spread.begin(), 1);
  Value u = reshape(ctx, updates, spread);
  if (reduction == Reduction::Add) {
    Value zero = scalar(ctx, elementType, 0.0);
    FailureOr<Value> terms = ctx.create<SelectOp>(m, u, zero);
    if (failed(terms) ||
        failed(terms = ctx.create<SumOp>(*terms, ArrayRef<int64_t>{1}, false)))
      return failure();
    return ctx.create<AddOp>(data, *terms);
  }
  if (N > kMaxMulUpdates) {
    (void)ctx.unsupportedAttribute(
        "reduction",
        "mul of more than " + std::to_string(kMaxMulUpdates) + " updates");
    return failure();
  }
  Value one = scalar(ctx, elementType, 1.0);
  FailureOr<Value> factors = ctx.create<SelectOp>(m, u, one);
  if (failed(factors))
    return failure();
  Value y = data;
  Ints start(trailing + 2, 0), limit(trailing + 2, -1),
      strides(trailing + 2, 1);
  for (int64_t n = 0; n < N; ++n) {
    start[1] = n;
    limit[1] = n + 1;
    FailureOr<Value> f = ctx.create<SliceOp>(*factors, start, limit, strides);
    if (failed(f))
      return failure();
    Ints shape(typeOf(*f).getShape());
    shape.erase(shape.begin() + 1);
    FailureOr<Value> next = ctx.create<MulOp>(y, reshape(ctx, *f, shape));
    if (failed(next))
      return failure();
    y = *next;
  }
  return y;
}

/// ScatterND: data with its indexed dims folded into P rows, the index
/// tuples as linear row indices compared with every row.
LogicalResult convertScatterND(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"reduction"})))
    return failure();
  FailureOr<Reduction> reduction = readReduction(ctx);
  FailureOr<Value> x = ctx.input(0), index = ctx.input(1),
                   updates = ctx.input(2);
  if (failed(reduction) || failed(x) || failed(index) || failed(updates))
    return failure();
  FailureOr<Linearized> l = linearize(ctx, *x, *index, 0);
  if (failed(l))
    return failure();
  RankedTensorType lType = typeOf(l->linear);
  if (!lType.hasStaticShape())
    return ctx.error() << "indices must have a static shape";
  std::optional<int64_t> n = checkedProduct(lType.getShape());
  int64_t P = l->flatShape[0];
  ArrayRef<int64_t> rest = ArrayRef<int64_t>(l->flatShape).drop_front();
  std::optional<int64_t> restCount = checkedProduct(rest);
  std::optional<int64_t> cells =
      n ? checkedArith('*', P, *n) : std::nullopt;
  if (reduction != Reduction::None && cells && restCount)
    cells = checkedArith('*', *cells, *restCount);
  if (!cells || *cells > kMaxOneHot)
    return ctx.error() << "the one-hot of " << P << " positions and "
                       << (n ? *n : -1)
                       << " indices is too large for rlx's composed scatter";
  // updates: indices.shape[:-1] + data.shape[k:], as [N, rest...].
  Ints expected(lType.getShape()), flatUpdates{*n};
  llvm::append_range(expected, rest);
  llvm::append_range(flatUpdates, rest);
  if (typeOf(*updates).getShape() != ArrayRef<int64_t>(expected))
    return ctx.error() << "updates must have shape indices.shape[:-1] + "
                          "data.shape[k:]";
  Type i64 = ctx.builder().getIntegerType(64);
  FailureOr<Value> rows = indicesAlong(ctx, P, 0, 2, i64);
  if (failed(rows))
    return failure();
  FailureOr<Value> match =
      ctx.create<CompareOp>("eq", *rows, reshape(ctx, l->linear, {1, *n}));
  if (failed(match))
    return failure();
  FailureOr<Value> y =
      scatterRows(ctx, reshape(ctx, *x, l->flatShape),
                  reshape(ctx, *updates, flatUpdates), *match, *reduction);
  if (failed(y))
    return failure();
  ctx.setOutput(0, reshape(ctx, *y, typeOf(*x).getShape()));
  return success();
}

/// ScatterElements along `axis`: the axis moved first and the other dims
/// folded behind it, each (other-dims position, index) a row of its own.
LogicalResult convertScatterElements(NodeContext &ctx) {
  if (failed(ctx.checkKnownAttributes({"axis", "reduction"})))
    return failure();
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  FailureOr<Reduction> reduction = readReduction(ctx);
  FailureOr<Value> x = ctx.input(0), index = ctx.input(1),
                   updates = ctx.input(2);
  if (failed(axis) || failed(reduction) || failed(x) || failed(index) ||
      failed(updates))
    return failure();
  RankedTensorType xType = typeOf(*x), iType = typeOf(*index);
  int64_t rank = xType.getRank();
  FailureOr<int64_t> a = normalizeAxis(ctx, *axis, rank);
  if (failed(a))
    return failure();
  if (!xType.hasStaticShape() || !iType.hasStaticShape() ||
      typeOf(*updates).getShape() != iType.getShape())
    return ctx.error() << "data, indices and updates must have static "
                          "shapes, indices' and updates' equal";
  if (iType.getRank() != rank)
    return ctx.error() << "indices must have the data's rank";
  for (int64_t d = 0; d < rank; ++d)
    if (d != *a && iType.getDimSize(d) > xType.getDimSize(d))
      return ctx.error() << "indices dim " << d << " exceeds the data's";
  // Tuples (position off the axis..., index) into the data: the ScatterND
  // of the same writes, with the axis as the last component.
  Type i64 = ctx.builder().getIntegerType(64);
  Value idx = *index;
  if (!isa<IntegerType>(iType.getElementType()))
    return ctx.error() << "indices must be integers";
  if (iType.getElementType() != i64)
    idx = CastOp::create(ctx.builder(), ctx.loc, iType.clone(i64), idx);
  Ints tupleShape(iType.getShape());
  tupleShape.push_back(1);
  SmallVector<Value> components;
  // Components in the data's dim order: positions along the other dims,
  // the index along the axis.
  for (int64_t d = 0; d < rank; ++d) {
    Value component;
    if (d == *a) {
      component = idx;
    } else {
      FailureOr<Value> pos =
          indicesAlong(ctx, iType.getDimSize(d), d, rank, i64);
      FailureOr<Value> full =
          failed(pos) ? pos
                      : ctx.create<SelectOp>(scalar(ctx, ctx.builder().getI1Type(), 1),
                                             *pos, idx);
      if (failed(full))
        return failure();
      component = *full;
    }
    components.push_back(reshape(ctx, component, tupleShape));
  }
  FailureOr<Value> tuples =
      ctx.create<ConcatOp>(ValueRange(components), uint64_t(rank));
  if (failed(tuples))
    return failure();
  // ScatterND with k = rank (updates are scalars), through the same rows.
  FailureOr<Linearized> l = linearize(ctx, *x, *tuples, 0);
  if (failed(l))
    return failure();
  int64_t P = l->flatShape[0], n = iType.getNumElements();
  std::optional<int64_t> cells = checkedArith('*', P, n);
  if (!cells || *cells > kMaxOneHot)
    return ctx.error() << "the one-hot of " << P << " positions and " << n
                       << " indices is too large for rlx's composed scatter";
  FailureOr<Value> rows = indicesAlong(ctx, P, 0, 2, i64);
  if (failed(rows))
    return failure();
  FailureOr<Value> match =
      ctx.create<CompareOp>("eq", *rows, reshape(ctx, l->linear, {1, n}));
  if (failed(match))
    return failure();
  FailureOr<Value> y = scatterRows(ctx, reshape(ctx, *x, {P}),
                                   reshape(ctx, *updates, {n}), *match,
                                   *reduction);
  if (failed(y))
    return failure();
  ctx.setOutput(0, reshape(ctx, *y, xType.getShape()));
  return success();
}

} // namespace

void addIndexedOps(llvm::StringMap<OpConverter> &t) {
  t["GatherND"] = convertGatherND;
  t["ScatterND"] = convertScatterND;
  t["ScatterElements"] = convertScatterElements;
}

} // namespace mlir::rlx::onnx_import
