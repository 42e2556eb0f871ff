//===- DotOperandsToLinalg.cpp - Packed weights to linalg -----------------===//
///
/// \file
/// rlx.pack_dot_operand, rlx.unpack_dot_operand, and the matmul that reads
/// a packed weight through an unpack. That matmul is one linalg.generic
/// over (m, n, k) reading the packed tensor at (n / P, k / G, (n % P) *
/// G + k % G) (P columns per panel: 32, or 16 for the f32 kernel on AVX2),
/// marked `rlx.packed_rhs` for rlx-cpu-dot-product-matmul;
/// its body is the exact product, so any other lowering of it (loops) is
/// correct too. A block-scaled weight whose codes and scales are both
/// packed (rlx.block_dequantize of two unpacks) is read the same way: the
/// generic reads the code at (n / P, k, n % P) and its scale at (n / P,
/// k / block_size, n % P), dequantizes and multiplies, and carries the
/// block size for the f32 kernel (rlx-cpu-vectorize-matmul), which
/// expands it into panels decoded one K block at a time. The pack is an
/// affine copy of the zero-padded weight; an
/// unpack read by anything but a matmul's or conv's B is an affine copy
/// back.
///
//===----------------------------------------------------------------------===//

#include "conversion/RLXToLinalg/BlockDequantize.h"
#include "conversion/RLXToLinalg/LinalgBuilders.h"
#include "conversion/RLXToLinalg/PackedMatmul.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "dialects/RLX/IR/DotOperandLayout.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Where element (k, n) of a [K, N] operand lies in its packed layout
/// `packed`, as the three results of a map over `dims` with k and n the
/// dims `kDim` and `nDim`.
AffineMap packedPositionMap(MLIRContext *ctx, unsigned dims, unsigned kDim,
                            unsigned nDim, RankedTensorType packed) {
  AffineExpr k = getAffineDimExpr(kDim, ctx), n = getAffineDimExpr(nDim, ctx);
  int64_t group = dot_layout::packedGroup(packed);
  int64_t columns = dot_layout::packedPanelColumns(packed);
  return AffineMap::get(dims, 0,
                        {n.floorDiv(columns), k.floorDiv(group),
                         (n % columns) * group + k % group},
                        ctx);
}

/// `v` with its sign bit flipped when the layout offsets the type by 128
/// in groups of `group` (the same operation packs and unpacks).
Value offsetBy128(OpBuilder &b, Location loc, Value v, int64_t group) {
  if (!dot_layout::isOffsetBy128(v.getType(), group))
    return v;
  return arith::XOrIOp::create(
      b, loc, v,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(v.getType(), -128)));
}

/// An element as the layout in groups of `group` stores it: i8 offset by
/// 128 in groups of 4, a sub-byte code in the low bits of a byte
/// (DotOperandLayout.h), others as they are.
Value toStored(OpBuilder &b, Location loc, Value v, int64_t group) {
  Type stored = dot_layout::storedElementType(v.getType());
  if (stored == v.getType())
    return offsetBy128(b, loc, v, group);
  Value bits = v;
  if (isa<FloatType>(v.getType()))
    bits = arith::BitcastOp::create(
        b, loc, b.getIntegerType(v.getType().getIntOrFloatBitWidth()), v);
  return arith::ExtUIOp::create(b, loc, stored, bits);
}

/// The inverse of toStored, back to `element` (the bits above a sub-byte
/// code are dropped).
Value fromStored(OpBuilder &b, Location loc, Value v, Type element,
                 int64_t group) {
  if (v.getType() == element)
    return offsetBy128(b, loc, v, group);
  unsigned width = element.getIntOrFloatBitWidth();
  Value bits = arith::TruncIOp::create(b, loc, b.getIntegerType(width), v);
  if (!isa<FloatType>(element))
    return bits;
  return arith::BitcastOp::create(b, loc, element, bits);
}

/// The leading dims of a rank-`rank` tensor as one, the last as another:
/// [..., N] <-> [K, N].
SmallVector<ReassociationIndices> leadingDimsAsOne(int64_t rank) {
  ReassociationIndices front;
  for (int64_t d = 0; d + 1 < rank; ++d)
    front.push_back(d);
  return {front, {rank - 1}};
}

/// `b` ([..., N] static) as [K, N].
Value asMatrix(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getRank() == 2)
    return tensor;
  return tensor::CollapseShapeOp::create(b, loc, tensor,
                                         leadingDimsAsOne(type.getRank()));
}

struct PackDotOperandPattern : OpRewritePattern<PackDotOperandOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PackDotOperandOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType packedType = op.getType();
    Type element = op.getB().getType().getElementType();
    int64_t group = dot_layout::packedGroup(packedType);
    Value matrix = asMatrix(rewriter, loc, op.getB());
    auto matrixType = cast<RankedTensorType>(matrix.getType());
    // Zeros up to whole groups and panels, then one affine copy. (Only
    // where B has partial ones: f8E8M0FNU scales have no zero.)
    int64_t paddedK = packedType.getDimSize(1) * group;
    int64_t columns = dot_layout::packedPanelColumns(packedType);
    int64_t paddedN = packedType.getDimSize(0) * columns;
    Value padded = matrix;
    if (paddedK != matrixType.getDimSize(0) ||
        paddedN != matrixType.getDimSize(1)) {
      SmallVector<OpFoldResult> low(2, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> high = {
          rewriter.getIndexAttr(paddedK - matrixType.getDimSize(0)),
          rewriter.getIndexAttr(paddedN - matrixType.getDimSize(1))};
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getZeroAttr(element));
      padded = tensor::PadOp::create(
          rewriter, loc, RankedTensorType::get({paddedK, paddedN}, element),
          matrix, low, high, zero);
    }
    // Loops (p, g, j): B[G * g + j % G, columns * p + j / G].
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr p = getAffineDimExpr(0, ctx), g = getAffineDimExpr(1, ctx),
               j = getAffineDimExpr(2, ctx);
    AffineMap read = AffineMap::get(
        3, 0, {g * group + j % group, p * columns + j.floorDiv(group)}, ctx);
    Value init = emptyTensor(rewriter, loc, packedType, {});
    auto copy = linalg::GenericOp::create(
        rewriter, loc, TypeRange{packedType}, ValueRange{padded},
        ValueRange{init},
        ArrayRef<AffineMap>{read, rewriter.getMultiDimIdentityMap(3)},
        SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, toStored(b, l, args[0], group));
        });
    rewriter.replaceOp(op, copy.getResult(0));
    return success();
  }
};

} // namespace

UnpackDotOperandOp mlir::rlx::packedSource(Value rhs) {
  if (auto collapse = rhs.getDefiningOp<tensor::CollapseShapeOp>())
    rhs = collapse.getSrc();
  auto unpack = rhs.getDefiningOp<UnpackDotOperandOp>();
  // Only a type's default group is a kernel's layout (i8 in groups of 1,
  // a block-scaled weight's codes, is unpacked for any other reader).
  if (unpack && dot_layout::packedGroup(unpack.getPacked().getType()) !=
                    dot_layout::groupSize(unpack.getType().getElementType()))
    return {};
  return unpack;
}

Value mlir::rlx::buildPackedMatmul(OpBuilder &b, Location loc, Value lhs,
                                   UnpackDotOperandOp unpack, Value acc) {
  MLIRContext *ctx = b.getContext();
  Value packed = unpack.getPacked();
  RankedTensorType packedType = unpack.getPacked().getType();
  int64_t group = dot_layout::packedGroup(packedType);
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {m, k}, ctx),
                                 packedPositionMap(ctx, 3, 2, 1, packedType),
                                 AffineMap::get(3, 0, {m, n}, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{acc.getType()}, ValueRange{lhs, packed},
      ValueRange{acc}, maps,
      {utils::IteratorType::parallel, utils::IteratorType::parallel,
       utils::IteratorType::reduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Type accType = args[2].getType();
        Value a = args[0], w = offsetBy128(nb, l, args[1], group), sum;
        if (isa<FloatType>(accType)) {
          if (a.getType() != accType) {
            a = arith::ExtFOp::create(nb, l, accType, a);
            w = arith::ExtFOp::create(nb, l, accType, w);
          }
          sum = arith::AddFOp::create(nb, l, args[2],
                                      arith::MulFOp::create(nb, l, a, w));
        } else {
          a = arith::ExtSIOp::create(nb, l, accType, a);
          w = arith::ExtSIOp::create(nb, l, accType, w);
          sum = arith::AddIOp::create(nb, l, args[2],
                                      arith::MulIOp::create(nb, l, a, w));
        }
        linalg::YieldOp::create(nb, l, sum);
      });
  generic->setAttr(dot_layout::kPackedRhsAttrName, b.getUnitAttr());
  return generic.getResult(0);
}

BlockDequantizeOp mlir::rlx::packedBlockScaledSource(Value rhs) {
  auto dequantize = rhs.getDefiningOp<BlockDequantizeOp>();
  if (!dequantize || dequantize.getAxis() != 0 ||
      !dequantize.getType().getElementType().isF32() ||
      dequantize.getX().getType().getRank() != 2)
    return {};
  // Both in the f32 panels (G = 1): the product reads them so. bf16 (and
  // i8 in groups of 4) have the dot-product kernels' layouts.
  int64_t columns = 0;
  for (Value operand :
       {Value(dequantize.getX()), Value(dequantize.getScales())}) {
    auto unpack = operand.getDefiningOp<UnpackDotOperandOp>();
    if (!unpack || dot_layout::packedGroup(unpack.getPacked().getType()) != 1)
      return {};
    int64_t width =
        dot_layout::packedPanelColumns(unpack.getPacked().getType());
    if (columns && width != columns)
      return {};
    columns = width;
  }
  return dequantize;
}

Value mlir::rlx::buildPackedBlockScaledMatmul(OpBuilder &b, Location loc,
                                              Value lhs,
                                              BlockDequantizeOp dequantize,
                                              Value acc) {
  MLIRContext *ctx = b.getContext();
  auto codes = dequantize.getX().getDefiningOp<UnpackDotOperandOp>();
  auto scales = dequantize.getScales().getDefiningOp<UnpackDotOperandOp>();
  int64_t blockSize = dequantize.getBlockSize();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  // Codes and scales in panels of one width (packedBlockScaledSource).
  RankedTensorType codesType = codes.getPacked().getType();
  int64_t columns = dot_layout::packedPanelColumns(codesType);
  SmallVector<AffineMap> maps = {
      AffineMap::get(3, 0, {m, k}, ctx),
      packedPositionMap(ctx, 3, 2, 1, codesType),
      AffineMap::get(
          3, 0, {n.floorDiv(columns), k.floorDiv(blockSize), n % columns}, ctx),
      AffineMap::get(3, 0, {m, n}, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{acc.getType()},
      ValueRange{lhs, codes.getPacked(), scales.getPacked()}, ValueRange{acc},
      maps,
      {utils::IteratorType::parallel, utils::IteratorType::parallel,
       utils::IteratorType::reduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        // The weight's element first, from the code and scale alone (the
        // kernel decodes panels by cloning these ops), then the product.
        Type codeType = dequantize.getX().getType().getElementType();
        Value code = fromStored(nb, l, args[1], codeType, /*group=*/1);
        // Only the CPU packs weights: its codes decode through f16.
        Value w = blockDequantizedElement(nb, l, dequantize, code, args[2],
                                          /*throughF16=*/true);
        Value sum = arith::AddFOp::create(
            nb, l, args[3], arith::MulFOp::create(nb, l, args[0], w));
        linalg::YieldOp::create(nb, l, sum);
      });
  generic->setAttr(dot_layout::kPackedRhsAttrName, b.getUnitAttr());
  generic->setAttr(dot_layout::kScaleBlockAttrName,
                   b.getI64IntegerAttr(blockSize));
  return generic.getResult(0);
}

Value mlir::rlx::buildUnpack(OpBuilder &b, Location loc,
                             UnpackDotOperandOp op) {
  RankedTensorType type = op.getType();
  Type element = type.getElementType();
  auto [k, n] = dot_layout::asMatrix(type.getShape());
  auto matrixType = RankedTensorType::get({k, n}, element);
  int64_t group = dot_layout::packedGroup(op.getPacked().getType());
  AffineMap read =
      packedPositionMap(b.getContext(), 2, 0, 1, op.getPacked().getType());
  Value init = emptyTensor(b, loc, matrixType, {});
  auto copy = linalg::GenericOp::create(
      b, loc, TypeRange{matrixType}, ValueRange{op.getPacked()},
      ValueRange{init}, ArrayRef<AffineMap>{read, b.getMultiDimIdentityMap(2)},
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l,
                                fromStored(nb, l, args[0], element, group));
      });
  Value matrix = copy.getResult(0);
  if (type.getRank() == 2)
    return matrix;
  return tensor::ExpandShapeOp::create(b, loc, type, matrix,
                                       leadingDimsAsOne(type.getRank()));
}

void mlir::rlx::populateDotOperandsToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<PackDotOperandPattern>(patterns.getContext());
}
