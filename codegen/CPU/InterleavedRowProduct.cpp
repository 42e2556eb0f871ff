//===- InterleavedRowProduct.cpp - A row or two of A by a panel -----------===//
//
// See InterleavedRowProduct.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/CPU/InterleavedRowProduct.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// Partial sums per column vector: FMA latency (4 cycles on Zen 3) times
/// the two FMA units, over the two vectors of a row of a 16-column panel.
constexpr int64_t kChains = 4;

/// A static f32 memref of rank 2 whose rows are unit-stride.
bool isStaticF32Matrix(MemRefType type) {
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !type.getElementType().isF32())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

} // namespace

bool mlir::rlx::buildInterleavedRowProduct(OpBuilder &b, Location loc, Value a,
                                           bool aTransposed, Value bBlock,
                                           Value c, Value fromZero) {
  auto aType = dyn_cast<MemRefType>(a.getType());
  auto bType = dyn_cast<MemRefType>(bBlock.getType());
  auto cType = dyn_cast<MemRefType>(c.getType());
  if (!aType || aType.getRank() != 2 || !aType.hasStaticShape() ||
      !aType.getElementType().isF32() || !isStaticF32Matrix(bType) ||
      !isStaticF32Matrix(cType))
    return false;
  int64_t rows = aType.getDimSize(aTransposed ? 1 : 0);
  int64_t k = aType.getDimSize(aTransposed ? 0 : 1);
  int64_t n = bType.getDimSize(1);
  if (rows < 1 || rows > 2 || bType.getDimSize(0) != k ||
      cType.getDimSize(0) != rows || cType.getDimSize(1) != n)
    return false;
  int64_t interleave = kChains / rows;
  if (k % interleave != 0)
    return false;

  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto vectorType = VectorType::get({n}, b.getF32Type());
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vectorType, 0.0f));
  Value padding = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  // Partial sums in the order (step within the interleave, row).
  SmallVector<Value> inits(interleave * rows, zeros);
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(k), index(interleave), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> sums;
    for (int64_t step = 0; step < interleave; ++step) {
      Value kk = loop.getInductionVar();
      if (step > 0)
        kk = arith::AddIOp::create(b, loc, kk, index(step));
      Value bRow = vector::TransferReadOp::create(
          b, loc, vectorType, bBlock, ValueRange{kk, index(0)}, padding,
          ArrayRef<bool>{true});
      for (int64_t row = 0; row < rows; ++row) {
        Value at =
            memref::LoadOp::create(b, loc, a,
                                   aTransposed ? ValueRange{kk, index(row)}
                                               : ValueRange{index(row), kk});
        Value splat = vector::BroadcastOp::create(b, loc, vectorType, at);
        sums.push_back(vector::FMAOp::create(
            b, loc, splat, bRow, loop.getRegionIterArgs()[step * rows + row]));
      }
    }
    scf::YieldOp::create(b, loc, sums);
  }
  for (int64_t row = 0; row < rows; ++row) {
    Value sum = loop.getResult(row);
    for (int64_t step = 1; step < interleave; ++step)
      sum =
          arith::AddFOp::create(b, loc, sum, loop.getResult(step * rows + row));
    Value old = vector::TransferReadOp::create(b, loc, vectorType, c,
                                               ValueRange{index(row), index(0)},
                                               padding, ArrayRef<bool>{true});
    if (fromZero)
      old = arith::SelectOp::create(b, loc, fromZero, zeros, old);
    vector::TransferWriteOp::create(
        b, loc, arith::AddFOp::create(b, loc, old, sum), c,
        ValueRange{index(row), index(0)}, ArrayRef<bool>{true});
  }
  return true;
}
