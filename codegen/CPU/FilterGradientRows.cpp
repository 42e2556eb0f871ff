//===- FilterGradientRows.cpp - A conv's filter gradient by output rows ---===//
///
/// \file
/// rlx's VJP of conv2d builds the filter gradient per window offset (tap):
/// the strided slice of the padded input that the tap reads, flattened to
/// [pixels, C], transposed, times the output gradient flattened to
/// [pixels, F]. On the CPU the slice is not a view of a matrix (its rows
/// jump at every image row), so each tap copied it whole, then packed it
/// K-major, and packed the output gradient again for every tap: on one Zen
/// 5 core, a 3x3 conv of 64 channels at 56x56 spent a quarter of its
/// filter gradient in those copies, and ran at 0.68x oneDNN.
///
/// Here, on tensors after fusion, the products of one output gradient by
/// the taps of one conv become one loop over the output rows (an image
/// row of pixels each): per row, the row of the output gradient, [OW, F],
/// is read once, and each tap adds the transpose of its input row,
/// [OW, C] (a strided view of the input, no copy), times it into that
/// tap's [C, F] sum. Each row's data stays in L1 through every tap. The
/// rows are split into chunks that run in parallel, each into partial sums
/// of its own, added at the end.
///
/// Matched: f32 linalg.matmuls into zero fills whose B is the same
/// [N*OH*OW, F] collapse of a 4-D tensor and whose A is the transpose of
/// the [N*OH*OW, C] collapse of a 4-D tensor or of its strided slice (one
/// per tap; a 1x1 conv has one, of contiguous matrices, taken only while
/// its sums are small: kMaxOneTapSumBytes), static shapes, a chunk's
/// partial sums within kMaxSumBytes, and rows of at least
/// `min-row-pixels` pixels (shorter ones reload each register tile of the
/// sums too often; the convs at 14x14 and 7x7 keep the per-tap products).
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUFILTERGRADIENTROWS
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// At most this many row chunks (and partial sums); each has at least
/// kMinRowsPerChunk rows.
constexpr int64_t kMaxChunks = 16;
constexpr int64_t kMinRowsPerChunk = 8;

/// Bytes of a chunk's partial sums (every tap's [C, F]) up to which the
/// rows take the products: they stay in L2 while the rows pass (a 3x3
/// conv of 128 channels at 28x28: 576 KiB, 0.79 -> 0.88x oneDNN).
constexpr int64_t kMaxSumBytes = int64_t(1) << 20;

/// The same for a single product (a 1x1 conv's filter gradient, whose
/// operands are contiguous matrices that the packed matmul schedule reads
/// well): the rows win where the sums are small. On one Zen 5 core, packed
/// against rows (`rlx-bench-conv --backward`, ratios to oneDNN):
/// 1x1_64-64@56 0.79 / 1.00, 1x1_256-64@56 0.85 / 1.00, 1x1_256-128@56
/// (128 KiB of sums) 0.89 / 0.98, 1x1_512-128@28 (256 KiB) 0.91 / 0.93;
/// 1x1_512-256@28 (512 KiB) 0.94 / 0.91, 1x1s2_256-512@56 0.97 / 0.93.
constexpr int64_t kMaxOneTapSumBytes = int64_t(256) << 10;

/// A 4-D NHWC-like tensor read by a product's A or B: `source` at
/// `offsets` with `strides`, of `sizes`.
struct PixelView {
  Value source;
  SmallVector<int64_t, 4> offsets, sizes, strides;
};

/// `v` as a view of a 4-D tensor when it is the [N*OH*OW, C] collapse of
/// one (or of a static strided slice of one).
std::optional<PixelView> pixelsOf(Value v) {
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return std::nullopt;
  SmallVector<ReassociationIndices> groups =
      collapse.getReassociationIndices();
  if (groups.size() != 2 || groups[0] != ReassociationIndices{0, 1, 2} ||
      groups[1] != ReassociationIndices{3})
    return std::nullopt;
  Value src = collapse.getSrc();
  auto type = cast<RankedTensorType>(src.getType());
  if (!type.hasStaticShape() || !type.getElementType().isF32())
    return std::nullopt;
  PixelView view;
  view.sizes.assign(type.getShape().begin(), type.getShape().end());
  if (auto slice = src.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
        ShapedType::isDynamicShape(slice.getStaticStrides()) ||
        slice.getType().getRank() != 4 ||
        !slice.getSourceType().hasStaticShape())
      return std::nullopt;
    view.source = slice.getSource();
    view.offsets.assign(slice.getStaticOffsets().begin(),
                        slice.getStaticOffsets().end());
    view.strides.assign(slice.getStaticStrides().begin(),
                        slice.getStaticStrides().end());
    return view;
  }
  view.source = src;
  view.offsets.assign(4, 0);
  view.strides.assign(4, 1);
  return view;
}

/// Whether `init` is a linalg.fill of zero.
bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getDpsInputs()[0], m_AnyZeroFloat());
}

/// One tap's product: the matmul and its A's input view.
struct TapProduct {
  linalg::MatmulOp matmul;
  PixelView a;
};

/// The products sharing one output gradient.
struct Conv {
  PixelView g;
  SmallVector<TapProduct> taps;
};

/// The pieces of `matmul` if it is a tap product (see the file comment).
std::optional<std::pair<PixelView, TapProduct>>
matchTap(linalg::MatmulOp matmul) {
  if (!matmul.hasPureTensorSemantics() || matmul.hasUserDefinedMaps() ||
      !isZeroFill(matmul.getDpsInits()[0]))
    return std::nullopt;
  auto transpose =
      matmul.getDpsInputs()[0].getDefiningOp<linalg::TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return std::nullopt;
  std::optional<PixelView> a = pixelsOf(transpose.getInput());
  std::optional<PixelView> g = pixelsOf(matmul.getDpsInputs()[1]);
  if (!a || !g)
    return std::nullopt;
  // The same pixels: N, OH and OW agree.
  for (int d = 0; d < 3; ++d)
    if (a->sizes[d] != g->sizes[d])
      return std::nullopt;
  return std::make_pair(*g, TapProduct{matmul, *a});
}

/// Chunks of the rows: the most, up to kMaxChunks, that divide the rows
/// into chunks of at least kMinRowsPerChunk rows; 1 when none does.
int64_t chunksFor(int64_t rows) {
  int64_t best = 1;
  for (int64_t chunks = 1; chunks <= kMaxChunks; ++chunks)
    if (rows % chunks == 0 && rows / chunks >= kMinRowsPerChunk)
      best = chunks;
  return best;
}

/// Erases the ops defining `values` that nothing reads any more, and then
/// those defining their operands, in turn.
void eraseUnused(RewriterBase &rewriter, SmallVector<Value> values) {
  while (!values.empty()) {
    Value v = values.pop_back_val();
    Operation *op = v.getDefiningOp();
    if (!op || !op->use_empty() || !isPure(op))
      continue;
    llvm::append_range(values, op->getOperands());
    rewriter.eraseOp(op);
  }
}

void rewrite(RewriterBase &rewriter, const Conv &conv) {
  linalg::MatmulOp first = conv.taps.front().matmul;
  Location loc = first.getLoc();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(first);
  int64_t images = conv.g.sizes[0], outH = conv.g.sizes[1],
          f = conv.g.sizes[3];
  int64_t c = conv.taps.front().a.sizes[3];
  int64_t taps = conv.taps.size();
  int64_t rows = images * outH;
  int64_t chunks = chunksFor(rows), perChunk = rows / chunks;
  Type f32 = rewriter.getF32Type();
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = arith::ConstantOp::create(rewriter, loc, f32,
                                         rewriter.getF32FloatAttr(0));
  Value partials = linalg::FillOp::create(
                       rewriter, loc, zero,
                       ValueRange{tensor::EmptyOp::create(
                           rewriter, loc,
                           ArrayRef<int64_t>{chunks, taps, c, f}, f32)})
                       .getResult(0);
  OpFoldResult zeroAttr = rewriter.getIndexAttr(0),
               oneAttr = rewriter.getIndexAttr(1);
  AffineExpr m = getAffineDimExpr(0, context), n = getAffineDimExpr(1, context),
             k = getAffineDimExpr(2, context);
  SmallVector<AffineMap> transposedA = {
      AffineMap::get(3, 0, {k, m}, context),
      AffineMap::get(3, 0, {k, n}, context),
      AffineMap::get(3, 0, {m, n}, context)};
  // One output row of a view: [OW, channels] at image `img`, row `oh`.
  auto rowOf = [&](OpBuilder &b, const PixelView &view, Value img,
                   Value oh) -> Value {
    auto at = [&](Value i, int d) -> OpFoldResult {
      Value scaled = arith::MulIOp::create(b, loc, i,
                                           index(b, view.strides[d]));
      return arith::AddIOp::create(b, loc, scaled,
                                   index(b, view.offsets[d]))
          .getResult();
    };
    SmallVector<OpFoldResult> offsets = {at(img, 0), at(oh, 1),
                                         b.getIndexAttr(view.offsets[2]),
                                         b.getIndexAttr(view.offsets[3])};
    SmallVector<OpFoldResult> sizes = {oneAttr, oneAttr,
                                       b.getIndexAttr(view.sizes[2]),
                                       b.getIndexAttr(view.sizes[3])};
    SmallVector<OpFoldResult> strides = {oneAttr, oneAttr,
                                         b.getIndexAttr(view.strides[2]),
                                         b.getIndexAttr(view.strides[3])};
    auto type = RankedTensorType::get({view.sizes[2], view.sizes[3]}, f32);
    return tensor::ExtractSliceOp::create(b, loc, type, view.source, offsets,
                                          sizes, strides);
  };

  auto chunkLoop = scf::ForOp::create(
      rewriter, loc, index(rewriter, 0), index(rewriter, chunks),
      index(rewriter, 1), ValueRange{partials},
      [&](OpBuilder &b, Location loc, Value chunk, ValueRange chunkArgs) {
        SmallVector<OpFoldResult> sumOffsets = {chunk, zeroAttr, zeroAttr,
                                                zeroAttr};
        SmallVector<OpFoldResult> sumSizes = {
            oneAttr, b.getIndexAttr(taps), b.getIndexAttr(c),
            b.getIndexAttr(f)};
        SmallVector<OpFoldResult> unit4(4, oneAttr);
        auto sumsType = RankedTensorType::get({taps, c, f}, f32);
        Value sums = tensor::ExtractSliceOp::create(
            b, loc, sumsType, chunkArgs[0], sumOffsets, sumSizes, unit4);
        Value firstRow =
            arith::MulIOp::create(b, loc, chunk, index(b, perChunk));
        Value lastRow =
            arith::AddIOp::create(b, loc, firstRow, index(b, perChunk));
        auto rowLoop = scf::ForOp::create(
            b, loc, firstRow, lastRow, index(b, 1), ValueRange{sums},
            [&](OpBuilder &b, Location loc, Value row, ValueRange rowArgs) {
              Value img = arith::DivUIOp::create(b, loc, row, index(b, outH));
              Value oh = arith::RemUIOp::create(b, loc, row, index(b, outH));
              Value gRow = rowOf(b, conv.g, img, oh);
              Value acc = rowArgs[0];
              SmallVector<OpFoldResult> unit3(3, oneAttr);
              for (auto [t, tap] : llvm::enumerate(conv.taps)) {
                SmallVector<OpFoldResult> offsets = {
                    b.getIndexAttr(t), zeroAttr, zeroAttr};
                SmallVector<OpFoldResult> sizes = {
                    oneAttr, b.getIndexAttr(c), b.getIndexAttr(f)};
                auto sumType = RankedTensorType::get({c, f}, f32);
                Value sum = tensor::ExtractSliceOp::create(
                    b, loc, sumType, acc, offsets, sizes, unit3);
                Value aRow = rowOf(b, tap.a, img, oh);
                auto product = linalg::MatmulOp::create(
                    b, loc, TypeRange{sumType}, ValueRange{aRow, gRow},
                    ValueRange{sum});
                product.setIndexingMapsAttr(
                    b.getAffineMapArrayAttr(transposedA));
                acc = tensor::InsertSliceOp::create(
                    b, loc, product.getResult(0), acc, offsets, sizes,
                    unit3);
              }
              scf::YieldOp::create(b, loc, acc);
            });
        Value done = tensor::InsertSliceOp::create(
            b, loc, rowLoop.getResult(0), chunkArgs[0], sumOffsets, sumSizes,
            unit4);
        scf::YieldOp::create(b, loc, done);
      });
  // The chunks write disjoint partial sums: rlx-cpu-parallelize may fork
  // them.
  chunkLoop->setAttr("rlx.parallel", rewriter.getUnitAttr());

  // The partial sums added up, then each tap's share.
  Value total = linalg::FillOp::create(
                    rewriter, loc, zero,
                    ValueRange{tensor::EmptyOp::create(
                        rewriter, loc, ArrayRef<int64_t>{taps, c, f}, f32)})
                    .getResult(0);
  auto reduce = linalg::ReduceOp::create(
      rewriter, loc, ValueRange{chunkLoop.getResult(0)}, ValueRange{total},
      ArrayRef<int64_t>{0},
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value sum = arith::AddFOp::create(b, loc, args[0], args[1]);
        linalg::YieldOp::create(b, loc, sum);
      });
  for (auto [t, tap] : llvm::enumerate(conv.taps)) {
    auto type = RankedTensorType::get({c, f}, f32);
    Value share = tensor::ExtractSliceOp::create(
        rewriter, loc, type, reduce.getResult(0),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(t), zeroAttr, zeroAttr},
        ArrayRef<OpFoldResult>{oneAttr, rewriter.getIndexAttr(c),
                               rewriter.getIndexAttr(f)},
        ArrayRef<OpFoldResult>{oneAttr, oneAttr, oneAttr});
    // The product, and what only it read: the transpose, the flattened
    // slice and its zero fill.
    SmallVector<Value> operands(tap.matmul->getOperands());
    rewriter.replaceOp(tap.matmul, share);
    eraseUnused(rewriter, operands);
  }
}

struct RLXCPUFilterGradientRowsPass
    : mlir::rlx::impl::RLXCPUFilterGradientRowsBase<
          RLXCPUFilterGradientRowsPass> {
  using Base::Base;
  void runOnOperation() override {
    // The taps of each output gradient, in program order.
    llvm::MapVector<Value, Conv> convs;
    getOperation()->walk([&](linalg::MatmulOp matmul) {
      std::optional<std::pair<PixelView, TapProduct>> tap = matchTap(matmul);
      if (!tap)
        return;
      // B is the key: one value, one view of the output gradient.
      Value key = matmul.getDpsInputs()[1];
      convs.try_emplace(key, Conv{tap->first, {}})
          .first->second.taps.push_back(tap->second);
    });
    DominanceInfo dominance(getOperation());
    IRRewriter rewriter(&getContext());
    for (auto &[key, conv] : convs) {
      if (conv.g.sizes[2] < minRowPixels)
        continue;
      int64_t sumBytes = int64_t(conv.taps.size()) *
                         conv.taps.front().a.sizes[3] * conv.g.sizes[3] * 4;
      if (sumBytes > (conv.taps.size() == 1 ? kMaxOneTapSumBytes
                                            : kMaxSumBytes))
        continue;
      // Every tap's input and the output gradient exist before the first
      // product, where the loop goes, in its block; every A has the same
      // channels.
      linalg::MatmulOp first = conv.taps.front().matmul;
      bool ok = dominance.properlyDominates(conv.g.source, first);
      for (const TapProduct &tap : conv.taps)
        ok &= tap.matmul->getBlock() == first->getBlock() &&
              dominance.properlyDominates(tap.a.source, first) &&
              tap.a.sizes[3] == conv.taps.front().a.sizes[3];
      if (ok)
        rewrite(rewriter, conv);
    }
  }
};

} // namespace
