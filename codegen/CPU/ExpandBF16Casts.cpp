//===- ExpandBF16Casts.cpp - bf16 conversions as integer ops ------------===//
///
/// \file
/// On a CPU without AVX512-BF16, LLVM lowers each f32 -> bf16 truncation to
/// a call of the compiler runtime's `__truncsfbf2`, one element at a time:
/// a 128x784x512 product of f32 operands rounded to bf16 spent 63% of its
/// time in it on Zen 3; with AVX512-BF16, to vcvtneps2bf16, which flushes
/// f32 subnormals to zero (a cast's result then depended on the CPU). Here,
/// on every target, both conversions become bitcasts, shifts and the
/// round-to-nearest-even add, which vectorize with the loops around them. Not upstream's bf16 expansion: it makes every NaN a positive one,
/// where the runtime call (and ml_dtypes, which the narrow-float tests
/// compare with) keeps the sign and the payload's top bits, quieted.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUEXPANDBF16CASTS
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// `element`, or a vector of it shaped like `type` if that is one.
Type withElement(Type type, Type element) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(element);
  return element;
}

/// The integer constant `value` of `type` (splat if a vector).
Value splat(OpBuilder &b, Location loc, Type type, int64_t value) {
  auto element = cast<IntegerType>(getElementTypeOrSelf(type));
  TypedAttr attr = b.getIntegerAttr(element, value);
  if (auto vector = dyn_cast<VectorType>(type))
    attr = SplatElementsAttr::get(vector, attr);
  return arith::ConstantOp::create(b, loc, attr);
}

/// bf16 -> f32: the 16 bits above 16 zero bits, exactly.
struct ExtendBF16 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type in = op.getIn().getType(), out = op.getType();
    if (!getElementTypeOrSelf(in).isBF16() ||
        !getElementTypeOrSelf(out).isF32())
      return failure();
    Location loc = op.getLoc();
    Type i16 = withElement(in, rewriter.getI16Type()),
         i32 = withElement(in, rewriter.getI32Type());
    Value bits = arith::BitcastOp::create(rewriter, loc, i16, op.getIn());
    Value wide = arith::ExtUIOp::create(rewriter, loc, i32, bits);
    Value shifted = arith::ShLIOp::create(rewriter, loc, wide,
                                          splat(rewriter, loc, i32, 16));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, out, shifted);
    return success();
  }
};

/// f32 -> bf16, to nearest even: add 0x7fff plus the kept part's lowest
/// bit, keep the top 16 bits (a carry into the exponent rounds up to the
/// next binade or to infinity, as it should). A NaN keeps its sign and
/// top payload bits, with the quiet bit set.
struct TruncateToBF16 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type in = op.getIn().getType(), out = op.getType();
    if (!getElementTypeOrSelf(in).isF32() ||
        !getElementTypeOrSelf(out).isBF16() || op.getRoundingmodeAttr())
      return failure();
    Location loc = op.getLoc();
    Type i16 = withElement(in, rewriter.getI16Type()),
         i32 = withElement(in, rewriter.getI32Type());
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, op.getIn());
    Value sixteen = splat(rewriter, loc, i32, 16);
    Value top = arith::ShRUIOp::create(rewriter, loc, bits, sixteen);
    Value lowest =
        arith::AndIOp::create(rewriter, loc, top, splat(rewriter, loc, i32, 1));
    Value bias = arith::AddIOp::create(rewriter, loc, lowest,
                                       splat(rewriter, loc, i32, 0x7fff));
    Value rounded = arith::ShRUIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, bits, bias),
        sixteen);
    Value quietNaN = arith::OrIOp::create(rewriter, loc, top,
                                          splat(rewriter, loc, i32, 0x40));
    Value isNaN = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::UNO, op.getIn(), op.getIn());
    Value result =
        arith::SelectOp::create(rewriter, loc, isNaN, quietNaN, rounded);
    Value narrow = arith::TruncIOp::create(rewriter, loc, i16, result);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, out, narrow);
    return success();
  }
};

struct RLXCPUExpandBF16CastsPass
    : mlir::rlx::impl::RLXCPUExpandBF16CastsBase<RLXCPUExpandBF16CastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExtendBF16, TruncateToBF16>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
