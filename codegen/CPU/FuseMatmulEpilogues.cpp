//===- FuseMatmulEpilogues.cpp - Bias, activation, residual per row tile --===//
///
/// \file
/// A convolution or dense layer is a matmul into a zero-filled buffer, then
/// an elementwise op reading that buffer once: bias, activation, a residual
/// add. Run as separate kernels, the fill makes a full pass over memory,
/// the product another to write it, and the epilogue a third to read it
/// back (ResNet-50's 56x56 outputs are 3 MiB each, beyond L2). Here, on
/// tensors after fusion, the three become one loop over row tiles of the
/// product, rows in parallel: each tile is zero-filled, multiplied and
/// passed through the epilogue in place in the epilogue's own output, so
/// the product's rows are still in L1 when the epilogue reads them and the
/// product never has a buffer of its own. A product whose A is a KxK
/// convolution's im2col copy gets the same loop, with or without an
/// epilogue, each tile rebuilding its own rows (Im2colRows.h).
///
/// Matched: an f32 product into a linalg.fill of a tensor.empty — a
/// linalg.matmul (plain maps) or a product by a prepacked f32 weight (the
/// linalg.generic marked `rlx.packed_rhs`, each row tile a generic of its
/// own that the matmul kernel reads in panels) — read only by one
/// all-parallel linalg.generic, directly or
/// through a tensor.expand_shape whose last group is the column dim alone
/// (a conv's `[N*OH*OW, F]` product viewed as NHWC). The generic's other
/// inputs are either of its full shape (a residual, collapsed to the
/// product's rows) or read at constants and at most the column dim (a bias,
/// a scalar); its output starts from a tensor.empty and the body reads no
/// output and no index. Left alone: products whose B is packed at each
/// call (512 KiB or more) or prepacked of 2 MiB or more (see PackMatmul.cpp:
/// that schedule wants the whole product), products by a block-scaled
/// weight (a row tile would decode every weight block again) and int8
/// products. Without an epilogue, a product takes the
/// loop when its A is an im2col copy, or when it is static, 512 KiB or more
/// and of 64 rows or more (a fill per tile instead of a pass over the whole
/// product).
///
/// With `bf16-products` (a CPU with AVX512-BF16), also a bf16 x bf16 -> f32
/// product (a linalg.matmul, or by a weight prepacked for the bf16
/// dot-product kernel) whose B is under `whole-product-bytes` as bf16,
/// with an epilogue or an im2col A, in tiles of kBF16TileRows rows (the
/// dot-product kernel runs each tile's panels serially, the tiles being
/// the parallel loop): a bf16 3x3 conv's whole im2col copy at batch 8,
/// 25088 x 576 values over 56x56x64, went to memory and back.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Im2colRows.h"
#include "codegen/CPU/Passes.h"
#include "codegen/CPU/PrepackedProduct.h"
#include "dialects/RLX/IR/DotOperandLayout.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUFUSEMATMULEPILOGUES
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

// Rows per tile are the pass's option: a multiple of the matmul kernel's
// register tile height (8 with AVX-512, 12 for AVX2's 6-row tiles), so each
// tile is whole register tiles and the rows split evenly over the cores.

/// A product without an epilogue still takes the row tiles (a zero fill
/// per tile, in L1, instead of a pass over the whole product that the
/// kernel then reads back) from this many bytes and rows.
constexpr int64_t kMinBytesOfLargeProduct = 512 * 1024;
constexpr int64_t kMinRowsOfLargeProduct = 64;

/// A product by a prepacked weight of more than kMaxWeightBytesInL1 and
/// kMinPanelsOfBlockedTiles panels or more, with kMinRowsOfBlockedTiles
/// rows or more, takes tiles of up to kRegisterTilesPerBlockedTile
/// register tiles of rows: its loops are panel, then register tile, so
/// each panel crosses from L2 once per tile rather than once per register
/// tile. On one Zen 5 core at batch 8 (`rlx-bench-conv --batch 8`, ratios
/// to oneDNN in one run for 1, 2 and 4 register tiles): ResNet-50's
/// 1x1_256-128@56 0.89 / 0.91 / 0.95, 1x1_64-256@56 0.90 / 0.92 / 1.03,
/// 1x1_512-128@28 0.97 / 0.93 / 1.00; with two panels, 1x1_256-64@56
/// 1.01 / 0.85 / 0.88, so it keeps one. Not for an im2col tile, whose
/// windows per tile would outgrow L1 (a 3x3 conv of 256 channels: 72 KiB a
/// row tile of 8), nor for a B the kernel packs, which would then be
/// packed per tile.
constexpr int64_t kRegisterTilesPerBlockedTile = 4;
constexpr int64_t kMaxWeightBytesInL1 = 32 * 1024;
constexpr int64_t kMinPanelsOfBlockedTiles = 4;

/// A prepacked weight up to this size whose product takes the taller row
/// tiles keeps them (and its fused epilogue) rather than the whole-product
/// schedule that weights from `whole-product-bytes` take: on one Zen 5
/// core at batch 8, ResNet-50's 1x1_1024-256@14 (a 1 MiB filter, 1568
/// rows) 3.29 -> 2.93 ms (0.93 -> 1.00x oneDNN), 1x1_1024-512@14 (2 MiB)
/// 6.41 -> 5.90 ms.
constexpr int64_t kMaxBlockedTileWeightBytes = int64_t(4) << 20;
/// Enough rows that the larger tiles still split over 16 cores.
constexpr int64_t kMinRowsOfBlockedTiles = 512;

/// How the epilogue reads one of its inputs, in the product's [M, N] terms.
enum class InputKind { Product, FullShape, ColumnOrScalar };

struct Epilogue {
  linalg::GenericOp generic;
  /// The expand_shape between the product and the generic, if any.
  tensor::ExpandShapeOp expand;
  SmallVector<InputKind> inputs;
  /// The im2col copy that the product's A is, rebuilt per tile.
  std::optional<Im2colRows> im2col;
};

/// The one user of `v` that is no tensor.dim (the shape of the epilogue's
/// output is often taken from its input), if there is exactly one.
Operation *soleUser(Value v) {
  Operation *sole = nullptr;
  for (Operation *user : v.getUsers()) {
    if (isa<tensor::DimOp>(user))
      continue;
    if (sole)
      return nullptr;
    sole = user;
  }
  return sole;
}

/// Replaces each tensor.dim of `v` by `sizes[dim]`.
void replaceDims(RewriterBase &rewriter, Value v,
                 ArrayRef<OpFoldResult> sizes) {
  for (Operation *user : llvm::make_early_inc_range(v.getUsers())) {
    auto dim = dyn_cast<tensor::DimOp>(user);
    if (!dim)
      continue;
    rewriter.setInsertionPoint(dim);
    std::optional<int64_t> index = dim.getConstantIndex();
    Value size = index ? getValueOrCreateConstantIndexOp(
                             rewriter, dim.getLoc(), sizes[*index])
                       : tensor::DimOp::create(rewriter, dim.getLoc(), v,
                                               dim.getIndex())
                             .getResult();
    if (size != dim.getResult())
      rewriter.replaceOp(dim, size);
  }
}

/// Whether the packed f32 schedule (PackMatmul.cpp) would take the B of
/// `matmul` whole, read by all its rows; only by its size when A is an
/// im2col copy (`im2col`): rebuilt per row tile in L1, a 3x3 conv's
/// windows beat packing its [576, 64] filter, whose rows crowd 16 L1 sets,
/// for a whole product over the full copy (0.97x oneDNN against 0.69x).
bool packedAtEachCall(linalg::LinalgOp matmul, bool im2col, int64_t rowsPerTile,
                      int64_t tileColumns) {
  auto type = cast<RankedTensorType>(matmul.getDpsInputs()[1].getType());
  if (!type.hasStaticShape())
    return false;
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  if (n % tileColumns != 0 || n <= tileColumns)
    return false;
  if (im2col)
    return k * n * 4 >= dot_layout::kMinPackedAtEachCallF32Bytes;
  auto aType = cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
  return dot_layout::packedAtEachCall(
      k, n, 4, aType.isDynamicDim(0) ? -1 : aType.getDimSize(0), rowsPerTile);
}

/// Whether `input` is read at most along the last loop dim, in its own last
/// dim, and its other dims have one element (a bias `[1, 1, 1, F]` read at
/// (0, 0, 0, f), a scalar): it collapses to `[F]` or to a 0-d tensor.
bool readsColumnOrScalar(linalg::GenericOp generic, OpOperand *input) {
  AffineMap map = generic.getMatchingIndexingMap(input);
  auto type = dyn_cast<RankedTensorType>(input->get().getType());
  if (!type)
    return false;
  unsigned loops = generic.getNumLoops();
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (dim && dim.getPosition() + 1 == loops && i + 1 == map.getNumResults())
      continue;
    if (type.getDimSize(i) != 1 || (!dim && !isa<AffineConstantExpr>(expr)) ||
        (dim && dim.getPosition() + 1 == loops))
      return false;
  }
  return true;
}

/// Whether such an input is read along the last loop dim (a bias) rather
/// than as a scalar.
bool readsColumn(AffineMap map) {
  return map.getNumResults() > 0 && isa<AffineDimExpr>(map.getResults().back());
}

/// Rows per tile of `matmul`: `rowsPerTile`, or up to
/// kRegisterTilesPerBlockedTile times that for a large product by a
/// prepacked weight beyond L1.
int64_t tileRowsFor(linalg::LinalgOp matmul, bool im2col,
                    int64_t rowsPerTile, int64_t tileColumns) {
  auto generic = dyn_cast<linalg::GenericOp>(matmul.getOperation());
  if (im2col || !generic || !isPrepackedF32Product(generic))
    return rowsPerTile;
  auto product = cast<RankedTensorType>(matmul->getResult(0).getType());
  auto weight = cast<RankedTensorType>(matmul.getDpsInputs()[1].getType());
  if (product.isDynamicDim(0) ||
      product.getDimSize(0) < kMinRowsOfBlockedTiles ||
      product.getDimSize(1) < kMinPanelsOfBlockedTiles * tileColumns ||
      weight.getNumElements() * 4 <= kMaxWeightBytesInL1)
    return rowsPerTile;
  // The tallest such tile dividing the rows: the rows after the last whole
  // tile run after the parallel loop, on one core.
  for (int64_t tiles = kRegisterTilesPerBlockedTile; tiles > 1; --tiles)
    if (product.getDimSize(0) % (tiles * rowsPerTile) == 0)
      return tiles * rowsPerTile;
  return rowsPerTile;
}

/// Whether the product keeps the packed schedule's loops over the whole
/// product: a B beyond L2 that each row tile would stream again, where the
/// packed schedule streams it once per M block of rows. A matmul's B from
/// 512 KiB, or crowding L1 sets, packed at each call (packedAtEachCall); a
/// prepacked B from `wholeProductBytes` (2 MiB: BERT-base's 768x768
/// weights in row tiles, 218-234 ms against 144-150 per call on one Zen 3
/// core; ResNet-50's filters below that keep their fused epilogues; 1 MiB
/// with AVX-512, Compiler.cpp), unless it is at most
/// kMaxBlockedTileWeightBytes and its product takes the taller row tiles
/// (tileRowsFor).
bool wantsWholeProduct(linalg::LinalgOp matmul, bool im2col,
                       int64_t rowsPerTile, int64_t tileColumns,
                       int64_t wholeProductBytes) {
  Value b = matmul.getDpsInputs()[1];
  if (isa<linalg::MatmulOp>(matmul))
    return packedAtEachCall(matmul, im2col, rowsPerTile, tileColumns);
  auto type = cast<RankedTensorType>(b.getType());
  int64_t bytes = type.getNumElements() * 4;
  if (bytes < wholeProductBytes)
    return false;
  // Taller row tiles pass over B once per several register tiles: up to
  // kMaxBlockedTileWeightBytes they beat the whole product.
  return bytes > kMaxBlockedTileWeightBytes ||
         tileRowsFor(matmul, im2col, rowsPerTile, tileColumns) == rowsPerTile;
}

/// The elementwise generic reading `matmul`'s product, if it is one the
/// row tiles can run (see the file comment).
std::optional<Epilogue> matchElementwiseEpilogue(linalg::LinalgOp matmul) {
  Epilogue epilogue;
  Value product = matmul->getResult(0);
  Operation *user = soleUser(product);
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(user)) {
    SmallVector<ReassociationIndices> groups =
        expand.getReassociationIndices();
    if (groups.size() != 2 || groups.back().size() != 1)
      return std::nullopt;
    epilogue.expand = expand;
    product = expand.getResult();
    user = soleUser(product);
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(user);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      generic.getNumDpsInits() != 1 || generic.hasIndexSemantics() ||
      !generic.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)) ||
      !generic.getIndexingMapsArray().back().isIdentity() ||
      generic->getResult(0).getType() != product.getType())
    return std::nullopt;
  bool readsProduct = false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (input->get() == product) {
      if (readsProduct || !map.isIdentity())
        return std::nullopt;
      readsProduct = true;
      epilogue.inputs.push_back(InputKind::Product);
    } else if (map.isIdentity() && type && type == product.getType()) {
      epilogue.inputs.push_back(InputKind::FullShape);
    } else if (readsColumnOrScalar(generic, input)) {
      epilogue.inputs.push_back(InputKind::ColumnOrScalar);
    } else {
      return std::nullopt;
    }
  }
  if (!readsProduct)
    return std::nullopt;
  epilogue.generic = generic;
  return epilogue;
}

/// Rows per tile of a bf16 product: 4 of the dot-product kernel's register
/// tiles, whose im2col rows (32 x 576 bf16 for a 3x3 conv of 64 channels)
/// stay in L1 and L2 for the tile's product.
constexpr int64_t kBF16TileRows = 32;

/// Whether `matmul` multiplies bf16 values into f32 sums: a linalg.matmul
/// of bf16 operands, or a product by a prepacked bf16 weight.
bool isBF16Product(linalg::LinalgOp matmul) {
  if (auto generic = dyn_cast<linalg::GenericOp>(matmul.getOperation()))
    return isPrepackedBF16Product(generic);
  auto element = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  return isa<linalg::MatmulOp>(matmul) &&
         element(matmul.getDpsInputs()[0]).isBF16() &&
         element(matmul.getDpsInputs()[1]).isBF16() &&
         element(matmul.getDpsInits()[0]).isF32();
}

/// Whether `matmul`'s product is large enough that zero-filling it whole
/// costs a pass over memory, with enough static rows that its row tiles
/// still split over the cores (fewer than a tile's rows would run on one).
bool isLargeProduct(linalg::LinalgOp matmul) {
  auto type = cast<RankedTensorType>(matmul->getResult(0).getType());
  return type.hasStaticShape() &&
         type.getDimSize(0) >= kMinRowsOfLargeProduct &&
         type.getNumElements() * 4 >= kMinBytesOfLargeProduct;
}

/// What `matmul`'s row tiles run: its epilogue, its im2col copy per tile,
/// both, or only its fill and product (a large product); nothing if none
/// applies.
std::optional<Epilogue> matchEpilogue(linalg::LinalgOp matmul,
                                      int64_t rowsPerTile, int64_t tileColumns,
                                      int64_t wholeProductBytes,
                                      bool bf16Products) {
  auto named = dyn_cast<linalg::MatmulOp>(matmul.getOperation());
  bool bf16 = bf16Products && isBF16Product(matmul);
  if (named ? !named.hasPureTensorSemantics() || named.hasUserDefinedMaps()
            : !bf16 && !isPrepackedF32Product(cast<linalg::GenericOp>(matmul)))
    return std::nullopt;
  if (bf16) {
    auto b = cast<RankedTensorType>(matmul.getDpsInputs()[1].getType());
    if (!b.hasStaticShape() || b.getNumElements() * 2 >= wholeProductBytes)
      return std::nullopt;
  } else {
    for (Value v : matmul->getOperands())
      if (!cast<RankedTensorType>(v.getType()).getElementType().isF32())
        return std::nullopt;
  }
  auto fill = matmul.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !fill->hasOneUse() ||
      !fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return std::nullopt;
  std::optional<Im2colRows> im2col =
      mlir::rlx::matchIm2colRows(matmul.getDpsInputs()[0]);
  if (!bf16 && wantsWholeProduct(matmul, im2col.has_value(), rowsPerTile,
                                 tileColumns, wholeProductBytes))
    return std::nullopt;
  std::optional<Epilogue> epilogue = matchElementwiseEpilogue(matmul);
  if (!epilogue && !im2col && (bf16 || !isLargeProduct(matmul)))
    return std::nullopt;
  if (!epilogue)
    epilogue.emplace();
  epilogue->im2col = im2col;
  return epilogue;
}

void fuse(RewriterBase &rewriter, linalg::LinalgOp matmul, Epilogue epilogue,
          int64_t rowsPerTile) {
  linalg::GenericOp generic = epilogue.generic;
  MLIRContext *context = rewriter.getContext();
  Location loc = matmul.getLoc();
  // The sizes right after the product: they replace its tensor.dim users.
  rewriter.setInsertionPointAfter(matmul);
  Value lhs = matmul.getDpsInputs()[0], rhs = matmul.getDpsInputs()[1];
  auto productType = cast<RankedTensorType>(matmul->getResult(0).getType());
  auto fill = matmul.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  Value fillValue = fill.getDpsInputs()[0];

  OpFoldResult depth = tensor::getMixedSize(rewriter, loc, lhs, 1);
  OpFoldResult rows;
  if (epilogue.im2col) {
    // N*OH*OW from the copy's sizes; the sizes taken of its rows (the
    // product's own empty tensor is one) take it instead, so nothing reads
    // the copy that the tiles replace.
    rewriter.setInsertionPointAfter(epilogue.im2col->pixels);
    AffineExpr n, h, w;
    bindSymbols(context, n, h, w);
    rows = affine::makeComposedFoldedAffineApply(
        rewriter, loc, AffineMap::get(0, 3, n * h * w),
        ArrayRef<OpFoldResult>(mlir::rlx::im2colPixelSizes(*epilogue.im2col)));
    replaceDims(rewriter, lhs, {rows, depth});
    rewriter.setInsertionPointAfter(matmul);
  } else {
    rows = tensor::getMixedSize(rewriter, loc, lhs, 0);
  }
  // A prepacked B is panels x K x width: the columns are the product's
  // (static for one).
  OpFoldResult columns =
      isa<linalg::MatmulOp>(matmul)
          ? tensor::getMixedSize(rewriter, loc, rhs, 1)
          : OpFoldResult(rewriter.getIndexAttr(productType.getDimSize(1)));
  // Sizes taken of the product or its NHWC view, from what they equal.
  replaceDims(rewriter, matmul->getResult(0), {rows, columns});
  if (epilogue.expand)
    replaceDims(rewriter, epilogue.expand.getResult(),
                epilogue.expand.getMixedOutputShape());
  if (generic)
    rewriter.setInsertionPoint(generic);

  // Full-shape inputs (a residual) on the product's [M, N] rows, a bias as
  // [N], a scalar as a 0-d tensor, each with its map on the tile's (m, n).
  SmallVector<Value> tileInputs;
  SmallVector<AffineMap> tileMaps;
  AffineMap tileIdentity = AffineMap::getMultiDimIdentityMap(2, context);
  for (auto [i, kind] : llvm::enumerate(epilogue.inputs)) {
    OpOperand *operand = generic.getDpsInputOperand(i);
    Value v = operand->get();
    AffineMap map = tileIdentity;
    if (kind == InputKind::FullShape && epilogue.expand) {
      v = tensor::CollapseShapeOp::create(
          rewriter, loc, v, epilogue.expand.getReassociationIndices());
    } else if (kind == InputKind::ColumnOrScalar) {
      int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
      bool column = readsColumn(generic.getMatchingIndexingMap(operand));
      // [1, ..., 1, F] into one group; all unit dims into none (0-d).
      SmallVector<ReassociationIndices> groups;
      if (column)
        groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
      if (rank != (column ? 1 : 0))
        v = tensor::CollapseShapeOp::create(rewriter, loc, v, groups);
      map = column ? AffineMap::get(2, 0, getAffineDimExpr(1, context))
                   : AffineMap::get(2, 0, {}, context);
    }
    tileInputs.push_back(v);
    tileMaps.push_back(map);
  }
  SmallVector<OpFoldResult> productSizes = {rows, columns};
  Value output = tensor::EmptyOp::create(rewriter, loc, productSizes,
                                         productType.getElementType());

  // One tile: fill, product, then the epilogue over the product's tile.
  auto emitTile = [&](OpBuilder &b, Location loc, Value acc, OpFoldResult row,
                      OpFoldResult tileRows) -> Value {
    OpFoldResult zeroAttr = b.getIndexAttr(0), one = b.getIndexAttr(1);
    SmallVector<OpFoldResult> offsets = {row, zeroAttr}, strides = {one, one};
    SmallVector<OpFoldResult> tileSizes = {tileRows, columns};
    Value aTile = epilogue.im2col
                      ? buildIm2colTile(b, loc, *epilogue.im2col, row, tileRows)
                      : tensor::ExtractSliceOp::create(
                            b, loc, lhs, offsets,
                            ArrayRef<OpFoldResult>{tileRows, depth}, strides)
                            .getResult();
    Value cTile = tensor::ExtractSliceOp::create(b, loc, acc, offsets,
                                                 tileSizes, strides);
    Value zeroed = linalg::FillOp::create(b, loc, fillValue, cTile).getResult(0);
    // The product's own op (a matmul, a prepacked product) on the tile.
    Value product = mlir::clone(b, matmul, TypeRange{zeroed.getType()},
                                ValueRange{aTile, rhs, zeroed})
                        ->getResult(0);
    if (!generic)
      return tensor::InsertSliceOp::create(b, loc, product, acc, offsets,
                                           tileSizes, strides);
    SmallVector<Value> inputs;
    for (auto [i, kind] : llvm::enumerate(epilogue.inputs)) {
      switch (kind) {
      case InputKind::Product:
        inputs.push_back(product);
        break;
      case InputKind::FullShape:
        inputs.push_back(tensor::ExtractSliceOp::create(
            b, loc, tileInputs[i], offsets, tileSizes, strides));
        break;
      case InputKind::ColumnOrScalar:
        inputs.push_back(tileInputs[i]);
        break;
      }
    }
    SmallVector<AffineMap> maps = tileMaps;
    maps.push_back(tileIdentity);
    SmallVector<utils::IteratorType> iterators(2,
                                               utils::IteratorType::parallel);
    auto tile = linalg::GenericOp::create(b, loc, TypeRange{product.getType()},
                                          inputs, ValueRange{product}, maps,
                                          iterators);
    IRMapping mapping;
    generic.getRegion().cloneInto(&tile.getRegion(), mapping);
    return tensor::InsertSliceOp::create(b, loc, tile.getResult(0), acc,
                                         offsets, tileSizes, strides);
  };

  // Whole tiles in a loop, static in size so the matmul kernel needs no
  // masks; the last rows, if any, after it.
  AffineExpr s0 = getAffineSymbolExpr(0, context);
  OpFoldResult wholeRows = affine::makeComposedFoldedAffineApply(
      rewriter, loc, AffineMap::get(0, 1, s0 - s0 % rowsPerTile), {rows});
  OpFoldResult restRows = affine::makeComposedFoldedAffineApply(
      rewriter, loc, AffineMap::get(0, 1, s0 % rowsPerTile), {rows});
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, rowsPerTile);
  auto loop = scf::ForOp::create(
      rewriter, loc, zero,
      getValueOrCreateConstantIndexOp(rewriter, loc, wholeRows), step,
      ValueRange{output},
      [&](OpBuilder &b, Location loc, Value row, ValueRange iterArgs) {
        scf::YieldOp::create(
            b, loc,
            emitTile(b, loc, iterArgs[0], row, b.getIndexAttr(rowsPerTile)));
      });
  // The row tiles are independent: rlx-cpu-parallelize may fork them.
  loop->setAttr("rlx.parallel", rewriter.getUnitAttr());
  Value result = loop.getResult(0);
  std::optional<int64_t> staticRest = getConstantIntValue(restRows);
  if (!staticRest || *staticRest != 0)
    result = emitTile(rewriter, loc, result, wholeRows, restRows);
  if (!generic) {
    rewriter.replaceAllUsesWith(matmul->getResult(0), result);
  } else {
    if (epilogue.expand)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, generic->getResult(0).getType(), result,
          epilogue.expand.getReassociationIndices(),
          epilogue.expand.getMixedOutputShape());
    rewriter.replaceOp(generic, result);
    if (epilogue.expand)
      rewriter.eraseOp(epilogue.expand);
  }
  rewriter.eraseOp(matmul);
  rewriter.eraseOp(fill);
  // The whole im2col copy, now read by no one.
  if (epilogue.im2col) {
    tensor::EmptyOp pixels = epilogue.im2col->pixels;
    rewriter.eraseOp(lhs.getDefiningOp());
    rewriter.eraseOp(epilogue.im2col->copy);
    if (pixels->use_empty())
      rewriter.eraseOp(pixels);
  }
}

struct RLXCPUFuseMatmulEpiloguesPass
    : mlir::rlx::impl::RLXCPUFuseMatmulEpiloguesBase<
          RLXCPUFuseMatmulEpiloguesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation()->walk([&](linalg::LinalgOp op) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (isa<linalg::MatmulOp>(op) ||
          (generic && (isPrepackedF32Product(generic) ||
                       (bf16Products && isPrepackedBF16Product(generic)))))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // Matched one at a time on the current IR: two products may share one
    // epilogue (a residual add of two convolutions); the first takes it.
    for (linalg::LinalgOp matmul : matmuls)
      if (std::optional<Epilogue> epilogue =
              matchEpilogue(matmul, rowsPerTile, tileColumns,
                            wholeProductBytes, bf16Products))
        fuse(rewriter, matmul, *epilogue,
             bf16Products && isBF16Product(matmul)
                 ? kBF16TileRows
                 : tileRowsFor(matmul, epilogue->im2col.has_value(),
                               rowsPerTile, tileColumns));
  }
};

} // namespace
