//===- TosaToRLXPatterns.cpp - TOSA to rlx rewrite patterns ---------------===//
///
/// \file
/// One pattern per TOSA op. rlx result types are inferred by the rlx ops'
/// shape rules (ShapeInference.h) rather than copied from TOSA: the rlx
/// verifiers require exactly those shapes, and TOSA may leave a dim `?` that
/// the broadcast makes static. Every check, the shape rules included, runs
/// before the first op is created, so a failing pattern leaves the IR
/// untouched.
///
//===----------------------------------------------------------------------===//

#include "conversion/TosaToRLX/TosaToRLXPatterns.h"

#include "dialects/RLX/IR/CheckedBuilders.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/IR/ShapeInference.h"
#include "dialects/RLX/IR/ShapeUtils.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"

using namespace mlir;
using namespace mlir::rlx;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

static Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// Replaces `op` with an `OpTy` built from `args`, its result type inferred
/// by the rlx op's shape rule; when the rule rejects the operands, its error
/// is reported at `op` and nothing is built. TOSA's verifiers do not check
/// every result type against the operands (a slice's size -1), so an
/// inferred type that contradicts the declared one is an error too, not IR
/// whose users no longer verify (found by test/fuzz, fuzz.tosa).
template <typename OpTy, typename... Args>
static LogicalResult replaceOpWithInferred(PatternRewriter &rewriter,
                                           Operation *op, Args &&...args) {
  FailureOr<OpTy> replacement =
      createChecked<OpTy>(rewriter, op->getLoc(), std::forward<Args>(args)...);
  if (failed(replacement))
    return failure();
  Type inferred = (*replacement)->getResult(0).getType();
  Type declared = op->getResult(0).getType();
  if (failed(verifyCompatibleShape(inferred, declared)) ||
      getElementTypeOrSelf(inferred) != getElementTypeOrSelf(declared)) {
    rewriter.eraseOp(*replacement);
    return op->emitOpError("expects result type ")
           << inferred << " for its operands, got " << declared;
  }
  rewriter.replaceOp(op, *replacement);
  return success();
}

/// Whether every element of `attr` is zero.
static bool isZeroElements(DenseElementsAttr attr) {
  Type type = attr.getElementType();
  if (isa<FloatType>(type))
    return llvm::all_of(attr.getValues<APFloat>(),
                        [](const APFloat &v) { return v.isZero(); });
  if (type.isIntOrIndex())
    return llvm::all_of(attr.getValues<APInt>(),
                        [](const APInt &v) { return v.isZero(); });
  return false;
}

/// Checks that operand `name` of `op` is a constant zero. rlx has no
/// quantized arithmetic, so TOSA zero points and the mul shift must be 0.
static LogicalResult checkZeroOperand(Operation *op, Value value,
                                      StringRef name) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return op->emitOpError("expects a constant ") << name;
  if (!isZeroElements(attr))
    return op->emitOpError("expects ")
           << name << " to be zero (quantized TOSA is not supported), got "
           << attr;
  return success();
}

/// The values of the `!tosa.shape` operand `name` of `op`, which must come
/// from a `tosa.const_shape`.
static FailureOr<SmallVector<int64_t>> constantShape(Operation *op, Value shape,
                                                     StringRef name) {
  DenseIntElementsAttr attr;
  if (!matchPattern(shape, m_Constant(&attr)))
    return op->emitOpError("expects ")
           << name
           << " from a tosa.const_shape, got a value computed at run "
              "time";
  return llvm::map_to_vector(attr.getValues<APInt>(),
                             [](const APInt &v) { return v.getSExtValue(); });
}

/// rlx's maximum, minimum and max reduction propagate NaN; TOSA's IGNORE
/// mode has no rlx counterpart.
static LogicalResult checkNanPropagation(Operation *op) {
  auto mode = op->getAttrOfType<tosa::NanPropagationModeAttr>("nan_mode");
  if (mode && mode.getValue() != tosa::NanPropagationMode::PROPAGATE)
    return op->emitOpError("expects nan_mode = PROPAGATE (rlx propagates "
                           "NaN), got ")
           << tosa::stringifyNanPropagationMode(mode.getValue());
  return success();
}

/// `attr`, an integer or float, as a scalar of `elementType` (floats round to
/// nearest); null when the kinds do not fit.
static TypedAttr convertScalar(Attribute attr, Type elementType) {
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    APFloat value(0.0);
    if (auto floatAttr = dyn_cast<FloatAttr>(attr))
      value = floatAttr.getValue();
    else if (auto intAttr = dyn_cast<IntegerAttr>(attr))
      value = APFloat(static_cast<double>(intAttr.getValue().getSExtValue()));
    else
      return {};
    bool losesInfo = false;
    value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    return FloatAttr::get(floatType, value);
  }
  if (auto intType = dyn_cast<IntegerType>(elementType)) {
    auto intAttr = dyn_cast<IntegerAttr>(attr);
    if (!intAttr)
      return {};
    return IntegerAttr::get(intType,
                            intAttr.getValue().sextOrTrunc(intType.getWidth()));
  }
  return {};
}

/// Whether clamping below at `bound` changes nothing: -inf, the lowest
/// finite float, or the smallest signed integer.
static bool isLowest(TypedAttr bound) {
  if (auto floatAttr = dyn_cast<FloatAttr>(bound)) {
    const APFloat &v = floatAttr.getValue();
    return (v.isInfinity() && v.isNegative()) ||
           v.bitwiseIsEqual(
               APFloat::getLargest(v.getSemantics(), /*Negative=*/true));
  }
  return cast<IntegerAttr>(bound).getValue().isMinSignedValue();
}

/// Whether clamping above at `bound` changes nothing.
static bool isHighest(TypedAttr bound) {
  if (auto floatAttr = dyn_cast<FloatAttr>(bound)) {
    const APFloat &v = floatAttr.getValue();
    return (v.isInfinity() && !v.isNegative()) ||
           v.bitwiseIsEqual(APFloat::getLargest(v.getSemantics()));
  }
  return cast<IntegerAttr>(bound).getValue().isMaxSignedValue();
}

static bool isZeroScalar(TypedAttr value) {
  if (auto floatAttr = dyn_cast<FloatAttr>(value))
    return floatAttr.getValue().isZero();
  return cast<IntegerAttr>(value).getValue().isZero();
}

/// A rank-0 rlx.constant holding `value`.
static Value scalarConstant(OpBuilder &builder, Location loc, TypedAttr value) {
  auto type = RankedTensorType::get({}, value.getType());
  return mlir::rlx::ConstantOp::create(builder, loc, type,
                                 DenseElementsAttr::get(type, value));
}

/// Whether rlx.broadcast_in_dim can stretch `from` to `to`, aligned from the
/// right: every dim of `from` is 1 or equal to its dim of `to`.
static bool stretchesTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t offset = to.size() - from.size();
  for (auto [i, dim] : llvm::enumerate(from))
    if (dim != 1 && dim != to[offset + i])
      return false;
  return true;
}

/// `value` broadcast to `shape` (which stretchesTo allows).
static Value stretch(OpBuilder &builder, Location loc, Value value,
                     ArrayRef<int64_t> shape) {
  if (shapeOf(value) == shape)
    return value;
  int64_t offset = shape.size() - shapeOf(value).size();
  SmallVector<int64_t> dims = llvm::to_vector(
      llvm::seq<int64_t>(offset, static_cast<int64_t>(shape.size())));
  auto type = RankedTensorType::get(shape, elementTypeOf(value));
  return BroadcastInDimOp::create(builder, loc, type, value, dims);
}

namespace {

//===----------------------------------------------------------------------===//
// Pattern base
//===----------------------------------------------------------------------===//

/// Rejects unranked tensors and non-numeric element types, which no rlx op
/// takes, then calls `convert`.
template <typename OpTy> struct TosaPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    auto check = [&](Type type) -> LogicalResult {
      auto tensorType = dyn_cast<TensorType>(type);
      if (!tensorType)
        return success(); // !tosa.shape operands
      if (!isa<RankedTensorType>(tensorType))
        return op.emitOpError("expects ranked tensors, got ") << type;
      if (!tensorType.getElementType().isIntOrFloat())
        return op.emitOpError("expects integer or floating-point tensors, got ")
               << type;
      return success();
    };
    for (Type type : op->getOperandTypes())
      if (failed(check(type)))
        return failure();
    for (Type type : op->getResultTypes())
      if (failed(check(type)))
        return failure();
    return convert(op, rewriter);
  }

  virtual LogicalResult convert(OpTy op, PatternRewriter &rewriter) const = 0;
};

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// A binary TOSA op that maps onto a broadcasting rlx op.
template <typename TosaOp, typename RlxOp>
struct BinaryPattern : TosaPattern<TosaOp> {
  using TosaPattern<TosaOp>::TosaPattern;

  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    if (failed(checkNanPropagation(op)))
      return failure();
    return replaceOpWithInferred<RlxOp>(rewriter, op, op.getInput1(),
                                        op.getInput2());
  }
};

struct MulPattern : TosaPattern<tosa::MulOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::MulOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(checkZeroOperand(op, op.getShift(), "shift")))
      return failure();
    return replaceOpWithInferred<mlir::rlx::MulOp>(rewriter, op, op.getInput1(),
                                             op.getInput2());
  }
};

/// A unary TOSA op that maps onto an rlx op of the same type.
template <typename TosaOp, typename RlxOp>
struct UnaryPattern : TosaPattern<TosaOp> {
  using TosaPattern<TosaOp>::TosaPattern;

  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    // The operand is `input1` or `input` depending on the op.
    rewriter.replaceOpWithNewOp<RlxOp>(op, op->getOperand(0));
    return success();
  }
};

struct NegatePattern : TosaPattern<tosa::NegateOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::NegateOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(checkZeroOperand(op, op.getInput1Zp(), "input1_zp")) ||
        failed(checkZeroOperand(op, op.getOutputZp(), "output_zp")))
      return failure();
    rewriter.replaceOpWithNewOp<mlir::rlx::NegOp>(op, op.getInput1());
    return success();
  }
};

/// reciprocal(x) = 1 / x.
struct ReciprocalPattern : TosaPattern<tosa::ReciprocalOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::ReciprocalOp op,
                        PatternRewriter &rewriter) const override {
    Value x = op.getInput1();
    auto floatType = dyn_cast<FloatType>(elementTypeOf(x));
    if (!floatType)
      return op.emitOpError("expects a floating-point tensor");
    Value one =
        scalarConstant(rewriter, op.getLoc(), FloatAttr::get(floatType, 1.0));
    rewriter.replaceOpWithNewOp<mlir::rlx::DivOp>(op, one, x);
    return success();
  }
};

/// clamp(x) = minimum(maximum(x, min_val), max_val), leaving out a bound at
/// the end of the type's range; clamp(x, 0, max) is rlx.relu.
struct ClampPattern : TosaPattern<tosa::ClampOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::ClampOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(checkNanPropagation(op)))
      return failure();
    Value x = op.getInput();
    Type elementType = elementTypeOf(x);
    TypedAttr low = convertScalar(op.getMinValAttr(), elementType);
    TypedAttr high = convertScalar(op.getMaxValAttr(), elementType);
    if (!low || !high)
      return op.emitOpError("expects min_val and max_val of the input "
                            "element type ")
             << elementType;
    Location loc = op.getLoc();
    bool clampLow = !isLowest(low), clampHigh = !isHighest(high);
    if (clampLow && !clampHigh && isZeroScalar(low)) {
      rewriter.replaceOpWithNewOp<mlir::rlx::ReluOp>(op, x);
      return success();
    }
    Value result = x;
    if (clampLow)
      result = mlir::rlx::MaximumOp::create(rewriter, loc, result,
                                      scalarConstant(rewriter, loc, low));
    if (clampHigh)
      result = mlir::rlx::MinimumOp::create(rewriter, loc, result,
                                      scalarConstant(rewriter, loc, high));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// greater, greater_equal, equal: rlx.compare wants operands of one type, so
/// a size-1 dim is stretched with rlx.broadcast_in_dim first.
template <typename TosaOp> struct ComparePattern : TosaPattern<TosaOp> {
  ComparePattern(MLIRContext *context, StringRef direction)
      : TosaPattern<TosaOp>(context), direction(direction) {}

  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    Value lhs = op.getInput1(), rhs = op.getInput2();
    if (elementTypeOf(lhs) != elementTypeOf(rhs))
      return op.emitOpError("expects operands of one element type");
    auto emitError = [&] { return op.emitOpError(); };
    FailureOr<SmallVector<int64_t>> shape =
        inferBroadcastShape({lhs.getType(), rhs.getType()}, emitError);
    if (failed(shape))
      return failure();
    if (!stretchesTo(shapeOf(lhs), *shape) ||
        !stretchesTo(shapeOf(rhs), *shape))
      return op.emitOpError("expects operand shapes ")
             << formatShape(shapeOf(lhs)) << " and "
             << formatShape(shapeOf(rhs)) << " that differ only in size-1 dims";
    Location loc = op.getLoc();
    lhs = stretch(rewriter, loc, lhs, *shape);
    rhs = stretch(rewriter, loc, rhs, *shape);
    rewriter.replaceOpWithNewOp<mlir::rlx::CompareOp>(op, direction, lhs, rhs);
    return success();
  }

  StringRef direction;
};

struct SelectPattern : TosaPattern<tosa::SelectOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::SelectOp op,
                        PatternRewriter &rewriter) const override {
    Value cond = op.getInput1(), onTrue = op.getInput2(),
          onFalse = op.getInput3();
    if (elementTypeOf(onTrue) != elementTypeOf(onFalse))
      return op.emitOpError("expects on_true and on_false of one element type");
    return replaceOpWithInferred<mlir::rlx::SelectOp>(rewriter, op, cond, onTrue,
                                                onFalse);
  }
};

/// TOSA rounds float-to-integer casts to nearest while rlx.cast truncates,
/// so those are rejected; a cast to i1 is `x != 0`.
struct CastPattern : TosaPattern<tosa::CastOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::CastOp op,
                        PatternRewriter &rewriter) const override {
    Value x = op.getInput();
    auto inputType = cast<RankedTensorType>(x.getType());
    Type from = inputType.getElementType();
    Type to = getElementTypeOrSelf(op.getType());
    auto type = RankedTensorType::get(inputType.getShape(), to);
    if (from == to) {
      rewriter.replaceOp(op, x);
      return success();
    }
    if (to.isInteger(1)) {
      if (!inputType.hasStaticShape())
        return op.emitOpError("expects a static shape for a cast to i1, got ")
               << formatShape(inputType.getShape());
      Attribute zero = isa<FloatType>(from)
                           ? Attribute(FloatAttr::get(from, 0.0))
                           : Attribute(IntegerAttr::get(from, 0));
      Value zeros =
          mlir::rlx::ConstantOp::create(rewriter, op.getLoc(), inputType,
                                  DenseElementsAttr::get(inputType, zero));
      rewriter.replaceOpWithNewOp<mlir::rlx::CompareOp>(op, "ne", x, zeros);
      return success();
    }
    if (isa<FloatType>(from) && isa<IntegerType>(to))
      return op.emitOpError("expects no float-to-integer cast (TOSA rounds to "
                            "nearest, rlx.cast truncates), got ")
             << from << " to " << to;
    rewriter.replaceOpWithNewOp<mlir::rlx::CastOp>(op, type, x);
    return success();
  }
};

struct IdentityPattern : TosaPattern<tosa::IdentityOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::IdentityOp op,
                        PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getInput1());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Contractions, convolution, pooling
//===----------------------------------------------------------------------===//

/// [B, M, K] x [B, K, N]: rlx.matmul with the batch dims broadcast.
struct MatMulPattern : TosaPattern<tosa::MatMulOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::MatMulOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(checkZeroOperand(op, op.getAZp(), "a_zp")) ||
        failed(checkZeroOperand(op, op.getBZp(), "b_zp")))
      return failure();
    Value a = op.getA(), b = op.getB();
    Type elementType = elementTypeOf(a);
    if (elementTypeOf(b) != elementType ||
        getElementTypeOrSelf(op.getType()) != elementType)
      return op.emitOpError("expects a, b and output of one element type, "
                            "got ")
             << elementType << ", " << elementTypeOf(b) << " and "
             << getElementTypeOrSelf(op.getType());
    return replaceOpWithInferred<mlir::rlx::MatmulOp>(rewriter, op, a, b);
  }
};

/// The OHWI weight becomes an HWIO filter through rlx.transpose; the bias is
/// added with broadcasting unless it is a constant zero.
struct Conv2DPattern : TosaPattern<tosa::Conv2DOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::Conv2DOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(checkZeroOperand(op, op.getInputZp(), "input_zp")) ||
        failed(checkZeroOperand(op, op.getWeightZp(), "weight_zp")))
      return failure();
    Value input = op.getInput(), weight = op.getWeight(), bias = op.getBias();
    Type elementType = elementTypeOf(input);
    if (!isa<FloatType>(elementType) || elementTypeOf(weight) != elementType ||
        elementTypeOf(bias) != elementType ||
        getElementTypeOrSelf(op.getType()) != elementType)
      return op.emitOpError("expects floating-point input, weight, bias and "
                            "output of one element type");
    ArrayRef<int64_t> in = shapeOf(input), w = shapeOf(weight);
    if (in.size() != 4 || w.size() != 4)
      return op.emitOpError("expects an NHWC input and an OHWI weight");
    if (ShapedType::isDynamic(w[1]) || ShapedType::isDynamic(w[2]))
      return op.emitOpError("expects static kernel sizes, got weight ")
             << formatShape(w);
    // The transpose, conv2d and bias add are checked with their shape rules
    // before any is built.
    ArrayRef<int64_t> pad = op.getPad(), stride = op.getStride(),
                      dilation = op.getDilation();
    SmallVector<int64_t> ohwiToHwio = {1, 2, 3, 0};
    auto emitError = [&] { return op.emitOpError(); };
    FailureOr<SmallVector<int64_t>> hwio =
        inferTransposeShape(w, ohwiToHwio, emitError);
    if (failed(hwio))
      return failure();
    FailureOr<SmallVector<int64_t>> shape = inferConv2DShape(
        in, *hwio, stride, pad, dilation, /*groups=*/1, emitError);
    if (failed(shape))
      return failure();
    DenseElementsAttr biasValue;
    bool addBias = !matchPattern(bias, m_Constant(&biasValue)) ||
                   !isZeroElements(biasValue);
    if (addBias &&
        failed(inferBroadcastShape(
            {RankedTensorType::get(*shape, elementType), bias.getType()},
            emitError)))
      return failure();

    Location loc = op.getLoc();
    Value filter = mlir::rlx::TransposeOp::create(rewriter, loc, weight, ohwiToHwio);
    Value result = mlir::rlx::Conv2DOp::create(rewriter, loc, input, filter, stride,
                                         pad, dilation, /*groups=*/1);
    if (addBias)
      result = mlir::rlx::AddOp::create(rewriter, loc, result, bias);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MaxPool2DPattern : TosaPattern<tosa::MaxPool2dOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::MaxPool2dOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(checkNanPropagation(op)))
      return failure();
    Value input = op.getInput();
    if (!isa<FloatType>(elementTypeOf(input)) || shapeOf(input).size() != 4)
      return op.emitOpError("expects a floating-point NHWC input");
    return replaceOpWithInferred<mlir::rlx::MaxPool2DOp>(
        rewriter, op, input, op.getKernel(), op.getStride(), op.getPad());
  }
};

/// TOSA leaves padding out of the divisor and rlx.avg_pool2d counts it, so
/// only unpadded pooling maps.
struct AvgPool2DPattern : TosaPattern<tosa::AvgPool2dOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::AvgPool2dOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(checkZeroOperand(op, op.getInputZp(), "input_zp")) ||
        failed(checkZeroOperand(op, op.getOutputZp(), "output_zp")))
      return failure();
    Value input = op.getInput();
    if (!isa<FloatType>(elementTypeOf(input)) || shapeOf(input).size() != 4)
      return op.emitOpError("expects a floating-point NHWC input");
    if (llvm::any_of(op.getPad(), [](int64_t p) { return p != 0; }))
      return op.emitOpError("expects zero padding (TOSA leaves padding out of "
                            "the average, rlx.avg_pool2d counts it)");
    return replaceOpWithInferred<mlir::rlx::AvgPool2DOp>(
        rewriter, op, input, op.getKernel(), op.getStride(), op.getPad());
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// TOSA reduces over one axis and keeps it as size 1.
template <typename TosaOp, typename RlxOp>
struct ReducePattern : TosaPattern<TosaOp> {
  using TosaPattern<TosaOp>::TosaPattern;

  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    if (failed(checkNanPropagation(op)))
      return failure();
    SmallVector<int64_t> axes = {static_cast<int64_t>(op.getAxis())};
    return replaceOpWithInferred<RlxOp>(rewriter, op, op.getInput(), axes,
                                        /*keepdims=*/true);
  }
};

/// reduce_min(x) = -max(-x).
struct ReduceMinPattern : TosaPattern<tosa::ReduceMinOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::ReduceMinOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(checkNanPropagation(op)))
      return failure();
    Value x = op.getInput();
    SmallVector<int64_t> axes = {static_cast<int64_t>(op.getAxis())};
    auto emitError = [&] { return op.emitOpError(); };
    if (failed(inferReductionShape(shapeOf(x), axes, /*keepdims=*/true,
                                   emitError)))
      return failure();
    Location loc = op.getLoc();
    Value negated = mlir::rlx::NegOp::create(rewriter, loc, x);
    Value max = mlir::rlx::MaxOp::create(rewriter, loc, negated, axes,
                                   /*keepdims=*/true);
    rewriter.replaceOpWithNewOp<mlir::rlx::NegOp>(op, max);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// The shape comes from the tosa.const_shape operand, completed by the TOSA
/// result type where it says -1; a static operand gives a static result.
struct ReshapePattern : TosaPattern<tosa::ReshapeOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::ReshapeOp op,
                        PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> target =
        constantShape(op, op.getShape(), "shape");
    if (failed(target))
      return failure();
    auto resultType = cast<RankedTensorType>(op.getType());
    if (static_cast<int64_t>(target->size()) != resultType.getRank())
      return op.emitOpError("expects one shape entry per result dim, got ")
             << target->size() << " for rank " << resultType.getRank();
    SmallVector<int64_t> shape;
    for (auto [size, resultSize] : llvm::zip(*target, resultType.getShape()))
      shape.push_back(size >= 0 ? size : resultSize);

    Value x = op.getInput1();
    auto inputType = cast<RankedTensorType>(x.getType());
    int64_t numDynamic = llvm::count_if(shape, ShapedType::isDynamic);
    if (inputType.hasStaticShape() && numDynamic == 1) {
      int64_t known = 1;
      for (int64_t size : shape)
        if (!ShapedType::isDynamic(size))
          known *= size;
      if (known == 0 || inputType.getNumElements() % known != 0)
        return op.emitOpError("expects a shape that divides ")
               << formatShape(inputType.getShape()) << ", got "
               << formatShape(shape);
      *llvm::find_if(shape, ShapedType::isDynamic) =
          inputType.getNumElements() / known;
    }
    rewriter.replaceOpWithNewOp<mlir::rlx::ReshapeOp>(
        op, RankedTensorType::get(shape, inputType.getElementType()), x);
    return success();
  }
};

struct TransposePattern : TosaPattern<tosa::TransposeOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::TransposeOp op,
                        PatternRewriter &rewriter) const override {
    SmallVector<int64_t> perm = llvm::map_to_vector(
        op.getPerms(), [](int32_t p) { return static_cast<int64_t>(p); });
    return replaceOpWithInferred<mlir::rlx::TransposeOp>(rewriter, op, op.getInput1(),
                                                   perm);
  }
};

/// start and size from tosa.const_shape operands; a dynamic dim can only be
/// taken whole (size -1 from start 0).
struct SlicePattern : TosaPattern<tosa::SliceOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::SliceOp op,
                        PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> start =
        constantShape(op, op.getStart(), "start");
    if (failed(start))
      return failure();
    FailureOr<SmallVector<int64_t>> size =
        constantShape(op, op.getSize(), "size");
    if (failed(size))
      return failure();
    Value x = op.getInput1();
    ArrayRef<int64_t> in = shapeOf(x);
    if (start->size() != in.size() || size->size() != in.size())
      return op.emitOpError("expects start and size with ")
             << in.size() << " entries";
    SmallVector<int64_t> limit;
    for (auto [d, dim] : llvm::enumerate(in)) {
      int64_t first = (*start)[d], count = (*size)[d];
      if (ShapedType::isDynamic(dim)) {
        if (first != 0 || count != -1)
          return op.emitOpError("expects dynamic dim ")
                 << d << " to be sliced whole (start 0, size -1)";
        limit.push_back(-1);
        continue;
      }
      int64_t last = count == -1 ? dim : first + count;
      if (first < 0 || count < -1 || last > dim)
        return op.emitOpError("expects a slice within dim ")
               << d << " of size " << dim << ", got start " << first
               << " and size " << count;
      limit.push_back(last);
    }
    SmallVector<int64_t> strides(in.size(), 1);
    return replaceOpWithInferred<mlir::rlx::SliceOp>(rewriter, op, x, *start, limit,
                                               strides);
  }
};

struct ConcatPattern : TosaPattern<tosa::ConcatOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::ConcatOp op,
                        PatternRewriter &rewriter) const override {
    return replaceOpWithInferred<mlir::rlx::ConcatOp>(
        rewriter, op, op.getInput1(), rewriter.getI64IntegerAttr(op.getAxis()));
  }
};

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

struct ConstPattern : TosaPattern<tosa::ConstOp> {
  using TosaPattern::TosaPattern;

  LogicalResult convert(tosa::ConstOp op,
                        PatternRewriter &rewriter) const override {
    ElementsAttr values = op.getValues();
    auto type = dyn_cast<RankedTensorType>(values.getType());
    if (!type)
      return op.emitOpError("expects a ranked tensor value");
    rewriter.replaceOpWithNewOp<mlir::rlx::ConstantOp>(op, type, values);
    return success();
  }
};

/// An extern global becomes `rlx.param "name"`; one with a tensor initial
/// value becomes an rlx.constant of it.
struct GlobalLoadConstPattern
    : OpRewritePattern<ml_program::GlobalLoadConstOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ml_program::GlobalLoadConstOp op,
                                PatternRewriter &rewriter) const override {
    auto global = SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(
        op, op.getGlobalAttr());
    if (!global)
      return op.emitOpError("expects an ml_program.global named ")
             << op.getGlobalAttr();
    if (global.getIsMutable())
      return op.emitOpError("expects immutable ml_program globals");
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return op.emitOpError("expects a ranked tensor, got ") << op.getType();
    Attribute value = global.getValueAttr();
    if (isa_and_nonnull<ml_program::ExternAttr>(value)) {
      if (!type.hasStaticShape())
        return op.emitOpError("expects a static shape for extern global @")
               << global.getSymName() << ", got "
               << formatShape(type.getShape());
      rewriter.replaceOpWithNewOp<mlir::rlx::ParamOp>(op, type, global.getSymName());
      return success();
    }
    if (auto elements = dyn_cast_or_null<ElementsAttr>(value)) {
      auto valueType = dyn_cast<RankedTensorType>(elements.getType());
      if (!valueType)
        return op.emitOpError("expects a ranked tensor initial value");
      rewriter.replaceOpWithNewOp<mlir::rlx::ConstantOp>(op, valueType, elements);
      return success();
    }
    return op.emitOpError("expects global @")
           << global.getSymName()
           << " to be #ml_program.extern or to have a tensor initial value";
  }
};

} // namespace

void mlir::rlx::populateTosaToRLXPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<
      // Elementwise.
      BinaryPattern<tosa::AddOp, mlir::rlx::AddOp>,
      BinaryPattern<tosa::SubOp, mlir::rlx::SubOp>,
      BinaryPattern<tosa::IntDivOp, mlir::rlx::DivOp>,
      BinaryPattern<tosa::PowOp, mlir::rlx::PowOp>,
      BinaryPattern<tosa::MaximumOp, mlir::rlx::MaximumOp>,
      BinaryPattern<tosa::MinimumOp, mlir::rlx::MinimumOp>, MulPattern,
      UnaryPattern<tosa::AbsOp, mlir::rlx::AbsOp>,
      UnaryPattern<tosa::ExpOp, mlir::rlx::ExpOp>,
      UnaryPattern<tosa::LogOp, mlir::rlx::LogOp>,
      UnaryPattern<tosa::RsqrtOp, mlir::rlx::RsqrtOp>,
      UnaryPattern<tosa::TanhOp, mlir::rlx::TanhOp>,
      UnaryPattern<tosa::SinOp, mlir::rlx::SinOp>,
      UnaryPattern<tosa::CosOp, mlir::rlx::CosOp>,
      UnaryPattern<tosa::SigmoidOp, mlir::rlx::SigmoidOp>, NegatePattern,
      ReciprocalPattern, ClampPattern, SelectPattern, CastPattern,
      IdentityPattern,
      // Contractions, convolution, pooling.
      MatMulPattern, Conv2DPattern, MaxPool2DPattern, AvgPool2DPattern,
      // Reductions.
      ReducePattern<tosa::ReduceSumOp, mlir::rlx::SumOp>,
      ReducePattern<tosa::ReduceMaxOp, mlir::rlx::MaxOp>, ReduceMinPattern,
      // Shape ops.
      ReshapePattern, TransposePattern, SlicePattern, ConcatPattern,
      // Leaves.
      ConstPattern, GlobalLoadConstPattern>(context);
  patterns.add<ComparePattern<tosa::GreaterOp>>(context, "gt");
  patterns.add<ComparePattern<tosa::GreaterEqualOp>>(context, "ge");
  patterns.add<ComparePattern<tosa::EqualOp>>(context, "eq");
}
