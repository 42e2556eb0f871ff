//===- BatchingRules.cpp - vmap rules of rlx ops --------------------------===//
///
/// \file
/// BatchableOpInterface::buildBatched for every rlx op. Batched values
/// carry the batch dim in front. Most rules align ranks (a batched operand
/// gets unit dims after its batch dim so NumPy broadcasting lines it up with
/// the unbatched ones) and then rebuild the same op with a batched result
/// type, shifting axis attributes by one.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/AutodiffBuilders.h"
#include "dialects/RLX/IR/ControlFlow.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::ad;

namespace {

/// The batch size: dim 0 of the first batched operand.
int64_t batchSize(ArrayRef<Value> operands, ArrayRef<bool> batched) {
  for (auto [v, b] : llvm::zip(operands, batched))
    if (b)
      return tensorType(v).getDimSize(0);
  return ShapedType::kDynamic;
}

Value firstBatched(ArrayRef<Value> operands, ArrayRef<bool> batched) {
  for (auto [v, b] : llvm::zip(operands, batched))
    if (b)
      return v;
  return {};
}

RankedTensorType withBatch(Type type, int64_t batch) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape = {batch};
  llvm::append_range(shape, t.getShape());
  return t.clone(shape);
}

/// Rebuilds `op` with `operands` and one batched result per result.
Operation *rebuild(OpBuilder &builder, Operation *op, ValueRange operands,
                   int64_t batch,
                   ArrayRef<NamedAttribute> attrs = {}) {
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  for (Type t : op->getResultTypes())
    state.addTypes(withBatch(t, batch));
  NamedAttrList merged(op->getAttrs());
  for (const NamedAttribute &a : attrs)
    merged.set(a.getName(), a.getValue());
  state.addAttributes(merged.getAttrs());
  return builder.create(state);
}

/// Elementwise and broadcasting ops: align ranks, rebuild.
LogicalResult batchElementwise(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> operands, ArrayRef<bool> batched,
                               SmallVectorImpl<Value> &results) {
  RuleBuilder b{builder, op->getLoc()};
  int64_t rank = tensorType(op->getResult(0)).getRank();
  SmallVector<Value> aligned;
  for (auto [v, isBatched] : llvm::zip(operands, batched))
    aligned.push_back(isBatched ? alignBatched(b, v, rank) : v);
  Operation *batchedOp =
      rebuild(builder, op, aligned, batchSize(operands, batched));
  if (failed(mlir::verify(batchedOp)))
    return failure();
  llvm::append_range(results, batchedOp->getResults());
  return success();
}

/// Ops whose first operand (batched) carries the data and whose integer
/// attributes name its axes (shifted by one); other operands are unbatched.
LogicalResult batchShifted(Operation *op, OpBuilder &builder,
                           ArrayRef<Value> operands,
                           ArrayRef<NamedAttribute> attrs,
                           SmallVectorImpl<Value> &results) {
  Operation *batchedOp = rebuild(builder, op, operands,
                                 tensorType(operands[0]).getDimSize(0), attrs);
  if (failed(mlir::verify(batchedOp)))
    return failure();
  llvm::append_range(results, batchedOp->getResults());
  return success();
}

SmallVector<int64_t> shifted(ArrayRef<int64_t> axes) {
  SmallVector<int64_t> out;
  for (int64_t a : axes)
    out.push_back(a + 1);
  return out;
}

/// Folds the batch into N of an NHWC op: [B, N, ...] → [B*N, ...], runs
/// `op`, unfolds. Only for batched inputs; other operands stay whole.
LogicalResult batchIntoN(Operation *op, OpBuilder &builder,
                         ArrayRef<Value> operands, ArrayRef<bool> batched,
                         SmallVectorImpl<Value> &results) {
  for (size_t i = 1; i < batched.size(); ++i)
    if (batched[i])
      return op->emitOpError("cannot be batched over its filter yet");
  RuleBuilder b{builder, op->getLoc()};
  RankedTensorType in = tensorType(operands[0]);
  int64_t batch = in.getDimSize(0), n = in.getDimSize(1);
  if (ShapedType::isDynamic(batch) && ShapedType::isDynamic(n))
    return op->emitOpError("cannot be batched with a dynamic batch and N");
  int64_t merged = ShapedType::isDynamic(batch) || ShapedType::isDynamic(n)
                       ? ShapedType::kDynamic
                       : batch * n;
  SmallVector<int64_t> flat = {merged};
  llvm::append_range(flat, in.getShape().drop_front(2));
  Value x = reshapeTo(b, operands[0], in.clone(flat));
  SmallVector<Value> ops = {x};
  llvm::append_range(ops, operands.drop_front());
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(ops);
  RankedTensorType out = tensorType(op->getResult(0));
  SmallVector<int64_t> outFlat = {merged};
  llvm::append_range(outFlat, out.getShape().drop_front());
  state.addTypes(out.clone(outFlat));
  state.addAttributes(op->getAttrs());
  Operation *flatOp = builder.create(state);
  if (failed(mlir::verify(flatOp)))
    return failure();
  SmallVector<int64_t> unflat = {batch};
  llvm::append_range(unflat, out.getShape());
  results.push_back(reshapeTo(b, flatOp->getResult(0), out.clone(unflat)));
  return success();
}

} // namespace

#define RLX_ELEMENTWISE_BATCH(OpTy)                                            \
  LogicalResult OpTy::buildBatched(                                            \
      OpBuilder &b, ArrayRef<Value> operands, ArrayRef<bool> batched,          \
      SmallVectorImpl<Value> &results, SymbolTableCollection &) {              \
    return batchElementwise(*this, b, operands, batched, results);             \
  }
RLX_ELEMENTWISE_BATCH(AddOp)
RLX_ELEMENTWISE_BATCH(SubOp)
RLX_ELEMENTWISE_BATCH(MulOp)
RLX_ELEMENTWISE_BATCH(DivOp)
RLX_ELEMENTWISE_BATCH(PowOp)
RLX_ELEMENTWISE_BATCH(RemOp)
RLX_ELEMENTWISE_BATCH(MaximumOp)
RLX_ELEMENTWISE_BATCH(MinimumOp)
RLX_ELEMENTWISE_BATCH(NegOp)
RLX_ELEMENTWISE_BATCH(AbsOp)
RLX_ELEMENTWISE_BATCH(ExpOp)
RLX_ELEMENTWISE_BATCH(LogOp)
RLX_ELEMENTWISE_BATCH(SqrtOp)
RLX_ELEMENTWISE_BATCH(RsqrtOp)
RLX_ELEMENTWISE_BATCH(TanhOp)
RLX_ELEMENTWISE_BATCH(ErfOp)
RLX_ELEMENTWISE_BATCH(SinOp)
RLX_ELEMENTWISE_BATCH(CosOp)
RLX_ELEMENTWISE_BATCH(AtanOp)
RLX_ELEMENTWISE_BATCH(SigmoidOp)
RLX_ELEMENTWISE_BATCH(ReluOp)
RLX_ELEMENTWISE_BATCH(GeluOp)
RLX_ELEMENTWISE_BATCH(CompareOp)
RLX_ELEMENTWISE_BATCH(SelectOp)
RLX_ELEMENTWISE_BATCH(BitcastOp)
RLX_ELEMENTWISE_BATCH(StopGradientOp)
RLX_ELEMENTWISE_BATCH(OptimizationBarrierOp)
RLX_ELEMENTWISE_BATCH(MatmulOp)
#undef RLX_ELEMENTWISE_BATCH

/// An op rounding x, to nearest (elementwise) or stochastically with a
/// key. The key has one batch dim per leading dim of x: a batched key and an
/// unbatched x give x broadcast to every lane (each lane rounds it with its
/// own key); an unbatched key with a batched x is broadcast to every lane
/// (each lane rounds with the same random numbers, as the unbatched op
/// would).
static LogicalResult batchRounding(Operation *op, Value opKey,
                                   OpBuilder &builder, ArrayRef<Value> operands,
                                   ArrayRef<bool> batched,
                                   SmallVectorImpl<Value> &results) {
  if (!opKey)
    return batchElementwise(op, builder, operands, batched, results);
  RuleBuilder b{builder, op->getLoc()};
  Value x = operands[0], key = operands[1];
  if (!batched[0])
    x = broadcastToBatch(b, x, key);
  if (!batched[1])
    key = broadcastToBatch(b, key, x);
  Operation *batchedOp =
      rebuild(builder, op, {x, key}, tensorType(x).getDimSize(0));
  if (failed(mlir::verify(batchedOp)))
    return failure();
  llvm::append_range(results, batchedOp->getResults());
  return success();
}

LogicalResult FakeQuantOp::buildBatched(OpBuilder &builder,
                                        ArrayRef<Value> operands,
                                        ArrayRef<bool> batched,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &) {
  return batchRounding(*this, getKey(), builder, operands, batched, results);
}

LogicalResult CastOp::buildBatched(OpBuilder &builder, ArrayRef<Value> operands,
                                   ArrayRef<bool> batched,
                                   SmallVectorImpl<Value> &results,
                                   SymbolTableCollection &) {
  return batchRounding(*this, getKey(), builder, operands, batched, results);
}

/// `v` itself, or for element types rlx cannot compute on (narrow floats,
/// f8E8M0FNU) its codes as integers of their width.
static Value asNumericCodes(RuleBuilder b, Value v) {
  auto floatType = dyn_cast<FloatType>(tensorType(v).getElementType());
  if (!floatType || floatType.getWidth() >= 16)
    return v;
  return BitcastOp::create(
      b.b, b.loc, tensorType(v).clone(b.b.getIntegerType(floatType.getWidth())),
      v);
}

/// broadcastToBatch for any element type: codes rlx cannot add are
/// broadcast as integers of their width.
static Value broadcastCodesToBatch(RuleBuilder b, Value v, Value batchedLike) {
  Value codes = asNumericCodes(b, v);
  Value broadcast = broadcastToBatch(b, codes, asNumericCodes(b, batchedLike));
  if (codes == v)
    return broadcast;
  return BitcastOp::create(
      b.b, b.loc, tensorType(broadcast).clone(tensorType(v).getElementType()),
      broadcast);
}

/// block_dequantize: x and its scales both carry the lanes (an unbatched one
/// is broadcast to them), and the blocked axis moves past the batch dim.
LogicalResult BlockDequantizeOp::buildBatched(OpBuilder &builder,
                                              ArrayRef<Value> operands,
                                              ArrayRef<bool> batched,
                                              SmallVectorImpl<Value> &results,
                                              SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  Value x = operands[0], scales = operands[1];
  if (!batched[0])
    x = broadcastCodesToBatch(b, x, scales);
  if (!batched[1])
    scales = broadcastCodesToBatch(b, scales, x);
  return batchShifted(
      *this, builder, {x, scales},
      {builder.getNamedAttr("axis", builder.getI64IntegerAttr(getAxis() + 1))},
      results);
}

LogicalResult ParamOp::buildBatched(OpBuilder &, ArrayRef<Value>,
                                    ArrayRef<bool>, SmallVectorImpl<Value> &,
                                    SymbolTableCollection &) {
  return emitOpError("has no operands to batch");
}

LogicalResult ConstantOp::buildBatched(OpBuilder &, ArrayRef<Value>,
                                       ArrayRef<bool>, SmallVectorImpl<Value> &,
                                       SymbolTableCollection &) {
  return emitOpError("has no operands to batch");
}

LogicalResult Conv2DOp::buildBatched(OpBuilder &b, ArrayRef<Value> operands,
                                     ArrayRef<bool> batched,
                                     SmallVectorImpl<Value> &results,
                                     SymbolTableCollection &) {
  return batchIntoN(*this, b, operands, batched, results);
}

LogicalResult MaxPool2DOp::buildBatched(OpBuilder &b, ArrayRef<Value> operands,
                                        ArrayRef<bool> batched,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &) {
  return batchIntoN(*this, b, operands, batched, results);
}

LogicalResult AvgPool2DOp::buildBatched(OpBuilder &b, ArrayRef<Value> operands,
                                        ArrayRef<bool> batched,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &) {
  return batchIntoN(*this, b, operands, batched, results);
}

#define RLX_REDUCE_BATCH(OpTy)                                                 \
  LogicalResult OpTy::buildBatched(                                            \
      OpBuilder &b, ArrayRef<Value> operands, ArrayRef<bool>,                  \
      SmallVectorImpl<Value> &results, SymbolTableCollection &) {              \
    return batchShifted(                                                       \
        *this, b, operands,                                                    \
        {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(shifted(getAxes())))},  \
        results);                                                              \
  }
RLX_REDUCE_BATCH(SumOp)
RLX_REDUCE_BATCH(MeanOp)
RLX_REDUCE_BATCH(MaxOp)
#undef RLX_REDUCE_BATCH

#define RLX_SOFTMAX_BATCH(OpTy)                                                \
  LogicalResult OpTy::buildBatched(                                            \
      OpBuilder &b, ArrayRef<Value> operands, ArrayRef<bool>,                  \
      SmallVectorImpl<Value> &results, SymbolTableCollection &) {              \
    return batchShifted(                                                       \
        *this, b, operands,                                                    \
        {b.getNamedAttr("axis", b.getI64IntegerAttr(getAxis() + 1))},          \
        results);                                                              \
  }
RLX_SOFTMAX_BATCH(SoftmaxOp)
RLX_SOFTMAX_BATCH(LogSoftmaxOp)
#undef RLX_SOFTMAX_BATCH

LogicalResult ReshapeOp::buildBatched(OpBuilder &b, ArrayRef<Value> operands,
                                      ArrayRef<bool>,
                                      SmallVectorImpl<Value> &results,
                                      SymbolTableCollection &) {
  return batchShifted(*this, b, operands, {}, results);
}

LogicalResult TransposeOp::buildBatched(OpBuilder &b, ArrayRef<Value> operands,
                                        ArrayRef<bool>,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &) {
  SmallVector<int64_t> perm = {0};
  llvm::append_range(perm, shifted(getPermutation()));
  return batchShifted(
      *this, b, operands,
      {b.getNamedAttr("permutation", b.getDenseI64ArrayAttr(perm))}, results);
}

LogicalResult BroadcastInDimOp::buildBatched(OpBuilder &b,
                                             ArrayRef<Value> operands,
                                             ArrayRef<bool>,
                                             SmallVectorImpl<Value> &results,
                                             SymbolTableCollection &) {
  SmallVector<int64_t> dims = {0};
  llvm::append_range(dims, shifted(getBroadcastDimensions()));
  return batchShifted(
      *this, b, operands,
      {b.getNamedAttr("broadcast_dimensions", b.getDenseI64ArrayAttr(dims))},
      results);
}

LogicalResult SliceOp::buildBatched(OpBuilder &b, ArrayRef<Value> operands,
                                    ArrayRef<bool>,
                                    SmallVectorImpl<Value> &results,
                                    SymbolTableCollection &) {
  int64_t batch = tensorType(operands[0]).getDimSize(0);
  SmallVector<int64_t> start = {0}, limit = {ShapedType::isDynamic(batch) ? -1 : batch},
                       strides = {1};
  llvm::append_range(start, getStart());
  llvm::append_range(limit, getLimit());
  llvm::append_range(strides, getStrides());
  return batchShifted(*this, b, operands,
                      {b.getNamedAttr("start", b.getDenseI64ArrayAttr(start)),
                       b.getNamedAttr("limit", b.getDenseI64ArrayAttr(limit)),
                       b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides))},
                      results);
}

LogicalResult PadOp::buildBatched(OpBuilder &builder, ArrayRef<Value> operands,
                                  ArrayRef<bool> batched,
                                  SmallVectorImpl<Value> &results,
                                  SymbolTableCollection &) {
  if (batched[1])
    return emitOpError("cannot be batched over its padding value yet");
  SmallVector<int64_t> low = {0}, high = {0}, interior = {0};
  llvm::append_range(low, getLow());
  llvm::append_range(high, getHigh());
  llvm::append_range(interior, getInterior());
  return batchShifted(
      *this, builder, operands,
      {builder.getNamedAttr("low", builder.getDenseI64ArrayAttr(low)),
       builder.getNamedAttr("high", builder.getDenseI64ArrayAttr(high)),
       builder.getNamedAttr("interior", builder.getDenseI64ArrayAttr(interior))},
      results);
}

LogicalResult ConcatOp::buildBatched(OpBuilder &builder,
                                     ArrayRef<Value> operands,
                                     ArrayRef<bool> batched,
                                     SmallVectorImpl<Value> &results,
                                     SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  Value like = firstBatched(operands, batched);
  SmallVector<Value> inputs;
  for (auto [v, isBatched] : llvm::zip(operands, batched))
    inputs.push_back(isBatched ? v : broadcastToBatch(b, v, like));
  Operation *op = rebuild(
      builder, *this, inputs, batchSize(operands, batched),
      {builder.getNamedAttr("axis", builder.getI64IntegerAttr(getAxis() + 1))});
  if (failed(mlir::verify(op)))
    return failure();
  llvm::append_range(results, op->getResults());
  return success();
}

LogicalResult GatherOp::buildBatched(OpBuilder &builder,
                                     ArrayRef<Value> operands,
                                     ArrayRef<bool> batched,
                                     SmallVectorImpl<Value> &results,
                                     SymbolTableCollection &) {
  RuleBuilder b{builder, getLoc()};
  int64_t axis = static_cast<int64_t>(getAxis());
  if (batched[0] && !batched[1])
    return batchShifted(
        *this, builder, operands,
        {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis + 1))},
        results);
  if (batched[0])
    return emitOpError("cannot be batched over both the table and the "
                       "indices yet");
  // Batched indices [B, I...] into an unbatched table: the batch lands at
  // `axis` of the result; move it to the front.
  auto x = getX().getType();
  auto idx = tensorType(operands[1]);
  SmallVector<int64_t> shape(x.getShape().take_front(axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, x.getShape().drop_front(axis + 1));
  Value gathered = GatherOp::create(builder, getLoc(), x.clone(shape),
                                    operands[0], operands[1], getAxisAttr());
  SmallVector<int64_t> perm = {axis};
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (d != axis)
      perm.push_back(d);
  results.push_back(transpose(b, gathered, perm));
  return success();
}

namespace {

/// A new private function in `op`'s module, added through `symbols` (the
/// caller's tables, which must see it), that maps `fn` over a batch:
/// inputs batched where `batched` says (batch in front), every result
/// batched in front. Inputs that stay unbatched but whose adjoint comes out
/// batched are summed over the batch when `sumUnbatched` names them (by
/// result index).
func::FuncOp vmappedFunction(SymbolTableCollection &symbols, Operation *op,
                             func::FuncOp fn, ArrayRef<bool> batched,
                             int64_t batch, ArrayRef<int64_t> sumResults = {}) {
  auto module = op->getParentOfType<ModuleOp>();
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  Location loc = op->getLoc();
  SmallVector<Type> inputs, mapped, results;
  SmallVector<Attribute> inAxes;
  for (auto [t, b] : llvm::zip(fn.getArgumentTypes(), batched)) {
    inputs.push_back(b ? Type(withBatch(t, batch)) : t);
    inAxes.push_back(b ? Attribute(mb.getI64IntegerAttr(0))
                       : Attribute(mb.getUnitAttr()));
  }
  for (Type t : fn.getResultTypes())
    mapped.push_back(withBatch(t, batch));
  for (auto [i, t] : llvm::enumerate(mapped))
    results.push_back(llvm::is_contained(sumResults, int64_t(i))
                          ? fn.getResultTypes()[i]
                          : t);
  auto wrapper = func::FuncOp::create(
      mb, loc, (fn.getSymName() + "__vmap").str(),
      mb.getFunctionType(inputs, results));
  wrapper.setPrivate();
  symbols.getSymbolTable(module).insert(wrapper);
  Block *body = wrapper.addEntryBlock();
  OpBuilder b(body, body->end());
  auto vmap = VmapOp::create(
      b, loc, mapped, FlatSymbolRefAttr::get(fn), body->getArguments(),
      b.getArrayAttr(inAxes),
      b.getDenseI64ArrayAttr(SmallVector<int64_t>(mapped.size(), 0)));
  SmallVector<Value> out;
  for (auto [i, v] : llvm::enumerate(vmap.getResults()))
    out.push_back(llvm::is_contained(sumResults, int64_t(i))
                      ? sum({b, loc}, v, {0}, /*keepdims=*/false)
                      : Value(v));
  func::ReturnOp::create(b, loc, out);
  return wrapper;
}

} // namespace

/// A batched custom_vjp keeps its custom rule: callee, fwd and bwd are each
/// mapped over the batch; adjoints of unbatched operands are summed.
LogicalResult CustomVJPOp::buildBatched(OpBuilder &builder,
                                        ArrayRef<Value> operands,
                                        ArrayRef<bool> batched,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &symbols) {
  int64_t batch = batchSize(operands, batched);
  func::FuncOp callee = lookup(symbols, getCalleeAttr());
  func::FuncOp fwd = lookup(symbols, getFwdAttr());
  func::FuncOp bwd = lookup(symbols, getBwdAttr());
  func::FuncOp calleeV =
      vmappedFunction(symbols, *this, callee, batched, batch);
  func::FuncOp fwdV = vmappedFunction(symbols, *this, fwd, batched, batch);
  // bwd takes residuals and cotangents, all batched now.
  SmallVector<bool> allBatched(bwd.getNumArguments(), true);
  SmallVector<int64_t> sums;
  for (auto [i, b] : llvm::enumerate(batched))
    if (!b)
      sums.push_back(i);
  func::FuncOp bwdV =
      vmappedFunction(symbols, *this, bwd, allBatched, batch, sums);
  SmallVector<Type> types;
  for (Type t : getResultTypes())
    types.push_back(withBatch(t, batch));
  auto op = CustomVJPOp::create(builder, getLoc(), types,
                                FlatSymbolRefAttr::get(calleeV), operands,
                                FlatSymbolRefAttr::get(fwdV),
                                FlatSymbolRefAttr::get(bwdV));
  llvm::append_range(results, op.getResults());
  return success();
}

/// A batched custom_jvp keeps its custom rule: callee and jvp are mapped;
/// tangents of unbatched operands are broadcast like their primals.
LogicalResult CustomJVPOp::buildBatched(OpBuilder &builder,
                                        ArrayRef<Value> operands,
                                        ArrayRef<bool> batched,
                                        SmallVectorImpl<Value> &results,
                                        SymbolTableCollection &symbols) {
  int64_t batch = batchSize(operands, batched);
  func::FuncOp callee = lookup(symbols, getCalleeAttr());
  func::FuncOp jvp = lookup(symbols, getJvpAttr());
  func::FuncOp calleeV =
      vmappedFunction(symbols, *this, callee, batched, batch);
  // jvp(args, tangents): tangents batched alike their primals.
  SmallVector<bool> jvpBatched(batched.begin(), batched.end());
  jvpBatched.append(batched.begin(), batched.end());
  func::FuncOp jvpV = vmappedFunction(symbols, *this, jvp, jvpBatched, batch);
  SmallVector<Type> types;
  for (Type t : getResultTypes())
    types.push_back(withBatch(t, batch));
  auto op = CustomJVPOp::create(builder, getLoc(), types,
                                FlatSymbolRefAttr::get(calleeV), operands,
                                FlatSymbolRefAttr::get(jvpV));
  llvm::append_range(results, op.getResults());
  return success();
}

LogicalResult RematOp::buildBatched(OpBuilder &builder,
                                    ArrayRef<Value> operands,
                                    ArrayRef<bool> batched,
                                    SmallVectorImpl<Value> &results,
                                    SymbolTableCollection &) {
  // Batching keeps the values; a vmap of the callee computes them.
  SmallVector<Attribute> inAxes;
  for (bool isBatched : batched)
    inAxes.push_back(isBatched ? Attribute(builder.getI64IntegerAttr(0))
                               : Attribute(builder.getUnitAttr()));
  int64_t batch = batchSize(operands, batched);
  SmallVector<Type> types;
  for (Type t : getResultTypes())
    types.push_back(withBatch(t, batch));
  SmallVector<int64_t> outAxes(getNumResults(), 0);
  auto vmap = VmapOp::create(builder, getLoc(), types, getCalleeAttr(),
                             operands, builder.getArrayAttr(inAxes),
                             builder.getDenseI64ArrayAttr(outAxes));
  llvm::append_range(results, vmap.getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

namespace {

/// `values` with every unbatched one broadcast along the batch of `like`.
SmallVector<Value> allBatched(RuleBuilder b, ValueRange values,
                              ArrayRef<bool> batched, Value like) {
  SmallVector<Value> out;
  for (auto [v, isBatched] : llvm::zip(values, batched))
    out.push_back(isBatched ? v : broadcastToBatch(b, v, like));
  return out;
}

/// Swaps dims 0 and 1: [B, L, ...] <-> [L, B, ...].
Value swapLeadingDims(RuleBuilder b, Value v) {
  SmallVector<int64_t> perm = {1, 0};
  for (int64_t d = 2; d < tensorType(v).getRank(); ++d)
    perm.push_back(d);
  return transpose(b, v, perm);
}

} // namespace

/// A batched scan scans its batched body; every carry is batched (a carry
/// that starts unbatched may become batched after one step), batched xs
/// are scanned over their dim 1 and batched ys come out batch first.
LogicalResult ScanOp::buildBatched(OpBuilder &builder, ArrayRef<Value> operands,
                                   ArrayRef<bool> batched,
                                   SmallVectorImpl<Value> &results,
                                   SymbolTableCollection &symbols) {
  RuleBuilder b{builder, getLoc()};
  const size_t C = getConsts().size(), K = getInit().size();
  Value like = firstBatched(operands, batched);
  int64_t batch = batchSize(operands, batched);
  SmallVector<Value> consts(operands.take_front(C));
  SmallVector<Value> init = allBatched(b, operands.slice(C, K),
                                       batched.slice(C, K), like);
  SmallVector<Value> xs;
  for (auto [x, isBatched] :
       llvm::zip(operands.drop_front(C + K), batched.drop_front(C + K)))
    xs.push_back(isBatched ? swapLeadingDims(b, x) : x);
  SmallVector<bool> bodyBatched(batched.take_front(C));
  bodyBatched.append(K, true);
  llvm::append_range(bodyBatched, batched.drop_front(C + K));
  auto body = symbols.lookupNearestSymbolFrom<func::FuncOp>(*this,
                                                            getBodyAttr());
  func::FuncOp mapped = vmappedFunction(symbols, *this, body, bodyBatched, batch);
  SmallVector<Type> types;
  for (Type t : getCarries().getTypes())
    types.push_back(withBatch(t, batch));
  for (Type t : getYs().getTypes()) {
    auto stacked = cast<RankedTensorType>(t);
    SmallVector<int64_t> shape = {stacked.getDimSize(0), batch};
    llvm::append_range(shape, stacked.getShape().drop_front());
    types.push_back(stacked.clone(shape));
  }
  auto scan = ScanOp::create(builder, getLoc(), types,
                             FlatSymbolRefAttr::get(mapped), consts, init, xs,
                             getLengthAttr(), getReverseAttr(), getUnrollAttr(),
                             getCheckpointEveryAttr());
  // A backward scan stays one: its xs keep their positions.
  if (Attribute primal = (*this)->getAttr(kPrimalXsAttrName))
    scan->setAttr(kPrimalXsAttrName, primal);
  llvm::append_range(results, scan.getCarries());
  for (Value y : scan.getYs())
    results.push_back(swapLeadingDims(b, y));
  return success();
}

/// A batched while runs until no lane's condition holds; a lane whose
/// condition no longer holds keeps its carry.
LogicalResult WhileOp::buildBatched(OpBuilder &builder,
                                    ArrayRef<Value> operands,
                                    ArrayRef<bool> batched,
                                    SmallVectorImpl<Value> &results,
                                    SymbolTableCollection &symbols) {
  Location loc = getLoc();
  RuleBuilder b{builder, loc};
  const size_t C = getConsts().size(), K = getInit().size();
  Value like = firstBatched(operands, batched);
  int64_t batch = batchSize(operands, batched);
  SmallVector<Value> consts(operands.take_front(C));
  SmallVector<Value> init =
      allBatched(b, operands.drop_front(C), batched.drop_front(C), like);
  SmallVector<bool> argsBatched(batched.take_front(C));
  argsBatched.append(K, true);
  auto lookup = [&](FlatSymbolRefAttr name) {
    return symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, name);
  };
  func::FuncOp cond = lookup(getCondAttr()), body = lookup(getBodyAttr());
  func::FuncOp condV = vmappedFunction(symbols, *this, cond, argsBatched, batch);
  func::FuncOp bodyV = vmappedFunction(symbols, *this, body, argsBatched, batch);
  SmallVector<Type> argTypes(condV.getArgumentTypes());
  // Any lane still running: max over the lanes of the condition as i32.
  func::FuncOp anyCond = newBodyFunction(
      symbols, *this, cond.getSymName(), "any", argTypes, cond.getResultTypes(),
      [&](OpBuilder &fb, ValueRange a) {
        RuleBuilder r{fb, loc};
        Value lanes = func::CallOp::create(fb, loc, condV, a).getResult(0);
        Value asInt = castTo(r, lanes, fb.getI32Type());
        Value most = MaxOp::create(fb, loc, asInt, fb.getDenseI64ArrayAttr({0}),
                                   fb.getBoolAttr(false));
        return SmallVector<Value>{
            compare(r, "gt", most, scalarLike(r, most, 0))};
      });
  func::FuncOp maskedBody = newBodyFunction(
      symbols, *this, body.getSymName(), "masked", argTypes,
      bodyV.getResultTypes(), [&](OpBuilder &fb, ValueRange a) {
        RuleBuilder r{fb, loc};
        Value lanes = func::CallOp::create(fb, loc, condV, a).getResult(0);
        auto next = func::CallOp::create(fb, loc, bodyV, a);
        SmallVector<Value> carry;
        for (auto [k, v] : llvm::enumerate(next.getResults())) {
          Value old = a[C + k];
          Value mask = alignBatched(r, lanes, tensorType(old).getRank() - 1);
          carry.push_back(select(r, mask, v, old));
        }
        return carry;
      });
  SmallVector<Type> types;
  for (Value v : init)
    types.push_back(v.getType());
  auto loop = WhileOp::create(builder, loc, types,
                              FlatSymbolRefAttr::get(anyCond),
                              FlatSymbolRefAttr::get(maskedBody), consts, init);
  llvm::append_range(results, loop.getResults());
  return success();
}

/// An unbatched index picks one batched branch; a batched index runs every
/// branch and selects per lane (indices clamped into range, as the op
/// does).
LogicalResult SwitchOp::buildBatched(OpBuilder &builder,
                                     ArrayRef<Value> operands,
                                     ArrayRef<bool> batched,
                                     SmallVectorImpl<Value> &results,
                                     SymbolTableCollection &symbols) {
  Location loc = getLoc();
  RuleBuilder b{builder, loc};
  Value like = firstBatched(operands, batched);
  int64_t batch = batchSize(operands, batched);
  SmallVector<Value> args(operands.drop_front());
  SmallVector<bool> argsBatched(batched.drop_front());
  if (!batched[0]) {
    SmallVector<Attribute> branches;
    SmallVector<Type> types;
    for (Attribute name : getBranches()) {
      auto branch = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          *this, cast<FlatSymbolRefAttr>(name));
      func::FuncOp mapped =
          vmappedFunction(symbols, *this, branch, argsBatched, batch);
      branches.push_back(FlatSymbolRefAttr::get(mapped));
      types.assign(mapped.getResultTypes().begin(),
                   mapped.getResultTypes().end());
    }
    auto op = SwitchOp::create(builder, loc, types, operands[0],
                               builder.getArrayAttr(branches), args);
    llvm::append_range(results, op.getResults());
    return success();
  }
  Value index = operands[0];
  if (tensorType(index).getElementType().isInteger(1))
    index = castTo(b, index, builder.getI32Type());
  for (auto [k, name] : llvm::enumerate(getBranches())) {
    auto branch = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        *this, cast<FlatSymbolRefAttr>(name));
    // Every lane's value of branch k (broadcast when no arg is batched).
    SmallVector<Value> values;
    if (llvm::is_contained(argsBatched, true)) {
      func::FuncOp mapped =
          vmappedFunction(symbols, *this, branch, argsBatched, batch);
      llvm::append_range(
          values, func::CallOp::create(builder, loc, mapped, args).getResults());
    } else {
      for (Value v :
           func::CallOp::create(builder, loc, branch, args).getResults())
        values.push_back(broadcastToBatch(b, v, like));
    }
    if (k == 0) {
      llvm::append_range(results, values);
      continue;
    }
    // Lanes whose (clamped) index is >= k take branch k.
    Value taken = compare(b, "ge", index,
                          scalarLike(b, index, static_cast<double>(k)));
    for (auto [r, v] : llvm::enumerate(values)) {
      Value mask = alignBatched(b, taken, tensorType(v).getRank() - 1);
      results[r] = select(b, mask, v, results[r]);
    }
  }
  return success();
}
