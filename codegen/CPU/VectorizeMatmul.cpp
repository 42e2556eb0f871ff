//===- VectorizeMatmul.cpp - Register-tiled, vectorized matmul ------------===//
///
/// \file
/// The schedule measured at ~115 GFLOP/s on 512^3 f32 on one Zen 4 core
/// (rlx-bench-matmul): inputs read through a collapse of a contiguous
/// buffer viewed by a reinterpret_cast instead (linearizeCollapsedInputs),
/// large operands packed (PackMatmul.cpp), tiles of
/// m x n x 1 with partial tiles peeled (C++), then a transform-dialect
/// script so every further step is an upstream, tested transformation:
/// vectorize, outer products, fold memref aliases (the hoisting refuses
/// subview users), CSE (folding gives C's read and write one affine.apply
/// each for a register tile inside a larger row tile, two of AVX2's 6-row
/// tiles in a 12-row conv tile, and the hoisting wants one index value),
/// hoist the C tile out of the k loop.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/PackMatmul.h"
#include "codegen/CPU/LinearizeCollapses.h"
#include "codegen/CPU/Passes.h"
#include "codegen/CPU/Tiling.h"
#include "codegen/CPU/ZeroInitAccumulators.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUVECTORIZEMATMUL
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr const char *kScheduleTemplate = R"mlir(
module attributes {{transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}) {
    %tallTiles = transform.structured.match ops{{["linalg.matmul"]} attributes {{rlx.tall_tile} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %tallTiles vector_sizes [{2}, {1}, 1] {{create_named_contraction} : !transform.any_op
    %zeroTallTiles = transform.structured.match ops{{["linalg.fill"]} attributes {{rlx.zero_tall_tile} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %zeroTallTiles vector_sizes [{2}, {1}] : !transform.any_op
    %tiles = transform.structured.match ops{{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %tiles vector_sizes [{0}, {1}, 1] {{create_named_contraction} : !transform.any_op
    %btiles = transform.structured.match ops{{["linalg.batch_matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %btiles vector_sizes [1, {0}, {1}, 1] {{create_named_contraction} : !transform.any_op
    %zeroTiles = transform.structured.match ops{{["linalg.fill"]} attributes {{rlx.zero_tile} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %zeroTiles vector_sizes [{0}, {1}] : !transform.any_op
    %zeroBatchTiles = transform.structured.match ops{{["linalg.fill"]} attributes {{rlx.zero_batch_tile} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %zeroBatchTiles vector_sizes [1, {0}, {1}] : !transform.any_op
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
    transform.apply_cse to %funcs : !transform.any_op
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

/// Replaces each matmul of bf16 inputs into an f32 output (a mixed-
/// precision product that rlx-cpu-dot-product-matmul did not take: a
/// target without AVX512-BF16) by the same matmul of f32 copies of its
/// inputs. The schedule below vectorizes f32 products; a bf16 one ran as
/// loops widening every element at every use (128x784x512 on one Zen 3
/// core: 6.3 ms against 1.2 in f32). The copies are O(n^2) beside the
/// product's O(n^3), and bf16 widens to f32 exactly.
void widenBF16Inputs(ModuleOp module);


/// A matmul the schedule tiles: linalg's, or a product by a prepacked f32
/// or block-scaled weight (rlx-pack-dot-operands) that
/// expandPrepackedMatmuls turns into linalg matmuls.
bool isMatmul(Operation *op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
         mlir::rlx::isPrepackedF32Matmul(op) ||
         mlir::rlx::isPrepackedBlockScaledMatmul(op);
}

/// The buffer a view-like op chain starts from.
Value viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// The output buffers of matmuls that have view-like users (a conv's
/// [N*OH*OW, F] product expanded to NHWC, a batched lhs's product expanded
/// back), or that are views of an allocation themselves (the row tiles of
/// rlx-cpu-fuse-matmul-epilogues, in the epilogue's output). MLIR 22's
/// hoisting of the C tile out of the k loop refuses any buffer with a
/// view-like user, wherever that user is, so their C tiles stayed in
/// memory, read and written at every k step (a 1x1 conv ran at 40% of the
/// same matmul on 2-D buffers). Left out: outputs whose buffer an input of
/// the matmul also reads, and views of anything but an allocation.
SmallVector<Value> outputsWithViews(ModuleOp module) {
  llvm::SetVector<Value> outputs;
  module.walk([&](linalg::LinalgOp op) {
    if (!isMatmul(op) || !op.hasPureBufferSemantics())
      return;
    Value c = op.getDpsInitOperand(0)->get();
    Value root = viewRoot(c);
    if (root != c && !root.getDefiningOp<memref::AllocOp>())
      return;
    for (OpOperand *input : op.getDpsInputOperands())
      if (viewRoot(input->get()) == root)
        return;
    if (root != c ||
        llvm::any_of(c.getUsers(), llvm::IsaPred<ViewLikeOpInterface>))
      outputs.insert(root);
  });
  return outputs.takeVector();
}

/// Hoists the C tiles of `outputs` (see outputsWithViews): their view-like
/// users, made before the matmul was tiled and so outside its loops, take
/// the buffer through a placeholder cast while the hoisting runs, and get
/// it back after. The matmuls' tiles are the only vector transfers yet
/// (rlx-cpu-vectorize-loops runs later), so nothing else is hoisted past a
/// hidden view.
void hoistPastOutputViews(ModuleOp module, ArrayRef<Value> outputs) {
  if (outputs.empty())
    return;
  SmallVector<UnrealizedConversionCastOp> placeholders;
  for (Value c : outputs) {
    for (OpOperand &use : llvm::make_early_inc_range(c.getUses())) {
      if (!isa<ViewLikeOpInterface>(use.getOwner()))
        continue;
      OpBuilder b(use.getOwner());
      auto cast = UnrealizedConversionCastOp::create(b, c.getLoc(),
                                                     c.getType(), c);
      use.set(cast.getResult(0));
      placeholders.push_back(cast);
    }
  }
  module.walk([](func::FuncOp func) {
    linalg::hoistRedundantVectorTransfers(func);
  });
  for (UnrealizedConversionCastOp cast : placeholders) {
    cast.getResult(0).replaceAllUsesWith(cast.getOperand(0));
    cast.erase();
  }
}

/// Tiles every matmul (m x n x 1) and batch matmul (1 x m x n x 1) into
/// register tiles and peels the n and m loops, so that full tiles, the
/// common case, are vectorized without masks and only the last partial
/// tile of each dim pays for them. The outer loop over a dim of more than
/// one tile is marked for rlx-cpu-parallelize (a batch matmul's batch, else
/// m, else n for fewer rows than a tile). A matmul whose C starts at zero
/// (kZeroInitAttrName) fills each register tile before its reduction.
LogicalResult tileAndPeel(ModuleOp module, int64_t tileM, int64_t tileN,
                          int64_t tallTileM) {
  SmallVector<linalg::LinalgOp> matmuls;
  module.walk([&](Operation *op) {
    if (isMatmul(op))
      matmuls.push_back(cast<linalg::LinalgOp>(op));
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp matmul : matmuls) {
    bool batched = isa<linalg::BatchMatmulOp>(matmul);
    bool tall = matmul->hasAttr(mlir::rlx::kTallTileAttrName);
    SmallVector<int64_t> sizes = {tall ? tallTileM : tileM, tileN, 1};
    if (batched)
      sizes.insert(sizes.begin(), 1);
    Location loc = matmul.getLoc();
    SmallVector<utils::IteratorType> iterators =
        matmul.getIteratorTypesArray();
    SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
    bool zeroInit = matmul->hasAttr(mlir::rlx::kZeroInitAttrName);
    Value c = matmul.getDpsInitOperand(0)->get();
    FailureOr<scf::SCFTilingResult> tiled =
        mlir::rlx::tileByConstants(rewriter, matmul, sizes);
    if (failed(tiled))
      return emitError(loc, "failed to tile the matmul");
    if (zeroInit)
      mlir::rlx::zeroFillTile(rewriter, tiled->tiledOps.front(), tiled->loops,
                              c);
    unsigned m = batched ? 1 : 0;
    auto mLoop = cast<scf::ForOp>(tiled->loops[m].getOperation());
    auto nLoop = cast<scf::ForOp>(tiled->loops[m + 1].getOperation());
    mlir::rlx::markOuterParallelLoop(rewriter, tiled->loops, iterators,
                                     ranges, sizes);
    scf::ForOp partial;
    // Failure means the loop has no partial tile: nothing to peel.
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, nLoop, partial);
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, mLoop, partial);
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

void widenBF16Inputs(ModuleOp module) {
  SmallVector<linalg::LinalgOp> matmuls;
  module.walk([&](linalg::LinalgOp op) {
    auto isBF16 = [](Value v) {
      return getElementTypeOrSelf(v.getType()).isBF16();
    };
    auto matmul = dyn_cast<linalg::MatmulOp>(*op);
    auto batched = dyn_cast<linalg::BatchMatmulOp>(*op);
    if (((matmul && !matmul.hasUserDefinedMaps()) ||
         (batched && !batched.hasUserDefinedMaps())) &&
        op.hasPureBufferSemantics() &&
        getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32() &&
        llvm::any_of(op.getDpsInputs(), isBF16))
      matmuls.push_back(op);
  });
  for (linalg::LinalgOp matmul : matmuls) {
    OpBuilder b(matmul);
    Location loc = matmul.getLoc();
    SmallVector<Value> inputs, copies;
    for (Value input : matmul.getDpsInputs()) {
      auto type = cast<MemRefType>(input.getType());
      if (!type.getElementType().isBF16()) {
        inputs.push_back(input);
        continue;
      }
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          sizes.push_back(memref::DimOp::create(b, loc, input, d));
      Value wide = memref::AllocOp::create(
          b, loc, MemRefType::get(type.getShape(), b.getF32Type()), sizes,
          b.getI64IntegerAttr(64));
      linalg::MapOp::create(
          b, loc, ValueRange{input}, wide,
          [](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                arith::ExtFOp::create(nb, l, nb.getF32Type(), args[0])
                    .getResult());
          });
      inputs.push_back(wide);
      copies.push_back(wide);
    }
    Value output = matmul.getDpsInits()[0];
    if (isa<linalg::MatmulOp>(matmul))
      linalg::MatmulOp::create(b, loc, inputs, ValueRange{output});
    else
      linalg::BatchMatmulOp::create(b, loc, inputs, ValueRange{output});
    for (Value copy : copies)
      memref::DeallocOp::create(b, loc, copy);
    matmul->erase();
  }
}

struct RLXCPUVectorizeMatmulPass
    : mlir::rlx::impl::RLXCPUVectorizeMatmulBase<RLXCPUVectorizeMatmulPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool hasMatmul = false;
    module.walk([&](Operation *op) { hasMatmul |= isMatmul(op); });
    if (!hasMatmul)
      return;
    // First: the rewrites below may put ops between a fill and its matmul.
    mlir::rlx::markZeroInitMatmuls(module);
    widenBF16Inputs(module);
    copyExpandedInputs(module);
    mlir::rlx::linearizeCollapsedInputs(module, isMatmul);
    SmallVector<Value> viewedOutputs = outputsWithViews(module);
    // After those two, which treat a prepacked product as the matmul it is
    // (its C, viewed as NHWC, must have its tiles hoisted too).
    mlir::rlx::RegisterTile tile{tileM, tileN, std::max(tallTileM, tileM)};
    if (failed(mlir::rlx::expandPrepackedMatmuls(module, tile)))
      return signalPassFailure();
    mlir::rlx::packLargeMatmuls(module, tile);
    if (failed(tileAndPeel(module, tile.rows, tile.columns, tile.tallRows)))
      return signalPassFailure();
    mlir::rlx::restoreZeroFills(module);
    std::string script =
        llvm::formatv(kScheduleTemplate, tile.rows, tile.columns, tile.tallRows)
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
      return signalPassFailure();
    hoistPastOutputViews(module, viewedOutputs);
    mlir::rlx::forwardZeroTiles(module);
  }
};

} // namespace
