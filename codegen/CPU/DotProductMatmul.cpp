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
/// first copied into groups (row `panel * KG + g` of the copy holds
/// B[G*g + t][32 * panel + c] at G*c + t: the VNNI layout, one 32-column
/// panel after the other, k and n padded with zeros): one load then holds
/// 16 columns' groups. A's group is one 32-bit word broadcast to all lanes.
/// A tile is 8 rows x 32 columns: 16 accumulators of 16 lanes, the k loop
/// over groups; rows beyond the last full tile run the same loop one row at
/// a time, and k not a multiple of G ends with a group whose missing values
/// are zero. Rows are processed in blocks of 64, each block passing over
/// every panel while its rows of A stay in cache; the (block, panel) pairs
/// are one scf.parallel, spread over the threads by the OpenMP lowering, as
/// is the packing, panel by panel.
///
/// vpdpbusd multiplies unsigned by signed bytes: A's signed bytes are
/// flipped to unsigned (a + 128, an xor of the sign bit) and the extra
/// 128 * sum_k B[k][n] is subtracted from each column at the end, the
/// column sums computed while packing.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUDOTPRODUCTMATMUL
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr int64_t kRows = 8;    // rows of a register tile
constexpr int64_t kLanes = 16;  // 32-bit lanes of a zmm register
constexpr int64_t kColumns = 2 * kLanes;
/// Rows of A a thread works through per pass over B: 64 x K bf16 (256 KB
/// at K = 2048) stays in L2 while every panel passes.
constexpr int64_t kBlockRows = 64;
/// Groups (rows of the packed copy, 128 bytes each) from which B is packed
/// on every thread: 2048 of them, 256 KB, take tens of microseconds.
constexpr int64_t kMinParallelPackGroups = 2048;

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

std::optional<DotKind> dotKind(linalg::MatmulOp op, bool bf16, bool int8) {
  if (!op.hasPureBufferSemantics() ||
      // The default (signed) cast: plain extension of the operands.
      op.getCast() != linalg::TypeFn::cast_signed ||
      // The plain (i, k) x (k, j) maps; a transposed variant stays with
      // the generic path.
      op.getIndexingMapsArray() !=
          linalg::MatmulOp::getDefaultIndexingMaps(op.getContext()))
    return std::nullopt;
  auto element = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  };
  Type a = element(op.getDpsInputOperand(0)->get());
  Type b = element(op.getDpsInputOperand(1)->get());
  Type c = element(op.getDpsInitOperand(0)->get());
  if (a != b)
    return std::nullopt;
  if (bf16 && a.isBF16() && c.isF32())
    return DotKind{a, c, 2};
  if (int8 && a.isSignlessInteger(8) && c.isSignlessInteger(32))
    return DotKind{a, c, 4};
  return std::nullopt;
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

/// The G rows `rows` (32 lanes each) of a group as one packed row: lane
/// G*c + t holds rows[t][c] (for int8, pairs of bytes interleave as 16-bit
/// words in a second step).
Value packRow(OpBuilder &b, Location loc, const DotKind &kind,
              ArrayRef<Value> rows) {
  if (!kind.int8())
    return interleave(b, loc, rows[0], rows[1]);
  auto words = VectorType::get({kColumns}, b.getI16Type());
  Value low = vector::BitCastOp::create(b, loc, words,
                                        interleave(b, loc, rows[0], rows[1]));
  Value high = vector::BitCastOp::create(
      b, loc, words, interleave(b, loc, rows[2], rows[3]));
  return vector::BitCastOp::create(
      b, loc, VectorType::get({kColumns * kind.group}, kind.element),
      interleave(b, loc, low, high));
}

/// B in groups of kind.group k, panel after panel (see the file comment),
/// zero outside B: panels * groups rows of 32 * group elements, built with
/// vector loads and shuffles (a scalar copy of every element cost as much
/// as the int8 products themselves). For int8 also the kernel's column
/// corrections, 128 * sum_k B[k][n] (panels * 32 i32, zero beyond N),
/// summed from the same loads into `corrections`.
Value packGroups(Builder &k, const DotKind &kind, Value bMatrix, Value kSize,
                 Value groups, Value panels, Value *corrections) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto type = MemRefType::get({ShapedType::kDynamic, kind.group * kColumns},
                              kind.element);
  Value packed = memref::AllocOp::create(b, loc, type,
                                         ValueRange{k.mul(panels, groups)});
  auto i32 = b.getI32Type();
  auto sumType = VectorType::get({kColumns}, i32);
  if (kind.int8())
    *corrections = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, i32),
        ValueRange{k.mul(panels, k.index(kColumns))});
  auto rowType = VectorType::get({kColumns}, kind.element);
  Value zeroRow = arith::ConstantOp::create(b, loc, b.getZeroAttr(rowType));
  Value zeroSums = arith::ConstantOp::create(b, loc, b.getZeroAttr(sumType));
  Value lastK = arith::SubIOp::create(b, loc, kSize, k.index(1));
  Value padding = k.zero(kind.element);
  // One panel: its groups of rows, and (int8) its column sums.
  auto packPanel = [&](Value panel) {
    Value col0 = k.mul(panel, k.index(kColumns));
    auto groupLoop = scf::ForOp::create(
        b, loc, k.index(0), groups, k.index(1), ValueRange{zeroSums},
        [&](OpBuilder &nested, Location, Value g, ValueRange sums) {
          OpBuilder::InsertionGuard inner(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          SmallVector<Value> rows;
          Value sum = sums[0];
          for (int64_t t = 0; t < kind.group; ++t) {
            Value row = k.add(k.mul(g, k.index(kind.group)), k.index(t));
            // Columns beyond N read as zero (a masked read); rows beyond K
            // are read clamped, then replaced by zeros.
            Value read = vector::TransferReadOp::create(
                b, loc, rowType, bMatrix, ValueRange{k.min(row, lastK), col0},
                padding, ArrayRef<bool>{false});
            read = arith::SelectOp::create(b, loc, k.lt(row, kSize), read,
                                           zeroRow);
            rows.push_back(read);
            if (kind.int8())
              sum = arith::AddIOp::create(
                  b, loc, sum, arith::ExtSIOp::create(b, loc, sumType, read));
          }
          vector::StoreOp::create(b, loc, packRow(b, loc, kind, rows), packed,
                                  ValueRange{k.add(k.mul(panel, groups), g),
                                             k.index(0)});
          scf::YieldOp::create(b, loc, ValueRange{sum});
        });
    if (kind.int8()) {
      Value shift = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(sumType, b.getI32IntegerAttr(7).getValue()));
      Value scaled =
          arith::ShLIOp::create(b, loc, groupLoop.getResult(0), shift);
      vector::StoreOp::create(b, loc, scaled, *corrections, ValueRange{col0});
    }
  };
  // Panels are independent (their own rows of the copy and their own
  // column sums): a large B is copied on every thread, panel by panel; a
  // small one (a fork costs microseconds) on one.
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
/// group, zero), int8 flipped to unsigned, broadcast to every lane as one
/// 32-bit word.
Value broadcastGroup(Builder &k, const DotKind &kind, Value aMatrix,
                     Value row, Value g, Value kSize, bool last) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value first = k.mul(g, k.index(kind.group));
  auto wordsType = VectorType::get({kLanes}, b.getI32Type());
  // A whole group in a row with unit stride: one 32-bit load, broadcast,
  // then one xor for int8 (vpbroadcastd and vpxord).
  if (!last && cast<MemRefType>(aMatrix.getType()).isLastDimUnitStride()) {
    Value group = vector::LoadOp::create(
        b, loc, VectorType::get({kind.group}, kind.element), aMatrix,
        ValueRange{row, first});
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), group);
    Value words = vector::BroadcastOp::create(
        b, loc, wordsType,
        vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    if (kind.int8())
      words = arith::XOrIOp::create(
          b, loc, words,
          arith::ConstantOp::create(
              b, loc,
              DenseElementsAttr::get(wordsType,
                                     b.getI32IntegerAttr(0x80808080)
                                         .getValue())));
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
    if (kind.int8())
      v = arith::XOrIOp::create(
          b, loc, v,
          arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(-128)));
    values.push_back(v);
  }
  Value groupVector = vector::FromElementsOp::create(
      b, loc, VectorType::get({kind.group}, kind.element), values);
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), groupVector);
  Value scalar = vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  Value words = vector::BroadcastOp::create(
      b, loc, VectorType::get({kLanes}, b.getI32Type()), scalar);
  return vector::BitCastOp::create(b, loc, kind.operandType(), words);
}

Value dot(Builder &k, const DotKind &kind, Value acc, Value a, Value bVector) {
  if (!kind.int8())
    return x86vector::DotBF16Op::create(k.b, k.loc, kind.accType(), acc, a,
                                        bVector);
  // MLIR's x86vector has no 512-bit vpdpbusd: LLVM's intrinsic directly.
  return LLVM::CallIntrinsicOp::create(
             k.b, k.loc, kind.accType(),
             k.b.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
             ValueRange{acc, a, bVector})
      .getResult(0);
}

/// C[row0 + r][32 * panel + 16v] += sum over groups, for `rows` rows
/// (static) and the panel's 32 columns, the accumulators in registers
/// across the k loop.
void emitTile(Builder &k, const DotKind &kind, Value aMatrix, Value packed,
              Value corrections, Value cMatrix, Value row0, Value panel,
              int64_t rows, Value kSize, Value groups) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  VectorType accType = kind.accType();
  Value col0 = k.mul(panel, k.index(kColumns));
  Value panelRow0 = k.mul(panel, groups);
  Value padding = k.zero(kind.accElement);
  SmallVector<Value> accs;
  auto cIndex = [&](int64_t r, int64_t v) {
    return SmallVector<Value>{k.add(row0, k.index(r)),
                              k.add(col0, k.index(v * kLanes))};
  };
  // Reads and writes of C are masked at its last columns (in_bounds false).
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < 2; ++v)
      accs.push_back(vector::TransferReadOp::create(
          b, loc, accType, cMatrix, cIndex(r, v), padding,
          ArrayRef<bool>{false}));

  auto step = [&](Value g, ValueRange in, bool last) {
    SmallVector<Value> out(in.begin(), in.end());
    Value packedRow = k.add(panelRow0, g);
    SmallVector<Value> bVectors;
    for (int64_t v = 0; v < 2; ++v)
      bVectors.push_back(vector::LoadOp::create(
          b, loc, kind.operandType(), packed,
          ValueRange{packedRow, k.index(v * kLanes * kind.group)}));
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
      b, loc, k.index(0), fullGroups, k.index(1), accs,
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
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < 2; ++v) {
      Value result = last.getResult(r * 2 + v);
      if (corrections)
        result = arith::SubIOp::create(
            b, loc, result,
            vector::LoadOp::create(b, loc, accType, corrections,
                                   ValueRange{k.add(col0,
                                                    k.index(v * kLanes))}));
      vector::TransferWriteOp::create(b, loc, result, cMatrix, cIndex(r, v),
                                      ArrayRef<bool>{false});
    }
}

void lowerMatmul(linalg::MatmulOp op, const DotKind &kind) {
  OpBuilder b(op);
  Builder k{b, op.getLoc()};
  Value aMatrix = op.getDpsInputOperand(0)->get();
  Value bMatrix = op.getDpsInputOperand(1)->get();
  Value cMatrix = op.getDpsInitOperand(0)->get();
  Value mSize = k.dim(aMatrix, 0), kSize = k.dim(aMatrix, 1),
        nSize = k.dim(bMatrix, 1);
  Value groups = k.ceilDiv(kSize, kind.group);
  Value panels = k.ceilDiv(nSize, kColumns);
  Value corrections;
  Value packed =
      packGroups(k, kind, bMatrix, kSize, groups, panels, &corrections);

  // Row blocks x panels in parallel: a thread's share of the (row-major)
  // iterations is whole blocks passing over every panel, as before, but a
  // product with a single block of rows (batch-1 convs at 7x7: 49 rows)
  // still spreads its panels over the threads.
  Value blocks = k.ceilDiv(mSize, kBlockRows);
  auto parallel = scf::ParallelOp::create(
      b, k.loc, ValueRange{k.index(0), k.index(0)}, ValueRange{blocks, panels},
      ValueRange{k.index(1), k.index(1)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(parallel.getBody());
    Value block0 = k.mul(parallel.getInductionVars()[0], k.index(kBlockRows));
    Value blockEnd = k.min(k.add(block0, k.index(kBlockRows)), mSize);
    Value blockRows = arith::SubIOp::create(b, k.loc, blockEnd, block0);
    // Full 8-row tiles, then the rest one row at a time.
    Value fullTiles =
        arith::DivSIOp::create(b, k.loc, blockRows, k.index(kRows));
    Value restStart = k.add(block0, k.mul(fullTiles, k.index(kRows)));
    Value panel = parallel.getInductionVars()[1];
    auto tiles =
        scf::ForOp::create(b, k.loc, k.index(0), fullTiles, k.index(1));
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(tiles.getBody());
      Value row0 =
          k.add(block0, k.mul(tiles.getInductionVar(), k.index(kRows)));
      emitTile(k, kind, aMatrix, packed, corrections, cMatrix, row0, panel,
               kRows, kSize, groups);
    }
    auto rest = scf::ForOp::create(b, k.loc, restStart, blockEnd, k.index(1));
    b.setInsertionPointToStart(rest.getBody());
    emitTile(k, kind, aMatrix, packed, corrections, cMatrix,
             rest.getInductionVar(), panel, 1, kSize, groups);
  }
  memref::DeallocOp::create(b, k.loc, packed);
  if (corrections)
    memref::DeallocOp::create(b, k.loc, corrections);
  op.erase();
}

struct RLXCPUDotProductMatmulPass
    : mlir::rlx::impl::RLXCPUDotProductMatmulBase<RLXCPUDotProductMatmulPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::pair<linalg::MatmulOp, DotKind>> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) {
      if (std::optional<DotKind> kind = dotKind(op, bf16, int8))
        matmuls.push_back({op, *kind});
    });
    for (auto &[op, kind] : matmuls)
      lowerMatmul(op, kind);
  }
};

} // namespace
