//===- PackMatmul.cpp - Packed operands for large matmuls -----------------===//
///
/// \file
/// A register tile of the matmul schedule reads, per k, tileN values of a
/// B row and tileM values of an A column. In the operands' own layout those
/// rows lie a full row apart: for power-of-two widths they all map to the
/// same cache sets, and 2048^3 ran at a fifth of peak. For a B of 512 KiB
/// or more (kMinPackedAtEachCallF32Bytes; below, B stays in L2), or a
/// smaller one whose rows crowd a few L1 sets (dot_layout::packedAtEachCall),
/// B is copied
/// once into column panels (panels x K x tileN, each contiguous) and the matmul
/// runs per panel and per K block (the largest of 1024/512/256/128 dividing
/// K; 1024 measured best at 1024^3 and 2048^3). When A is static, each K
/// block of its whole row tiles is also copied into row tiles stored
/// K-major (rows/tileM x block x tileM), and every tileM x tileN tile is a
/// matmul with A transposed: both operands then stream from consecutive
/// addresses. An A of one or two register tiles of rows (an epilogue's row
/// tile, in L1 whatever its layout) is read in place in the same loops.
/// Rows after the last whole tile are read in place.
///
/// A weight B is packed once per binding instead (rlx-pack-dot-operands,
/// panels as wide as the target's register tile: 32 columns with AVX-512,
/// 16 with AVX2): its matmul arrives as a linalg.generic marked
/// `rlx.packed_rhs` reading them, and gets the same loops without the
/// copy; a register tile narrower than the panels reads each as products
/// of its own width.
/// A block-scaled weight arrives as its narrow codes and its scales, each
/// in panels: where the loops would view a panel's K block, that block is
/// decoded into an f32 buffer (block x tileN, at most 128 KiB: in L2,
/// read by every row tile of the pair) by the generic's own decoding ops.
/// So the weight is read from memory narrow and decoded once per panel and
/// M block: per weight element, one decode against the M block's rows of
/// multiply-adds. One or two rows (a GEMV) decode each weight in the
/// product instead, summing the codes' values per chunk and scaling the
/// sums (decodeInProduct).
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/PackMatmul.h"
#include "codegen/CPU/InterleavedRowProduct.h"
#include "codegen/CPU/Tiling.h"
#include "codegen/CPU/ZeroInitAccumulators.h"
#include "dialects/RLX/IR/DotOperandLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <numeric>

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The most rows of A whose product by a block-scaled panel decodes each
/// weight in the product itself (once per row) rather than once into a
/// buffer that every row reads.
constexpr int64_t kMaxRowsDecodedInProduct = 2;

/// Register tiles of rows up to which a static A is read in place, K block
/// by K block, rather than packed, whatever its layout: an epilogue's row
/// tile (two of AVX2's 6-row tiles, or one 8-row tile) is small enough to
/// stay in L1 across the B panels in its own layout, and copying it K-major
/// cost a 3x3 conv's row tile a scalar transpose of every element (6-7% of
/// ResNet-50's 3x3_128-128@28 on one Zen 3 core).
constexpr int64_t kMaxRowsReadInPlace = 2;

/// The most rows of A that take the tall register tiles (RegisterTile):
/// with few row tiles, each pass over B's panels is a large share of the
/// product. On one Emerald Rapids core, 49 rows (ResNet-50's convs at 7x7)
/// ran 9-10% faster in 14-row tiles (49 x 4608 by a prepacked 4608 x 512:
/// 1.26 -> 1.14 ms); 196 and 392 rows within 2%; BERT's 128-row products
/// faster alone but 3% slower in the model.
constexpr int64_t kMaxRowsInTallTiles = 64;

/// Bytes of packed A a core should keep in its L2 across the B panels.
constexpr int64_t kABlockBytes = int64_t(1) << 20;

/// Rows of A per M block: the largest multiple of tileM dividing m, of at
/// most 1024 rows, whose packed K block fits kABlockBytes; m when none does.
/// (A multiple, not a power of two: AVX2's 6-row tiles.)
int64_t mBlockFor(int64_t m, int64_t block, int64_t elementBytes,
                  int64_t tileM) {
  int64_t best = 0;
  for (int64_t rows = tileM; rows <= std::min<int64_t>(m, 1024); rows += tileM)
    if (m % rows == 0 && rows * block * elementBytes <= kABlockBytes)
      best = rows;
  return best ? best : m;
}

/// The K block: the largest of 1024/512/256/128 dividing k, else the
/// largest divisor of k from 128 to 1024 (a 56x56 image's 3136 pixels, the
/// K of its conv's filter gradient: 784), else k whole (its blocks of A
/// and B then outgrow L2: 3136 ran that product at half the speed).
int64_t kBlockFor(int64_t k) {
  for (int64_t block : {1024, 512, 256, 128})
    if (k % block == 0)
      return block;
  for (int64_t block = std::min<int64_t>(k, 1024); block >= 128; --block)
    if (k % block == 0)
      return block;
  return k;
}

/// `acc + a * b`, an add of a product that LLVM may contract into one
/// fused multiply-add (a math.fma would hide the reduction's combiner
/// from linalg's vectorizer, which then leaves the loop scalar).
Value multiplyAdd(OpBuilder &b, Location loc, Value a, Value w, Value acc) {
  auto contract = arith::FastMathFlagsAttr::get(b.getContext(),
                                                arith::FastMathFlags::contract);
  Value product = arith::MulFOp::create(b, loc, a, w, contract);
  return arith::AddFOp::create(b, loc, acc, product, contract);
}

/// Emits the loops and views of one packed matmul.
struct PackedMatmulBuilder {
  OpBuilder &b;
  Location loc;
  /// The product's C starts at zero (kZeroInitAttrName): its tile matmuls
  /// do too, in the first of the K block loops that mark() marks.
  bool zeroInit = false;
  /// The tile matmuls made now take the tall register tiles
  /// (kTallTileAttrName).
  bool tallTiles = false;

  /// Marks `blocks`, a loop over K blocks, for the zero start of the tiles.
  void mark(scf::ForOp blocks) {
    if (zeroInit)
      blocks->setAttr(kKBlocksAttrName, b.getUnitAttr());
  }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  OpFoldResult attr(int64_t v) { return b.getIndexAttr(v); }

  /// The unit-stride view of `source` at `offsets` with `sizes`, dropping
  /// the leading dims of size 1 that `sizes` has more than `rank`.
  Value view(Value source, ArrayRef<OpFoldResult> offsets,
             ArrayRef<int64_t> sizes, unsigned rank) {
    auto sourceType = cast<MemRefType>(source.getType());
    SmallVector<OpFoldResult> sizeAttrs, strides(sizes.size(), attr(1));
    for (int64_t size : sizes)
      sizeAttrs.push_back(attr(size));
    auto type = cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
        sizes.take_back(rank), sourceType, offsets, sizeAttrs, strides));
    return memref::SubViewOp::create(b, loc, type, source, offsets, sizeAttrs,
                                     strides);
  }

  /// `for (i = 0; i < count; ++i)`, the builder inside it.
  Value loop(int64_t count, scf::ForOp *created = nullptr) {
    auto forOp = scf::ForOp::create(b, loc, index(0), index(count), index(1));
    b.setInsertionPointToStart(forOp.getBody());
    if (created)
      *created = forOp;
    return forOp.getInductionVar();
  }

  /// `source` (rows x cols) copied so that consecutive `group`-sized runs of
  /// dim `split` become contiguous: (size/group) x other x group, by
  /// expand_shape and a transpose (runs down the columns) or a copy generic
  /// in the source's order (runs along the rows), into `into` or a new
  /// buffer.
  Value pack(Value source, unsigned split, int64_t group, Value into = {}) {
    auto type = cast<MemRefType>(source.getType());
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    SmallVector<int64_t> expanded, packed;
    SmallVector<ReassociationIndices> groups;
    SmallVector<int64_t> permutation;
    if (split == 0) { // rows x cols -> rows/group x group x cols
      expanded = {rows / group, group, cols};
      groups = {{0, 1}, {2}};
      packed = {rows / group, cols, group};
      permutation = {0, 2, 1};
    } else { // rows x cols -> rows x cols/group x group
      expanded = {rows, cols / group, group};
      groups = {{0}, {1, 2}};
      packed = {cols / group, rows, group};
      permutation = {1, 0, 2};
    }
    Value split3 =
        memref::ExpandShapeOp::create(b, loc, expanded, source, groups);
    if (!into)
      into = memref::AllocOp::create(
          b, loc, MemRefType::get(packed, type.getElementType()), ValueRange{},
          b.getI64IntegerAttr(64));
    if (split == 0) {
      linalg::TransposeOp::create(b, loc, split3, into, permutation);
      return into;
    }
    // Runs along the rows: loops in the source's order (row, run, element),
    // so the source streams from consecutive addresses and each run's
    // destination advances by one run per row; a transpose's loops follow
    // its destination, reading the source a row apart per step (an A of
    // 256 columns: each step 1 KiB on, and the K-major copy of a 1x1 conv
    // filter gradient's A took 23% of it, 0.12 of 0.51 ms on one Zen 5 core).
    MLIRContext *context = b.getContext();
    AffineExpr row = getAffineDimExpr(0, context),
               run = getAffineDimExpr(1, context),
               element = getAffineDimExpr(2, context);
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(3, context),
        AffineMap::get(3, 0, {run, row, element}, context)};
    linalg::GenericOp::create(
        b, loc, ValueRange{split3}, ValueRange{into}, maps,
        SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
        [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          linalg::YieldOp::create(nested, nestedLoc, args[0]);
        });
    return into;
  }

  /// `c += a * b` where `transposedA` says `a` is stored K x M.
  void matmul(Value a, Value bTile, Value c, bool transposedA) {
    SmallVector<NamedAttribute> attrs;
    if (transposedA) {
      MLIRContext *context = b.getContext();
      AffineExpr m = getAffineDimExpr(0, context), n = getAffineDimExpr(1, context),
                 k = getAffineDimExpr(2, context);
      attrs.push_back(b.getNamedAttr(
          "indexing_maps",
          b.getAffineMapArrayAttr({AffineMap::get(3, 0, {k, m}, context),
                                   AffineMap::get(3, 0, {k, n}, context),
                                   AffineMap::get(3, 0, {m, n}, context)})));
    }
    auto tile = linalg::MatmulOp::create(b, loc, ValueRange{a, bTile},
                                         ValueRange{c}, attrs);
    if (zeroInit)
      tile->setAttr(kZeroInitAttrName, b.getUnitAttr());
    if (tallTiles)
      tile->setAttr(kTallTileAttrName, b.getUnitAttr());
  }

  /// Columns [start, start + count) of the 2-D `source`, all its rows.
  Value columns(Value source, int64_t start, int64_t count) {
    return memref::SubViewOp::create(
        b, loc, source, ArrayRef<OpFoldResult>{attr(0), attr(start)},
        ArrayRef<OpFoldResult>{memref::getMixedSize(b, loc, source, 0),
                               attr(count)},
        ArrayRef<OpFoldResult>{attr(1), attr(1)});
  }

  /// `c += a x bPanel` as one matmul per register tile width of the panel:
  /// each is then exactly one column of register tiles (MLIR 22 did not
  /// hoist the C tile out of the k loop when a panel was split by the
  /// register tiling: AVX2's 16-column tiles in 32-column panels stored C
  /// at every k, 27 instead of 72 GFLOP/s).
  void panelMatmul(Value a, Value bPanel, Value c, bool transposedA,
                   int64_t panelColumns, int64_t tileN) {
    if (tileN >= panelColumns) {
      matmul(a, bPanel, c, transposedA);
      return;
    }
    for (int64_t start = 0; start < panelColumns; start += tileN)
      matmul(a, columns(bPanel, start, tileN), columns(c, start, tileN),
             transposedA);
  }
};

/// The ops of a block-scaled product's body (`c + a * w`) that compute the
/// weight's element w from the code and scale arguments (1 and 2), and w;
/// empty when the body is not of that form.
std::pair<SmallVector<Operation *>, Value>
weightDecoding(linalg::GenericOp scaled) {
  Block &body = scaled.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto sum = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!sum || sum.getLhs() != body.getArgument(3))
    return {};
  auto product = sum.getRhs().getDefiningOp<arith::MulFOp>();
  if (!product || product.getLhs() != body.getArgument(0) ||
      product->getBlock() != &body)
    return {};
  SmallVector<Operation *> ops;
  for (Operation &op : body) {
    if (&op == product.getOperation())
      break;
    // Only the code and scale may feed the weight.
    for (Value operand : op.getOperands())
      if (operand == body.getArgument(0) || operand == body.getArgument(3))
        return {};
    ops.push_back(&op);
  }
  return {ops, product.getRhs()};
}

/// Where packOne's loops read B's K blocks: a view of packed f32 panels,
/// or a block-scaled weight's codes and scales (the product `scaled`)
/// decoded into a buffer per block.
struct PanelSource {
  Value panels;
  /// B in its own layout instead, [k, n] (or [n, k] when `transposed`: the
  /// product reads its transpose), copied into a buffer per K block of a
  /// panel where the loops read that block (copyBlock).
  Value unpacked;
  bool transposed = false;
  linalg::GenericOp scaled = {};
  /// What the product's body is made of (blockScaled derives it once):
  /// its ops computing the weight, the weight, the scale's own decoding
  /// ops and the decoded scale (empty and null when the decoding does not
  /// split), the code's value and a constant it ends with, when the weight
  /// is their product by the scale (null otherwise), and the scale block.
  SmallVector<Operation *> decoding;
  Value weight;
  SmallVector<Operation *> scaleOps;
  Value decodedScale;
  Value codeValue, factor;
  int64_t blockSize = 0;

  /// The source of the block-scaled product `op`: its codes and scales,
  /// and its body analysed; failure when the body is not `c + a *
  /// decode(code, scale)`.
  static FailureOr<PanelSource> blockScaled(linalg::GenericOp op) {
    PanelSource source;
    source.panels = op.getDpsInputOperand(1)->get();
    source.scaled = op;
    std::tie(source.decoding, source.weight) = weightDecoding(op);
    if (!source.weight)
      return failure();
    Block &body = op.getRegion().front();
    std::tie(source.scaleOps, source.decodedScale) =
        splitScaleDecoding(source.decoding, body.getArgument(2), source.weight);
    std::tie(source.codeValue, source.factor) = source.splitCodeValue();
    source.blockSize =
        op->getAttrOfType<IntegerAttr>(dot_layout::kScaleBlockAttrName)
            .getInt();
    return source;
  }

  /// B's rows [kStart, kStart + block) of panel `panel`, block x tileN;
  /// the buffers it allocates for them go to `owned` (freed by release,
  /// after the last reader).
  Value block(PackedMatmulBuilder &p, Value panel, Value kStart, int64_t block,
              int64_t tileN, SmallVectorImpl<Value> &owned) {
    if (unpacked)
      return copyBlock(p, panel, kStart, block, tileN, owned);
    if (!scaled)
      return p.view(panels, {panel, kStart, p.attr(0)}, {1, block, tileN}, 2);
    return decode(p, panel, kStart, block, tileN, owned);
  }

  /// Rows [kStart, kStart + block) of B's columns of panel `panel` copied
  /// into a block x tileN buffer (64 KiB at most for f32: on the stack, in
  /// L2 while the row tiles read it). Taken where each block is read by
  /// one pass of the row tiles: B streams once from memory into cache,
  /// instead of being written whole into panels and read back (a 49-row
  /// product by an 8 MiB B: 1.1 of its 4.1 ms on one Zen 3 core went to
  /// that copy). A transposed B is transposed in the same copy.
  Value copyBlock(PackedMatmulBuilder &p, Value panel, Value kStart,
                  int64_t block, int64_t tileN, SmallVectorImpl<Value> &owned) {
    auto type = cast<MemRefType>(unpacked.getType());
    Value buffer = memref::AllocOp::create(
        p.b, p.loc, MemRefType::get({block, tileN}, type.getElementType()),
        ValueRange{}, p.b.getI64IntegerAttr(64));
    owned.push_back(buffer);
    Value column = arith::MulIOp::create(p.b, p.loc, panel, p.index(tileN));
    if (transposed)
      linalg::TransposeOp::create(
          p.b, p.loc, p.view(unpacked, {column, kStart}, {tileN, block}, 2),
          buffer, ArrayRef<int64_t>{1, 0});
    else
      linalg::CopyOp::create(
          p.b, p.loc, p.view(unpacked, {kStart, column}, {block, tileN}, 2),
          buffer);
    return buffer;
  }

  static void release(PackedMatmulBuilder &p, ArrayRef<Value> owned) {
    for (Value buffer : owned)
      memref::DeallocOp::create(p.b, p.loc, buffer);
  }

  /// The decoding's ops that read the scale alone (and constants), and the
  /// one value of theirs the rest reads: the scale decoded. Empty when the
  /// rest reads several or none. Decoded once per chunk row of scales, not
  /// per element (the elementwise body would decode a column's scale again
  /// for every row: 7 of its 17 instructions for MXFP8).
  static std::pair<SmallVector<Operation *>, Value>
  splitScaleDecoding(ArrayRef<Operation *> decoding, Value scale,
                     Value weight) {
    llvm::SmallPtrSet<Operation *, 16> scaleOnly;
    SmallVector<Operation *> ops;
    for (Operation *op : decoding) {
      if (op->getNumOperands() == 0)
        continue; // constants are cloned where they are read
      if (llvm::all_of(op->getOperands(), [&](Value v) {
            Operation *def = v.getDefiningOp();
            return v == scale || (def && (scaleOnly.contains(def) ||
                                          def->getNumOperands() == 0));
          })) {
        scaleOnly.insert(op);
        ops.push_back(op);
      }
    }
    SetVector<Value> frontier;
    for (Operation *op : decoding)
      if (!scaleOnly.contains(op))
        for (Value v : op->getOperands())
          if (v.getDefiningOp() && scaleOnly.contains(v.getDefiningOp()))
            frontier.insert(v);
    if (weight.getDefiningOp() && scaleOnly.contains(weight.getDefiningOp()))
      frontier.insert(weight);
    if (frontier.size() != 1 || ops.empty())
      return {};
    // Constants the scale's ops read come first.
    SmallVector<Operation *> withConstants;
    for (Operation *op : decoding)
      if (scaleOnly.contains(op) ||
          (op->getNumOperands() == 0 &&
           llvm::any_of(op->getUsers(), [&](Operation *user) {
             return scaleOnly.contains(user);
           })))
        withConstants.push_back(op);
    return {withConstants, frontier.front()};
  }

  /// The chunk of k for decoding: the largest run dividing both `extent`
  /// (a K block, or K) and the scale block, so that each chunk has one row
  /// of scales and is read as a vector (a `k / block_size` map would be
  /// sliced wrong by tiling, see the rlx.block_dequantize lowering).
  int64_t chunkFor(int64_t extent) const { return std::gcd(extent, blockSize); }

  /// The scale row of panel `panel` for row `k` of B as the decoding's
  /// input (tileN values), and the ops of the body it stands for (`done`):
  /// where the decoding splits, the row decoded once by a generic of its
  /// own into `*scaleBuffer` (allocated by the caller), else the raw row.
  Value scaleRow(PackedMatmulBuilder &p, Value panel, Value k, int64_t tileN,
                 Value scaleBuffer, llvm::SmallPtrSetImpl<Operation *> &done) {
    OpBuilder &b = p.b;
    Value scales = scaled.getDpsInputOperand(2)->get();
    Value row = arith::DivUIOp::create(b, p.loc, k, p.index(blockSize));
    Value raw = p.view(scales, {panel, row, p.attr(0)}, {1, 1, tileN}, 1);
    if (!scaleBuffer)
      return raw;
    Block &body = scaled.getRegion().front();
    AffineMap line = b.getMultiDimIdentityMap(1);
    linalg::GenericOp::create(
        b, p.loc, TypeRange{}, ValueRange{raw}, ValueRange{scaleBuffer},
        ArrayRef<AffineMap>{line, line},
        SmallVector<utils::IteratorType>(1, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          IRMapping map;
          map.map(body.getArgument(2), args[0]);
          for (Operation *op : scaleOps)
            nb.clone(*op, map);
          linalg::YieldOp::create(nb, l, map.lookup(decodedScale));
        });
    for (Operation *op : scaleOps)
      if (op->getNumOperands() != 0)
        done.insert(op);
    return scaleBuffer;
  }

  /// A tileN buffer for the decoded scale row, or null when the decoding
  /// does not split.
  Value scaleBufferFor(PackedMatmulBuilder &p, int64_t tileN,
                       SmallVectorImpl<Value> &owned) {
    if (!decodedScale)
      return {};
    Value buffer = memref::AllocOp::create(
        p.b, p.loc, MemRefType::get({tileN}, decodedScale.getType()),
        ValueRange{}, p.b.getI64IntegerAttr(64));
    owned.push_back(buffer);
    return buffer;
  }

  /// The product's body cloned into a generic's, its arguments `args` in
  /// the product's order (a, code, scale, c; null where the generic has
  /// none; the scale already decoded when `done` holds its ops), up to
  /// `until` (the weight or the code's value), which it returns.
  Value cloneBody(OpBuilder &nb, ValueRange args, Value until,
                  const llvm::SmallPtrSetImpl<Operation *> &done) {
    Block &body = scaled.getRegion().front();
    IRMapping map;
    for (auto [i, arg] : llvm::enumerate(args))
      if (arg)
        map.map(body.getArgument(i), arg);
    if (!done.empty() && args.size() > 2)
      map.map(decodedScale, args[2]);
    for (Operation &op : body.without_terminator()) {
      if (done.contains(&op))
        continue;
      nb.clone(op, map);
      if (llvm::is_contained(op.getResults(), until))
        break;
    }
    return map.lookupOrDefault(until);
  }

  /// The block decoded chunk by chunk (chunkFor), each chunk by an
  /// elementwise generic whose body is the product's decoding.
  Value decode(PackedMatmulBuilder &p, Value panel, Value kStart, int64_t block,
               int64_t tileN, SmallVectorImpl<Value> &owned) {
    OpBuilder &b = p.b;
    Value codes = scaled.getDpsInputOperand(1)->get();
    Value buffer = memref::AllocOp::create(
        b, p.loc, MemRefType::get({block, tileN}, weight.getType()),
        ValueRange{}, b.getI64IntegerAttr(64));
    owned.push_back(buffer);
    Value scaleBuffer = scaleBufferFor(p, tileN, owned);
    int64_t chunk = chunkFor(block);
    OpBuilder::InsertionGuard guard(b);
    Value at =
        arith::MulIOp::create(b, p.loc, p.loop(block / chunk), p.index(chunk));
    Value k = arith::AddIOp::create(b, p.loc, kStart, at);
    Value codeChunk =
        p.view(codes, {panel, k, p.attr(0)}, {1, chunk, tileN}, 2);
    llvm::SmallPtrSet<Operation *, 16> done;
    Value scaleInput = scaleRow(p, panel, k, tileN, scaleBuffer, done);
    Value out = p.view(buffer, {at, p.attr(0)}, {chunk, tileN}, 2);
    MLIRContext *ctx = b.getContext();
    AffineMap identity = b.getMultiDimIdentityMap(2);
    AffineMap columns = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
    linalg::GenericOp::create(
        b, p.loc, TypeRange{}, ValueRange{codeChunk, scaleInput},
        ValueRange{out}, ArrayRef<AffineMap>{identity, columns, identity},
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value w = cloneBody(nb, {Value(), args[0], args[1]}, weight, done);
          linalg::YieldOp::create(nb, l, w);
        });
    return buffer;
  }

  /// The weight as (the code's value [times a constant]) times the scale
  /// (decoded by ops of its own, splitScaleDecoding, or as it is): the
  /// code's value and the constant (null without one), or nulls when the
  /// weight is not such a product.
  std::pair<Value, Value> splitCodeValue() {
    Block &body = scaled.getRegion().front();
    Value scale = decodedScale ? decodedScale : body.getArgument(2);
    auto product = weight.getDefiningOp<arith::MulFOp>();
    if (!product || !llvm::is_contained(product->getOperands(), scale))
      return {};
    Value code =
        product.getLhs() == scale ? product.getRhs() : product.getLhs();
    // The code's value must not read the scale.
    SmallVector<Value> work{code};
    llvm::SmallPtrSet<Value, 16> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (v == body.getArgument(2) || v == scale)
        return {};
      if (!seen.insert(v).second)
        continue;
      if (Operation *def = v.getDefiningOp())
        llvm::append_range(work, def->getOperands());
    }
    if (auto timesConstant = code.getDefiningOp<arith::MulFOp>())
      for (unsigned i = 0; i < 2; ++i)
        if (timesConstant->getOperand(1 - i).getDefiningOp<arith::ConstantOp>())
          return {timesConstant->getOperand(i),
                  timesConstant->getOperand(1 - i)};
    return {code, Value()};
  }

  /// `cPanel` (rows x tileN) += `a` (rows x K) times panel `panel`, each
  /// weight decoded in the product's own loop nest and never stored, chunk
  /// by chunk of k and row by row. For a few rows (a GEMV: a decoder's one
  /// token) this reads each code once and writes nothing but sums; the
  /// buffered decode wrote and read back every weight, three quarters of a
  /// row's time. Where the weight is the code's value times its decoded
  /// scale (every format rlx-pack-dot-operands packs), a row's chunk sums
  /// the codes' values alone, one fused multiply-add per weight, and the
  /// scale (and a power of two the code's decoding ends with, see
  /// decodeThroughF16) is applied once per chunk: `c += (sum * factor) *
  /// scale`, in that order so that neither product over- or underflows
  /// where the weights do not. Otherwise the sum is of whole weights.
  /// The sums are a buffer of their own (not a view, which the hoisting
  /// refuses): the vectorizer keeps them in registers across the chunk.
  void decodeInProduct(PackedMatmulBuilder &p, Value a, Value panel,
                       Value cPanel, int64_t k, int64_t tileN) {
    OpBuilder &b = p.b;
    Location loc = p.loc;
    MLIRContext *ctx = b.getContext();
    Value codes = scaled.getDpsInputOperand(1)->get();
    bool wholeWeight = !codeValue;
    Value summed = wholeWeight ? weight : codeValue;
    SmallVector<Value> owned;
    Value scaleBuffer = scaleBufferFor(p, tileN, owned);
    Value sums = memref::AllocOp::create(
        b, loc, MemRefType::get({tileN}, b.getF32Type()), ValueRange{},
        b.getI64IntegerAttr(64));
    owned.push_back(sums);
    int64_t chunk = chunkFor(k);
    {
      OpBuilder::InsertionGuard guard(b);
      Value kStart =
          arith::MulIOp::create(b, loc, p.loop(k / chunk), p.index(chunk));
      Value codeChunk =
          p.view(codes, {panel, kStart, p.attr(0)}, {1, chunk, tileN}, 2);
      llvm::SmallPtrSet<Operation *, 16> done;
      Value scaleInput = scaleRow(p, panel, kStart, tileN, scaleBuffer, done);
      Value rows = memref::DimOp::create(b, loc, a, 0);
      Value row = scf::ForOp::create(b, loc, p.index(0), rows, p.index(1))
                      .getInductionVar();
      b.setInsertionPointToStart(row.getParentBlock());
      Value aRow = p.view(a, {row, kStart}, {1, chunk}, 1);
      Value cRow = p.view(cPanel, {row, p.attr(0)}, {1, tileN}, 1);
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
      linalg::FillOp::create(b, loc, zero, sums);
      auto dims = [&](unsigned count, std::initializer_list<unsigned> ds) {
        SmallVector<AffineExpr> exprs;
        for (unsigned d : ds)
          exprs.push_back(getAffineDimExpr(d, ctx));
        return AffineMap::get(count, 0, exprs, ctx);
      };
      using utils::IteratorType;
      // Loops (k, column): the column innermost, vectorized whole.
      SmallVector<Value> inputs{aRow, codeChunk};
      SmallVector<AffineMap> maps{dims(2, {0}), dims(2, {0, 1})};
      if (wholeWeight) {
        inputs.push_back(scaleInput);
        maps.push_back(dims(2, {1}));
      }
      maps.push_back(dims(2, {1}));
      linalg::GenericOp::create(
          b, loc, TypeRange{}, inputs, ValueRange{sums}, maps,
          {IteratorType::reduction, IteratorType::parallel},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            SmallVector<Value> bodyArgs{Value(), args[1]};
            if (wholeWeight)
              bodyArgs.push_back(args[2]);
            Value v = cloneBody(nb, bodyArgs, summed, done);
            linalg::YieldOp::create(
                nb, l, multiplyAdd(nb, l, args[0], v, args.back()));
          });
      Operation *factorOp = factor ? factor.getDefiningOp() : nullptr;
      AffineMap line = b.getMultiDimIdentityMap(1);
      linalg::GenericOp::create(
          b, loc, TypeRange{}, ValueRange{sums, scaleInput}, ValueRange{cRow},
          ArrayRef<AffineMap>{line, line, line},
          SmallVector<IteratorType>(1, IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value sum = args[0];
            if (factorOp)
              sum = arith::MulFOp::create(nb, l, sum,
                                          nb.clone(*factorOp)->getResult(0));
            if (!wholeWeight)
              sum = arith::MulFOp::create(nb, l, sum, args[1]);
            Value total = arith::AddFOp::create(nb, l, args[2], sum);
            linalg::YieldOp::create(nb, l, total);
          });
    }
    release(p, owned);
  }
};

/// Replaces `matmul` (C += A x B, B [k, n]) by the packed loops. B is
/// `bOperand` (its transpose when `bTransposed`), copied into panels here,
/// or `prepacked` already (panels x k x panelColumns, rlx-pack-dot-operands'
/// layout for f32, or a block-scaled weight's codes and scales). A register
/// tile narrower than a panel (AVX2's 16 columns in a prepacked weight's
/// 32) reads it as products of the tile's width (panelMatmul). A static A's
/// whole row tiles are packed too, unless they are few
/// (kMaxRowsReadInPlace); the rows after them (a 6-row tile's 2048 % 6)
/// are read in place, from the B block the row tiles read. With
/// `aTransposed`, `a` holds A's transpose (K x M): its K blocks are then
/// already K-major, packed by a plain copy of row-tile-wide runs, and the
/// rows read in place are read transposed.
void packOne(Operation *matmul, Value a, bool aTransposed, Value bOperand,
             bool bTransposed, PanelSource prepacked, Value c, int64_t k,
             int64_t n, const RegisterTile &tile, int64_t panelColumns) {
  int64_t tileM = tile.rows, tileN = tile.columns;
  auto aType = cast<MemRefType>(a.getType());
  unsigned rowDim = aTransposed ? 1 : 0;
  int64_t panels = n / panelColumns, block = kBlockFor(k);
  OpBuilder builder(matmul);
  PackedMatmulBuilder p{builder, matmul->getLoc()};
  p.zeroInit = matmul->hasAttr(kZeroInitAttrName);
  if (p.zeroInit && prepacked.scaled) {
    // Never marked (markZeroInitMatmuls): a few rows' products decode in
    // place, outside the tile matmuls, so the fill would have to come back.
    fillWithZeros(builder, p.loc, c);
    p.zeroInit = false;
  }
  // A's rows [row, row + rows) of K block [kStart, kStart + extent), as
  // stored (transposed when aTransposed).
  auto aView = [&](OpFoldResult row, OpFoldResult kStart, OpFoldResult rows,
                   OpFoldResult extent) -> Value {
    SmallVector<OpFoldResult> offsets = {row, kStart}, sizes = {rows, extent};
    if (aTransposed) {
      std::swap(offsets[0], offsets[1]);
      std::swap(sizes[0], sizes[1]);
    }
    return memref::SubViewOp::create(
        p.b, p.loc, a, offsets, sizes,
        ArrayRef<OpFoldResult>{p.attr(1), p.attr(1)});
  };
  // Whole row tiles of a static A run K block by K block (below), packed
  // unless there are few of them or one M block (aInPlace); the rows after
  // the last whole tile, if any, are read in place in the same loops. A
  // dynamic A's rows are all read in place (rowsInPlace).
  bool aInPlace = aType.hasStaticShape() &&
                  aType.getDimSize(rowDim) <= kMaxRowsReadInPlace * tileM;
  int64_t wholeRows =
      aType.hasStaticShape() && (aType.getLayout().isIdentity() || aInPlace)
          ? aType.getDimSize(rowDim) - aType.getDimSize(rowDim) % tileM
          : 0;
  int64_t mc = wholeRows ? mBlockFor(wholeRows, block,
                                     aType.getElementTypeBitWidth() / 8, tileM)
                         : 0;
  // One M block (every whole row tile in one A block of at most
  // kABlockBytes: BERT's 128 rows, a 3x3 conv's 196 at 14x14) is read in
  // place too: each K block of it stays in L2 across all the panels either
  // way, and its packing was a scalar transpose and a parallel region of
  // its own per K block, whose barrier the other core waited at (ResNet-50
  // 3x3_256-256@14, two Zen 3 cores: 1.47-2.06 ms packed, 1.39-1.45 in
  // place; one core 2.59-2.75 against 2.56-2.59).
  // Such a block's row tiles each stream B's K block from L2 (too large
  // for L1 beside A's rows): taller tiles pass over it fewer times, which
  // pays where the tiles are few (kMaxRowsInTallTiles). Not for rows read
  // in place as few, where one pass is all there is.
  int64_t rowTile = tileM;
  if (wholeRows && mc == wholeRows && !aTransposed) {
    int64_t rows = aType.getDimSize(rowDim);
    if (!aInPlace && tile.tallRows > tileM && rows >= 2 * tile.tallRows &&
        rows <= kMaxRowsInTallTiles) {
      rowTile = tile.tallRows;
      wholeRows = mc = rows - rows % rowTile;
    }
    aInPlace = true;
  }
  // Several M blocks read A in place too where a register tile's rows
  // spread over L1 sets (at most half a set's ways in one): each M block's
  // K block stays in L2 across its panels all the same, and the K-major
  // copy is a scalar transpose (ResNet-50's 1x1_512-128@28 by a prepacked
  // filter, 784 rows in two blocks 2 KiB apart, on one Emerald Rapids
  // core: 0.53 ms packed, 0.45 in place). Rows a multiple of 4 KiB apart
  // (a K of 1024 or 2048) all fall in one set and are packed.
  if (wholeRows && mc != wholeRows && !aTransposed &&
      !dot_layout::rowsCrowdL1Sets(
          tileM, aType.getDimSize(1) * (aType.getElementTypeBitWidth() / 8),
          dot_layout::kL1Ways / 2 + 1))
    aInPlace = true;
  // B copied block by block where each block is read by one pass of the
  // row tiles (one M block, or rows all read in place), else into panels
  // once before the loops (every M block reads each panel).
  PanelSource source = prepacked;
  if (!prepacked.panels && (wholeRows == 0 || mc == wholeRows)) {
    source.unpacked = bOperand;
    source.transposed = bTransposed;
  } else if (!prepacked.panels) {
    source.panels =
        p.pack(bOperand, /*split=*/bTransposed ? 0 : 1, panelColumns);
  }
  OpBuilder::InsertionGuard guard(builder);
  auto rowsInPlace = [&] {
    // B panel, then K block, so that the rows of A a register tile walks
    // stay in cache while every row tile of the panel passes over them.
    // The panels run in parallel: one region per matmul (the row tiles,
    // forked per panel and K block, made ResNet-50's 7x7 convs hundreds of
    // regions of three tiles per core).
    scf::ForOp panelLoop;
    Value panel = p.loop(panels, &panelLoop);
    panelLoop->setAttr("rlx.parallel", builder.getUnitAttr());
    Value column =
        arith::MulIOp::create(builder, p.loc, panel, p.index(panelColumns));
    OpFoldResult rows = memref::getMixedSize(builder, p.loc, c, 0);
    Value cPanel = memref::SubViewOp::create(
        builder, p.loc, c, ArrayRef<OpFoldResult>{p.attr(0), column},
        ArrayRef<OpFoldResult>{rows, p.attr(panelColumns)},
        ArrayRef<OpFoldResult>{p.attr(1), p.attr(1)});
    auto blocks = [&] {
      OpBuilder::InsertionGuard blockGuard(builder);
      scf::ForOp blockLoop;
      Value kStart = arith::MulIOp::create(
          builder, p.loc, p.loop(k / block, &blockLoop), p.index(block));
      p.mark(blockLoop);
      Value aBlock = aView(p.attr(0), kStart, rows, p.attr(block));
      SmallVector<Value> owned;
      Value bBlock = source.block(p, panel, kStart, block, panelColumns, owned);
      p.panelMatmul(aBlock, bBlock, cPanel, aTransposed, panelColumns, tileN);
      PanelSource::release(p, owned);
    };
    auto inProduct = [&] {
      source.decodeInProduct(p, a, panel, cPanel, k, panelColumns);
    };
    // A block-scaled panel: a few rows decode each weight in the product
    // (decodeInProduct), more share a decoded block; a dynamic row count
    // chooses at run time.
    if (!source.scaled) {
      blocks();
    } else if (!aType.isDynamicDim(0)) {
      if (aType.getDimSize(0) <= kMaxRowsDecodedInProduct)
        inProduct();
      else
        blocks();
    } else {
      Value rows = memref::DimOp::create(builder, p.loc, a, 0);
      Value few =
          arith::CmpIOp::create(builder, p.loc, arith::CmpIPredicate::ule, rows,
                                p.index(kMaxRowsDecodedInProduct));
      auto choice = scf::IfOp::create(builder, p.loc, few, /*withElse=*/true);
      OpBuilder::InsertionGuard ifGuard(builder);
      builder.setInsertionPoint(choice.thenBlock()->getTerminator());
      inProduct();
      builder.setInsertionPoint(choice.elseBlock()->getTerminator());
      blocks();
    }
    builder.setInsertionPointAfter(panelLoop);
  };
  if (wholeRows > 0) {
    // K block; (M block, B panel) pairs, panels inner, so that an M block
    // (its packed A, at most kABlockBytes) stays in L2 while every B panel
    // passes over it (GotoBLAS's mc blocking); row tile, each a tileM x
    // panelColumns product with A transposed. The pairs are one parallel
    // loop: a core takes a contiguous run of them, keeping its own A block, and
    // a single M block (BERT's 128 rows) still splits its panels over the cores
    // in one region per K block (parallel row tiles forked once per panel:
    // hundreds of regions of a few tiles each). Few rows, or one M block:
    // the same loops over A's own K block, in L1 (an epilogue's row tile)
    // or L2 after the first panel, instead of a copy.
    int64_t m = wholeRows;
    Value packedA;
    if (!aInPlace)
      packedA =
          memref::AllocOp::create(builder, p.loc,
                                  MemRefType::get({m / rowTile, block, rowTile},
                                                  aType.getElementType()),
                                  ValueRange{}, builder.getI64IntegerAttr(64));
    scf::ForOp kLoop;
    Value kStart = arith::MulIOp::create(
        builder, p.loc, p.loop(k / block, &kLoop), p.index(block));
    p.mark(kLoop);
    if (!aInPlace)
      p.pack(aView(p.attr(0), kStart, p.attr(m), p.attr(block)),
             /*split=*/aTransposed ? 1 : 0, rowTile, packedA);
    scf::ForOp pairLoop;
    Value pair = p.loop(m / mc * panels, &pairLoop);
    pairLoop->setAttr("rlx.parallel", builder.getUnitAttr());
    Value mBlock =
        arith::DivUIOp::create(builder, p.loc, pair, p.index(panels));
    Value panel = arith::RemUIOp::create(builder, p.loc, pair, p.index(panels));
    Value firstRowTile =
        arith::MulIOp::create(builder, p.loc, mBlock, p.index(mc / rowTile));
    SmallVector<Value> owned;
    Value bTile = source.block(p, panel, kStart, block, panelColumns, owned);
    Value column =
        arith::MulIOp::create(builder, p.loc, panel, p.index(panelColumns));
    scf::ForOp rowTileLoop;
    Value tileIndex = arith::AddIOp::create(builder, p.loc, firstRowTile,
                                            p.loop(mc / rowTile, &rowTileLoop));
    Value row =
        arith::MulIOp::create(builder, p.loc, tileIndex, p.index(rowTile));
    Value aTile = aInPlace ? aView(row, kStart, p.attr(rowTile), p.attr(block))
                           : p.view(packedA, {tileIndex, p.attr(0), p.attr(0)},
                                    {1, block, rowTile}, 2);
    Value cTile = p.view(c, {row, column}, {rowTile, panelColumns}, 2);
    p.tallTiles = rowTile != tileM;
    p.panelMatmul(aTile, bTile, cTile, /*transposedA=*/!aInPlace || aTransposed,
                  panelColumns, tileN);
    p.tallTiles = false;
    builder.setInsertionPointAfter(rowTileLoop);
    // The rows after the last whole tile, with the last M block, while its
    // B block is in cache (read in place after these loops, a 49-row
    // product's last row streamed all of an 8 MiB B again).
    if (int64_t restRows = aType.getDimSize(rowDim) - wholeRows) {
      OpBuilder::InsertionGuard restGuard(builder);
      if (m / mc > 1) {
        Value last =
            arith::CmpIOp::create(builder, p.loc, arith::CmpIPredicate::eq,
                                  mBlock, p.index(m / mc - 1));
        auto ifLast = scf::IfOp::create(builder, p.loc, last);
        builder.setInsertionPoint(ifLast.thenBlock()->getTerminator());
      }
      Value aRest =
          aView(p.attr(wholeRows), kStart, p.attr(restRows), p.attr(block));
      Value cRest =
          p.view(c, {p.attr(wholeRows), column}, {restRows, panelColumns}, 2);
      // One or two rows: interleaved partial sums, not a register tile's
      // one latency-bound chain per vector (InterleavedRowProduct.h).
      Value fromZero;
      if (p.zeroInit)
        fromZero = arith::CmpIOp::create(
            builder, p.loc, arith::CmpIPredicate::eq, kStart, p.index(0));
      if (!buildInterleavedRowProduct(builder, p.loc, aRest, aTransposed, bTile,
                                      cRest, fromZero))
        p.panelMatmul(aRest, bTile, cRest, aTransposed, panelColumns, tileN);
    }
    PanelSource::release(p, owned);
    builder.setInsertionPointAfter(kLoop);
    if (!aInPlace)
      memref::DeallocOp::create(builder, p.loc, packedA);
  }
  if (wholeRows == 0)
    rowsInPlace();
  if (source.panels && !prepacked.panels)
    memref::DeallocOp::create(builder, p.loc, source.panels);
  matmul->erase();
}

} // namespace

/// `op` as a product by a prepacked B on buffers, with `inputs` inputs (A,
/// then B's packed operands) and one output; null otherwise.
static linalg::GenericOp packedRhsGeneric(Operation *op, unsigned inputs) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic->hasAttr(dot_layout::kPackedRhsAttrName) ||
      !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != inputs || generic.getNumDpsInits() != 1)
    return {};
  return generic;
}

/// Whether each panel of `type` ([panels, K, width]) is K x width
/// consecutive floats: the whole packed weight, or a view of some of its
/// panels and K rows (a conv tap's, ConvTapProducts.cpp).
static bool hasContiguousPanels(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.getRank() == 3 &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides[2] == 1 && strides[1] == type.getDimSize(2);
}

bool mlir::rlx::isPrepackedF32Matmul(Operation *op) {
  linalg::GenericOp generic = packedRhsGeneric(op, 2);
  if (!generic)
    return false;
  auto aType = cast<MemRefType>(generic.getDpsInputOperand(0)->get().getType());
  auto packedType =
      cast<MemRefType>(generic.getDpsInputOperand(1)->get().getType());
  auto cType = cast<MemRefType>(generic.getDpsInitOperand(0)->get().getType());
  return aType.getElementType().isF32() &&
         packedType.getElementType().isF32() && packedType.hasStaticShape() &&
         hasContiguousPanels(packedType) &&
         dot_layout::isF32PanelWidth(packedType.getDimSize(2)) &&
         !cType.isDynamicDim(1) &&
         cType.getDimSize(1) ==
             packedType.getDimSize(0) * packedType.getDimSize(2);
}

bool mlir::rlx::isPrepackedBlockScaledMatmul(Operation *op) {
  linalg::GenericOp generic = packedRhsGeneric(op, 3);
  if (!generic)
    return false;
  auto blockSize =
      generic->getAttrOfType<IntegerAttr>(dot_layout::kScaleBlockAttrName);
  if (!blockSize || blockSize.getInt() < 1)
    return false;
  auto aType = cast<MemRefType>(generic.getDpsInputOperand(0)->get().getType());
  auto cType = cast<MemRefType>(generic.getDpsInitOperand(0)->get().getType());
  auto isPanels = [](Value v) {
    auto type = cast<MemRefType>(v.getType());
    return type.getRank() == 3 && type.hasStaticShape() &&
           type.getLayout().isIdentity() &&
           dot_layout::isF32PanelWidth(type.getDimSize(2));
  };
  Value codes = generic.getDpsInputOperand(1)->get();
  Value scales = generic.getDpsInputOperand(2)->get();
  auto codesType = cast<MemRefType>(codes.getType());
  return aType.getElementType().isF32() && cType.getElementType().isF32() &&
         isPanels(codes) && isPanels(scales) &&
         cast<MemRefType>(scales.getType()).getDimSize(2) ==
             codesType.getDimSize(2) &&
         !cType.isDynamicDim(1) &&
         cType.getDimSize(1) ==
             codesType.getDimSize(0) * codesType.getDimSize(2);
}

LogicalResult mlir::rlx::expandPrepackedMatmuls(ModuleOp module,
                                                const RegisterTile &tile) {
  SmallVector<linalg::GenericOp> generics;
  module.walk([&](linalg::GenericOp op) {
    if (isPrepackedF32Matmul(op) || isPrepackedBlockScaledMatmul(op))
      generics.push_back(op);
  });
  for (linalg::GenericOp op : generics) {
    PanelSource source;
    source.panels = op.getDpsInputOperand(1)->get();
    if (isPrepackedBlockScaledMatmul(op)) {
      FailureOr<PanelSource> blockScaled = PanelSource::blockScaled(op);
      if (failed(blockScaled))
        return op.emitError("a block-scaled prepacked matmul whose body is "
                            "not `c + a * decode(code, scale)`");
      source = *blockScaled;
    }
    Value c = op.getDpsInitOperand(0)->get();
    auto packedType = cast<MemRefType>(source.panels.getType());
    // A register tile reads whole panels or an even part of one.
    int64_t panelColumns = packedType.getDimSize(2);
    if (panelColumns % tile.columns != 0)
      continue;
    packOne(op, op.getDpsInputOperand(0)->get(), /*aTransposed=*/false, Value(),
            /*bTransposed=*/false, source, c, packedType.getDimSize(1),
            cast<MemRefType>(c.getType()).getDimSize(1), tile, panelColumns);
  }
  return success();
}

/// A 2-D transpose that fills a buffer made for one matmul alone (its users
/// the transpose, the matmul and its free), and the frees of the
/// transpose's input between the two (moved after the matmul, which then
/// reads that input).
struct FoldedTranspose {
  linalg::TransposeOp transpose;
  SmallVector<Operation *> inputFrees;
};

/// The bytes of the workspace arena that `alloc` was given, if any.
static std::optional<std::pair<int64_t, int64_t>>
arenaBytes(memref::AllocOp alloc) {
  auto offset = alloc->getAttrOfType<IntegerAttr>("rlx.arena_offset");
  MemRefType type = alloc.getType();
  if (!offset || !type.hasStaticShape())
    return std::nullopt;
  int64_t begin = offset.getInt();
  return std::make_pair(begin, begin + type.getNumElements() *
                                           type.getElementTypeBitWidth() / 8);
}

/// The transpose that fills `operand` of `matmul`, when the matmul can read
/// the transpose's input instead: a strided buffer (of static shape where
/// `needStaticShape`: A's row tiles), nothing between the two writes it
/// or memory other than buffers allocated here, and where it is freed
/// between them (its last reader was the transpose), no arena buffer made
/// in between shares its bytes, so that its free can move past the matmul.
/// The transposed buffer (a conv's filter transposed for its input
/// gradient, 8 MiB written and read back per call; its input's windows
/// transposed for the filter gradient) is then not made at all.
static FoldedTranspose transposeMadeOnlyFor(Value operand,
                                            linalg::MatmulOp matmul,
                                            bool needStaticShape) {
  auto alloc = operand.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return {};
  linalg::TransposeOp transpose;
  for (Operation *user : alloc->getUsers()) {
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (t && t.getInit() == operand && !transpose)
      transpose = t;
    else if (user != matmul.getOperation() && !isa<memref::DeallocOp>(user))
      return {};
  }
  if (!transpose || transpose->getBlock() != matmul->getBlock() ||
      !transpose->isBeforeInBlock(matmul) ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0} ||
      !transpose.hasPureBufferSemantics())
    return {};
  auto inputType = cast<MemRefType>(transpose.getInput().getType());
  if (!inputType.isStrided() ||
      (needStaticShape && !inputType.hasStaticShape()))
    return {};
  auto root = [](Value v) {
    while (v && v.getDefiningOp<ViewLikeOpInterface>())
      v = v.getDefiningOp<ViewLikeOpInterface>().getViewSource();
    return v;
  };
  Value input = root(transpose.getInput());
  auto inputAlloc = input.getDefiningOp<memref::AllocOp>();
  FoldedTranspose folded{transpose, {}};
  SmallVector<memref::AllocOp> madeBetween;
  for (Operation *op = transpose->getNextNode(); op != matmul.getOperation();
       op = op->getNextNode()) {
    if (auto made = dyn_cast<memref::AllocOp>(op))
      madeBetween.push_back(made);
    auto free = dyn_cast<memref::DeallocOp>(op);
    if (free && root(free.getMemref()) == input) {
      folded.inputFrees.push_back(op);
      continue;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (!isMemoryEffectFree(op))
        return {};
      continue;
    }
    SmallVector<MemoryEffects::EffectInstance> writes;
    effects.getEffectsOnResource(SideEffects::DefaultResource::get(), writes);
    for (const MemoryEffects::EffectInstance &effect : writes) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value written = root(effect.getValue());
      if (!written || written == input ||
          !written.getDefiningOp<memref::AllocOp>())
        return {};
    }
  }
  if (!folded.inputFrees.empty()) {
    std::optional<std::pair<int64_t, int64_t>> inputBytes =
        inputAlloc ? arenaBytes(inputAlloc) : std::nullopt;
    for (memref::AllocOp made : madeBetween) {
      std::optional<std::pair<int64_t, int64_t>> bytes = arenaBytes(made);
      if (inputBytes && bytes && bytes->first < inputBytes->second &&
          inputBytes->first < bytes->second)
        return {};
    }
  }
  return folded;
}

void mlir::rlx::packLargeMatmuls(ModuleOp module, const RegisterTile &tile) {
  int64_t tileM = tile.rows, tileN = tile.columns;
  SmallVector<linalg::MatmulOp> matmuls;
  module.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
  for (linalg::MatmulOp matmul : matmuls) {
    auto bType = dyn_cast<MemRefType>(matmul.getDpsInputOperand(1)->get().getType());
    if (!bType || !bType.hasStaticShape() || !bType.getLayout().isIdentity() ||
        matmul.hasUserDefinedMaps())
      continue;
    // Panels as wide as the register tile: a tile that reads half of each
    // row of a wider panel streams B at half the speed (AVX2's 16-column
    // tiles at 1024^3 on one Zen 3 core: 35 GFLOP/s in 32-column panels,
    // 72 in 16-column ones).
    int64_t panelColumns = tileN;
    int64_t k = bType.getDimSize(0), n = bType.getDimSize(1);
    auto aType =
        cast<MemRefType>(matmul.getDpsInputOperand(0)->get().getType());
    int64_t rowsOfA = aType.isDynamicDim(0) ? -1 : aType.getDimSize(0);
    if (n % panelColumns != 0 || n == panelColumns ||
        !dot_layout::packedAtEachCall(k, n, bType.getElementTypeBitWidth() / 8,
                                      rowsOfA, 2 * tileM))
      continue;
    // A transposed operand made for this matmul alone is read from its
    // source (a static A's, for the packing's row tiles).
    Value a = matmul.getDpsInputOperand(0)->get(),
          b = matmul.getDpsInputOperand(1)->get();
    FoldedTranspose foldedA = transposeMadeOnlyFor(a, matmul, true),
                    foldedB = transposeMadeOnlyFor(b, matmul, false);
    // One transposed buffer read as both operands stays.
    if (foldedA.transpose && foldedA.transpose == foldedB.transpose)
      foldedA = foldedB = {};
    Operation *after = matmul->getNextNode();
    packOne(matmul, foldedA.transpose ? foldedA.transpose.getInput() : a,
            !!foldedA.transpose,
            foldedB.transpose ? foldedB.transpose.getInput() : b,
            !!foldedB.transpose, PanelSource{},
            matmul.getDpsInitOperand(0)->get(), k, n, tile, panelColumns);
    // The sources' frees move first: `after` may be a transposed buffer's
    // own free, which goes with it.
    for (FoldedTranspose *folded : {&foldedA, &foldedB})
      for (Operation *free : folded->inputFrees)
        free->moveBefore(after);
    for (FoldedTranspose *folded : {&foldedA, &foldedB}) {
      if (!folded->transpose)
        continue;
      Operation *alloc = folded->transpose.getInit().getDefiningOp();
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        user->erase();
      alloc->erase();
    }
  }
}
