//===- Im2colRows.cpp - An im2col copy rebuilt per row tile ---------------===//

#include "codegen/CPU/Im2colRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExprVisitor.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The coefficients of `expr` on each of `numDims` dims, then its constant,
/// if it is linear in them (no floordiv, mod or symbol).
std::optional<SmallVector<int64_t>> linearCoefficients(AffineExpr expr,
                                                       unsigned numDims) {
  SimpleAffineExprFlattener flattener(numDims, /*numSymbols=*/0);
  if (failed(flattener.walkPostOrder(expr)) || flattener.numLocals != 0)
    return std::nullopt;
  return llvm::to_vector(flattener.operandExprStack.back());
}

/// Whether `coefficients` (dims then constant) are `expected` with any
/// positive value where `expected` has -1 (a stride read into `out`).
bool hasCoefficients(ArrayRef<int64_t> coefficients, ArrayRef<int64_t> expected,
                     SmallVectorImpl<int64_t> &out) {
  if (coefficients.size() != expected.size())
    return false;
  for (auto [got, want] : llvm::zip(coefficients, expected)) {
    if (want == -1) {
      if (got < 1)
        return false;
      out.push_back(got);
    } else if (got != want) {
      return false;
    }
  }
  return true;
}

} // namespace

std::optional<Im2colRows> mlir::rlx::matchIm2colRows(Value lhs) {
  // Read by the matmul alone; sizes taken of it are replaced by the fusion.
  auto collapse = lhs.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || llvm::count_if(lhs.getUsers(), [](Operation *user) {
                     return !isa<tensor::DimOp>(user);
                   }) != 1)
    return std::nullopt;
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  if (groups.size() != 2 || groups[0] != ReassociationIndices{0, 1, 2} ||
      groups[1] != ReassociationIndices{3, 4})
    return std::nullopt;
  auto copy = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!copy || !copy->hasOneUse() || !copy.hasPureTensorSemantics() ||
      copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 ||
      copy.getNumLoops() != 5 ||
      copy.getNumParallelLoops() != copy.getNumLoops() ||
      !copy.getIndexingMapsArray().back().isIdentity())
    return std::nullopt;
  auto pixels = copy.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
  if (!pixels)
    return std::nullopt;
  // The body only forwards the input.
  Block &body = copy.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body.getArgument(0))
    return std::nullopt;
  auto outType = cast<RankedTensorType>(copy->getResult(0).getType());
  auto sourceType =
      dyn_cast<RankedTensorType>(copy.getDpsInputs()[0].getType());
  if (!sourceType || sourceType.getRank() != 3 ||
      sourceType.getElementType() != outType.getElementType() ||
      outType.isDynamicDim(3) || outType.isDynamicDim(4))
    return std::nullopt;
  // (n, oh, ow, kh, j) -> (n, oh * rowStep + kh * windowRowStep,
  //                        ow * columnStep + j).
  AffineMap map = copy.getIndexingMapsArray().front();
  if (map.getNumSymbols() != 0 || map.getNumResults() != 3)
    return std::nullopt;
  SmallVector<int64_t> steps;
  const SmallVector<SmallVector<int64_t>> expected = {
      {1, 0, 0, 0, 0, 0}, {0, -1, 0, -1, 0, 0}, {0, 0, -1, 0, 1, 0}};
  for (auto [expr, want] : llvm::zip(map.getResults(), expected)) {
    std::optional<SmallVector<int64_t>> coefficients =
        linearCoefficients(expr, 5);
    if (!coefficients || !hasCoefficients(*coefficients, want, steps))
      return std::nullopt;
  }
  return Im2colRows{
      copy,     pixels,   copy.getDpsInputs()[0], steps[0],
      steps[1], steps[2], outType.getDimSize(3),  outType.getDimSize(4)};
}

SmallVector<OpFoldResult> mlir::rlx::im2colPixelSizes(const Im2colRows &rows) {
  return llvm::to_vector(
      ArrayRef(tensor::EmptyOp(rows.pixels).getMixedSizes()).take_front(3));
}

Value mlir::rlx::buildIm2colTile(OpBuilder &b, Location loc,
                                 const Im2colRows &rows, OpFoldResult row,
                                 OpFoldResult tileRows) {
  Type element = cast<RankedTensorType>(rows.source.getType()).getElementType();
  auto index = [&](OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(b, loc, v);
  };
  SmallVector<OpFoldResult> pixels = im2colPixelSizes(rows);
  Value outH = index(pixels[1]), outW = index(pixels[2]);
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  SmallVector<OpFoldResult> tileShape = {
      tileRows, b.getIndexAttr(rows.windowRows), b.getIndexAttr(rows.run)};
  Value tile = tensor::EmptyOp::create(b, loc, tileShape, element);
  auto windowType = RankedTensorType::get({rows.windowRows, rows.run}, element);
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> windowSizes = {one, b.getIndexAttr(rows.windowRows),
                                           b.getIndexAttr(rows.run)};
  auto loop = scf::ForOp::create(
      b, loc, constant(0), index(tileRows), constant(1), ValueRange{tile},
      [&](OpBuilder &nb, Location loc, Value r, ValueRange iterArgs) {
        // The output pixel (n, oh, ow) of row `row + r`.
        Value m = arith::AddIOp::create(nb, loc, index(row), r);
        Value ow = arith::RemUIOp::create(nb, loc, m, outW);
        Value pixelRow = arith::DivUIOp::create(nb, loc, m, outW);
        Value oh = arith::RemUIOp::create(nb, loc, pixelRow, outH);
        Value n = arith::DivUIOp::create(nb, loc, pixelRow, outH);
        auto times = [&](Value v, int64_t step) -> OpFoldResult {
          if (step == 1)
            return v;
          return arith::MulIOp::create(
                     nb, loc, v, arith::ConstantIndexOp::create(nb, loc, step))
              .getResult();
        };
        // Its KH window rows of KW*C values, one strided slice.
        Value window = tensor::ExtractSliceOp::create(
            nb, loc, windowType, rows.source,
            ArrayRef<OpFoldResult>{n, times(oh, rows.rowStep),
                                   times(ow, rows.columnStep)},
            windowSizes,
            ArrayRef<OpFoldResult>{one, nb.getIndexAttr(rows.windowRowStep),
                                   one});
        SmallVector<OpFoldResult> at = {r, zero, zero};
        SmallVector<OpFoldResult> unit = {one, one, one};
        Value slot = tensor::ExtractSliceOp::create(
            nb, loc, windowType, iterArgs[0], at, windowSizes, unit);
        Value copied =
            linalg::CopyOp::create(nb, loc, window, slot).getResult(0);
        scf::YieldOp::create(nb, loc,
                             tensor::InsertSliceOp::create(nb, loc, copied,
                                                           iterArgs[0], at,
                                                           windowSizes, unit)
                                 .getResult());
      });
  return tensor::CollapseShapeOp::create(
      b, loc, loop.getResult(0), ArrayRef<ReassociationIndices>{{0}, {1, 2}});
}
