//===- UnsignedIntegers.cpp - ui8 ... ui64 to signless --------------------===//
///
/// \file
/// rlx keeps its arithmetic signless; the unsigned integer types (ui8, ui16,
/// ui32, ui64) exist only where values cross an entry point (ONNX's uint8
/// ... uint64 inputs, outputs and weights) and in the rlx.cast ops that
/// convert them. arith, linalg and the LLVM lowering take signless integers
/// only, so:
///   - an rlx.cast from or to an unsigned type reinterprets the tensor as its
///     signless twin (tensor.bitcast, no copy) and converts with unsigned
///     semantics: zero extension and uitofp from it, truncation to it;
///   - after the conversion every unsigned type left names the same bits as
///     its signless twin, and becomes it (the manifest already holds the
///     unsigned dtypes: rlx-expose-params ran before).
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "conversion/RLXToLinalg/NarrowFloats.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "dialects/RLX/IR/FloatFormats.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// `t` with each unsigned integer (alone or as an element type) signless.
Type signlessTwin(Type t) {
  if (auto integer = dyn_cast<IntegerType>(t); integer && integer.isUnsigned())
    return IntegerType::get(t.getContext(), integer.getWidth());
  if (auto shaped = dyn_cast<ShapedType>(t)) {
    Type element = signlessTwin(shaped.getElementType());
    if (element != shaped.getElementType())
      return shaped.clone(element);
  }
  return t;
}

/// Integer `x` (signless; `isUnsigned` says how to read it) widened or
/// narrowed to the signless `to`.
Value resizeInteger(OpBuilder &b, Location loc, Value x, Type to,
                    bool isUnsigned) {
  unsigned from = x.getType().getIntOrFloatBitWidth();
  unsigned width = to.getIntOrFloatBitWidth();
  if (to.isInteger(1))
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, x,
        arith::ConstantOp::create(b, loc, IntegerAttr::get(x.getType(), 0)));
  if (from < width)
    return isUnsigned || from == 1
               ? Value(arith::ExtUIOp::create(b, loc, to, x))
               : Value(arith::ExtSIOp::create(b, loc, to, x));
  if (from > width)
    return arith::TruncIOp::create(b, loc, to, x);
  return x;
}

/// The scalar conversion of one element: `x` is signless (read as unsigned
/// when `fromUnsigned`), `to` signless (the bits of an unsigned result);
/// `saturate` as rlx.cast's, for a narrow float result.
Value convertScalar(OpBuilder &b, Location loc, Value x, Type to,
                    bool fromUnsigned, bool saturate) {
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    // Unsigned to float: uitofp, through f32 for the storage-only formats.
    bool narrow = narrowFloatFormat(toFloat).has_value();
    Value wide = arith::UIToFPOp::create(
        b, loc, narrow ? Type(b.getF32Type()) : to, x);
    return narrow ? convertToNarrowFloat(b, loc, wide, toFloat, saturate)
                  : wide;
  }
  if (auto fromFloat = dyn_cast<FloatType>(x.getType())) {
    // Float to unsigned: through i64, so that negative values wrap as
    // NumPy's casts do on x86 (-1.0 -> 255 for ui8); values of 2^63 and
    // more (ui64 only) convert as unsigned.
    if (narrowFloatFormat(fromFloat))
      x = narrowFloatToF32(b, loc, x);
    Type i64 = b.getI64Type();
    Value asSigned = arith::FPToSIOp::create(b, loc, i64, x);
    if (to.getIntOrFloatBitWidth() < 64)
      return resizeInteger(b, loc, asSigned, to, false);
    Value big = arith::ConstantOp::create(
        b, loc, FloatAttr::get(x.getType(), 9223372036854775808.0));
    Value isBig = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                        big);
    return arith::SelectOp::create(b, loc, isBig,
                                   arith::FPToUIOp::create(b, loc, i64, x),
                                   asSigned);
  }
  return resizeInteger(b, loc, x, to, fromUnsigned);
}

/// rlx.cast from or to ui8 ... ui64.
struct UnsignedCastPattern : OpRewritePattern<CastOp> {
  UnsignedCastPattern(MLIRContext *context)
      : OpRewritePattern<CastOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Type from = op.getX().getType().getElementType();
    Type to = op.getType().getElementType();
    bool fromUnsigned = from.isUnsignedInteger();
    bool toUnsigned = to.isUnsignedInteger();
    if (!fromUnsigned && !toUnsigned)
      return failure();
    Location loc = op.getLoc();
    Value x = op.getX();
    if (fromUnsigned)
      x = tensor::BitcastOp::create(rewriter, loc, signlessTwin(x.getType()),
                                    x);
    auto resultType = cast<RankedTensorType>(signlessTwin(op.getType()));
    Value result = buildElementwise(
        rewriter, loc, resultType, x,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return convertScalar(b, l, args[0], resultType.getElementType(),
                               fromUnsigned, op.getSaturate());
        });
    if (toUnsigned)
      result = tensor::BitcastOp::create(rewriter, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::rlx::populateUnsignedCastPatterns(RewritePatternSet &patterns) {
  patterns.add<UnsignedCastPattern>(patterns.getContext());
}

void mlir::rlx::makeIntegersSignless(Operation *root) {
  SmallVector<tensor::BitcastOp> bitcasts;
  root->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(signlessTwin(arg.getType()));
    for (OpResult result : op->getResults())
      result.setType(signlessTwin(result.getType()));
    // (Functions of other type kinds, llvm.func's, have no tensors.)
    if (auto function = dyn_cast<FunctionOpInterface>(op);
        function && isa<FunctionType>(function.getFunctionType())) {
      auto type = cast<FunctionType>(function.getFunctionType());
      auto twins = [](TypeRange types) {
        return llvm::map_to_vector(types, signlessTwin);
      };
      auto signless = FunctionType::get(
          op->getContext(), twins(type.getInputs()), twins(type.getResults()));
      if (signless != type)
        function.setFunctionTypeAttr(TypeAttr::get(signless));
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        if (Type element = signlessTwin(dense.getElementType());
            element != dense.getElementType())
          constant.setValueAttr(dense.bitcast(element));
    if (auto bitcast = dyn_cast<tensor::BitcastOp>(op))
      bitcasts.push_back(bitcast);
  });
  for (tensor::BitcastOp bitcast : bitcasts)
    if (bitcast.getSource().getType() == bitcast.getType()) {
      bitcast.replaceAllUsesWith(bitcast.getSource());
      bitcast.erase();
    }
}
