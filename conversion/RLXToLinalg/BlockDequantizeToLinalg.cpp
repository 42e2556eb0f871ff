//===- BlockDequantizeToLinalg.cpp - rlx.block_dequantize to linalg -------===//
///
/// \file
/// One elementwise linalg.generic over x whose scales operand is read
/// through `d_axis floordiv block_size`: every element meets its block's
/// scale without the scales being expanded first, and the generic fuses
/// with its consumers like any elementwise op. Where x's or the scales'
/// dims are known only at run time, they are checked there (the kernel
/// would read past the scales).
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "conversion/RLXToLinalg/NarrowFloats.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
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

struct BlockDequantizePattern : OpRewritePattern<BlockDequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BlockDequantizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX(), scales = op.getScales();
    RankedTensorType type = op.getType();
    auto scalesType = cast<RankedTensorType>(scales.getType());
    int64_t rank = type.getRank(), axis = op.getAxis();
    int64_t blockSize = op.getBlockSize();
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(dimValue(rewriter, loc, x, d));
    checkScaleDims(rewriter, op, scalesType);

    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> scaleIndex;
    for (int64_t d = 0; d < rank; ++d)
      scaleIndex.push_back(d == axis
                               ? getAffineDimExpr(d, ctx).floorDiv(blockSize)
                               : getAffineDimExpr(d, ctx));
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps = {
        identity, AffineMap::get(rank, 0, scaleIndex, ctx), identity};
    Type compute = anyF64({x.getType(), scalesType, type})
                       ? Type(rewriter.getF64Type())
                       : Type(rewriter.getF32Type());
    Type element = type.getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{x, scales},
        ValueRange{emptyTensor(rewriter, loc, type, dynamicSizes)}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value value = convertScalar(b, l, args[0], compute, false);
          Value product = arith::MulFOp::create(
              b, l, value, scaleValue(b, l, args[1], compute));
          linalg::YieldOp::create(b, l,
                                  convertScalar(b, l, product, element, false));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
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
