//===- TensorCoreMatmul.cpp - 16-bit matmuls on CUDA tensor cores ---------===//
///
/// \file
/// A matmul of bf16 or f16 operands into f32 (what rlx-accumulate-in-f32
/// leaves of a 16-bit product) becomes a gpu.launch whose warps multiply on
/// the tensor cores with `mma.sync.aligned.m16n8k16.row.col.f32.T.T.f32`
/// (nvvm.mma.sync; sm_80 and later). Without it the 16-bit product took the
/// loop mapping, one thread per output reading each operand from device
/// memory K times.
///
/// Each block of 4 warps computes a 64 x 64 tile of C, each warp a 32 x 32
/// quarter of it as 2 x 4 mma tiles of 16 x 8, their 32 f32 accumulators in
/// registers across K. Per step of 32 along K the block stages A's 64 x 32
/// and B's 32 x 64 tile in workgroup memory as 32-bit pairs of consecutive
/// K elements (the lower index in the low half, as the mma's registers hold
/// them): A's rows and B's columns are each a row of 16 pairs, padded to
/// 20 words so that the 8 rows a fragment load touches fall in distinct
/// banks. Edges load zeros, so any M, N and K work. A thread's fragment
/// registers come from the tiles at PTX's m16n8k16 layout (lane = 4 *
/// group + quad):
///   A: rows group and group + 8, pairs quad and quad + 4 of the K step;
///   B: column group, pairs quad and quad + 4;
///   C: rows group and group + 8, columns 2 * quad and 2 * quad + 1.
/// linalg.matmul accumulates, so the result is added to C, guarded at the
/// edges. Batched matmuls use the grid's z dimension.
///
//===----------------------------------------------------------------------===//

#include "codegen/GPU/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUTENSORCOREMATMUL
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

constexpr int64_t kBlockRows = 64, kBlockCols = 64, kStepK = 32;
constexpr int64_t kThreads = 128, kWarpSize = 32;
/// Pairs of K elements per staged row, and the row's padded width in words.
constexpr int64_t kPairsPerRow = kStepK / 2, kRowWords = kPairsPerRow + 4;
/// Each warp's share of the block tile, in 16 x 8 mma tiles.
constexpr int64_t kWarpTileRows = 2, kWarpTileCols = 4;

struct TensorCoreKernelBuilder {
  OpBuilder &b;
  Location loc;
  Type element; // bf16 or f16

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, index(y)) : x; }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, index(y));
  }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, index(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, index(y));
  }
  Value less(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }

  /// The 16 bits of `buffer[indices]` when `inBounds`, else 0, as i32.
  Value guardedBits(Value inBounds, Value buffer, ValueRange indices) {
    Type i32 = b.getI32Type();
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{i32}, inBounds,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value loaded = memref::LoadOp::create(b, loc, buffer, indices);
    Value bits = arith::BitcastOp::create(b, loc, b.getI16Type(), loaded);
    scf::YieldOp::create(b, loc,
                         ValueRange{arith::ExtUIOp::create(b, loc, i32, bits)});
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0))});
    return ifOp.getResult(0);
  }
  /// `low | high << 16`.
  Value pair(Value low, Value high) {
    Value shifted = arith::ShLIOp::create(
        b, loc, high,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(16)));
    return arith::OrIOp::create(b, loc, low, shifted);
  }
  /// A staged pair as the mma's operand: i32 for bf16, vector<2xf16> for
  /// f16 (the NVVM op's register types).
  Value operand(Value word) {
    if (element.isBF16())
      return word;
    return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, element),
                                   word);
  }
};

struct RLXGPUTensorCoreMatmulPass
    : mlir::rlx::impl::RLXGPUTensorCoreMatmulBase<RLXGPUTensorCoreMatmulPass> {
  using Base::Base;

  /// bf16 x bf16 or f16 x f16 into f32.
  bool takes(linalg::LinalgOp op) {
    auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation());
    auto bmm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation());
    bool defaultMaps = (mm && !mm.hasUserDefinedMaps()) ||
                       (bmm && !bmm.hasUserDefinedMaps());
    if (!defaultMaps || !op.hasPureBufferSemantics())
      return false;
    Type a = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
    Type bType = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
    Type c = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    if (a != bType || !c.isF32())
      return false;
    return a.isBF16() || a.isF16();
  }

  void lower(linalg::LinalgOp op) {
    bool batched = isa<linalg::BatchMatmulOp>(op);
    Value a = op.getDpsInputs()[0], bMat = op.getDpsInputs()[1];
    Value c = op.getDpsInits()[0];
    OpBuilder b(op);
    Location loc = op.getLoc();
    TensorCoreKernelBuilder k{b, loc,
                              getElementTypeOrSelf(a.getType())};
    int64_t first = batched ? 1 : 0;
    auto dim = [&](Value v, int64_t d) -> Value {
      return memref::DimOp::create(b, loc, v, d);
    };
    Value m = dim(c, first), n = dim(c, first + 1), kSize = dim(a, first + 1);
    Value batch = batched ? dim(c, 0) : k.index(1);
    Value gridX = arith::CeilDivSIOp::create(b, loc, n, k.index(kBlockCols));
    Value gridY = arith::CeilDivSIOp::create(b, loc, m, k.index(kBlockRows));
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto tileType = [&](int64_t rows) {
      return MemRefType::get({rows, kRowWords}, b.getI32Type(), AffineMap(),
                             workgroup);
    };
    auto launch = gpu::LaunchOp::create(
        b, loc, gridX, gridY, batch, k.index(kThreads), k.index(1),
        k.index(1), /*dynamicSharedMemorySize=*/nullptr,
        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/ValueRange{},
        /*workgroupAttributions=*/
        TypeRange{tileType(kBlockRows), tileType(kBlockCols)});
    Block &body = launch.getBody().front();
    b.setInsertionPointToEnd(&body);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);
    Value aTile = launch.getWorkgroupAttributions()[0];
    Value bTile = launch.getWorkgroupAttributions()[1];
    Value tid = launch.getThreadIds().x, bz = launch.getBlockIds().z;
    Value rowBase = k.mul(launch.getBlockIds().y, kBlockRows);
    Value colBase = k.mul(launch.getBlockIds().x, kBlockCols);
    Value warp = k.div(tid, kWarpSize), lane = k.rem(tid, kWarpSize);
    Value group = k.div(lane, 4), quad = k.rem(lane, 4);
    // Warps 0..3 in a 2 x 2 grid of 32 x 32 quarters.
    Value warpRow = k.mul(k.div(warp, 2), kWarpTileRows * 16);
    Value warpCol = k.mul(k.rem(warp, 2), kWarpTileCols * 8);
    auto at = [&](Value i, Value j) {
      return batched ? SmallVector<Value>{bz, i, j} : SmallVector<Value>{i, j};
    };

    const int64_t tiles = kWarpTileRows * kWarpTileCols;
    SmallVector<Value> zeros(
        tiles * 4, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0)));
    auto steps = scf::ForOp::create(b, loc, k.index(0), kSize,
                                    k.index(kStepK), zeros);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k0 = steps.getInductionVar();
      // A's tile: pair p of row r is A[rowBase + r][k0 + 2p, +1]
      // (consecutive threads along K); B's: pair p of column n is
      // B[k0 + 2p, +1][colBase + n] (consecutive threads along N).
      const int64_t pairsPerThread = kBlockRows * kPairsPerRow / kThreads;
      for (int64_t e = 0; e < pairsPerThread; ++e) {
        Value idx = k.add(tid, e * kThreads);
        Value row = k.div(idx, kPairsPerRow), p = k.rem(idx, kPairsPerRow);
        Value gRow = k.add(rowBase, row), gK = k.add(k0, k.mul(p, 2));
        Value gK1 = k.add(gK, 1), rowIn = k.less(gRow, m);
        Value low = k.guardedBits(k.both(rowIn, k.less(gK, kSize)), a,
                                  at(gRow, gK));
        Value high = k.guardedBits(k.both(rowIn, k.less(gK1, kSize)), a,
                                   at(gRow, gK1));
        memref::StoreOp::create(b, loc, k.pair(low, high), aTile,
                                ValueRange{row, p});
      }
      for (int64_t e = 0; e < pairsPerThread; ++e) {
        Value idx = k.add(tid, e * kThreads);
        Value col = k.rem(idx, kBlockCols), p = k.div(idx, kBlockCols);
        Value gCol = k.add(colBase, col), gK = k.add(k0, k.mul(p, 2));
        Value gK1 = k.add(gK, 1), colIn = k.less(gCol, n);
        Value low = k.guardedBits(k.both(colIn, k.less(gK, kSize)), bMat,
                                  at(gK, gCol));
        Value high = k.guardedBits(k.both(colIn, k.less(gK1, kSize)), bMat,
                                   at(gK1, gCol));
        memref::StoreOp::create(b, loc, k.pair(low, high), bTile,
                                ValueRange{col, p});
      }
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> acc(steps.getRegionIterArgs());
      auto load = [&](Value tile, Value row, Value p) {
        return k.operand(
            memref::LoadOp::create(b, loc, tile, ValueRange{row, p}));
      };
      MLIRContext *ctx = b.getContext();
      Type f32 = b.getF32Type();
      auto resultType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
      NVVM::MMATypes ptxType =
          k.element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
      for (int64_t kk = 0; kk < kPairsPerRow; kk += 8) {
        Value p0 = k.add(quad, kk), p1 = k.add(quad, kk + 4);
        SmallVector<SmallVector<Value, 4>> aFrags, bFrags;
        for (int64_t i = 0; i < kWarpTileRows; ++i) {
          Value r0 = k.add(k.add(warpRow, group), i * 16), r1 = k.add(r0, 8);
          aFrags.push_back({load(aTile, r0, p0), load(aTile, r1, p0),
                            load(aTile, r0, p1), load(aTile, r1, p1)});
        }
        for (int64_t j = 0; j < kWarpTileCols; ++j) {
          Value col = k.add(k.add(warpCol, group), j * 8);
          bFrags.push_back({load(bTile, col, p0), load(bTile, col, p1)});
        }
        for (int64_t i = 0; i < kWarpTileRows; ++i)
          for (int64_t j = 0; j < kWarpTileCols; ++j) {
            MutableArrayRef<Value> tileAcc(acc.data() + (i * kWarpTileCols + j) * 4,
                                           4);
            Value d = NVVM::MmaOp::create(
                b, loc, resultType, aFrags[i], bFrags[j], tileAcc,
                ArrayRef<int64_t>{16, 8, 16}, /*b1Op=*/std::nullopt,
                /*intOverflow=*/std::nullopt,
                std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
            for (int64_t q = 0; q < 4; ++q)
              tileAcc[q] = LLVM::ExtractValueOp::create(b, loc, d, q);
          }
      }
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, acc);
    }
    for (int64_t i = 0; i < kWarpTileRows; ++i)
      for (int64_t j = 0; j < kWarpTileCols; ++j)
        for (int64_t q = 0; q < 4; ++q) {
          Value row = k.add(k.add(k.add(rowBase, warpRow), group),
                            i * 16 + (q >= 2 ? 8 : 0));
          Value col = k.add(k.add(k.add(colBase, warpCol), k.mul(quad, 2)),
                            j * 8 + (q & 1));
          auto store = scf::IfOp::create(
              b, loc, k.both(k.less(row, m), k.less(col, n)),
              /*withElseRegion=*/false);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(store.thenBlock());
          Value old = memref::LoadOp::create(b, loc, c, at(row, col));
          Value sum = arith::AddFOp::create(
              b, loc, old, steps.getResult((i * kWarpTileCols + j) * 4 + q));
          memref::StoreOp::create(b, loc, sum, c, at(row, col));
        }
    op->erase();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (takes(op))
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls)
      lower(op);
  }
};

} // namespace
