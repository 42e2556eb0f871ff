//===- RLXOps.cpp - rlx op verifiers and type inference -------------------===//
///
/// \file
/// Verifiers of the rlx ops and the inference of their result types. Every
/// shape error is reported here, at the op's location, so that no later pass
/// meets a malformed op. Inference and verification share one shape function
/// per op (ShapeInference.h): the verifier checks the attributes and element
/// types, runs the shape function and compares the declared result.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/ShapeInference.h"
#include "dialects/RLX/IR/ShapeUtils.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Where inferReturnTypes reports: at `location`, prefixed like emitOpError,
/// or nowhere (an inactive diagnostic) without a location.
static auto inferenceErrors(std::optional<Location> location,
                            StringRef opName) {
  return [location, opName]() -> InFlightDiagnostic {
    if (!location)
      return InFlightDiagnostic();
    InFlightDiagnostic diag = emitError(*location);
    diag << "'" << opName << "' op ";
    return diag;
  };
}

/// Inference may run before the operand constraints are verified (a builder
/// given wrong operands): it fails instead of casting.
static LogicalResult checkRanked(ValueRange operands, EmitErrorFn emitError) {
  for (Value operand : operands)
    if (!isa<RankedTensorType>(operand.getType()))
      return emitError() << "expects ranked tensor operands";
  return success();
}

/// Appends the tensor type of `shape` and `element` to `types`.
static LogicalResult addTensorType(ShapeOrFailure shape, Type element,
                                   SmallVectorImpl<Type> &types) {
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(*shape, element));
  return success();
}

/// Compares the declared result shape of `op` with the inferred one; `why`
/// explains the expected shape in the message.
static LogicalResult verifyResultShape(Operation *op, ShapeOrFailure inferred,
                                       StringRef why = "") {
  if (failed(inferred))
    return failure();
  ArrayRef<int64_t> declared = shapeOf(op->getResult(0));
  if (declared != ArrayRef<int64_t>(*inferred))
    return op->emitOpError("expects result shape ")
           << formatShape(*inferred) << why << ", got "
           << formatShape(declared);
  return success();
}

/// Compares the declared result shape of `op` with the one its own
/// inferReturnTypes gives for its operands and attributes: a verifier states
/// an op's shape rule through inference, so the rule is written once.
template <typename OpTy> static LogicalResult verifyInferredShape(OpTy op) {
  SmallVector<Type> inferred;
  if (failed(OpTy::inferReturnTypes(op->getContext(), op.getLoc(),
                                    typename OpTy::Adaptor(op), inferred)))
    return failure();
  ArrayRef<int64_t> shape = cast<RankedTensorType>(inferred.front()).getShape();
  return verifyResultShape(op, SmallVector<int64_t>(shape));
}

/// The result of a broadcasting op (binary ops, compare, select).
static LogicalResult inferBroadcastingType(std::optional<Location> location,
                                           StringRef opName,
                                           ValueRange operands, Type element,
                                           SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, opName);
  return addTensorType(inferBroadcastShape(operands.getTypes(), emitError),
                       element, types);
}

LogicalResult mlir::rlx::verifyBroadcastingShape(Operation *op) {
  auto emitError = [op] { return op->emitOpError(); };
  return verifyResultShape(
      op, inferBroadcastShape(op->getOperandTypes(), emitError),
      " (the broadcast of the operands)");
}

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  if (getName().empty())
    return emitOpError("expects a non-empty parameter name");
  if (!getType().hasStaticShape())
    return emitOpError("expects a static shape for parameter '")
           << getName() << "', got " << formatShape(getType().getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult GeluOp::verify() {
  if (getApproximate() != "tanh" && getApproximate() != "erf")
    return emitOpError("expects approximate = \"tanh\" or \"erf\", got \"")
           << getApproximate() << "\"";
  return success();
}

LogicalResult CompareOp::verify() {
  static constexpr StringLiteral directions[] = {"eq", "ne", "lt",
                                                 "le", "gt", "ge"};
  if (!llvm::is_contained(directions, getDirection()))
    return emitOpError("expects direction eq, ne, lt, le, gt or ge, got \"")
           << getDirection() << "\"";
  return success();
}

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferBroadcastingType(location, getOperationName(),
                               adaptor.getOperands(),
                               IntegerType::get(context, 1), types);
}

LogicalResult SelectOp::verify() {
  Type elementType = getType().getElementType();
  if (getOnTrue().getType().getElementType() != elementType ||
      getOnFalse().getType().getElementType() != elementType)
    return emitOpError("expects on_true, on_false and result of one element "
                       "type");
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferBroadcastingType(
      location, getOperationName(), adaptor.getOperands(),
      getElementTypeOrSelf(adaptor.getOnTrue()), types);
}

LogicalResult CastOp::verify() {
  if (getX().getType().getShape() != getType().getShape())
    return emitOpError("expects the result shape to equal the operand shape ")
           << formatShape(getX().getType().getShape()) << ", got "
           << formatShape(getType().getShape());
  for (Type element : {getX().getType().getElementType(),
                       getType().getElementType()}) {
    auto floatType = dyn_cast<FloatType>(element);
    if (floatType && floatType.getWidth() < 16 && !narrowFloatFormat(floatType))
      return emitOpError("does not convert ") << element
             << " (narrow floats: f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, "
                "f8E4M3B11FNUZ, f8E4M3, f8E3M4, f6E3M2FN, f6E2M3FN, f4E2M1FN)";
  }
  if (getSaturate() && !narrowFloatFormat(getType().getElementType()))
    return emitOpError("expects a narrow float result with 'saturate', got ")
           << getType().getElementType();
  if (Value key = getKey()) {
    // Stochastic rounding rounds f32 or f64 values (as fake_quant does) to
    // a format with fewer mantissa bits.
    Type from = getX().getType().getElementType();
    std::optional<FloatFormat> format = getStochasticFormat();
    if (!from.isF32() && !from.isF64())
      return emitOpError("rounds stochastically (a key) from f32 or f64, "
                         "got ")
             << from;
    if (!format ||
        format->mantissaBits >=
            cast<FloatType>(from).getFPMantissaWidth() - 1)
      return emitOpError("rounds stochastically (a key) to a float type of "
                         "fewer mantissa bits than ")
             << from << " (bf16, f16, a narrow float), got "
             << getType().getElementType();
    return verifyRoundingKey(key.getType(), getX().getType(),
                             [this] { return emitOpError(); });
  }
  return success();
}

std::optional<FloatFormat> CastOp::getStochasticFormat() {
  Type to = getType().getElementType();
  if (to.isBF16())
    return FloatFormat{8, 7, 127, FloatFormat::Specials::IEEE};
  if (to.isF16())
    return FloatFormat{5, 10, 15, FloatFormat::Specials::IEEE};
  if (to.isF32())
    return FloatFormat{8, 23, 127, FloatFormat::Specials::IEEE};
  return narrowFloatFormat(to);
}

LogicalResult BitcastOp::verify() {
  if (getX().getType().getShape() != getType().getShape())
    return emitOpError("expects the result shape to equal the operand shape ")
           << formatShape(getX().getType().getShape()) << ", got "
           << formatShape(getType().getShape());
  Type from = getX().getType().getElementType();
  Type to = getType().getElementType();
  if (!from.isIntOrFloat() || !to.isIntOrFloat() ||
      from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
    return emitOpError("expects element types of one bit width, got ")
           << from << " and " << to;
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// i8 x i8 -> i32: the one mixed matmul.
static bool isInt8Accumulation(Type operand, Type result) {
  return operand.isSignlessInteger(8) && result.isSignlessInteger(32);
}

LogicalResult MatmulOp::verify() {
  Type operand = getLhs().getType().getElementType();
  Type result = getType().getElementType();
  if (getRhs().getType().getElementType() != operand ||
      (result != operand && !isInt8Accumulation(operand, result)))
    return emitOpError("expects operands and result of one element type, "
                       "or i8 operands and an i32 result");
  return verifyInferredShape(*this);
}

/// isCompatibleReturnTypes of the contractions that may widen i8 to i32.
static bool isSameOrInt8Widened(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != 1 || actual.size() != 1)
    return false;
  auto i = dyn_cast<RankedTensorType>(inferred[0]);
  auto a = dyn_cast<RankedTensorType>(actual[0]);
  if (!i || !a)
    return inferred == actual;
  return i == a || (i.getShape() == a.getShape() &&
                    i.getEncoding() == a.getEncoding() &&
                    isInt8Accumulation(i.getElementType(), a.getElementType()));
}

bool MatmulOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {
  return isSameOrInt8Widened(inferred, actual);
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  if (failed(checkRanked(adaptor.getOperands(), emitError)))
    return failure();
  return addTensorType(inferMatmulShape(shapeOf(adaptor.getLhs()),
                                        shapeOf(adaptor.getRhs()), emitError),
                       getElementTypeOrSelf(adaptor.getLhs()), types);
}

LogicalResult Conv2DOp::verify() {
  auto input = getInput().getType();
  auto filter = getFilter().getType();
  Type element = input.getElementType(), result = getType().getElementType();
  if (element != filter.getElementType() ||
      !(isa<FloatType>(element) ? result == element
                                : isInt8Accumulation(element, result)))
    return emitOpError("expects float input, filter and result of one type, "
                       "or i8 input and filter with an i32 result");
  return verifyInferredShape(*this);
}

bool Conv2DOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {
  return isSameOrInt8Widened(inferred, actual);
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  if (failed(checkRanked(adaptor.getOperands(), emitError)))
    return failure();
  return addTensorType(
      inferConv2DShape(shapeOf(adaptor.getInput()),
                       shapeOf(adaptor.getFilter()), adaptor.getStrides(),
                       adaptor.getPadding(), adaptor.getDilations(),
                       adaptor.getGroups(), emitError),
      getElementTypeOrSelf(adaptor.getInput()), types);
}

template <typename PoolOp> static LogicalResult verifyPool(PoolOp op) {
  if (op.getInput().getType().getElementType() != op.getType().getElementType())
    return op.emitOpError("expects input and result of one element type");
  return verifyInferredShape(op);
}

/// inferReturnTypes of max_pool2d and avg_pool2d.
template <typename Adaptor>
static LogicalResult inferPoolType(std::optional<Location> location,
                                   StringRef opName, Adaptor adaptor,
                                   SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, opName);
  if (failed(checkRanked(adaptor.getOperands(), emitError)))
    return failure();
  return addTensorType(
      inferPool2DShape(shapeOf(adaptor.getInput()), adaptor.getWindow(),
                       adaptor.getStrides(), adaptor.getPadding(), emitError),
      getElementTypeOrSelf(adaptor.getInput()), types);
}

LogicalResult MaxPool2DOp::verify() { return verifyPool(*this); }
LogicalResult AvgPool2DOp::verify() { return verifyPool(*this); }

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename ReduceOp> static LogicalResult verifyReduction(ReduceOp op) {
  if (op.getX().getType().getElementType() != op.getType().getElementType())
    return op.emitOpError("expects input and result of one element type");
  return verifyInferredShape(op);
}

/// inferReturnTypes of sum, mean and max.
template <typename Adaptor>
static LogicalResult inferReductionType(std::optional<Location> location,
                                        StringRef opName, Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, opName);
  if (failed(checkRanked(adaptor.getOperands(), emitError)))
    return failure();
  return addTensorType(inferReductionShape(shapeOf(adaptor.getX()),
                                           adaptor.getAxes(),
                                           adaptor.getKeepdims(), emitError),
                       getElementTypeOrSelf(adaptor.getX()), types);
}

LogicalResult SumOp::verify() { return verifyReduction(*this); }
LogicalResult MeanOp::verify() {
  if (!isa<FloatType>(getType().getElementType()))
    return emitOpError("expects a floating-point tensor");
  return verifyReduction(*this);
}
LogicalResult MaxOp::verify() { return verifyReduction(*this); }

LogicalResult SoftmaxOp::verify() {
  return checkAxis(getAxis(), getType().getRank(),
                   [&] { return emitOpError(); });
}
LogicalResult LogSoftmaxOp::verify() {
  return checkAxis(getAxis(), getType().getRank(),
                   [&] { return emitOpError(); });
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = getX().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expects operand and result of one element type");
  int64_t inDynamic = in.getNumDynamicDims(),
          outDynamic = out.getNumDynamicDims();
  if (inDynamic == 0 && outDynamic == 0) {
    if (in.getNumElements() != out.getNumElements())
      return emitOpError("expects the same number of elements, got ")
             << formatShape(in.getShape()) << " (" << in.getNumElements()
             << ") and " << formatShape(out.getShape()) << " ("
             << out.getNumElements() << ")";
    return success();
  }
  if (inDynamic == 0)
    return emitOpError("expects a static result for a static operand, got ")
           << formatShape(out.getShape());
  if (outDynamic == 0)
    return emitOpError("expects a dynamic result dim for a dynamic operand, "
                       "got ")
           << formatShape(out.getShape());
  if (outDynamic > 1 && !groupReshape(in.getShape(), out.getShape()))
    return emitOpError("expects one dynamic result dim, or dims that pair "
                       "with the operand's (groups of equal static size "
                       "holding one dynamic dim on each side), got ")
           << formatShape(in.getShape()) << " -> "
           << formatShape(out.getShape());
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = getX().getType();
  if (in.getElementType() != getType().getElementType())
    return emitOpError("expects operand and result of one element type");
  return verifyInferredShape(*this);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  if (failed(checkRanked(adaptor.getOperands(), emitError)))
    return failure();
  return addTensorType(inferTransposeShape(shapeOf(adaptor.getX()),
                                           adaptor.getPermutation(), emitError),
                       getElementTypeOrSelf(adaptor.getX()), types);
}

LogicalResult BroadcastInDimOp::verify() {
  auto in = getX().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expects operand and result of one element type");
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOpError("expects one broadcast dimension per operand dim (")
           << in.getRank() << "), got " << formatArray(dims);
  SmallVector<bool> mapped(out.getRank(), false);
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank() || mapped[d])
      return emitOpError("expects distinct broadcast dimensions in [0, ")
             << out.getRank() << "), got " << formatArray(dims);
    mapped[d] = true;
    int64_t from = in.getDimSize(i), to = out.getDimSize(d);
    if (from != 1 && from != to)
      return emitOpError("expects operand dim ")
             << i << " (" << formatShape({from})
             << ") to be 1 or equal result dim " << d << " ("
             << formatShape({to}) << ")";
  }
  for (int64_t d = 0; d < out.getRank(); ++d)
    if (!mapped[d] && out.isDynamicDim(d))
      return emitOpError("expects result dim ")
             << d << " to be static: no operand dim gives its size";
  return success();
}

LogicalResult SliceOp::verify() {
  if (getX().getType().getElementType() != getType().getElementType())
    return emitOpError("expects operand and result of one element type");
  return verifyInferredShape(*this);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  if (failed(checkRanked(adaptor.getOperands(), emitError)))
    return failure();
  return addTensorType(inferSliceShape(shapeOf(adaptor.getX()),
                                       adaptor.getStart(), adaptor.getLimit(),
                                       adaptor.getStrides(), emitError),
                       getElementTypeOrSelf(adaptor.getX()), types);
}

LogicalResult PadOp::verify() {
  auto in = getX().getType();
  auto value = getPaddingValue().getType();
  if (in.getElementType() != getType().getElementType() ||
      value.getElementType() != in.getElementType())
    return emitOpError("expects operand, padding value and result of one "
                       "element type");
  return verifyInferredShape(*this);
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  if (failed(checkRanked(adaptor.getOperands(), emitError)))
    return failure();
  return addTensorType(inferPadShape(shapeOf(adaptor.getX()),
                                     shapeOf(adaptor.getPaddingValue()),
                                     adaptor.getLow(), adaptor.getHigh(),
                                     adaptor.getInterior(), emitError),
                       getElementTypeOrSelf(adaptor.getX()), types);
}

LogicalResult ConcatOp::verify() {
  auto emitError = [&] { return emitOpError(); };
  ShapeOrFailure expected =
      inferConcatShape(getInputs().getTypes(), getAxis(), emitError);
  if (failed(expected))
    return failure();
  // The size along the axis is the one most often wrong: say which.
  int64_t axis = getAxis();
  if (getType().getRank() == static_cast<int64_t>(expected->size()) &&
      getType().getDimSize(axis) != (*expected)[axis])
    return emitOpError("expects result dim ")
           << axis << " to be " << formatShape({(*expected)[axis]}) << ", got "
           << formatShape({getType().getDimSize(axis)});
  return verifyResultShape(*this, expected);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  ValueRange inputs = adaptor.getInputs();
  ShapeOrFailure shape =
      inferConcatShape(inputs.getTypes(), adaptor.getAxis(), emitError);
  if (failed(shape))
    return failure();
  return addTensorType(shape, getElementTypeOrSelf(inputs.front()), types);
}

LogicalResult GatherOp::verify() {
  if (getX().getType().getElementType() != getType().getElementType())
    return emitOpError("expects operand and result of one element type");
  return verifyInferredShape(*this);
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  if (failed(checkRanked(adaptor.getOperands(), emitError)))
    return failure();
  return addTensorType(inferGatherShape(shapeOf(adaptor.getX()),
                                        shapeOf(adaptor.getIndices()),
                                        adaptor.getAxis(), emitError),
                       getElementTypeOrSelf(adaptor.getX()), types);
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

/// A sampler's result: the key's batch dims, then static sample dims, of an
/// element type `isElement` accepts (`element` names it in the message).
static LogicalResult verifySample(Operation *op, Type key,
                                  RankedTensorType result,
                                  function_ref<bool(Type)> isElement,
                                  StringRef element) {
  auto emitError = [op] { return op->emitOpError(); };
  ShapeOrFailure batch = inferKeyBatchShape(key, emitError);
  if (failed(batch))
    return failure();
  if (!isElement(result.getElementType()))
    return op->emitOpError("expects ")
           << element << " result, got " << result;
  ArrayRef<int64_t> shape = result.getShape();
  if (shape.size() < batch->size() ||
      shape.take_front(batch->size()) != ArrayRef<int64_t>(*batch))
    return op->emitOpError("expects the result to start with the key's batch "
                           "dims ")
           << formatShape(*batch) << ", got " << formatShape(shape);
  ArrayRef<int64_t> sample = shape.drop_front(batch->size());
  if (llvm::any_of(sample, ShapedType::isDynamic))
    return op->emitOpError("expects static sample dims (after the key's "
                           "batch dims), got ")
           << formatShape(sample);
  return success();
}

static bool isF32OrF64(Type type) { return type.isF32() || type.isF64(); }

LogicalResult RandomBitsOp::verify() {
  return verifySample(
      *this, getKey().getType(), cast<RankedTensorType>(getType()),
      [](Type t) { return t.isInteger(32); }, "an i32");
}

LogicalResult RandomUniformOp::verify() {
  double lo = getMinval().convertToDouble(), hi = getMaxval().convertToDouble();
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    return emitOpError("expects finite minval < maxval, got ")
           << lo << " and " << hi;
  return verifySample(*this, getKey().getType(),
                      cast<RankedTensorType>(getType()), isF32OrF64,
                      "an f32 or f64");
}

LogicalResult RandomNormalOp::verify() {
  return verifySample(*this, getKey().getType(),
                      cast<RankedTensorType>(getType()), isF32OrF64,
                      "an f32 or f64");
}

LogicalResult RandomTruncatedNormalOp::verify() {
  double lo = getLower().convertToDouble(), hi = getUpper().convertToDouble();
  if (!(lo < hi))
    return emitOpError("expects lower < upper (either may be infinite), got ")
           << lo << " and " << hi;
  return verifySample(*this, getKey().getType(),
                      cast<RankedTensorType>(getType()), isF32OrF64,
                      "an f32 or f64");
}

LogicalResult RandomSplitOp::verify() { return verifyInferredShape(*this); }

LogicalResult RandomSplitOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> location,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  return addTensorType(inferRandomSplitShape(adaptor.getKey().getType(),
                                             adaptor.getNum(), emitError),
                       IntegerType::get(context, 32), types);
}

LogicalResult RandomFoldInOp::verify() { return verifyInferredShape(*this); }

LogicalResult RandomFoldInOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto emitError = inferenceErrors(location, getOperationName());
  return addTensorType(inferRandomFoldInShape(adaptor.getKey().getType(),
                                              adaptor.getData().getType(),
                                              emitError),
                       IntegerType::get(context, 32), types);
}

#define GET_OP_CLASSES
#include "dialects/RLX/IR/RLXOps.cpp.inc"
