//===- BF16Matmul.cpp - bf16 matmuls on AVX512-BF16 dot products ----------===//
///
/// \file
/// rlx-cpu-bf16-matmul: a `linalg.matmul` of bf16 operands into f32 (what a
/// bf16 rlx.matmul lowers to) becomes a register-tiled loop nest around
/// `x86vector.avx512.dot` (vdpbf16ps: 16 f32 lanes, each adding the products
/// of one pair of bf16 values), where the target CPU has AVX512-BF16.
///
/// vdpbf16ps multiplies pairs along k, so B is first copied into pairs
/// (Bp[k/2][2n + (k%2)], the VNNI layout; k and n padded with zeros to even
/// and to 32): then one 32-element load holds rows 2p and 2p+1 of 16
/// columns. A's pair A[i][2p..2p+1] is one 32-bit word broadcast to all
/// lanes. A tile is 8 rows x 32 columns: 16 accumulators of 16 lanes, as the
/// f32 kernel's 8x32 tile, but each instruction does twice the work. Rows
/// beyond the last full tile run the same loop one row at a time; an odd k
/// ends with a pair whose second value is zero. Row tiles are an
/// scf.parallel, which the OpenMP lowering spreads over the threads.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUBF16MATMUL
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr int64_t kRows = 8;    // rows of a register tile
constexpr int64_t kLanes = 16;  // f32 lanes of a zmm register
constexpr int64_t kColumns = 2 * kLanes;
/// Rows of A a thread works through per pass over B: 64 x K bf16 (256 KB
/// at K = 2048) stays in L2 while every panel passes.
constexpr int64_t kBlockRows = 64;

bool isBF16Matmul(linalg::MatmulOp op) {
  if (!op.hasPureBufferSemantics())
    return false;
  auto element = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  };
  return element(op.getDpsInputOperand(0)->get()).isBF16() &&
         element(op.getDpsInputOperand(1)->get()).isBF16() &&
         element(op.getDpsInitOperand(0)->get()).isF32() &&
         // The default (signed) cast: plain extension of the bf16 values.
         op.getCast() == linalg::TypeFn::cast_signed &&
         // The plain (i, k) x (k, j) maps; a transposed variant stays with
         // the generic path.
         op.getIndexingMapsArray() ==
             linalg::MatmulOp::getDefaultIndexingMaps(op.getContext());
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
};

/// B in k-pairs, one 32-column panel after the other: row `panel * KP + p`
/// holds B[2p + t][panel * 32 + c] at 2c + t, zero outside B. A panel is
/// contiguous, so the k loop of a tile streams it.
Value packPairs(Builder &k, Value bMatrix, Value kSize, Value nSize,
                Value pairs, Value panels) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto bf16 = b.getBF16Type();
  auto type = MemRefType::get({ShapedType::kDynamic, 2 * kColumns}, bf16);
  Value packed = memref::AllocOp::create(b, loc, type,
                                         ValueRange{k.mul(panels, pairs)});
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16));
  Value lastK = arith::SubIOp::create(b, loc, kSize, k.index(1));
  Value lastN = arith::SubIOp::create(b, loc, nSize, k.index(1));
  auto panelLoop = scf::ForOp::create(b, loc, k.index(0), panels, k.index(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(panelLoop.getBody());
  Value panel = panelLoop.getInductionVar();
  auto pairLoop = scf::ForOp::create(b, loc, k.index(0), pairs, k.index(1));
  b.setInsertionPointToStart(pairLoop.getBody());
  Value p = pairLoop.getInductionVar();
  Value packedRow = k.add(k.mul(panel, pairs), p);
  auto columnLoop =
      scf::ForOp::create(b, loc, k.index(0), k.index(kColumns), k.index(1));
  b.setInsertionPointToStart(columnLoop.getBody());
  Value c = columnLoop.getInductionVar();
  Value n = k.add(k.mul(panel, k.index(kColumns)), c);
  for (int64_t t = 0; t < 2; ++t) {
    Value row = k.add(k.mul(p, k.index(2)), k.index(t));
    // Clamped reads keep every load in bounds; the padding is zero.
    Value value = memref::LoadOp::create(
        b, loc, bMatrix, ValueRange{k.min(row, lastK), k.min(n, lastN)});
    Value inside =
        arith::AndIOp::create(b, loc, k.lt(row, kSize), k.lt(n, nSize));
    value = arith::SelectOp::create(b, loc, inside, value, zero);
    memref::StoreOp::create(
        b, loc, value, packed,
        ValueRange{packedRow, k.add(k.mul(c, k.index(2)), k.index(t))});
  }
  return packed;
}

/// The bf16 pair A[row][2p], A[row][2p + 1] (the second zero when
/// `secondValid` is false) broadcast to 32 lanes: 16 copies of the pair.
Value broadcastPair(Builder &k, Value aMatrix, Value row, Value p,
                    Value secondValid) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value column = k.mul(p, k.index(2));
  Value first = memref::LoadOp::create(b, loc, aMatrix, ValueRange{row, column});
  Value second;
  if (secondValid) {
    // Only at an odd k's last pair: clamp the column and zero the value.
    Value next = k.add(column, k.index(1));
    Value clamped = arith::SelectOp::create(b, loc, secondValid, next, column);
    second = memref::LoadOp::create(b, loc, aMatrix, ValueRange{row, clamped});
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(b.getBF16Type()));
    second = arith::SelectOp::create(b, loc, secondValid, second, zero);
  } else {
    second = memref::LoadOp::create(b, loc, aMatrix,
                                    ValueRange{row, k.add(column, k.index(1))});
  }
  auto pairType = VectorType::get({2}, b.getBF16Type());
  Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                              ValueRange{first, second});
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  Value scalar = vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  Value words = vector::BroadcastOp::create(
      b, loc, VectorType::get({kLanes}, b.getI32Type()), scalar);
  return vector::BitCastOp::create(
      b, loc, VectorType::get({2 * kLanes}, b.getBF16Type()), words);
}

/// C[row0 + r][32 * panel + 16v] += sum over pairs, for `rows` rows
/// (static) and the panel's 32 columns, the accumulators in registers
/// across the k loop.
void emitTile(Builder &k, Value aMatrix, Value packed, Value cMatrix,
              Value row0, Value panel, int64_t rows, Value kSize,
              Value pairs) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto accType = VectorType::get({kLanes}, b.getF32Type());
  Value col0 = k.mul(panel, k.index(kColumns));
  Value panelRow0 = k.mul(panel, pairs);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  SmallVector<Value> accs;
  auto cIndex = [&](int64_t r, int64_t v) {
    return SmallVector<Value>{k.add(row0, k.index(r)),
                              k.add(col0, k.index(v * kLanes))};
  };
  // Reads and writes of C are masked at its last columns (in_bounds false).
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < 2; ++v)
      accs.push_back(vector::TransferReadOp::create(
          b, loc, accType, cMatrix, cIndex(r, v), zero,
          ArrayRef<bool>{false}));

  auto step = [&](Value p, ValueRange in, Value secondValid) {
    SmallVector<Value> out(in.begin(), in.end());
    Value packedRow = k.add(panelRow0, p);
    SmallVector<Value> bVectors;
    for (int64_t v = 0; v < 2; ++v)
      bVectors.push_back(vector::LoadOp::create(
          b, loc, VectorType::get({2 * kLanes}, b.getBF16Type()), packed,
          ValueRange{packedRow, k.index(v * 2 * kLanes)}));
    for (int64_t r = 0; r < rows; ++r) {
      Value a = broadcastPair(k, aMatrix, k.add(row0, k.index(r)), p,
                              secondValid);
      for (int64_t v = 0; v < 2; ++v)
        out[r * 2 + v] = x86vector::DotBF16Op::create(
            b, loc, accType, out[r * 2 + v], a, bVectors[v]);
    }
    return out;
  };

  Value fullPairs = arith::DivSIOp::create(b, loc, kSize, k.index(2));
  auto loop = scf::ForOp::create(
      b, loc, k.index(0), fullPairs, k.index(1), accs,
      [&](OpBuilder &nested, Location, Value p, ValueRange in) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nested.getInsertionBlock());
        SmallVector<Value> next = step(p, in, Value());
        scf::YieldOp::create(b, loc, next);
      });
  SmallVector<Value> results(loop.getResults());
  // An odd k: one more pair, its second value zero.
  Value odd = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::RemSIOp::create(b, loc, kSize, k.index(2)), k.index(0));
  auto last = scf::IfOp::create(b, loc, TypeRange(ValueRange(results)), odd,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(last.thenBlock());
    Value falseValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    scf::YieldOp::create(b, loc, step(fullPairs, results, falseValue));
    b.setInsertionPointToStart(last.elseBlock());
    scf::YieldOp::create(b, loc, results);
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < 2; ++v)
      vector::TransferWriteOp::create(b, loc, last.getResult(r * 2 + v),
                                      cMatrix, cIndex(r, v),
                                      ArrayRef<bool>{false});
}

void lowerBF16Matmul(linalg::MatmulOp op) {
  OpBuilder b(op);
  Builder k{b, op.getLoc()};
  Value aMatrix = op.getDpsInputOperand(0)->get();
  Value bMatrix = op.getDpsInputOperand(1)->get();
  Value cMatrix = op.getDpsInitOperand(0)->get();
  Value mSize = k.dim(aMatrix, 0), kSize = k.dim(aMatrix, 1),
        nSize = k.dim(bMatrix, 1);
  Value pairs = k.ceilDiv(kSize, 2);
  Value panels = k.ceilDiv(nSize, kColumns);
  Value packed = packPairs(k, bMatrix, kSize, nSize, pairs, panels);

  // Blocks of kBlockRows rows in parallel; in a block, each panel of B
  // meets every tile of the block while it is in cache (the block's rows of
  // A stay in L2 across the panels).
  Value blocks = k.ceilDiv(mSize, kBlockRows);
  auto parallel = scf::ParallelOp::create(b, k.loc, ValueRange{k.index(0)},
                                          ValueRange{blocks},
                                          ValueRange{k.index(1)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(parallel.getBody());
    Value block0 = k.mul(parallel.getInductionVars()[0], k.index(kBlockRows));
    Value blockEnd = k.min(k.add(block0, k.index(kBlockRows)), mSize);
    Value blockRows = arith::SubIOp::create(b, k.loc, blockEnd, block0);
    // Full 8-row tiles, then the rest one row at a time.
    Value fullTiles = arith::DivSIOp::create(b, k.loc, blockRows,
                                             k.index(kRows));
    Value restStart = k.add(block0, k.mul(fullTiles, k.index(kRows)));
    auto panelLoop =
        scf::ForOp::create(b, k.loc, k.index(0), panels, k.index(1));
    b.setInsertionPointToStart(panelLoop.getBody());
    Value panel = panelLoop.getInductionVar();
    auto tiles = scf::ForOp::create(b, k.loc, k.index(0), fullTiles,
                                    k.index(1));
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(tiles.getBody());
      Value row0 = k.add(block0, k.mul(tiles.getInductionVar(),
                                       k.index(kRows)));
      emitTile(k, aMatrix, packed, cMatrix, row0, panel, kRows, kSize, pairs);
    }
    auto rest = scf::ForOp::create(b, k.loc, restStart, blockEnd, k.index(1));
    b.setInsertionPointToStart(rest.getBody());
    emitTile(k, aMatrix, packed, cMatrix, rest.getInductionVar(), panel, 1,
             kSize, pairs);
  }
  memref::DeallocOp::create(b, k.loc, packed);
  op.erase();
}

struct RLXCPUBF16MatmulPass
    : mlir::rlx::impl::RLXCPUBF16MatmulBase<RLXCPUBF16MatmulPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) {
      if (isBF16Matmul(op))
        matmuls.push_back(op);
    });
    for (linalg::MatmulOp op : matmuls)
      lowerBF16Matmul(op);
  }
};

} // namespace
