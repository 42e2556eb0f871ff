//===- VectorizeMatmul.cpp - Register-tiled, vectorized matmul ------------===//
///
/// \file
/// The schedule that shared/TOOLCHAIN.md measured at ~115 GFLOP/s on 512^3
/// f32 (one core): tile m x n x 1 and peel partial tiles (C++), vectorize, outer products, fold memref
/// aliases (the hoisting refuses subview users), hoist the C tile out of the
/// k loop. It is written as a transform-dialect script so every step is an
/// upstream, tested transformation.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"
#include "codegen/CPU/Tiling.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

namespace rlx {
#define GEN_PASS_DEF_RLXCPUVECTORIZEMATMUL
#include "codegen/CPU/Passes.h.inc"
} // namespace rlx

using namespace mlir;
using namespace rlx;

namespace {

constexpr const char *kScheduleTemplate = R"mlir(
module attributes {{transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}) {
    %tiles = transform.structured.match ops{{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %tiles vector_sizes [{0}, {1}, 1] {{create_named_contraction} : !transform.any_op
    %btiles = transform.structured.match ops{{["linalg.batch_matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %btiles vector_sizes [1, {0}, {1}, 1] {{create_named_contraction} : !transform.any_op
    %funcs = transform.structured.match ops{{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_masks
    } : !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.memref.fold_memref_alias_ops
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %hoisted = transform.structured.hoist_redundant_vector_transfers %funcs
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
)mlir";

/// Copies matmul inputs that are memref.expand_shape views into their own
/// buffers. Folding memref aliases (which the schedule needs to hoist the C
/// tile) does not terminate on transfers through an expand_shape in MLIR
/// 22; an O(n^2) copy in front of an O(n^3) matmul is the cheap way out.
void copyExpandedInputs(ModuleOp module);

/// B operands of at least this many bytes are packed (below, the B panel of
/// a register tile stays in cache anyway).
constexpr int64_t kPackBytes = int64_t(2) << 20;
/// The K block of a packed matmul: the largest of 1024, 512, 256, 128 that
/// divides K (1024 measured best at 1024^3 and 2048^3), else all of K.
int64_t kBlockFor(int64_t k) {
  for (int64_t block : {1024, 512, 256, 128})
    if (k % block == 0)
      return block;
  return k;
}

/// Packs B of large static matmuls into column panels, one contiguous
/// K x tileN block per panel, and splits the matmul into one matmul per
/// panel and K block (A packed too when it is static with whole row tiles,
/// emitPackedAMatmul). A register tile then streams its B rows from consecutive
/// addresses instead of rows a full B row apart, which for power-of-two
/// widths all map to the same cache sets (2048^3 ran at a fifth of peak).
/// With B packed (`packedB`: panels x k x tileN) and A static with whole
/// row tiles, A is packed too, one K block at a time, into row tiles stored
/// K-major (rows/tileM x block x tileM): a register tile then reads its
/// tileM A values for one k as one contiguous vector. Loops: K block, then
/// B panel (it stays in L2 across all row tiles), then row tile (parallel),
/// each a tileM x tileN matmul with A transposed.
void emitPackedAMatmul(OpBuilder &builder, Location loc, Value a, Value c,
                       Value packedB, int64_t m, int64_t k, int64_t panels,
                       int64_t tileM, int64_t tileN, int64_t block) {
  Type element = cast<MemRefType>(a.getType()).getElementType();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  auto attr = [&](int64_t v) -> OpFoldResult { return builder.getIndexAttr(v); };
  int64_t rowTiles = m / tileM;
  Value packedA = memref::AllocOp::create(
      builder, loc, MemRefType::get({rowTiles, block, tileM}, element),
      ValueRange{}, builder.getI64IntegerAttr(64));
  auto kLoop = scf::ForOp::create(builder, loc, index(0), index(k / block),
                                  index(1));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(kLoop.getBody());
  Value kStart =
      arith::MulIOp::create(builder, loc, kLoop.getInductionVar(), index(block));
  Value aBlock = memref::SubViewOp::create(
      builder, loc, a, ArrayRef<OpFoldResult>{attr(0), kStart},
      ArrayRef<OpFoldResult>{attr(m), attr(block)},
      ArrayRef<OpFoldResult>{attr(1), attr(1)});
  Value aSplit = memref::ExpandShapeOp::create(
      builder, loc, ArrayRef<int64_t>{rowTiles, tileM, block}, aBlock,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  linalg::TransposeOp::create(builder, loc, aSplit, packedA,
                              ArrayRef<int64_t>{0, 2, 1});
  auto panelLoop =
      scf::ForOp::create(builder, loc, index(0), index(panels), index(1));
  builder.setInsertionPointToStart(panelLoop.getBody());
  Value panel = panelLoop.getInductionVar();
  Value bTile = memref::SubViewOp::create(
      builder, loc,
      cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
          {block, tileN}, cast<MemRefType>(packedB.getType()),
          ArrayRef<OpFoldResult>{panel, kStart, attr(0)},
          ArrayRef<OpFoldResult>{attr(1), attr(block), attr(tileN)},
          ArrayRef<OpFoldResult>{attr(1), attr(1), attr(1)})),
      packedB, ArrayRef<OpFoldResult>{panel, kStart, attr(0)},
      ArrayRef<OpFoldResult>{attr(1), attr(block), attr(tileN)},
      ArrayRef<OpFoldResult>{attr(1), attr(1), attr(1)});
  Value column = arith::MulIOp::create(builder, loc, panel, index(tileN));
  auto rowLoop =
      scf::ForOp::create(builder, loc, index(0), index(rowTiles), index(1));
  rowLoop->setAttr("rlx.parallel", builder.getUnitAttr());
  builder.setInsertionPointToStart(rowLoop.getBody());
  Value rowTile = rowLoop.getInductionVar();
  Value aTile = memref::SubViewOp::create(
      builder, loc,
      cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
          {block, tileM}, cast<MemRefType>(packedA.getType()),
          ArrayRef<OpFoldResult>{rowTile, attr(0), attr(0)},
          ArrayRef<OpFoldResult>{attr(1), attr(block), attr(tileM)},
          ArrayRef<OpFoldResult>{attr(1), attr(1), attr(1)})),
      packedA, ArrayRef<OpFoldResult>{rowTile, attr(0), attr(0)},
      ArrayRef<OpFoldResult>{attr(1), attr(block), attr(tileM)},
      ArrayRef<OpFoldResult>{attr(1), attr(1), attr(1)});
  Value row = arith::MulIOp::create(builder, loc, rowTile, index(tileM));
  Value cTile = memref::SubViewOp::create(
      builder, loc, c, ArrayRef<OpFoldResult>{row, column},
      ArrayRef<OpFoldResult>{attr(tileM), attr(tileN)},
      ArrayRef<OpFoldResult>{attr(1), attr(1)});
  MLIRContext *context = builder.getContext();
  AffineExpr mDim = getAffineDimExpr(0, context), nDim = getAffineDimExpr(1, context),
             kDim = getAffineDimExpr(2, context);
  auto maps = builder.getAffineMapArrayAttr(
      {AffineMap::get(3, 0, {kDim, mDim}, context),
       AffineMap::get(3, 0, {kDim, nDim}, context),
       AffineMap::get(3, 0, {mDim, nDim}, context)});
  linalg::MatmulOp::create(builder, loc, ValueRange{aTile, bTile},
                           ValueRange{cTile},
                           ArrayRef<NamedAttribute>{builder.getNamedAttr(
                               "indexing_maps", maps)});
  builder.setInsertionPointAfter(kLoop);
  memref::DeallocOp::create(builder, loc, packedA);
}

void packLargeMatmuls(ModuleOp module, int64_t tileM, int64_t tileN) {
  SmallVector<linalg::MatmulOp> matmuls;
  module.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
  for (linalg::MatmulOp matmul : matmuls) {
    Value a = matmul.getDpsInputOperand(0)->get();
    Value b = matmul.getDpsInputOperand(1)->get();
    Value c = matmul.getDpsInitOperand(0)->get();
    auto bType = dyn_cast<MemRefType>(b.getType());
    if (!bType || !bType.hasStaticShape() || !bType.getLayout().isIdentity() ||
        matmul.hasUserDefinedMaps())
      continue;
    int64_t k = bType.getDimSize(0), n = bType.getDimSize(1);
    int64_t bytes = k * n * (bType.getElementTypeBitWidth() / 8);
    if (n % tileN != 0 || n == tileN || bytes < kPackBytes)
      continue;
    int64_t panels = n / tileN;
    OpBuilder builder(matmul);
    Location loc = matmul.getLoc();
    Type element = bType.getElementType();
    // B (k x n) seen as k x panels x tileN, transposed to panels x k x tileN.
    Value split = memref::ExpandShapeOp::create(
        builder, loc, MemRefType::get({k, panels, tileN}, element), b,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}});
    Value packed = memref::AllocOp::create(
        builder, loc, MemRefType::get({panels, k, tileN}, element),
        ValueRange{}, builder.getI64IntegerAttr(64));
    linalg::TransposeOp::create(builder, loc, split, packed,
                                ArrayRef<int64_t>{1, 0, 2});
    auto aType = dyn_cast<MemRefType>(a.getType());
    if (aType && aType.hasStaticShape() && aType.getLayout().isIdentity() &&
        aType.getDimSize(0) % tileM == 0) {
      emitPackedAMatmul(builder, loc, a, c, packed, aType.getDimSize(0), k,
                        panels, tileM, tileN, kBlockFor(k));
      builder.setInsertionPointAfter(matmul);
      memref::DeallocOp::create(builder, loc, packed);
      matmul.erase();
      continue;
    }
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value count = arith::ConstantIndexOp::create(builder, loc, panels);
    auto loop = scf::ForOp::create(builder, loc, zero, count, one);
    builder.setInsertionPointToStart(loop.getBody());
    Value panel = loop.getInductionVar();
    OpFoldResult oneAttr = builder.getIndexAttr(1),
                 zeroAttr = builder.getIndexAttr(0);
    auto panelType = cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
        {k, tileN}, cast<MemRefType>(packed.getType()),
        ArrayRef<OpFoldResult>{panel, zeroAttr, zeroAttr},
        ArrayRef<OpFoldResult>{oneAttr, builder.getIndexAttr(k),
                               builder.getIndexAttr(tileN)},
        ArrayRef<OpFoldResult>{oneAttr, oneAttr, oneAttr}));
    Value bPanel = memref::SubViewOp::create(
        builder, loc, panelType, packed,
        ArrayRef<OpFoldResult>{panel, zeroAttr, zeroAttr},
        ArrayRef<OpFoldResult>{oneAttr, builder.getIndexAttr(k),
                               builder.getIndexAttr(tileN)},
        ArrayRef<OpFoldResult>{oneAttr, oneAttr, oneAttr});
    Value column = arith::MulIOp::create(
        builder, loc, panel, arith::ConstantIndexOp::create(builder, loc, tileN));
    OpFoldResult rows = memref::getMixedSize(builder, loc, c, 0);
    Value cPanel = memref::SubViewOp::create(
        builder, loc, c, ArrayRef<OpFoldResult>{zeroAttr, column},
        ArrayRef<OpFoldResult>{rows, builder.getIndexAttr(tileN)},
        ArrayRef<OpFoldResult>{oneAttr, oneAttr});
    // K in blocks, so that the rows of A a register tile walks stay in
    // cache while every row tile of the panel passes over them.
    int64_t block = kBlockFor(k);
    Value blocks = arith::ConstantIndexOp::create(builder, loc, k / block);
    auto kLoop = scf::ForOp::create(builder, loc, zero, blocks, one);
    builder.setInsertionPointToStart(kLoop.getBody());
    Value kStart = arith::MulIOp::create(
        builder, loc, kLoop.getInductionVar(),
        arith::ConstantIndexOp::create(builder, loc, block));
    OpFoldResult blockAttr = builder.getIndexAttr(block);
    Value aBlock = memref::SubViewOp::create(
        builder, loc, a, ArrayRef<OpFoldResult>{zeroAttr, kStart},
        ArrayRef<OpFoldResult>{memref::getMixedSize(builder, loc, a, 0),
                               blockAttr},
        ArrayRef<OpFoldResult>{oneAttr, oneAttr});
    Value bBlock = memref::SubViewOp::create(
        builder, loc, bPanel, ArrayRef<OpFoldResult>{kStart, zeroAttr},
        ArrayRef<OpFoldResult>{blockAttr, builder.getIndexAttr(tileN)},
        ArrayRef<OpFoldResult>{oneAttr, oneAttr});
    linalg::MatmulOp::create(builder, loc, ValueRange{aBlock, bBlock},
                             ValueRange{cPanel});
    builder.setInsertionPointAfter(loop);
    memref::DeallocOp::create(builder, loc, packed);
    matmul.erase();
  }
}

/// Tiles every matmul (m x n x 1) and batch matmul (1 x m x n x 1) into
/// register tiles and peels the n and m loops, so that full tiles, the
/// common case, are vectorized without masks and only the last partial
/// tile of each dim pays for them. The outer loop is marked for
/// rlx-cpu-parallelize.
LogicalResult tileAndPeel(ModuleOp module, int64_t tileM, int64_t tileN) {
  SmallVector<linalg::LinalgOp> matmuls;
  module.walk([&](Operation *op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
      matmuls.push_back(cast<linalg::LinalgOp>(op));
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp matmul : matmuls) {
    bool batched = isa<linalg::BatchMatmulOp>(matmul);
    SmallVector<int64_t> sizes = {tileM, tileN, 1};
    if (batched)
      sizes.insert(sizes.begin(), 1);
    Location loc = matmul.getLoc();
    FailureOr<scf::SCFTilingResult> tiled =
        rlx::tileByConstants(rewriter, matmul, sizes);
    if (failed(tiled))
      return emitError(loc, "failed to tile the matmul");
    unsigned m = batched ? 1 : 0;
    auto mLoop = cast<scf::ForOp>(tiled->loops[m].getOperation());
    auto nLoop = cast<scf::ForOp>(tiled->loops[m + 1].getOperation());
    scf::ForOp partial;
    // Failure means the loop has no partial tile: nothing to peel.
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, nLoop, partial);
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, mLoop, partial);
    tiled->loops.front()->setAttr("rlx.parallel", rewriter.getUnitAttr());
  }
  return success();
}

void copyExpandedInputs(ModuleOp module) {
  SmallVector<linalg::LinalgOp> matmuls;
  module.walk([&](Operation *op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
      matmuls.push_back(cast<linalg::LinalgOp>(op));
  });
  for (linalg::LinalgOp matmul : matmuls) {
    for (OpOperand *input : matmul.getDpsInputOperands()) {
      Value view = input->get();
      if (!view.getDefiningOp<memref::ExpandShapeOp>())
        continue;
      auto type = cast<MemRefType>(view.getType());
      OpBuilder b(matmul);
      Location loc = matmul.getLoc();
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          sizes.push_back(memref::DimOp::create(b, loc, view, d));
      auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
      Value buffer = memref::AllocOp::create(b, loc, bufferType, sizes);
      memref::CopyOp::create(b, loc, view, buffer);
      input->set(buffer);
      b.setInsertionPointAfter(matmul);
      memref::DeallocOp::create(b, loc, buffer);
    }
  }
}

struct RLXCPUVectorizeMatmulPass
    : rlx::impl::RLXCPUVectorizeMatmulBase<RLXCPUVectorizeMatmulPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool hasMatmul = false;
    module.walk([&](Operation *op) {
      hasMatmul |= isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
    });
    if (!hasMatmul)
      return;
    copyExpandedInputs(module);
    packLargeMatmuls(module, tileM, tileN);
    if (failed(tileAndPeel(module, tileM, tileN)))
      return signalPassFailure();
    std::string script =
        llvm::formatv(kScheduleTemplate, tileM.getValue(), tileN.getValue())
            .str();
    OwningOpRef<ModuleOp> schedule =
        parseSourceString<ModuleOp>(script, &getContext());
    if (!schedule) {
      module.emitError("failed to parse the matmul schedule");
      return signalPassFailure();
    }
    auto entry = schedule->lookupSymbol<transform::NamedSequenceOp>(
        "__transform_main");
    if (failed(transform::applyTransformNamedSequence(
            module, entry, *schedule, transform::TransformOptions())))
      signalPassFailure();
  }
};

} // namespace
