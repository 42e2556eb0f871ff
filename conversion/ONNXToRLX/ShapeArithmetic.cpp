//===- ShapeArithmetic.cpp - Shapes with dynamic dims at import -----------===//
///
/// \file
/// Exporters compute reshape targets from the input's shape (PyTorch's
/// `x.view(x.size(0), -1)` is Shape -> Gather -> Unsqueeze -> Concat ->
/// Reshape). With static dims the op converters fold that to a constant;
/// with a dynamic (`dim_param`) dim the result is a SymbolicShape whose
/// elements are numbers, dims of a value, or unknown, carried through the
/// shape ops here, so the Reshape it ends in still gets a type: a dim taken
/// from the reshaped value's own dim in the same place is a copy, any other
/// dynamic element a dynamic dim that rlx.reshape sizes at run time.
/// ConstantOfShape and Expand to such a shape broadcast against tensors
/// that have the dims it names (broadcastToSymbolic).
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

namespace mlir::rlx::onnx_import {
namespace {

using Element = SymbolicShape::Element;

} // namespace

std::optional<SymbolicShape> symbolicInput(NodeContext &ctx, unsigned i) {
  if (!ctx.hasInput(i))
    return std::nullopt;
  auto found = ctx.importer.symbolicShapes.find(ctx.node.input(i));
  if (found != ctx.importer.symbolicShapes.end())
    return found->second;
  std::optional<DenseElementsAttr> known = ctx.constantInput(i);
  if (!known || !isa<IntegerType>(known->getElementType()) ||
      known->getElementType().isInteger(1) || known->getType().getRank() > 1 ||
      known->getNumElements() > 64)
    return std::nullopt;
  SymbolicShape shape;
  shape.scalar = known->getType().getRank() == 0;
  shape.elementType = known->getElementType();
  for (int64_t v : toInts(*known)) {
    Element e;
    e.value = v;
    shape.elements.push_back(e);
  }
  return shape;
}

namespace {

bool isSymbolic(NodeContext &ctx, unsigned i) {
  return ctx.hasInput(i) &&
         ctx.importer.symbolicShapes.count(ctx.node.input(i));
}

/// Sets output 0: a constant when every element is known.
void setShapeOutput(NodeContext &ctx, const SymbolicShape &shape) {
  if (!ctx.hasOutput(0))
    return;
  if (llvm::all_of(shape.elements,
                   [](const Element &e) { return e.known(); })) {
    SmallVector<APInt> values;
    unsigned width = shape.elementType.getIntOrFloatBitWidth();
    for (const Element &e : shape.elements)
      values.push_back(APInt(width, static_cast<uint64_t>(e.value), true));
    SmallVector<int64_t> dims;
    if (!shape.scalar)
      dims.push_back(shape.elements.size());
    ctx.setConstantOutput(
        0, DenseElementsAttr::get(
               RankedTensorType::get(dims, shape.elementType), values));
    return;
  }
  ctx.importer.symbolicShapes[ctx.node.output(0)] = shape;
}

FailureOr<int64_t> normalize(NodeContext &ctx, int64_t i, int64_t size) {
  if (i < -size || i >= size)
    return ctx.error() << "index " << i << " is out of range for a shape of "
                       << size << " elements";
  return i < 0 ? i + size : i;
}

FailureOr<bool> convertShape(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  FailureOr<int64_t> start = ctx.getInt("start", 0);
  if (failed(x) || failed(start))
    return failure();
  ArrayRef<int64_t> dims = cast<RankedTensorType>(x->getType()).getShape();
  int64_t rank = dims.size();
  FailureOr<int64_t> end = ctx.getInt("end", rank);
  if (failed(end))
    return failure();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  SymbolicShape shape;
  shape.elementType = ctx.builder().getIntegerType(64);
  bool dynamic = false;
  for (int64_t i = clampIndex(*start); i < clampIndex(*end); ++i) {
    Element e;
    e.value = dims[i];
    if (ShapedType::isDynamic(dims[i])) {
      e.source = *x;
      e.dim = i;
      e.symbol = ctx.importer.symbolsOf(*x)[i];
      dynamic = true;
    }
    shape.elements.push_back(e);
  }
  if (!dynamic)
    return false; // The static fold of the Shape converter.
  setShapeOutput(ctx, shape);
  return true;
}

FailureOr<bool> convertGather(NodeContext &ctx) {
  std::optional<SymbolicShape> data = symbolicInput(ctx, 0);
  std::optional<DenseElementsAttr> indices = ctx.constantInput(1);
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  if (failed(axis))
    return failure();
  if (!data || data->scalar || !indices ||
      !isa<IntegerType>(indices->getElementType()) ||
      indices->getType().getRank() > 1 || *axis != 0)
    return ctx.error() << "gathers from a shape with dynamic dims only with "
                          "known indices of rank 0 or 1 on axis 0";
  SymbolicShape out;
  out.elementType = data->elementType;
  out.scalar = indices->getType().getRank() == 0;
  for (int64_t i : toInts(*indices)) {
    FailureOr<int64_t> index = normalize(ctx, i, data->elements.size());
    if (failed(index))
      return failure();
    out.elements.push_back(data->elements[*index]);
  }
  setShapeOutput(ctx, out);
  return true;
}

/// Unsqueeze of a scalar to [1], Squeeze of [1] to a scalar, Identity and
/// integer Casts: the elements stay.
FailureOr<bool> convertKeep(NodeContext &ctx) {
  std::optional<SymbolicShape> in = symbolicInput(ctx, 0);
  if (!in)
    return ctx.error() << "its input is a shape with dynamic dims of an "
                          "unsupported kind";
  StringRef op = ctx.opType();
  if (op == "Unsqueeze") {
    if (!in->scalar)
      return ctx.error() << "unsqueezing a shape with dynamic dims past rank "
                            "1 is not supported";
    in->scalar = false;
  } else if (op == "Squeeze") {
    if (in->scalar || in->elements.size() != 1)
      return ctx.error() << "squeezing a shape with dynamic dims is only "
                            "supported from one element to a scalar";
    in->scalar = true;
  } else if (op == "Cast") {
    FailureOr<int64_t> to = ctx.getInt("to", 0);
    if (failed(to))
      return failure();
    Type type = elementTypeOf(ctx.builder().getContext(), *to);
    if (!type || !isa<IntegerType>(type) || type.isInteger(1))
      return false; // Read as data: Cast's converter, on the tensor.
    in->elementType = type;
  }
  setShapeOutput(ctx, *in);
  return true;
}

FailureOr<bool> convertConcat(NodeContext &ctx) {
  SymbolicShape out;
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    std::optional<SymbolicShape> in = symbolicInput(ctx, i);
    if (!in || in->scalar)
      return ctx.error() << "input " << i
                         << " is not a 1-D shape (concatenating shapes with "
                            "dynamic dims)";
    out.elementType = in->elementType;
    out.elements.append(in->elements.begin(), in->elements.end());
  }
  setShapeOutput(ctx, out);
  return true;
}

FailureOr<bool> convertSlice(NodeContext &ctx) {
  std::optional<SymbolicShape> in = symbolicInput(ctx, 0);
  FailureOr<SmallVector<int64_t>> starts = ctx.constantInts(1, "starts"),
                                  ends = ctx.constantInts(2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  if (!in || in->scalar || starts->size() != 1 || ends->size() != 1 ||
      (ctx.hasInput(4) &&
       ctx.constantInts(4, "steps") != SmallVector<int64_t>{1}))
    return ctx.error() << "slicing a shape with dynamic dims needs one "
                          "known start and end, step 1";
  int64_t size = in->elements.size();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + size : i, 0, size);
  };
  SymbolicShape out;
  out.elementType = in->elementType;
  for (int64_t i = clampIndex((*starts)[0]); i < clampIndex((*ends)[0]); ++i)
    out.elements.push_back(in->elements[i]);
  setShapeOutput(ctx, out);
  return true;
}

/// Add, Sub, Mul, Div: known elements fold, any other is unknown.
FailureOr<bool> convertArithmetic(NodeContext &ctx) {
  std::optional<SymbolicShape> a = symbolicInput(ctx, 0),
                               b = symbolicInput(ctx, 1);
  if (!a || !b)
    return ctx.error() << "arithmetic between a shape with dynamic dims and "
                          "a value not known at import is not supported";
  size_t n = std::max(a->elements.size(), b->elements.size());
  if ((a->elements.size() != n && a->elements.size() != 1) ||
      (b->elements.size() != n && b->elements.size() != 1))
    return ctx.error() << "shapes of " << a->elements.size() << " and "
                       << b->elements.size() << " elements do not broadcast";
  SymbolicShape out;
  out.elementType = a->elementType;
  out.scalar = a->scalar && b->scalar;
  StringRef op = ctx.opType();
  for (size_t i = 0; i < n; ++i) {
    const Element &x = a->elements[a->elements.size() == 1 ? 0 : i];
    const Element &y = b->elements[b->elements.size() == 1 ? 0 : i];
    Element e;
    std::optional<int64_t> folded;
    if (x.known() && y.known())
      folded = checkedArith(op == "Add"   ? '+'
                            : op == "Sub" ? '-'
                            : op == "Mul" ? '*'
                                          : '/',
                            x.value, y.value);
    if (folded) {
      e.value = *folded;
    } else if ((op == "Mul" || op == "Div") && y.known() && y.value == 1) {
      e = x; // x * 1, x / 1
    } else if (op == "Mul" && x.known() && x.value == 1) {
      e = y;
    }
    out.elements.push_back(e);
  }
  setShapeOutput(ctx, out);
  return true;
}

FailureOr<bool> convertReshape(NodeContext &ctx) {
  std::optional<SymbolicShape> shape = symbolicInput(ctx, 1);
  FailureOr<int64_t> allowZero = ctx.getInt("allowzero", 0);
  FailureOr<Value> x = ctx.input(0);
  if (!shape || failed(allowZero) || failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  ArrayRef<int64_t> symbols = ctx.importer.symbolsOf(*x);
  SmallVector<int64_t> spec, equalTo;
  for (auto [i, e] : llvm::enumerate(shape->elements)) {
    // The input dim this element is the size of, by symbol.
    int64_t same = -1;
    if (!e.known() && e.symbol)
      for (auto [j, symbol] : llvm::enumerate(symbols))
        if (symbol == e.symbol && (same < 0 || j == i))
          same = j;
    equalTo.push_back(same);
    if (e.known())
      spec.push_back(e.value);
    else if (same == static_cast<int64_t>(i) && !*allowZero)
      spec.push_back(0); // Its own dim, in its own place: a copy.
    else if (e.source &&
             !ShapedType::isDynamic(
                 cast<RankedTensorType>(e.source.getType()).getDimSize(e.dim)))
      spec.push_back(
          cast<RankedTensorType>(e.source.getType()).getDimSize(e.dim));
    else
      spec.push_back(ShapedType::kDynamic);
  }
  FailureOr<SmallVector<int64_t>> dims =
      reshapeShape(ctx, type.getShape(), spec, *allowZero, equalTo);
  if (failed(dims))
    return failure();
  auto result = RankedTensorType::get(*dims, type.getElementType());
  ctx.setOutput(
      0,
      result == type
          ? *x
          : ReshapeOp::create(ctx.builder(), ctx.loc, result, *x).getResult());
  return true;
}

Value castTo(NodeContext &ctx, Value x, Type elementType) {
  return CastOp::create(ctx.builder(), ctx.loc, typeOf(x).clone(elementType),
                        x);
}


/// `x` broadcast (NumPy's rule, as ONNX's Expand) against a symbolic
/// shape. rlx ops take no run-time sizes, so each dynamic element, the dim
/// `d` of some value `v`, is brought in as a tensor that has it: `v` sliced
/// to one element along its other dims, summed over them (a 1-D tensor of
/// `v.dim(d)` elements, whatever the other dims are) and reshaped to that
/// element's place; `select(true, x, carrier)` then broadcasts `x` to it.
/// Known elements other than 1 come in as one constant of those dims.
FailureOr<Value> broadcastToSymbolic(NodeContext &ctx, Value x,
                                     const SymbolicShape &shape) {
  OpBuilder &b = ctx.builder();
  auto xType = cast<RankedTensorType>(x.getType());
  Type elementType = xType.getElementType();
  int64_t rank = std::max<int64_t>(xType.getRank(), shape.elements.size());
  int64_t offset = rank - shape.elements.size();
  Value always = scalar(ctx, b.getI1Type(), 1);
  auto broadcastWith = [&](Value acc, Value carrier) -> FailureOr<Value> {
    return ctx.create<SelectOp>(always, acc, carrier);
  };
  SmallVector<int64_t> known(rank, 1);
  bool anyKnown = false;
  for (auto [k, e] : llvm::enumerate(shape.elements)) {
    if (e.known()) {
      if (e.value < 0)
        return ctx.error() << "shape element " << k << " is negative ("
                           << e.value << ")";
      known[offset + k] = e.value;
      anyKnown |= e.value != 1;
      continue;
    }
    if (!e.source)
      return ctx.error() << "shape element " << k
                         << " is computed at run time from arithmetic on "
                            "dynamic dims; only dims taken from a value "
                            "(Shape, Gather, Concat) are supported";
  }
  Value acc = x;
  if (anyKnown) {
    if (!checkedProduct(known) || *checkedProduct(known) > kMaxComputedConstant)
      return ctx.error() << "the shape's known dims have too many elements";
    auto type = RankedTensorType::get(known, elementType);
    Attribute zero = isa<FloatType>(elementType)
                         ? Attribute(FloatAttr::get(elementType, 0.0))
                         : Attribute(IntegerAttr::get(elementType, 0));
    FailureOr<Value> y = broadcastWith(
        acc, ctx.importer.materialize(DenseElementsAttr::get(type, zero),
                                      ctx.loc));
    if (failed(y))
      return failure();
    acc = *y;
  }
  for (auto [k, e] : llvm::enumerate(shape.elements)) {
    if (e.known())
      continue;
    FailureOr<Value> dims = dimCarrier(ctx, e.source, e.dim);
    if (failed(dims))
      return failure();
    Value carrier = *dims;
    SmallVector<int64_t> place(rank, 1);
    place[offset + k] = ShapedType::kDynamic;
    carrier = reshape(ctx, carrier, place);
    if (typeOf(carrier).getElementType() != elementType)
      carrier = castTo(ctx, carrier, elementType);
    // The carrier's dim is the source's: same symbol.
    SmallVector<int64_t> symbols(rank, 0);
    symbols[offset + k] = e.symbol;
    ctx.importer.dimSymbols[carrier] = symbols;
    FailureOr<Value> y = broadcastWith(acc, carrier);
    if (failed(y))
      return failure();
    acc = *y;
  }
  return acc;
}

/// ConstantOfShape of a symbolic shape: its value broadcast to it.
FailureOr<bool> convertConstantOfShape(NodeContext &ctx) {
  std::optional<SymbolicShape> shape = symbolicInput(ctx, 0);
  if (!shape || shape->scalar)
    return ctx.error() << "input 0 (shape) must be a 1-D shape";
  if (failed(ctx.checkKnownAttributes({"value"})))
    return failure();
  MLIRContext *context = ctx.builder().getContext();
  DenseElementsAttr fill = DenseElementsAttr::get(
      RankedTensorType::get({}, Float32Type::get(context)),
      ArrayRef<Attribute>(FloatAttr::get(Float32Type::get(context), 0.0)));
  if (const onnx::AttributeProto *value = ctx.attribute("value")) {
    std::string error;
    std::optional<DenseElementsAttr> v =
        decodeTensor(context, value->t(), error);
    if (!v)
      return ctx.error() << "attribute 'value' " << error;
    if (v->getNumElements() != 1)
      return ctx.unsupportedAttribute("value", "must hold one element");
    fill = v->reshape(RankedTensorType::get({}, v->getElementType()));
  }
  FailureOr<Value> y = broadcastToSymbolic(
      ctx, ctx.importer.materialize(fill, ctx.loc), *shape);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return true;
}

/// Expand to a symbolic shape.
FailureOr<bool> convertExpand(NodeContext &ctx) {
  std::optional<SymbolicShape> shape = symbolicInput(ctx, 1);
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (!shape || shape->scalar)
    return ctx.error() << "input 1 (shape) must be a 1-D shape";
  FailureOr<Value> y = broadcastToSymbolic(ctx, *x, *shape);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return true;
}

} // namespace

/// A 1-D f32 tensor with as many elements as `source` has along `dim`:
/// `source` sliced to one element along its other dims, made finite and
/// summed over them (whatever their sizes, even dynamic ones).
FailureOr<Value> dimCarrier(NodeContext &ctx, Value source, int64_t dim) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  int64_t sourceRank = sourceType.getRank();
  SmallVector<int64_t> start(sourceRank, 0), limit, strides(sourceRank, 1),
      others;
  for (int64_t i = 0; i < sourceRank; ++i) {
    limit.push_back(i == dim ? -1 : 1);
    if (i != dim)
      others.push_back(i);
  }
  FailureOr<Value> sliced = ctx.create<SliceOp>(source, start, limit, strides);
  if (failed(sliced))
    return failure();
  // Finite values (x == x as 0 or 1): a count made from them must not
  // see a NaN or an infinity of the data.
  Value carrier = *sliced;
  if (!isa<FloatType>(sourceType.getElementType()))
    carrier = castTo(ctx, carrier, ctx.builder().getF32Type());
  FailureOr<Value> finite = ctx.create<CompareOp>("eq", carrier, carrier);
  if (failed(finite))
    return failure();
  carrier = castTo(ctx, *finite, ctx.builder().getF32Type());
  if (others.empty())
    return carrier;
  return ctx.create<SumOp>(carrier, others, false);
}

FailureOr<Value> dimSize(NodeContext &ctx, Value source, int64_t dim,
                         Type elementType) {
  Type f32 = ctx.builder().getF32Type();
  // The dim's size, counted: ones along it, summed (exact in f32 up to 2^24
  // elements).
  FailureOr<Value> carrier = dimCarrier(ctx, source, dim);
  if (failed(carrier))
    return failure();
  // carrier * 0 + 1 (finite): ones that read the carrier, so the sum's loop
  // keeps its bound (a select ignoring it lost the dim's size in the CPU
  // lowering: the sum came out 1).
  FailureOr<Value> zeros = ctx.create<MulOp>(*carrier, scalar(ctx, f32, 0.0));
  if (failed(zeros))
    return failure();
  FailureOr<Value> ones = ctx.create<AddOp>(*zeros, scalar(ctx, f32, 1.0));
  if (failed(ones))
    return failure();
  FailureOr<Value> count =
      ctx.create<SumOp>(*ones, ArrayRef<int64_t>{0}, false);
  if (failed(count))
    return failure();
  return castTo(ctx, *count, elementType);
}

FailureOr<Value> materializeSymbolicShape(NodeContext &ctx,
                                          const SymbolicShape &shape) {
  SmallVector<Value> parts;
  for (auto [k, e] : llvm::enumerate(shape.elements)) {
    Value part;
    if (e.known()) {
      part = scalar(ctx, shape.elementType, static_cast<double>(e.value));
    } else if (e.source) {
      FailureOr<Value> size = dimSize(ctx, e.source, e.dim, shape.elementType);
      if (failed(size))
        return failure();
      part = *size;
    } else {
      return ctx.error() << "element " << k
                         << " of a shape read as data is computed from "
                            "dynamic dims by arithmetic the importer does "
                            "not evaluate at run time";
    }
    parts.push_back(shape.scalar ? part : reshape(ctx, part, {1}));
  }
  if (shape.scalar)
    return parts[0];
  if (parts.size() == 1)
    return parts[0];
  return ctx.create<ConcatOp>(ValueRange(parts), uint64_t(0));
}

FailureOr<bool> convertSymbolicShapeOp(NodeContext &ctx) {
  StringRef op = ctx.opType();
  if (op == "Shape")
    return convertShape(ctx);
  if (op == "Reshape")
    return isSymbolic(ctx, 1) ? convertReshape(ctx) : FailureOr<bool>(false);
  if (op == "ConstantOfShape")
    return isSymbolic(ctx, 0) ? convertConstantOfShape(ctx)
                              : FailureOr<bool>(false);
  if (op == "Expand")
    return isSymbolic(ctx, 1) ? convertExpand(ctx) : FailureOr<bool>(false);
  bool symbolic = false;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    symbolic |= isSymbolic(ctx, i);
  if (!symbolic)
    return false;
  if (op == "Gather")
    return convertGather(ctx);
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Identity" || op == "Cast")
    return convertKeep(ctx);
  if (op == "Concat")
    return convertConcat(ctx);
  if (op == "Slice")
    return convertSlice(ctx);
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div")
    return convertArithmetic(ctx);
  return false; // The op's converter reports the symbolic input.
}

} // namespace mlir::rlx::onnx_import
