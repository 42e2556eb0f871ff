//===- BlockDequantizeToLinalg.cpp - rlx.block_dequantize to linalg -------===//
///
/// \file
/// Linalg tiles an op by slicing its operands at the map of the tile's
/// offset and keeps the maps, which is wrong for a `floordiv` map (a tile
/// starting inside a block reads its elements past the block's end with
/// that block's scale, not the next one's), so the scales are never read
/// through one:
///
/// - x's blocked dim static and a multiple of block_size (the MX layouts):
///   x is viewed as [..., blocks, block_size, ...] and one elementwise
///   generic reads the scales with the block dim dropped, a projected
///   permutation that tiles, vectorizes and fuses like any elementwise op;
/// - otherwise (a short last block, a dynamic dim): the generic reads each
///   element's scale with tensor.extract at its linalg.index / block_size,
///   which tiling offsets correctly (scalar loops).
///
/// Where x's or the scales' dims are known only at run time, they are
/// checked there (the kernel would read past the scales).
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/BlockDequantize.h"
#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "conversion/RLXToLinalg/NarrowFloats.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "dialects/RLX/IR/FloatFormats.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Whether any of `types` has f64 elements: the product is then computed in
/// f64, else in f32.
bool anyF64(TypeRange types) {
  return llvm::any_of(types,
                      [](Type t) { return getElementTypeOrSelf(t).isF64(); });
}

/// The scale `s` as a `compute` float: f8E8M0FNU decoded, others extended.
Value scaleValue(OpBuilder &b, Location loc, Value s, Type compute) {
  if (isa<Float8E8M0FNUType>(s.getType()))
    return convertScalar(b, loc, e8m0ToF32(b, loc, s), compute, false);
  return convertScalar(b, loc, s, compute, false);
}

} // namespace

Value mlir::rlx::blockDequantizedElement(OpBuilder &b, Location loc,
                                         BlockDequantizeOp op, Value x,
                                         Value scale, bool throughF16) {
  Type compute =
      anyF64({op.getX().getType(), op.getScales().getType(), op.getType()})
          ? Type(b.getF64Type())
          : Type(b.getF32Type());
  if (throughF16 && narrowFloatFormat(x.getType()))
    x = narrowFloatToF32(b, loc, x, /*throughF16=*/true);
  Value product =
      arith::MulFOp::create(b, loc, convertScalar(b, loc, x, compute, false),
                            scaleValue(b, loc, scale, compute));
  return convertScalar(b, loc, product, op.getType().getElementType(), false);
}

namespace {

struct BlockDequantizePattern : OpRewritePattern<BlockDequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BlockDequantizeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType xType = op.getX().getType();
    int64_t axis = op.getAxis(), blockSize = op.getBlockSize();
    checkScaleDims(rewriter, op, op.getScales().getType());
    int64_t blocked = xType.getDimSize(axis);
    Value result = !ShapedType::isDynamic(blocked) && blocked % blockSize == 0
                       ? lowerWholeBlocks(rewriter, op)
                       : lowerByIndex(rewriter, op);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// x viewed as [..., blocks, block_size, ...]: the scales' map drops the
  /// block_size dim.
  static Value lowerWholeBlocks(PatternRewriter &rewriter,
                                BlockDequantizeOp op) {
    Location loc = op.getLoc();
    Value x = op.getX();
    RankedTensorType xType = op.getX().getType(), type = op.getType();
    int64_t rank = xType.getRank(), axis = op.getAxis();
    int64_t blockSize = op.getBlockSize();
    SmallVector<ReassociationIndices> groups;
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> sizes;
    SmallVector<AffineExpr> scaleIndex;
    MLIRContext *ctx = rewriter.getContext();
    for (int64_t d = 0; d < rank; ++d) {
      int64_t at = static_cast<int64_t>(shape.size());
      scaleIndex.push_back(getAffineDimExpr(at, ctx));
      if (d == axis) {
        groups.push_back({at, at + 1});
        shape.append({xType.getDimSize(d) / blockSize, blockSize});
        sizes.append({rewriter.getIndexAttr(shape[at]),
                      rewriter.getIndexAttr(blockSize)});
        continue;
      }
      groups.push_back({at});
      shape.push_back(xType.getDimSize(d));
      sizes.push_back(xType.isDynamicDim(d)
                          ? OpFoldResult(dimValue(rewriter, loc, x, d))
                          : OpFoldResult(rewriter.getIndexAttr(shape[at])));
    }
    auto viewType = RankedTensorType::get(shape, xType.getElementType());
    Value view = tensor::ExpandShapeOp::create(rewriter, loc, viewType, x,
                                               groups, sizes);
    SmallVector<Value> dynamicSizes;
    for (auto [i, size] : llvm::enumerate(sizes))
      if (ShapedType::isDynamic(shape[i]))
        dynamicSizes.push_back(cast<Value>(size));
    auto resultView = RankedTensorType::get(shape, type.getElementType());
    int64_t loops = static_cast<int64_t>(shape.size());
    AffineMap identity = rewriter.getMultiDimIdentityMap(loops);
    SmallVector<AffineMap> maps = {
        identity, AffineMap::get(loops, 0, scaleIndex, ctx), identity};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultView}, ValueRange{view, op.getScales()},
        ValueRange{emptyTensor(rewriter, loc, resultView, dynamicSizes)}, maps,
        SmallVector<utils::IteratorType>(loops, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l, blockDequantizedElement(b, l, op, args[0], args[1]));
        });
    return tensor::CollapseShapeOp::create(rewriter, loc, type,
                                           generic.getResult(0), groups);
  }

  /// Each element's scale extracted at its index, the blocked one divided.
  static Value lowerByIndex(PatternRewriter &rewriter, BlockDequantizeOp op) {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(dimValue(rewriter, loc, op.getX(), d));
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    Value scales = op.getScales();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getX()},
        ValueRange{emptyTensor(rewriter, loc, type, dynamicSizes)},
        SmallVector<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          coords[axis] = arith::DivUIOp::create(
              b, l, coords[axis],
              arith::ConstantIndexOp::create(b, l, op.getBlockSize()));
          Value scale = tensor::ExtractOp::create(b, l, scales, coords);
          linalg::YieldOp::create(
              b, l, blockDequantizedElement(b, l, op, args[0], scale));
        });
    return generic.getResult(0);
  }

  /// Run-time checks of the scales' dims the verifier could not see: x's
  /// dim off the axis, one scale per block along it.
  static void checkScaleDims(PatternRewriter &rewriter, BlockDequantizeOp op,
                             RankedTensorType scalesType) {
    Location loc = op.getLoc();
    RankedTensorType xType = op.getX().getType();
    for (int64_t d = 0; d < xType.getRank(); ++d) {
      if (!xType.isDynamicDim(d) && !scalesType.isDynamicDim(d))
        continue;
      Value xDim = dimValue(rewriter, loc, op.getX(), d);
      Value scaleDim = dimValue(rewriter, loc, op.getScales(), d);
      bool blocked = d == static_cast<int64_t>(op.getAxis());
      if (blocked)
        xDim = arith::CeilDivUIOp::create(
            rewriter, loc, xDim,
            arith::ConstantIndexOp::create(rewriter, loc, op.getBlockSize()));
      Value ok = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                       scaleDim, xDim);
      checkAtRunTime(rewriter, loc, ok,
                     "rlx.block_dequantize: scales dim " + llvm::Twine(d) +
                         (blocked ? " differs from the number of blocks of "
                                    "x's dim "
                                  : " differs from x's dim ") +
                         llvm::Twine(d));
    }
  }
};

} // namespace

void mlir::rlx::populateBlockDequantizeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BlockDequantizePattern>(patterns.getContext());
}
