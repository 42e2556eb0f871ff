//===- VectorizeLoops.cpp - Vector code for elementwise and reductions -----===//
///
/// \file
/// Every linalg op on buffers that is not a matmul (fused elementwise
/// chains, broadcasts, transposes, reductions, fills) becomes a loop nest
/// whose innermost loop walks one 512-bit vector at a time: outer loops are
/// tiled by 1 (a transposed read: the next-to-innermost by the vector
/// width too, see readsInnermostDimsSwapped), the innermost by the vector
/// width, and the tile is
/// vectorized with masks so partial tiles and dynamic sizes need no scalar
/// remainder loop. Transcendental functions in the vector bodies are then
/// replaced by MLIR's polynomial approximations, which stay vectors, instead
/// of being scalarized into libm calls.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"
#include "codegen/CPU/Tiling.h"
#include "codegen/CPU/VectorAccumulators.h"
#include "codegen/CPU/WindowReductions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUVECTORIZELOOPS
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The widest element of the op's operands, in bits; 0 when one of them is
/// not an int or float (or is i1: a vector of i1 is bit-packed in memory
/// while scalar code stores one byte per element).
unsigned widestElementBits(linalg::LinalgOp op) {
  unsigned widest = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    Type element = type.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8)
      return 0;
    widest = std::max(widest, element.getIntOrFloatBitWidth());
  }
  return widest;
}

/// Whether the op's body only holds operations the vectorizer turns into
/// plain vector arithmetic (no loads from other buffers, as a gather has).
/// Integer division stays scalar: x86 has no vector form, so LLVM would
/// divide lane by lane, masked-off lanes of a partial tile included, whose
/// divisor is the padding 0 (SIGFPE).
bool hasVectorizableBody(linalg::LinalgOp op) {
  for (Operation &inner : op->getRegion(0).front()) {
    if (isa<linalg::YieldOp, linalg::IndexOp>(inner))
      continue;
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
            arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(
            inner))
      return false;
    Dialect *dialect = inner.getDialect();
    if (!dialect || !isa<arith::ArithDialect, math::MathDialect>(dialect))
      return false;
  }
  return true;
}

/// Whether every value a reduction yields, other than its accumulator
/// unchanged, depends on an input element or a loop index. A combiner like
/// `acc + 1` (a count, e.g. the sum of a select whose other side folded
/// away) is vectorized by MLIR 22 as one add per vector of iterations, not
/// one per iteration: such an op stays scalar, which counts right.
bool reductionReadsItsInputs(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return true;
  Block &body = op->getRegion(0).front();
  llvm::SmallPtrSet<Value, 16> varying;
  for (OpOperand *input : op.getDpsInputOperands())
    varying.insert(body.getArgument(input->getOperandNumber()));
  for (Operation &inner : body) {
    bool depends = isa<linalg::IndexOp>(inner) ||
                   llvm::any_of(inner.getOperands(), [&](Value v) {
                     return varying.contains(v);
                   });
    if (depends)
      varying.insert(inner.result_begin(), inner.result_end());
  }
  Operation *yield = body.getTerminator();
  for (auto [i, value] : llvm::enumerate(yield->getOperands())) {
    Value accumulator = body.getArgument(op.getNumDpsInputs() + i);
    if (value != accumulator && !varying.contains(value))
      return false;
  }
  return true;
}

bool isCandidate(linalg::LinalgOp op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
      isa<linalg::ConvolutionOpInterface>(op.getOperation()))
    return false;
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op->getNumRegions() != 1 || op->getRegion(0).empty())
    return false;
  return widestElementBits(op) != 0 && hasVectorizableBody(op) &&
         reductionReadsItsInputs(op);
}

/// A window op (an im2col copy, a grouped conv) reads its input at
/// `oh * s + kh`, which is no projected permutation, so the vectorizer
/// refuses it. In a tile where oh and kh have one iteration each such an
/// expression is the constant 0, or the innermost loop alone when that is
/// the map's last result (the im2col copy's `ow * s * C + j` over a
/// [N, H, W*C] view): rewritten so, the tile is vectorizable and reads
/// consecutive elements. Maps where this does not hold are left alone.
void foldUnitWindowExprs(RewriterBase &rewriter, linalg::LinalgOp tile) {
  auto generic = dyn_cast<linalg::GenericOp>(tile.getOperation());
  if (!generic)
    return;
  SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
  MLIRContext *ctx = tile.getContext();
  unsigned loops = ranges.size();
  SmallVector<AffineExpr> unitToZero;
  for (unsigned i = 0; i < loops; ++i)
    unitToZero.push_back(ranges[i] == 1 ? getAffineConstantExpr(0, ctx)
                                        : getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  bool changed = false;
  for (AffineMap &map : maps) {
    SmallVector<AffineExpr> results(map.getResults());
    for (auto [i, expr] : llvm::enumerate(results)) {
      if (isa<AffineDimExpr, AffineConstantExpr>(expr))
        continue;
      AffineExpr folded =
          simplifyAffineExpr(expr.replaceDims(unitToZero), loops, 0);
      auto constant = dyn_cast<AffineConstantExpr>(folded);
      auto dim = dyn_cast<AffineDimExpr>(folded);
      bool innermostLast = dim && dim.getPosition() == loops - 1 &&
                           i + 1 == results.size();
      if (!(constant && constant.getValue() == 0) && !innermostLast)
        return;
      expr = folded;
      changed = true;
    }
    map = AffineMap::get(map.getNumDims(), 0, results, ctx);
  }
  if (changed)
    rewriter.modifyOpInPlace(generic, [&] {
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
}

/// Whether an input of `op` (all loops parallel) is read with its two
/// innermost loops swapped, as a transpose reads its operand: a 1 x width
/// tile would read `width` rows for one element each, one cache line per
/// element, and rows a power-of-two bytes apart (a 512-wide f32 matrix)
/// fall in the same few cache sets and evict each other. Such an op is
/// tiled width x width instead: `width` rows read whole, transposed in
/// registers, `width` rows written.
bool readsInnermostDimsSwapped(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 2 || op.getNumReductionLoops() != 0)
    return false;
  auto isDim = [](AffineExpr e, unsigned d) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() == d;
  };
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    unsigned n = map.getNumResults();
    if (n >= 2 && isDim(map.getResult(n - 1), loops - 2) &&
        isDim(map.getResult(n - 2), loops - 1))
      return true;
  }
  return false;
}

/// Tiles `op` to 1 x ... x 1 x width (width x width for a transposed read)
/// and vectorizes the tile. When the vectorizer refuses the tile, the
/// tiled loops stay scalar (still correct). Returns the outermost loop of
/// a window reduction's tiles (windowInnermostOrder), else null.
Operation *tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  int64_t width = 512 / widestElementBits(op);
  SmallVector<int64_t> vectorSizes(loops, 1);
  vectorSizes.back() = width;
  // 32- and 64-bit elements: 16 x 16 and 8 x 8 tiles. Narrower ones
  // would make tiles of 1024 and more elements, moved one by one.
  if (width <= 16 && readsInnermostDimsSwapped(op))
    vectorSizes[loops - 2] = width;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // An innermost parallel extent of exactly two vectors, in a reduction
  // or a 1-D op, is one tile, its dim not tiled at all. A reduction over
  // outer loops into such columns (a product by a 32-column weight panel,
  // rlx-cpu-vectorize-matmul's decodeInProduct) then keeps both vectors of
  // sums in registers across the reduction loop: tiled 16 wide, the column
  // loop inside it kept them in memory, and a loop of one tile around the
  // op, or a partial view of the sums by the 1-D ops that clear and read
  // them, would hide from the hoisting that they stay in place.
  SmallVector<int64_t> tileSizes;
  if (ranges.back() == 2 * width &&
      iterators.back() == utils::IteratorType::parallel &&
      (loops == 1 ||
       (op.getNumReductionLoops() != 0 && vectorSizes[loops - 2] == 1))) {
    vectorSizes.back() = ranges.back();
    tileSizes = vectorSizes;
    tileSizes.back() = 0;
  }
  // A static extent below its tile needs no loop.
  for (unsigned d = loops >= 2 ? loops - 2 : 0; d < loops; ++d)
    if (!ShapedType::isDynamic(ranges[d]) && ranges[d] < vectorSizes[d])
      vectorSizes[d] = std::max<int64_t>(ranges[d], 1);

  if (tileSizes.empty())
    tileSizes = vectorSizes;
  SmallVector<int64_t> order = mlir::rlx::windowInnermostOrder(op);
  FailureOr<scf::SCFTilingResult> tiled =
      mlir::rlx::tileByConstants(rewriter, op, tileSizes, order);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return nullptr;
  // The outer loop over a parallel dim may run on several cores
  // (rlx-cpu-parallelize decides); the loops walk the dims in `order`.
  SmallVector<utils::IteratorType> loopIterators = iterators;
  SmallVector<int64_t> loopRanges = ranges, loopSizes = vectorSizes;
  for (auto [i, d] : llvm::enumerate(order)) {
    loopIterators[i] = iterators[d];
    loopRanges[i] = ranges[d];
    loopSizes[i] = vectorSizes[d];
  }
  mlir::rlx::markOuterParallelLoop(rewriter, tiled->loops, loopIterators,
                                   loopRanges, loopSizes);
  Operation *tile = tiled->tiledOps.front();
  foldUnitWindowExprs(rewriter, cast<linalg::LinalgOp>(tile));
  // The vectorizer reads one scalable flag per vector dim.
  SmallVector<bool> scalable(loops, false);
  if (failed(linalg::vectorizeOpPrecondition(tile, vectorSizes, scalable)))
    return nullptr;
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, tile, vectorSizes, scalable);
  if (failed(vectorized))
    return nullptr;
  rewriter.replaceOp(tile, vectorized->replacements);
  if (order.empty() || tiled->loops.empty())
    return nullptr;
  return tiled->loops.front();
}

/// The transfers inside window reductions' loops read and write their
/// buffers directly, not through the subviews tiling made: the hoisting
/// of an accumulator's read/write pair out of the window loops refuses a
/// view.
LogicalResult foldWindowTransferViews(ArrayRef<Operation *> nests) {
  SmallVector<Operation *> transfers;
  for (Operation *nest : nests)
    nest->walk([&](VectorTransferOpInterface transfer) {
      transfers.push_back(transfer);
    });
  if (transfers.empty())
    return success();
  RewritePatternSet patterns(transfers.front()->getContext());
  memref::populateFoldMemRefAliasOpPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  return applyOpPatternsGreedily(transfers, std::move(patterns), config);
}

/// Lowers vector.multi_reduction ops, each the way its layout wants: a
/// reduction over the innermost dim (softmax's row max) reduces each vector
/// horizontally; over outer dims (a bias gradient) it stays lane-parallel
/// elementwise arithmetic. One strategy for both would shuffle lanes one by
/// one for the other kind.
LogicalResult lowerMultiReductionsOnce(ModuleOp module) {
  SmallVector<Operation *> innerReduced, outerReduced;
  module.walk([&](vector::MultiDimReductionOp op) {
    SmallVector<bool> reduced = op.getReductionMask();
    (reduced.back() ? innerReduced : outerReduced).push_back(op);
  });
  auto lower = [&](ArrayRef<Operation *> ops,
                   vector::VectorMultiReductionLowering strategy) {
    if (ops.empty())
      return success();
    RewritePatternSet patterns(module.getContext());
    vector::populateVectorMultiReductionLoweringPatterns(patterns, strategy);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    return applyOpPatternsGreedily(ops, std::move(patterns), config);
  };
  return success(
      succeeded(lower(innerReduced,
                      vector::VectorMultiReductionLowering::InnerReduction)) &&
      succeeded(lower(outerReduced,
                      vector::VectorMultiReductionLowering::InnerParallel)));
}

/// Lowers every multi-reduction. A masked one over dynamic inner and outer
/// reduced dims (sum over axes 0 and 2 of [?,?,?]) is not matched when the
/// driver is restricted to the collected ops; those left go through a run
/// over the whole module (the LLVM translation would otherwise meet an
/// unrealized cast). Any still left is an error naming it.
LogicalResult lowerMultiReductions(ModuleOp module) {
  auto remaining = [&] {
    size_t n = 0;
    module.walk([&](vector::MultiDimReductionOp) { ++n; });
    return n;
  };
  if (failed(lowerMultiReductionsOnce(module)))
    return failure();
  if (remaining() == 0)
    return success();
  // The leftovers, over the whole module (the greedy driver restricted to an
  // op list does not match them), each kind with its own strategy.
  for (auto strategy : {vector::VectorMultiReductionLowering::InnerReduction,
                        vector::VectorMultiReductionLowering::InnerParallel}) {
    bool any = false;
    module.walk([&](vector::MultiDimReductionOp op) {
      bool inner = op.getReductionMask().back();
      any |= inner == (strategy ==
                       vector::VectorMultiReductionLowering::InnerReduction);
    });
    if (!any)
      continue;
    RewritePatternSet patterns(module.getContext());
    vector::populateVectorMultiReductionLoweringPatterns(patterns, strategy);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return failure();
  }
  if (remaining() == 0)
    return success();
  module.walk([](vector::MultiDimReductionOp op) {
    op.emitError("rlx-cpu-vectorize-loops could not lower this "
                 "multi-reduction");
  });
  return failure();
}

/// The 16 x 16 transposes of 32-bit elements (a transposed tile's) as
/// 16-lane shuffles (unpacks and permutes, 64 of them), not 256 element
/// moves; every other transpose is lowered element by element later.
LogicalResult lowerSquareTransposes(ModuleOp module) {
  SmallVector<Operation *> square;
  module.walk([&](vector::TransposeOp op) {
    VectorType type = op.getSourceVectorType();
    if (type.getRank() == 2 && type.getDimSize(0) == 16 &&
        type.getDimSize(1) == 16 && type.getElementTypeBitWidth() == 32)
      square.push_back(op);
  });
  if (square.empty())
    return success();
  RewritePatternSet patterns(module.getContext());
  vector::populateVectorTransposeLoweringPatterns(
      patterns, vector::VectorTransposeLowering::Shuffle16x16);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  return applyOpPatternsGreedily(square, std::move(patterns), config);
}

/// Reads and writes through a subview that is its whole source (what
/// tiling leaves for an untiled operand) take the source itself: the
/// hoisting of a read/write pair out of a loop refuses any view.
void skipWholeSubviews(ModuleOp module) {
  auto whole = [](Value v) -> Value {
    auto view = v.getDefiningOp<memref::SubViewOp>();
    if (!view || !view.getSourceType().hasStaticShape() ||
        view.getSourceType().getShape() != view.getType().getShape() ||
        !view.getSourceType().getLayout().isIdentity())
      return {};
    auto isZero = [](OpFoldResult r) { return isConstantIntValue(r, 0); };
    auto isOne = [](OpFoldResult r) { return isConstantIntValue(r, 1); };
    if (!llvm::all_of(view.getMixedOffsets(), isZero) ||
        !llvm::all_of(view.getMixedStrides(), isOne))
      return {};
    return view.getSource();
  };
  // A view left without users goes too: the hoisting refuses a buffer
  // with any view-like user.
  llvm::SetVector<Operation *> bypassed;
  module.walk([&](Operation *op) {
    auto transfer = dyn_cast<VectorTransferOpInterface>(op);
    if (!transfer)
      return;
    OpOperand &base = isa<vector::TransferReadOp>(op)
                          ? cast<vector::TransferReadOp>(op).getBaseMutable()
                          : cast<vector::TransferWriteOp>(op).getBaseMutable();
    if (Value source = whole(base.get())) {
      bypassed.insert(base.get().getDefiningOp());
      base.assign(source);
    }
  });
  for (Operation *view : bypassed)
    if (view->use_empty())
      view->erase();
}

/// Each add of a product marked `contract` (rlx-cpu-vectorize-matmul's
/// sums of decoded weights) as one fused multiply-add: the vectorizer
/// keeps the flag on the multiplication but rebuilds a reduction's add
/// without it, and LLVM contracts only when both carry it.
void contractMarkedProducts(ModuleOp module) {
  // The product an add may absorb: marked, and read by that add alone.
  auto markedProduct = [](Value v) -> arith::MulFOp {
    auto product = v.getDefiningOp<arith::MulFOp>();
    if (!product || !product->hasOneUse() ||
        !bitEnumContainsAll(product.getFastmath(),
                            arith::FastMathFlags::contract))
      return {};
    return product;
  };
  SmallVector<arith::AddFOp> adds;
  module.walk([&](arith::AddFOp add) {
    if (markedProduct(add.getLhs()) || markedProduct(add.getRhs()))
      adds.push_back(add);
  });
  for (arith::AddFOp add : adds) {
    arith::MulFOp product = markedProduct(add.getLhs());
    Value accumulator = add.getRhs();
    if (!product) {
      product = markedProduct(add.getRhs());
      accumulator = add.getLhs();
    }
    OpBuilder b(add);
    Value fused = math::FmaOp::create(b, add.getLoc(), product.getLhs(),
                                      product.getRhs(), accumulator);
    add.replaceAllUsesWith(fused);
    add.erase();
    product.erase();
  }
}

struct RLXCPUVectorizeLoopsPass
    : mlir::rlx::impl::RLXCPUVectorizeLoopsBase<RLXCPUVectorizeLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<linalg::LinalgOp> candidates;
    module.walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(context);
    SmallVector<Operation *> windowNests;
    for (linalg::LinalgOp op : candidates)
      if (Operation *nest = tileAndVectorize(rewriter, op))
        windowNests.push_back(nest);

    // Each stage its own greedy run: the unit-dim patterns and the transfer
    // lowerings undo each other when mixed.
    auto applyStage = [&](function_ref<void(RewritePatternSet &)> populate) {
      RewritePatternSet patterns(context);
      populate(patterns);
      return applyPatternsGreedily(module, std::move(patterns));
    };
    // Unit dims away, then masks and permuted transfers lowered and
    // reductions made horizontal: what the LLVM lowering of vectors expects.
    if (failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateVectorMaskLoweringPatternsForSideEffectingOps(
              patterns);
        })) ||
        failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
        })) ||
        failed(lowerMultiReductions(module)) ||
        failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateVectorTransferPermutationMapLoweringPatterns(
              patterns);
        })) ||
        failed(lowerSquareTransposes(module)) ||
        failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateVectorTransferPermutationMapLoweringPatterns(
              patterns);
          vector::populateVectorBroadcastLoweringPatterns(patterns);
          vector::populateVectorShapeCastLoweringPatterns(patterns);
          vector::populateVectorMaskOpLoweringPatterns(patterns);
          vector::populateVectorTransposeLoweringPatterns(
              patterns, vector::VectorTransposeLowering::EltWise);
        })) ||
        // f32 vector math as polynomials; f64 keeps libm.
        failed(applyStage([](RewritePatternSet &patterns) {
          populateMathPolynomialApproximationPatterns(
              patterns, [](StringRef name) {
                name.consume_front("math.");
                return name == "tanh" || name == "erf" || name == "exp" ||
                       name == "expm1" || name == "log" || name == "log1p" ||
                       name == "log2";
              });
        })))
      return signalPassFailure();
    contractMarkedProducts(module);
    skipWholeSubviews(module);
    if (failed(foldWindowTransferViews(windowNests)))
      return signalPassFailure();

    // Views and indices that tiling put inside loops move out first, so
    // accumulators are seen to be loop-invariant.
    module.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    mlir::rlx::hoistWindowAccumulators(rewriter, windowNests);
    mlir::rlx::promoteReductionAccumulators(module);
    module.walk(
        [](func::FuncOp func) { linalg::hoistRedundantVectorTransfers(func); });
    // One-element transfers left (a scalar read through a strided view,
    // such as one key of a split) become plain loads and stores: the LLVM
    // lowering has no 0-d transfer on a non-unit stride.
    if (failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateScalarVectorTransferLoweringPatterns(
              patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
        })))
      return signalPassFailure();
  }
};

} // namespace
