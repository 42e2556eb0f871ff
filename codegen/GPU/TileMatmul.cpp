//===- TileMatmul.cpp - Matmuls as workgroup-tiled GPU kernels ------------===//
///
/// \file
/// A matmul mapped one thread per output reads each A and B element from
/// device memory once per output that uses it. Here each block of T x T
/// threads computes a (T*R) x (T*R) tile of C: per step of T along K, its
/// threads stage a (T*R) x T tile of A and a T x (T*R) tile of B in
/// workgroup (shared) memory, R elements each, and every thread accumulates
/// its R x R outputs in registers from the staged tiles, so each element of
/// A and B is read from device memory once per block and from workgroup
/// memory once per R outputs. Partial tiles at the edges load zeros.
/// Batched matmuls use the grid's z dimension.
///
//===----------------------------------------------------------------------===//

#include "codegen/GPU/Passes.h"

#include <array>

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUTILEMATMUL
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

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
    : mlir::rlx::impl::RLXGPUTileMatmulBase<RLXGPUTileMatmulPass> {
  using Base::Base;

  void tileMatmul(linalg::LinalgOp op) {
    bool batched = isa<linalg::BatchMatmulOp>(op);
    Value a = op.getDpsInputs()[0], bMat = op.getDpsInputs()[1];
    Value c = op.getDpsInits()[0];
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type element = cast<MemRefType>(c.getType()).getElementType();
    MatmulKernelBuilder k{b, loc, element};
    // T x T threads; each computes R x R outputs, rows ty + T*i and
    // columns tx + T*j of the block's (T*R) x (T*R) tile (consecutive
    // threads on consecutive columns: coalesced loads and stores, no bank
    // conflicts); K advances T at a time.
    const int64_t t = tile, r = outputsPerThread, span = t * r;
    int64_t first = batched ? 1 : 0;
    auto dim = [&](Value v, int64_t d) -> Value {
      return memref::DimOp::create(b, loc, v, d);
    };
    Value m = dim(c, first), n = dim(c, first + 1), kSize = dim(a, first + 1);
    Value batch = batched ? dim(c, 0) : k.index(1);
    Value gridX = arith::CeilDivSIOp::create(b, loc, n, k.index(span));
    Value gridY = arith::CeilDivSIOp::create(b, loc, m, k.index(span));
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto aTileType = MemRefType::get({span, t}, element, AffineMap(), workgroup);
    auto bTileType = MemRefType::get({t, span}, element, AffineMap(), workgroup);
    auto launch = gpu::LaunchOp::create(
        b, loc, gridX, gridY, batch, k.index(t), k.index(t), k.index(1),
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/ValueRange{},
        /*workgroupAttributions=*/TypeRange{aTileType, bTileType});
    Block &body = launch.getBody().front();
    b.setInsertionPointToEnd(&body);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);
    Value aTile = launch.getWorkgroupAttributions()[0];
    Value bTile = launch.getWorkgroupAttributions()[1];
    Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
    Value bz = launch.getBlockIds().z;
    Value rowBase = arith::MulIOp::create(b, loc, launch.getBlockIds().y,
                                          k.index(span));
    Value colBase = arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                                          k.index(span));
    Value tid = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, ty, k.index(t)), tx);
    auto at = [&](Value i, Value j) {
      return batched ? SmallVector<Value>{bz, i, j} : SmallVector<Value>{i, j};
    };
    auto add = [&](Value x, int64_t y) -> Value {
      return arith::AddIOp::create(b, loc, x, k.index(y));
    };

    SmallVector<Value> zeros(r * r, k.zero());
    auto steps = scf::ForOp::create(b, loc, k.index(0), kSize, k.index(t),
                                    zeros);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k0 = steps.getInductionVar();
      // Stage the tiles: each thread copies r elements of each. Element
      // idx of a tile with `cols` columns is (idx / cols, idx % cols), at
      // `origin` in the source, zero outside `limits`.
      auto stage = [&](Value tileBuffer, Value source, int64_t cols,
                       std::array<Value, 2> origin,
                       std::array<Value, 2> limits) {
        for (int64_t e = 0; e < r; ++e) {
          Value idx = add(tid, e * t * t);
          Value row = arith::DivUIOp::create(b, loc, idx, k.index(cols));
          Value col = arith::RemUIOp::create(b, loc, idx, k.index(cols));
          Value gRow = arith::AddIOp::create(b, loc, origin[0], row);
          Value gCol = arith::AddIOp::create(b, loc, origin[1], col);
          Value inBounds = arith::AndIOp::create(
              b, loc, k.less(gRow, limits[0]), k.less(gCol, limits[1]));
          memref::StoreOp::create(
              b, loc, k.guardedLoad(inBounds, source, at(gRow, gCol)),
              tileBuffer, ValueRange{row, col});
        }
      };
      stage(aTile, a, t, {rowBase, k0}, {m, kSize});
      stage(bTile, bMat, span, {k0, colBase}, {kSize, n});
      gpu::BarrierOp::create(b, loc);
      auto inner = scf::ForOp::create(b, loc, k.index(0), k.index(t),
                                      k.index(1), steps.getRegionIterArgs());
      {
        OpBuilder::InsertionGuard innerGuard(b);
        b.setInsertionPointToStart(inner.getBody());
        Value kk = inner.getInductionVar();
        SmallVector<Value> as, bs;
        for (int64_t i = 0; i < r; ++i)
          as.push_back(memref::LoadOp::create(b, loc, aTile,
                                              ValueRange{add(ty, t * i), kk}));
        for (int64_t j = 0; j < r; ++j)
          bs.push_back(memref::LoadOp::create(b, loc, bTile,
                                              ValueRange{kk, add(tx, t * j)}));
        SmallVector<Value> next;
        for (int64_t i = 0; i < r; ++i)
          for (int64_t j = 0; j < r; ++j)
            next.push_back(k.multiplyAdd(inner.getRegionIterArgs()[i * r + j],
                                         as[i], bs[j]));
        scf::YieldOp::create(b, loc, next);
      }
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, inner.getResults());
    }
    // linalg.matmul accumulates into C.
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < r; ++j) {
        Value row = add(arith::AddIOp::create(b, loc, rowBase, ty), t * i);
        Value col = add(arith::AddIOp::create(b, loc, colBase, tx), t * j);
        auto store = scf::IfOp::create(
            b, loc,
            arith::AndIOp::create(b, loc, k.less(row, m), k.less(col, n)),
            /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(store.thenBlock());
        Value old = memref::LoadOp::create(b, loc, c, at(row, col));
        Value result = steps.getResult(i * r + j);
        Value sum =
            isa<FloatType>(element)
                ? arith::AddFOp::create(b, loc, old, result).getResult()
                : arith::AddIOp::create(b, loc, old, result).getResult();
        memref::StoreOp::create(b, loc, sum, c, at(row, col));
      }
    op->erase();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      // The kernel computes in C's element type; mixed-type matmuls (f16 x
      // f16 -> f32, ...) take the loop mapping, unless a CUDA compile's
      // rlx-gpu-tensor-core-matmul took them first.
      if (!op.hasPureBufferSemantics() ||
          llvm::any_of(op->getOperandTypes(), [&](Type type) {
            return getElementTypeOrSelf(type) !=
                   getElementTypeOrSelf(op->getOperand(0).getType());
          }))
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
