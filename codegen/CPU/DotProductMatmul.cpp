//===- DotProductMatmul.cpp - bf16 and int8 matmuls on dot products -------===//
///
/// \file
/// rlx-cpu-dot-product-matmul: a `linalg.matmul` of bf16 operands into f32,
/// or of i8 operands into i32 (what bf16 and int8 rlx.matmuls lower to),
/// becomes a register-tiled loop nest around the CPU's dot-product
/// instructions: vdpbf16ps (AVX512-BF16: each of 16 f32 lanes adds the
/// products of a pair of bf16 values) or vpdpbusd (AVX512-VNNI: each of 16
/// i32 lanes adds the products of four u8 x s8 values).
///
/// Both multiply groups of consecutive k (2 for bf16, 4 for int8), so B is
/// read in groups (DotOperandLayout.h: `packed[panel][g][G*c + t]` holds
/// B[G*g + t][32 * panel + c], one 32-column panel after the other, k and n
/// padded with zeros): one load then holds 16 columns' groups. A's group is
/// one 32-bit word broadcast to all lanes. A tile is 8 rows x 32 columns:
/// 16 accumulators of 16 lanes, the k loop over groups; rows beyond the
/// last full tile run the same loop one row at a time, and k not a multiple
/// of G ends with a group whose missing values are zero. Rows are processed
/// in blocks of 64, each block passing over every panel while its rows of A
/// stay in cache; the (block, panel) pairs are one scf.parallel, spread over
/// the threads by the OpenMP lowering.
///
/// A weight B arrives packed (a linalg.generic marked `rlx.packed_rhs`
/// reading the param rlx-pack-dot-operands and rlx-prepare-params made);
/// any other B is packed here at every call, panel by panel.
///
/// vpdpbusd multiplies unsigned by signed bytes: B is packed with 128 added
/// (its sign bit flipped), A stays signed, and the extra 128 * sum_k
/// A[m][k] is subtracted from each row at the end, summed once per row
/// before the tiles (vpdpbusd of 64 bytes of A by ones: 1/N of the
/// products). Adding to B rather than to A keeps a prepacked B free of
/// anything A determines, and the k loop free of A's conversion.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/AmxTiles.h"
#include "codegen/CPU/LinearizeCollapses.h"
#include "codegen/CPU/Passes.h"
#include "codegen/Common/BufferAliases.h"
#include "dialects/RLX/IR/DotOperandLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUDOTPRODUCTMATMUL
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr int64_t kRows = 8;    // rows of a register tile
constexpr int64_t kLanes = 16;  // 32-bit lanes of a zmm register
constexpr int64_t kColumns = rlx::dot_layout::kPanelColumns;
static_assert(kColumns == 2 * kLanes, "a panel is two zmm registers wide");
/// Rows of A a thread works through per pass over B: 64 x K bf16 (256 KB
/// at K = 2048) stays in L2 while every panel passes.
constexpr int64_t kBlockRows = 64;
/// Groups (of the packed copy, 128 bytes each) from which B is packed
/// on every thread: 2048 of them, 256 KB, take tens of microseconds.
constexpr int64_t kMinParallelPackGroups = 2048;
/// Bytes of A from which the rows' offsets (int8) are summed on every
/// thread.
constexpr int64_t kMinParallelOffsetBytes = 256 * 1024;

/// What differs between the bf16 and the int8 kernel.
struct DotKind {
  Type element;    // of A and B
  Type accElement; // of C
  int64_t group;   // consecutive k one lane multiplies: 2 or 4
  bool int8() const { return group == 4; }
  VectorType accType() const { return VectorType::get({kLanes}, accElement); }
  VectorType operandType() const {
    return VectorType::get({kLanes * group}, element);
  }
};

std::optional<DotKind> dotKind(Type a, Type b, Type c, bool bf16,
                               bool int8) {
  if (a != b)
    return std::nullopt;
  if (bf16 && a.isBF16() && c.isF32())
    return DotKind{a, c, 2};
  if (int8 && a.isSignlessInteger(8) && c.isSignlessInteger(32))
    return DotKind{a, c, 4};
  return std::nullopt;
}

Type elementOf(Value memref) {
  return cast<MemRefType>(memref.getType()).getElementType();
}

/// A plain matmul: B packed here.
std::optional<DotKind> dotKind(linalg::MatmulOp op, bool bf16, bool int8) {
  if (!op.hasPureBufferSemantics() ||
      // The default (signed) cast: plain extension of the operands.
      op.getCast() != linalg::TypeFn::cast_signed ||
      // The plain (i, k) x (k, j) maps; a transposed variant stays with
      // the generic path.
      op.getIndexingMapsArray() !=
          linalg::MatmulOp::getDefaultIndexingMaps(op.getContext()))
    return std::nullopt;
  return dotKind(elementOf(op.getDpsInputOperand(0)->get()),
                 elementOf(op.getDpsInputOperand(1)->get()),
                 elementOf(op.getDpsInitOperand(0)->get()), bf16, int8);
}

/// A matmul by a prepacked B (the generic the rlx-to-linalg lowering marks;
/// its maps and body are that lowering's).
std::optional<DotKind> dotKind(linalg::GenericOp op, bool bf16, bool int8) {
  if (!op->hasAttr(rlx::dot_layout::kPackedRhsAttrName) ||
      !op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  std::optional<DotKind> kind =
      dotKind(elementOf(op.getDpsInputOperand(0)->get()),
              elementOf(op.getDpsInputOperand(1)->get()),
              elementOf(op.getDpsInitOperand(0)->get()), bf16, int8);
  auto packed = cast<MemRefType>(op.getDpsInputOperand(1)->get().getType());
  if (!kind || packed.getRank() != 3 ||
      packed.getDimSize(2) != kColumns * kind->group ||
      !packed.isLastDimUnitStride())
    return std::nullopt;
  return kind;
}

struct Builder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) {
    return arith::MinSIOp::create(b, loc, x, y);
  }
  Value ceilDiv(Value x, int64_t d) {
    return arith::CeilDivSIOp::create(b, loc, x, index(d));
  }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Value dim(Value memref, int64_t d) {
    return memref::DimOp::create(b, loc, memref, d);
  }
  Value zero(Type t) {
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
  }
};

/// The lanes of `a` and `b` (equal lengths) alternated: a0 b0 a1 b1 ...
Value interleave(OpBuilder &b, Location loc, Value x, Value y) {
  int64_t n = cast<VectorType>(x.getType()).getNumElements();
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < n; ++i) {
    mask.push_back(i);
    mask.push_back(n + i);
  }
  return vector::ShuffleOp::create(b, loc, x, y, mask);
}

/// A splat of the 32-bit word `word` as a vector of `type`.
Value splatWord(OpBuilder &b, Location loc, VectorType type, uint32_t word) {
  auto words = VectorType::get({type.getNumElements() * type.getElementType()
                                    .getIntOrFloatBitWidth() / 32},
                               b.getI32Type());
  Value splat = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(words, b.getI32IntegerAttr(word).getValue()));
  return vector::BitCastOp::create(b, loc, type, splat);
}

/// The G rows `rows` (32 lanes each) of a group as one packed row: lane
/// G*c + t holds rows[t][c] (for int8, pairs of bytes interleave as 16-bit
/// words in a second step, and the sign bits flip: B + 128).
Value packRow(OpBuilder &b, Location loc, const DotKind &kind,
              ArrayRef<Value> rows) {
  if (!kind.int8())
    return interleave(b, loc, rows[0], rows[1]);
  auto words = VectorType::get({kColumns}, b.getI16Type());
  Value low = vector::BitCastOp::create(b, loc, words,
                                        interleave(b, loc, rows[0], rows[1]));
  Value high = vector::BitCastOp::create(
      b, loc, words, interleave(b, loc, rows[2], rows[3]));
  auto rowType = VectorType::get({kColumns * kind.group}, kind.element);
  Value packed =
      vector::BitCastOp::create(b, loc, rowType, interleave(b, loc, low, high));
  return arith::XOrIOp::create(b, loc, packed,
                               splatWord(b, loc, rowType, 0x80808080));
}

/// B in groups of kind.group k, panel after panel (see the file comment),
/// zero outside B: [panels, groups, 32 * group], built with vector loads
/// and shuffles (a scalar copy of every element cost as much as the int8
/// products themselves).
Value packGroups(Builder &k, const DotKind &kind, Value bMatrix, Value kSize,
                 Value groups, Value panels) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto type = MemRefType::get(
      {ShapedType::kDynamic, ShapedType::kDynamic, kind.group * kColumns},
      kind.element);
  Value packed =
      memref::AllocOp::create(b, loc, type, ValueRange{panels, groups});
  auto rowType = VectorType::get({kColumns}, kind.element);
  Value zeroRow = arith::ConstantOp::create(b, loc, b.getZeroAttr(rowType));
  Value lastK = arith::SubIOp::create(b, loc, kSize, k.index(1));
  Value padding = k.zero(kind.element);
  // One panel: its groups of rows.
  auto packPanel = [&](Value panel) {
    Value col0 = k.mul(panel, k.index(kColumns));
    auto groupLoop = scf::ForOp::create(b, loc, k.index(0), groups, k.index(1));
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(groupLoop.getBody());
    Value g = groupLoop.getInductionVar();
    SmallVector<Value> rows;
    for (int64_t t = 0; t < kind.group; ++t) {
      Value row = k.add(k.mul(g, k.index(kind.group)), k.index(t));
      // Columns beyond N read as zero (a masked read); rows beyond K are
      // read clamped, then replaced by zeros.
      Value read = vector::TransferReadOp::create(
          b, loc, rowType, bMatrix, ValueRange{k.min(row, lastK), col0},
          padding, ArrayRef<bool>{false});
      rows.push_back(
          arith::SelectOp::create(b, loc, k.lt(row, kSize), read, zeroRow));
    }
    vector::StoreOp::create(b, loc, packRow(b, loc, kind, rows), packed,
                            ValueRange{panel, g, k.index(0)});
  };
  // Panels are independent (their own part of the copy): a large B is
  // copied on every thread, panel by panel; a small one (a fork costs
  // microseconds) on one.
  Value large = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::sge, k.mul(panels, groups),
      k.index(kMinParallelPackGroups));
  auto branch = scf::IfOp::create(b, loc, large, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    auto parallel = scf::ParallelOp::create(b, loc, ValueRange{k.index(0)},
                                            ValueRange{panels},
                                            ValueRange{k.index(1)});
    b.setInsertionPointToStart(parallel.getBody());
    packPanel(parallel.getInductionVars()[0]);
    b.setInsertionPointToStart(branch.elseBlock());
    auto serial = scf::ForOp::create(b, loc, k.index(0), panels, k.index(1));
    b.setInsertionPointToStart(serial.getBody());
    packPanel(serial.getInductionVar());
  }
  return packed;
}

/// A[row][G*g + t] for t < G (those at or beyond `kSize`, only in the last
/// group, zero), broadcast to every lane as one 32-bit word.
Value broadcastGroup(Builder &k, const DotKind &kind, Value aMatrix,
                     Value row, Value g, Value kSize, bool last) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value first = k.mul(g, k.index(kind.group));
  auto wordsType = VectorType::get({kLanes}, b.getI32Type());
  // A whole group in a row with unit stride: one 32-bit load, broadcast
  // (vpbroadcastd).
  if (!last && cast<MemRefType>(aMatrix.getType()).isLastDimUnitStride()) {
    Value group = vector::LoadOp::create(
        b, loc, VectorType::get({kind.group}, kind.element), aMatrix,
        ValueRange{row, first});
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), group);
    Value words = vector::BroadcastOp::create(
        b, loc, wordsType,
        vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    return vector::BitCastOp::create(b, loc, kind.operandType(), words);
  }
  SmallVector<Value> values;
  for (int64_t t = 0; t < kind.group; ++t) {
    Value column = k.add(first, k.index(t));
    Value inside;
    if (last) {
      inside = k.lt(column, kSize);
      column = k.min(column,
                     arith::SubIOp::create(b, loc, kSize, k.index(1)));
    }
    Value v = memref::LoadOp::create(b, loc, aMatrix, ValueRange{row, column});
    if (inside)
      v = arith::SelectOp::create(b, loc, inside, v, k.zero(kind.element));
    values.push_back(v);
  }
  Value groupVector = vector::FromElementsOp::create(
      b, loc, VectorType::get({kind.group}, kind.element), values);
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), groupVector);
  Value scalar = vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  Value words = vector::BroadcastOp::create(b, loc, wordsType, scalar);
  return vector::BitCastOp::create(b, loc, kind.operandType(), words);
}

/// acc + the lane-wise dot products of `a`'s and `packedB`'s groups.
Value dot(Builder &k, const DotKind &kind, Value acc, Value a, Value packedB) {
  if (!kind.int8())
    return x86vector::DotBF16Op::create(k.b, k.loc, kind.accType(), acc, a,
                                        packedB);
  // MLIR's x86vector has no 512-bit vpdpbusd: LLVM's intrinsic directly.
  // Its first operand is the unsigned one: B offset by 128.
  return LLVM::CallIntrinsicOp::create(
             k.b, k.loc, kind.accType(),
             k.b.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
             ValueRange{acc, packedB, a})
      .getResult(0);
}

/// 128 * sum_k A[row][k] (int8): what the offset of B adds to each of the
/// row's products. 256 bytes per step into four independent sums (one
/// would wait on the previous dot product's latency), each 64 bytes
/// multiplied by ones on vpdpbusd.
Value rowOffset(Builder &k, const DotKind &kind, Value aMatrix, Value row,
                Value kSize) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  constexpr int64_t kSums = 4;
  int64_t chunk = kLanes * kind.group;
  auto chunkType = VectorType::get({chunk}, kind.element);
  Value ones = splatWord(b, loc, chunkType, 0x01010101);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(kind.accType()));
  auto loop = scf::ForOp::create(
      b, loc, k.index(0), kSize, k.index(kSums * chunk),
      SmallVector<Value>(kSums, zero),
      [&](OpBuilder &nested, Location, Value k0, ValueRange sums) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nested.getInsertionBlock());
        SmallVector<Value> next;
        for (int64_t i = 0; i < kSums; ++i) {
          // Beyond K reads as zero (a masked read).
          Value bytes = vector::TransferReadOp::create(
              b, loc, chunkType, aMatrix,
              ValueRange{row, k.add(k0, k.index(i * chunk))},
              k.zero(kind.element), ArrayRef<bool>{false});
          next.push_back(LLVM::CallIntrinsicOp::create(
                             b, loc, kind.accType(),
                             b.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
                             ValueRange{sums[i], ones, bytes})
                             .getResult(0));
        }
        scf::YieldOp::create(b, loc, next);
      });
  Value sum = loop.getResult(0);
  for (int64_t i = 1; i < kSums; ++i)
    sum = arith::AddIOp::create(b, loc, sum, loop.getResult(i));
  Value total = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                            sum);
  return arith::ShLIOp::create(
      b, loc, total,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(7)));
}

/// Every row's offset (rowOffset) in a buffer of M i32, computed once
/// before the tiles (each row's tiles, one per panel, read it): over the
/// threads by blocks of rows when A is large.
Value rowOffsets(Builder &k, const DotKind &kind, Value aMatrix, Value mSize,
                 Value kSize) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value offsets = memref::AllocOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI32Type()),
      ValueRange{mSize});
  auto rows = [&](Value first, Value end) {
    auto loop = scf::ForOp::create(b, loc, first, end, k.index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value row = loop.getInductionVar();
    memref::StoreOp::create(b, loc,
                            rowOffset(k, kind, aMatrix, row, kSize), offsets,
                            ValueRange{row});
  };
  Value large = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                      k.mul(mSize, kSize),
                                      k.index(kMinParallelOffsetBytes));
  auto branch = scf::IfOp::create(b, loc, large, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  auto parallel = scf::ParallelOp::create(
      b, loc, ValueRange{k.index(0)}, ValueRange{k.ceilDiv(mSize, kBlockRows)},
      ValueRange{k.index(1)});
  b.setInsertionPointToStart(parallel.getBody());
  Value first = k.mul(parallel.getInductionVars()[0], k.index(kBlockRows));
  rows(first, k.min(k.add(first, k.index(kBlockRows)), mSize));
  b.setInsertionPointToStart(branch.elseBlock());
  rows(k.index(0), mSize);
  return offsets;
}

/// How a tile meets C: whether its accumulators start from zero instead of
/// C (C was a zero fill, now gone: see takeZeroFill), and whether its
/// panel lies inside C, so that C is read and written without masks.
struct TileAccess {
  bool zeroStart = false;
  bool inBounds = false;
};

/// C[row0 + r][32 * panel + 16v] += sum over the groups from `gStart`,
/// for `rows` rows (static) and the panel's 32 columns, the accumulators
/// in registers across the k loop; int8 rows then lose their offsets.
void emitTile(Builder &k, const DotKind &kind, Value aMatrix, Value packed,
              Value offsets, Value cMatrix, Value row0, Value panel,
              int64_t rows, Value kSize, Value gStart, TileAccess access) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  VectorType accType = kind.accType();
  Value col0 = k.mul(panel, k.index(kColumns));
  Value padding = k.zero(kind.accElement);
  SmallVector<Value> accs;
  auto cIndex = [&](int64_t r, int64_t v) {
    return SmallVector<Value>{k.add(row0, k.index(r)),
                              k.add(col0, k.index(v * kLanes))};
  };
  // Reads and writes of C are masked at its last columns (in_bounds false)
  // unless the panel lies inside C.
  Value zeros = access.zeroStart
                    ? arith::ConstantOp::create(
                          b, loc, accType,
                          DenseElementsAttr::get(
                              accType, b.getZeroAttr(kind.accElement)))
                    : Value();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < 2; ++v)
      accs.push_back(zeros ? zeros
                           : vector::TransferReadOp::create(
                                 b, loc, accType, cMatrix, cIndex(r, v),
                                 padding, ArrayRef<bool>{access.inBounds}));

  auto step = [&](Value g, ValueRange in, bool last) {
    SmallVector<Value> out(in.begin(), in.end());
    SmallVector<Value> bVectors;
    for (int64_t v = 0; v < 2; ++v)
      bVectors.push_back(vector::LoadOp::create(
          b, loc, kind.operandType(), packed,
          ValueRange{panel, g, k.index(v * kLanes * kind.group)}));
    for (int64_t r = 0; r < rows; ++r) {
      Value a = broadcastGroup(k, kind, aMatrix, k.add(row0, k.index(r)), g,
                               kSize, last);
      for (int64_t v = 0; v < 2; ++v)
        out[r * 2 + v] = dot(k, kind, out[r * 2 + v], a, bVectors[v]);
    }
    return out;
  };

  Value fullGroups =
      arith::DivSIOp::create(b, loc, kSize, k.index(kind.group));
  auto loop = scf::ForOp::create(
      b, loc, gStart, fullGroups, k.index(1), accs,
      [&](OpBuilder &nested, Location, Value g, ValueRange in) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nested.getInsertionBlock());
        SmallVector<Value> next = step(g, in, /*last=*/false);
        scf::YieldOp::create(b, loc, next);
      });
  SmallVector<Value> results(loop.getResults());
  // k not a multiple of the group: one more group, its missing values zero.
  Value partial = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::RemSIOp::create(b, loc, kSize, k.index(kind.group)), k.index(0));
  auto last = scf::IfOp::create(b, loc, TypeRange(ValueRange(results)),
                                partial, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(last.thenBlock());
    scf::YieldOp::create(b, loc, step(fullGroups, results, /*last=*/true));
    b.setInsertionPointToStart(last.elseBlock());
    scf::YieldOp::create(b, loc, results);
  }
  for (int64_t r = 0; r < rows; ++r) {
    Value offset;
    if (offsets)
      offset = vector::BroadcastOp::create(
          b, loc, accType,
          memref::LoadOp::create(b, loc, offsets,
                                 ValueRange{k.add(row0, k.index(r))}));
    for (int64_t v = 0; v < 2; ++v) {
      Value result = last.getResult(r * 2 + v);
      if (offset)
        result = arith::SubIOp::create(b, loc, result, offset);
      vector::TransferWriteOp::create(b, loc, result, cMatrix, cIndex(r, v),
                                      ArrayRef<bool>{access.inBounds});
    }
  }
}

/// Rows [first, end) of a block on zmm registers: tiles of `tileRows` (8,
/// or 7 or 6 where that divides a product's rows: see lowerMatmul), then
/// the rest as a tile of 4, of 2 and of 1 row where they apply,
/// the k groups from `gStart`. One row at a time, the rest ran two
/// accumulators, each waiting on its previous dot product's latency: the 4
/// rows beyond 192 of a 14x14 conv cost as much as 24 rows in tiles.
void emitZmmRows(Builder &k, const DotKind &kind, Value aMatrix, Value packed,
                 Value offsets, Value cMatrix, Value first, Value end,
                 Value panel, Value kSize, Value gStart, TileAccess access,
                 int64_t tileRows = kRows) {
  OpBuilder &b = k.b;
  Value count = arith::SubIOp::create(b, k.loc, end, first);
  Value fullTiles = arith::DivSIOp::create(b, k.loc, count, k.index(tileRows));
  Value restStart = k.add(first, k.mul(fullTiles, k.index(tileRows)));
  auto tiles = scf::ForOp::create(b, k.loc, k.index(0), fullTiles, k.index(1));
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(tiles.getBody());
    Value row0 =
        k.add(first, k.mul(tiles.getInductionVar(), k.index(tileRows)));
    emitTile(k, kind, aMatrix, packed, offsets, cMatrix, row0, panel,
             tileRows, kSize, gStart, access);
  }
  Value row = restStart;
  for (int64_t rows : {4, 2, 1}) {
    Value fits = k.lt(k.add(row, k.index(rows - 1)), end);
    auto tile = scf::IfOp::create(b, k.loc, fits);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(tile.thenBlock());
      emitTile(k, kind, aMatrix, packed, offsets, cMatrix, row, panel, rows,
               kSize, gStart, access);
    }
    row = arith::SelectOp::create(b, k.loc, fits, k.add(row, k.index(rows)),
                                  row);
  }
}

/// emitZmmRows with C read and written without masks where the panel lies
/// inside C (every panel when N is a static multiple of 32), masked in the
/// last panel otherwise: the masks cost a third of a 1x1 conv's tile time
/// at K = 64.
void emitZmmPanelRows(Builder &k, const DotKind &kind, Value aMatrix,
                      Value packed, Value offsets, Value cMatrix, Value first,
                      Value end, Value panel, Value kSize, Value nSize,
                      bool zeroStart, int64_t tileRows) {
  OpBuilder &b = k.b;
  int64_t n = cast<MemRefType>(cMatrix.getType()).getDimSize(1);
  if (!ShapedType::isDynamic(n) && n % kColumns == 0) {
    emitZmmRows(k, kind, aMatrix, packed, offsets, cMatrix, first, end, panel,
                kSize, k.index(0), {zeroStart, /*inBounds=*/true}, tileRows);
    return;
  }
  Value panelEnd = k.mul(k.add(panel, k.index(1)), k.index(kColumns));
  Value inside = arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::sle,
                                       panelEnd, nSize);
  auto branch = scf::IfOp::create(b, k.loc, inside, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  emitZmmRows(k, kind, aMatrix, packed, offsets, cMatrix, first, end, panel,
              kSize, k.index(0), {zeroStart, /*inBounds=*/true}, tileRows);
  b.setInsertionPointToStart(branch.elseBlock());
  emitZmmRows(k, kind, aMatrix, packed, offsets, cMatrix, first, end, panel,
              kSize, k.index(0), {zeroStart, /*inBounds=*/false}, tileRows);
}

/// A block's rows for one panel with AMX: pairs of 16-row tiles, then one
/// 16-row tile, over the k of whole tiles (amx_tiles::emitPanelTiles);
/// what remains on zmm registers: the k beyond the last whole tile (and,
/// for int8, the rows' offsets) of those rows, and the rows beyond them.
/// A panel that passes C's last column runs on zmm registers only.
void emitAmxRows(Builder &k, const DotKind &kind, Value aMatrix,
                 Value packed, Value offsets, Value cMatrix, Value first,
                 Value end, Value panel, Value kSize, Value nSize) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  constexpr int64_t kTileRows = amx_tiles::kTileRows;
  int64_t tileK = amx_tiles::tileK(kind.int8());
  Value kTiles = arith::DivSIOp::create(b, loc, kSize, k.index(tileK));
  Value panelEnd = k.mul(k.add(panel, k.index(1)), k.index(kColumns));
  Value usable = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, panelEnd,
                            nSize),
      k.lt(k.index(0), kTiles));
  auto branch = scf::IfOp::create(b, loc, usable, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.elseBlock());
  emitZmmRows(k, kind, aMatrix, packed, offsets, cMatrix, first, end, panel,
              kSize, k.index(0), {});

  b.setInsertionPointToStart(branch.thenBlock());
  Value count = arith::SubIOp::create(b, loc, end, first);
  Value pairs = arith::DivSIOp::create(b, loc, count, k.index(2 * kTileRows));
  auto pairLoop = scf::ForOp::create(b, loc, k.index(0), pairs, k.index(1));
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(pairLoop.getBody());
    Value row0 =
        k.add(first, k.mul(pairLoop.getInductionVar(), k.index(2 * kTileRows)));
    amx_tiles::emitPanelTiles(b, loc, kind.int8(), aMatrix, packed, cMatrix,
                              row0, panel, /*rowTiles=*/2, kTiles);
  }
  Value pairsEnd = k.add(first, k.mul(pairs, k.index(2 * kTileRows)));
  Value single =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                            k.add(pairsEnd, k.index(kTileRows)), end);
  auto singleTile = scf::IfOp::create(b, loc, single);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(singleTile.thenBlock());
    amx_tiles::emitPanelTiles(b, loc, kind.int8(), aMatrix, packed, cMatrix,
                              pairsEnd, panel, /*rowTiles=*/1, kTiles);
  }
  Value amxEnd = arith::SelectOp::create(
      b, loc, single, k.add(pairsEnd, k.index(kTileRows)), pairsEnd);
  // The k tail of the tiles' rows (int8: their offsets, always).
  Value amxGroups = k.mul(kTiles, k.index(tileK / kind.group));
  Value tail = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::RemSIOp::create(b, loc, kSize, k.index(tileK)), k.index(0));
  if (kind.int8())
    tail = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto tailBranch = scf::IfOp::create(b, loc, tail);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(tailBranch.thenBlock());
    emitZmmRows(k, kind, aMatrix, packed, offsets, cMatrix, first, amxEnd,
                panel, kSize, amxGroups, {/*zeroStart=*/false,
                                          /*inBounds=*/true});
  }
  emitZmmRows(k, kind, aMatrix, packed, offsets, cMatrix, amxEnd, end, panel,
              kSize, k.index(0), {/*zeroStart=*/false, /*inBounds=*/true});
}

/// Whether AMX tiles can read A and write C: rows of unit stride (a tile
/// row is 64 contiguous bytes).
bool amxReadable(Value aMatrix, Value cMatrix) {
  return cast<MemRefType>(aMatrix.getType()).isLastDimUnitStride() &&
         cast<MemRefType>(cMatrix.getType()).isLastDimUnitStride();
}

/// Whether `op` lies in a loop that rlx-cpu-parallelize may fork (marked
/// `rlx.parallel`: the row tiles of a fused epilogue) or in a parallel one.
bool insideParallelLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (p->hasAttr("rlx.parallel") || isa<scf::ParallelOp, scf::ForallOp>(p))
      return true;
  return false;
}

/// Rows per register tile: 8, or for a product of one static block of rows
/// not a multiple of 8, 7 or 6 where that divides them (the 49 rows of a
/// 7x7 conv at batch 1 as 7 tiles of 7: as 6 tiles of 8, their last row
/// ran alone, on two accumulators waiting on the dot products' latency).
int64_t tileRowsFor(Value aMatrix) {
  int64_t m = cast<MemRefType>(aMatrix.getType()).getDimSize(0);
  if (ShapedType::isDynamic(m) || m > kBlockRows || m % kRows == 0)
    return kRows;
  for (int64_t rows : {7, 6})
    if (m % rows == 0)
      return rows;
  return kRows;
}

/// Whether the op before `op` that touches memory is a linalg.fill of zeros
/// into C, which no input of `op` reads: that fill is erased, and the tiles
/// start from zero accumulators instead of reading C (the fill was a memset
/// of C and every tile a load of zeros, 5% of a 1x1 bf16 conv's time).
bool takeZeroFill(Operation *op, Value aMatrix, Value bMatrix, Value cMatrix) {
  Operation *prev = op->getPrevNode();
  while (prev && isMemoryEffectFree(prev))
    prev = prev->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(prev);
  if (!fill || !fill.hasPureBufferSemantics() ||
      fill.getDpsInitOperand(0)->get() != cMatrix ||
      !matchPattern(fill.getDpsInputOperand(0)->get(), m_Zero()) &&
          !matchPattern(fill.getDpsInputOperand(0)->get(), m_PosZeroFloat()))
    return false;
  Value root = rootBuffer(cMatrix);
  for (Value input : {aMatrix, bMatrix})
    if (input && rootBuffer(input) == root)
      return false;
  fill->erase();
  return true;
}

/// C += A x B, B either plain (`bMatrix`, packed here) or packed already
/// (`prepacked`, [panels, groups, 32 * group]); `op` is erased.
void lowerMatmul(Operation *op, const DotKind &kind, Value aMatrix,
                 Value bMatrix, Value prepacked, Value cMatrix, bool amx) {
  OpBuilder b(op);
  Builder k{b, op->getLoc()};
  // AMX tiles read their accumulators from C, so C keeps its fill there.
  bool useAmx = amx && amxReadable(aMatrix, cMatrix);
  bool zeroStart =
      !useAmx && takeZeroFill(op, aMatrix,
                              prepacked ? prepacked : bMatrix, cMatrix);
  Value mSize = k.dim(aMatrix, 0), kSize = k.dim(aMatrix, 1),
        nSize = k.dim(cMatrix, 1);
  Value groups = k.ceilDiv(kSize, kind.group);
  Value panels = k.ceilDiv(nSize, kColumns);
  Value packed = prepacked ? prepacked
                           : packGroups(k, kind, bMatrix, kSize, groups,
                                        panels);
  Value offsets;
  if (kind.int8())
    offsets = rowOffsets(k, kind, aMatrix, mSize, kSize);

  // Row blocks x panels in parallel: a thread's share of the (row-major)
  // iterations is whole blocks passing over every panel, as before, but a
  // product with a single block of rows (batch-1 convs at 7x7: 49 rows)
  // still spreads its panels over the threads.
  // Inside the row tiles of rlx-cpu-fuse-matmul-epilogues, which are the
  // parallel loop, serially.
  Value blocks = k.ceilDiv(mSize, kBlockRows);
  auto body = [&](Value blockIndex, Value panel) {
    Value block0 = k.mul(blockIndex, k.index(kBlockRows));
    Value blockEnd = k.min(k.add(block0, k.index(kBlockRows)), mSize);
    if (useAmx)
      emitAmxRows(k, kind, aMatrix, packed, offsets, cMatrix, block0,
                  blockEnd, panel, kSize, nSize);
    else
      emitZmmPanelRows(k, kind, aMatrix, packed, offsets, cMatrix, block0,
                       blockEnd, panel, kSize, nSize, zeroStart,
                       tileRowsFor(aMatrix));
  };
  if (insideParallelLoop(op)) {
    auto blockLoop = scf::ForOp::create(b, k.loc, k.index(0), blocks,
                                        k.index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(blockLoop.getBody());
    auto panelLoop = scf::ForOp::create(b, k.loc, k.index(0), panels,
                                        k.index(1));
    b.setInsertionPointToStart(panelLoop.getBody());
    body(blockLoop.getInductionVar(), panelLoop.getInductionVar());
  } else {
    auto parallel = scf::ParallelOp::create(
        b, k.loc, ValueRange{k.index(0), k.index(0)},
        ValueRange{blocks, panels}, ValueRange{k.index(1), k.index(1)});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(parallel.getBody());
    body(parallel.getInductionVars()[0], parallel.getInductionVars()[1]);
  }
  if (!prepacked)
    memref::DeallocOp::create(b, k.loc, packed);
  if (offsets)
    memref::DeallocOp::create(b, k.loc, offsets);
  op->erase();
}

struct RLXCPUDotProductMatmulPass
    : mlir::rlx::impl::RLXCPUDotProductMatmulBase<RLXCPUDotProductMatmulPass> {
  using Base::Base;
  bool useAmx(const DotKind &kind) const {
    return kind.int8() ? amxInt8 : amxBF16;
  }
  void runOnOperation() override {
    auto isDotProduct = [&](Operation *op) {
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
        return dotKind(matmul, bf16, int8).has_value();
      if (auto generic = dyn_cast<linalg::GenericOp>(op))
        return dotKind(generic, bf16, int8).has_value();
      return false;
    };
    // A's rows at one multiply each, not delinearized per tile row.
    linearizeCollapsedInputs(getOperation(), isDotProduct);
    SmallVector<std::pair<linalg::MatmulOp, DotKind>> matmuls;
    SmallVector<std::pair<linalg::GenericOp, DotKind>> packedMatmuls;
    getOperation()->walk([&](Operation *op) {
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
        if (std::optional<DotKind> kind = dotKind(matmul, bf16, int8))
          matmuls.push_back({matmul, *kind});
      } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        if (std::optional<DotKind> kind = dotKind(generic, bf16, int8))
          packedMatmuls.push_back({generic, *kind});
      }
    });
    for (auto &[op, kind] : matmuls)
      lowerMatmul(op, kind, op.getDpsInputOperand(0)->get(),
                  op.getDpsInputOperand(1)->get(), Value(),
                  op.getDpsInitOperand(0)->get(), useAmx(kind));
    for (auto &[op, kind] : packedMatmuls)
      lowerMatmul(op, kind, op.getDpsInputOperand(0)->get(), Value(),
                  op.getDpsInputOperand(1)->get(),
                  op.getDpsInitOperand(0)->get(), useAmx(kind));
  }
};

} // namespace
