//===- LinalgBuilders.cpp - Helpers building linalg on tensors ------------===//

#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "dialects/RLX/IR/ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace mlir::rlx {

Value dimValue(OpBuilder &b, Location loc, Value v, int64_t d) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
  return tensor::DimOp::create(b, loc, v, d);
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange dynamicSizes) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType(), dynamicSizes);
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   ValueRange dynamicSizes, TypedAttr value) {
  Value empty = emptyTensor(b, loc, type, dynamicSizes);
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

SmallVector<Value> broadcastDynamicSizes(OpBuilder &b, Location loc,
                                         RankedTensorType resultType,
                                         ValueRange operands) {
  SmallVector<Value> sizes;
  int64_t rank = resultType.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    Value size;
    for (Value operand : operands) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t od = d - (rank - type.getRank());
      if (od >= 0 && type.isDynamicDim(od)) {
        size = tensor::DimOp::create(b, loc, operand, od);
        break;
      }
    }
    assert(size && "a dynamic broadcast dim comes from a dynamic operand dim");
    sizes.push_back(size);
  }
  return sizes;
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ScalarBodyFn body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value operand : operands) {
    auto type = cast<RankedTensorType>(operand.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t od = 0; od < type.getRank(); ++od) {
      int64_t d = od + (rank - type.getRank());
      bool stretched =
          type.getDimSize(od) == 1 && resultType.getDimSize(d) != 1;
      exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(d, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = emptyTensor(b, loc, resultType,
                           broadcastDynamicSizes(b, loc, resultType, operands));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, TypedAttr init,
                     ScalarBodyFn combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    shape.push_back(type.getDimSize(d));
    outExprs.push_back(getAffineDimExpr(d, ctx));
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, input, d));
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  Value acc = filledTensor(b, loc, resultType, dynamicSizes, init);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{acc}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args));
      });
  return generic.getResult(0);
}

Value buildWithReduced(OpBuilder &b, Location loc, Value x, Value reduced,
                       ArrayRef<int64_t> axes, Type resultElement,
                       ScalarBodyFn body) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> reducedExprs;
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(axes, d))
      reducedExprs.push_back(getAffineDimExpr(d, ctx));
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, x, d));
  }
  auto resultType = RankedTensorType::get(type.getShape(), resultElement);
  Value init = emptyTensor(b, loc, resultType, dynamicSizes);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, reducedExprs, ctx),
                                 b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{x, reduced}, ValueRange{init},
      maps, iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

void checkAtRunTime(OpBuilder &b, Location loc, Value ok,
                           const llvm::Twine &what) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn() << ": ";
  os << what;
  cf::AssertOp::create(b, loc, ok, message);
}

/// A reshape whose dynamic dims pair up (groupReshape): each group of
/// operand dims collapses into one dim, which expands into the group's result
/// dims; a dynamic result dim takes the size of its group's dynamic operand
/// dim, so no size is ever derived from a flattened count.
static Value buildGroupedReshape(OpBuilder &b, Location loc, Value x,
                                 RankedTensorType resultType,
                                 ArrayRef<ReshapeGroup> groups) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<ReassociationIndices> inGroups, outGroups;
  SmallVector<int64_t> middleShape, dynamicInDim;
  for (const ReshapeGroup &g : groups) {
    ReassociationIndices in, out;
    int64_t count = 1, dynamicDim = -1;
    for (int64_t d = g.inBegin; d < g.inEnd; ++d) {
      in.push_back(d);
      if (type.isDynamicDim(d))
        dynamicDim = d;
      else
        count *= type.getDimSize(d);
    }
    for (int64_t d = g.outBegin; d < g.outEnd; ++d)
      out.push_back(d);
    middleShape.push_back(dynamicDim >= 0 ? ShapedType::kDynamic : count);
    dynamicInDim.push_back(dynamicDim);
    inGroups.push_back(in);
    outGroups.push_back(out);
  }
  auto middleType = RankedTensorType::get(middleShape, type.getElementType());
  Value middle = x;
  if (middleType != type)
    middle = tensor::CollapseShapeOp::create(b, loc, middleType, x, inGroups);
  if (middleType == resultType)
    return middle;
  SmallVector<OpFoldResult> outputShape;
  for (auto [g, group] : llvm::enumerate(groups))
    for (int64_t d = group.outBegin; d < group.outEnd; ++d)
      outputShape.push_back(
          resultType.isDynamicDim(d)
              ? OpFoldResult(dimValue(b, loc, x, dynamicInDim[g]))
              : OpFoldResult(b.getIndexAttr(resultType.getDimSize(d))));
  return tensor::ExpandShapeOp::create(b, loc, resultType, middle, outGroups,
                                       outputShape);
}

Value buildReshape(OpBuilder &b, Location loc, Value x,
                   RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type == resultType)
    return x;
  // Several dynamic result dims cannot come from one flattened count: they
  // pair with the operand's (the verifier of rlx.reshape requires it).
  if (resultType.getNumDynamicDims() > 1) {
    auto groups = groupReshape(type.getShape(), resultType.getShape());
    assert(groups && "a reshape to several dynamic dims pairs them up");
    return buildGroupedReshape(b, loc, x, resultType, *groups);
  }
  // Collapse to 1-D.
  Value flat = x;
  if (type.getRank() == 0) {
    flat = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1}, type.getElementType()), x,
        ArrayRef<ReassociationIndices>{},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  } else if (type.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    flat = tensor::CollapseShapeOp::create(
        b, loc, x, ArrayRef<ReassociationIndices>{all});
  }
  auto flatType = cast<RankedTensorType>(flat.getType());
  if (resultType.getRank() == 1 && flatType == resultType)
    return flat;
  if (resultType.getRank() == 0) {
    return tensor::CollapseShapeOp::create(b, loc, resultType, flat,
                                           ArrayRef<ReassociationIndices>{});
  }
  if (resultType.getRank() == 1) {
    if (flatType.isDynamicDim(0) && !resultType.isDynamicDim(0)) {
      Value total = dimValue(b, loc, flat, 0);
      Value want =
          arith::ConstantIndexOp::create(b, loc, resultType.getDimSize(0));
      checkAtRunTime(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, total, want),
          "reshape to " + std::to_string(resultType.getDimSize(0)) +
              " elements: the input has a different number of elements");
    }
    return tensor::CastOp::create(b, loc, resultType, flat);
  }
  // Expand to the result shape; the one dynamic dim is total / static part.
  SmallVector<OpFoldResult> outputShape;
  int64_t staticPart = 1;
  for (int64_t d : resultType.getShape())
    if (!ShapedType::isDynamic(d))
      staticPart *= d;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    if (!resultType.isDynamicDim(d)) {
      outputShape.push_back(b.getIndexAttr(resultType.getDimSize(d)));
      continue;
    }
    Value total = dimValue(b, loc, flat, 0);
    Value part = arith::ConstantIndexOp::create(b, loc, staticPart);
    if (staticPart > 1) {
      Value rest = arith::RemUIOp::create(b, loc, total, part);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      std::string shape;
      llvm::raw_string_ostream os(shape);
      os << resultType;
      checkAtRunTime(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rest, zero),
          "reshape to " + shape + ": the input's element count is not a "
          "multiple of " + std::to_string(staticPart));
    }
    outputShape.push_back(
        arith::DivUIOp::create(b, loc, total, part).getResult());
  }
  ReassociationIndices all;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    all.push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       ArrayRef<ReassociationIndices>{all},
                                       outputShape);
}

TypedAttr lowestValue(Type element) {
  if (auto f = dyn_cast<FloatType>(element))
    return FloatAttr::get(
        f, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/true));
  unsigned width = element.getIntOrFloatBitWidth();
  return IntegerAttr::get(element, width == 1
                                       ? APInt::getZero(1)
                                       : APInt::getSignedMinValue(width));
}

Value scalarConstant(OpBuilder &b, Location loc, Type element, double value) {
  if (auto f = dyn_cast<FloatType>(element))
    return arith::ConstantOp::create(b, loc, FloatAttr::get(f, value));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(element, static_cast<int64_t>(value)));
}

} // namespace mlir::rlx
