//===- TileMatmul.cpp - Matmuls as workgroup-tiled GPU kernels ------------===//
///
/// \file
/// A matmul mapped one thread per output reads each A and B element from
/// device memory once per output that uses it. Here each block computes a
/// T x T tile of C: per step of T along K, its threads stage a T x T tile
/// of A and of B in workgroup (shared) memory, one element each, and every
/// thread accumulates its output from the staged tiles, so each element of A
/// and B is read from device memory once per block instead of once per
/// thread. Partial tiles at the edges load zeros. Batched matmuls use the
/// grid's z dimension.
///
//===----------------------------------------------------------------------===//

#include "codegen/GPU/Passes.h"

namespace rlx {
#define GEN_PASS_DEF_RLXGPUTILEMATMUL
#include "codegen/GPU/Passes.h.inc"
} // namespace rlx

using namespace mlir;

namespace {

struct MatmulKernelBuilder {
  OpBuilder &b;
  Location loc;
  Type element;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value zero() {
    if (isa<FloatType>(element))
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, 0));
  }
  Value multiplyAdd(Value acc, Value x, Value y) {
    if (isa<FloatType>(element))
      return arith::AddFOp::create(b, loc, acc,
                                   arith::MulFOp::create(b, loc, x, y));
    return arith::AddIOp::create(b, loc, acc,
                                 arith::MulIOp::create(b, loc, x, y));
  }
  Value less(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  /// `buffer[indices]` when `inBounds`, else zero.
  Value guardedLoad(Value inBounds, Value buffer, ValueRange indices) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{element}, inBounds,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value loaded = memref::LoadOp::create(b, loc, buffer, indices);
    scf::YieldOp::create(b, loc, loaded);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, zero());
    return ifOp.getResult(0);
  }
};

struct RLXGPUTileMatmulPass
    : rlx::impl::RLXGPUTileMatmulBase<RLXGPUTileMatmulPass> {
  using Base::Base;

  void tileMatmul(linalg::LinalgOp op) {
    bool batched = isa<linalg::BatchMatmulOp>(op);
    Value a = op.getDpsInputs()[0], bMat = op.getDpsInputs()[1];
    Value c = op.getDpsInits()[0];
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type element = cast<MemRefType>(c.getType()).getElementType();
    MatmulKernelBuilder k{b, loc, element};
    int64_t first = batched ? 1 : 0;
    auto dim = [&](Value v, int64_t d) -> Value {
      return memref::DimOp::create(b, loc, v, d);
    };
    Value m = dim(c, first), n = dim(c, first + 1), kSize = dim(a, first + 1);
    Value batch = batched ? dim(c, 0) : k.index(1);
    Value t = k.index(tile);
    Value gridX = arith::CeilDivSIOp::create(b, loc, n, t);
    Value gridY = arith::CeilDivSIOp::create(b, loc, m, t);
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto tileType =
        MemRefType::get({int64_t(tile), int64_t(tile)}, element, AffineMap(), workgroup);
    auto launch = gpu::LaunchOp::create(
        b, loc, gridX, gridY, batch, t, t, k.index(1),
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/ValueRange{},
        /*workgroupAttributions=*/TypeRange{tileType, tileType});
    Block &body = launch.getBody().front();
    b.setInsertionPointToEnd(&body);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);
    Value aTile = launch.getWorkgroupAttributions()[0];
    Value bTile = launch.getWorkgroupAttributions()[1];
    Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
    Value bz = launch.getBlockIds().z;
    Value tt = k.index(tile);
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().y, tt), ty);
    Value col = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, tt), tx);
    auto at = [&](Value i, Value j) {
      return batched ? SmallVector<Value>{bz, i, j} : SmallVector<Value>{i, j};
    };
    Value rowIn = k.less(row, m), colIn = k.less(col, n);

    auto steps = scf::ForOp::create(b, loc, k.index(0), kSize, tt,
                                    ValueRange{k.zero()});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k0 = steps.getInductionVar();
      Value acc = steps.getRegionIterArgs()[0];
      Value ka = arith::AddIOp::create(b, loc, k0, tx);
      Value aIn = arith::AndIOp::create(b, loc, rowIn, k.less(ka, kSize));
      memref::StoreOp::create(b, loc, k.guardedLoad(aIn, a, at(row, ka)),
                              aTile, ValueRange{ty, tx});
      Value kb = arith::AddIOp::create(b, loc, k0, ty);
      Value bIn = arith::AndIOp::create(b, loc, k.less(kb, kSize), colIn);
      memref::StoreOp::create(b, loc, k.guardedLoad(bIn, bMat, at(kb, col)),
                              bTile, ValueRange{ty, tx});
      gpu::BarrierOp::create(b, loc);
      auto inner = scf::ForOp::create(b, loc, k.index(0), tt, k.index(1),
                                      ValueRange{acc});
      {
        OpBuilder::InsertionGuard innerGuard(b);
        b.setInsertionPointToStart(inner.getBody());
        Value kk = inner.getInductionVar();
        Value x = memref::LoadOp::create(b, loc, aTile, ValueRange{ty, kk});
        Value y = memref::LoadOp::create(b, loc, bTile, ValueRange{kk, tx});
        scf::YieldOp::create(
            b, loc, k.multiplyAdd(inner.getRegionIterArgs()[0], x, y));
      }
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, inner.getResult(0));
    }
    // linalg.matmul accumulates into C.
    auto store = scf::IfOp::create(b, loc,
                                   arith::AndIOp::create(b, loc, rowIn, colIn),
                                   /*withElseRegion=*/false);
    b.setInsertionPointToStart(store.thenBlock());
    Value old = memref::LoadOp::create(b, loc, c, at(row, col));
    Value sum = isa<FloatType>(element)
                    ? arith::AddFOp::create(b, loc, old, steps.getResult(0))
                          .getResult()
                    : arith::AddIOp::create(b, loc, old, steps.getResult(0))
                          .getResult();
    memref::StoreOp::create(b, loc, sum, c, at(row, col));
    op->erase();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      if (auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation());
          mm && !mm.hasUserDefinedMaps())
        matmuls.push_back(op);
      if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation());
          bmm && !bmm.hasUserDefinedMaps())
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls)
      tileMatmul(op);
  }
};

} // namespace
