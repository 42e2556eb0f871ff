//===- AmxTiles.cpp - Matmul tiles on AMX tile registers ------------------===//
///
/// \file
/// The tiles are SSA values of MLIR's amx dialect: LLVM's X86 backend
/// assigns them to tmm0-7, writes the tile configuration (ldtilecfg) once
/// at the function's entry from their static shapes, and releases it at
/// its exits, so the loop below carries the accumulators in registers.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/AmxTiles.h"
#include "dialects/RLX/IR/DotOperandLayout.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::rlx::amx_tiles {

namespace {
/// Bytes of a tile row: 16 lanes of 32 bits.
constexpr int64_t kRowBytes = 64;
constexpr int64_t kPanelColumns = rlx::dot_layout::kPanelColumns;
constexpr int64_t kColumnTiles = kPanelColumns / kTileRows;
} // namespace

int64_t tileK(bool int8) { return int8 ? kRowBytes : kRowBytes / 2; }

void emitPanelTiles(OpBuilder &b, Location loc, bool int8, Value aMatrix,
                    Value packed, Value cMatrix, Value row0, Value panel,
                    int64_t rowTiles, Value kTiles) {
  Type element = int8 ? Type(b.getIntegerType(8)) : Type(b.getBF16Type());
  Type accElement =
      int8 ? Type(b.getIntegerType(32)) : Type(b.getF32Type());
  int64_t group = int8 ? 4 : 2;
  auto operandTile = amx::TileType::get({kTileRows, tileK(int8)}, element);
  auto accTile = amx::TileType::get({kTileRows, kTileRows}, accElement);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, index(y));
  };
  Value col0 = mul(panel, kPanelColumns);
  auto cIndex = [&](int64_t r, int64_t h) {
    return SmallVector<Value>{add(row0, index(r * kTileRows)),
                              add(col0, index(h * kTileRows))};
  };
  SmallVector<Value> accs;
  for (int64_t r = 0; r < rowTiles; ++r)
    for (int64_t h = 0; h < kColumnTiles; ++h)
      accs.push_back(
          amx::TileLoadOp::create(b, loc, accTile, cMatrix, cIndex(r, h)));

  // A packed row holds the panel's 32 columns' groups: one half is a
  // B tile's row, the next group row is 32 * G elements on.
  Value packedStride = index(kPanelColumns * group);
  auto loop = scf::ForOp::create(
      b, loc, index(0), kTiles, index(1), accs,
      [&](OpBuilder &nested, Location, Value kt, ValueRange in) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nested.getInsertionBlock());
        Value k0 = mul(kt, tileK(int8));
        Value g0 = mul(kt, kTileRows);
        SmallVector<Value> aTiles, bTiles;
        for (int64_t r = 0; r < rowTiles; ++r)
          aTiles.push_back(amx::TileLoadOp::create(
              b, loc, operandTile, aMatrix,
              ValueRange{add(row0, index(r * kTileRows)), k0}));
        for (int64_t h = 0; h < kColumnTiles; ++h)
          bTiles.push_back(amx::TileLoadOp::create(
              b, loc, operandTile, packed,
              ValueRange{panel, g0, index(h * kTileRows * group)},
              packedStride));
        SmallVector<Value> out;
        for (int64_t r = 0; r < rowTiles; ++r)
          for (int64_t h = 0; h < kColumnTiles; ++h) {
            Value acc = in[r * kColumnTiles + h];
            out.push_back(
                int8 ? amx::TileMulIOp::create(b, loc, accTile, aTiles[r],
                                               bTiles[h], acc,
                                               /*isZextLhs=*/false,
                                               /*isZextRhs=*/true)
                           .getResult()
                     : amx::TileMulFOp::create(b, loc, accTile, aTiles[r],
                                               bTiles[h], acc)
                           .getResult());
          }
        scf::YieldOp::create(b, loc, out);
      });
  for (int64_t r = 0; r < rowTiles; ++r)
    for (int64_t h = 0; h < kColumnTiles; ++h)
      amx::TileStoreOp::create(b, loc, cMatrix, cIndex(r, h),
                               loop.getResult(r * kColumnTiles + h));
}

} // namespace mlir::rlx::amx_tiles
