//===- PackDotOperands.cpp - Weights prepacked for the dot-product kernels ===//
///
/// \file
/// rlx-pack-dot-operands: the CPU's int8 and bf16 matmul kernel
/// (rlx-cpu-dot-product-matmul) reads B in its own layout, groups of
/// consecutive k interleaved panel by panel, and the f32 one
/// (rlx-cpu-vectorize-matmul) a large B in K x P column panels (P its
/// register tile's width, option `f32-panel-columns`: 32 with AVX-512, 16
/// with AVX2); each copies B into its layout at every call when B is a plain
/// tensor. When B is a weight (computed from params
/// and constants alone) that copy is the same at every call: here it
/// becomes `rlx.unpack_dot_operand(rlx.pack_dot_operand(B))`,
/// rlx-prepare-params moves the pack into the prepare entry (once per
/// binding of weights, as ONNX Runtime and oneDNN prepack constant
/// weights), and the matmul or conv, lowered, reads the packed param
/// through the unpack. Operands it rewrites:
///
/// - the i8 `[K, N]` rhs of an i8 x i8 -> i32 matmul (int8 quantization's),
///   and the i8 filter of an i8 conv2d with one group (its lowering is a
///   matmul by the filter viewed as `[KH * KW * C, F]`);
/// - the bf16 `[K, N]` weight of an f32 matmul of two bf16 values widened
///   by rlx.cast (what rlx-accumulate-in-f32 makes of a bf16 matmul), and
///   the bf16 filter of such a conv2d with one group;
/// - the f32 `[K, N]` weight of an f32 matmul and the f32 filter of a conv
///   with one group, 256 KiB or more or with more rows in an L1 set than
///   it has ways (dot_layout::prepackedF32Weight), N a multiple of P and more
///   than P, which the f32 kernel reads in panels;
/// - the block-scaled weight of an f32 matmul: rlx.block_dequantize to f32
///   of `[K, N]` narrow float or 2-8 bit integer codes along K, with
///   f8E8M0FNU, f16 or f32 scales, N a multiple of P, 2 MiB or more as
///   f32 (MXFP8, MXFP6, MXFP4, MXINT8, blocked int4; smaller ones are
///   prepared in f32, see DotOperandLayout.h). Its codes and scales are
///   packed into the f32 panels (groups of 1, i8 too), each as the layout
///   stores it; the matmul reads them through a new rlx.block_dequantize
///   of the two unpacks, and the f32 kernel decodes them as it multiplies
///   (each panel's K block into a buffer in cache, or, for one or two
///   rows, each weight in the product). So the weight stays narrow in memory
///   and is read narrow at every call (about a quarter of the f32 weight's
///   bytes), where dequantizing it once per binding would keep an f32 copy.
///
/// Only for a CPU with the kernel's instructions (options `int8`, `bf16`;
/// `f32` when the f32 kernel's register tile is 16 or 32 wide), after
/// loop-invariant code motion and before rlx-prepare-params.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/DotOperandLayout.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/Transforms/Passes.h"
#include "dialects/RLX/Transforms/Weights.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXPACKDOTOPERANDS
#include "dialects/RLX/Transforms/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

bool hasElement(Value v, llvm::function_ref<bool(Type)> is) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && is(type.getElementType());
}
bool isI8(Type t) { return t.isSignlessInteger(8); }
bool isI32(Type t) { return t.isSignlessInteger(32); }
bool isF32(Type t) { return t.isF32(); }

/// An f32 weight the f32 kernel reads in column panels of `columns`,
/// prepacked (dot_layout::prepackedF32Weight).
bool isPrepackedF32(Value w, int64_t columns) {
  auto type = cast<RankedTensorType>(w.getType());
  if (!type.hasStaticShape() || !type.getElementType().isF32())
    return false;
  auto [k, n] = dot_layout::asMatrix(type.getShape());
  return n % columns == 0 && n > columns &&
         dot_layout::prepackedF32Weight(k, n);
}

/// A static weight the kernel can read packed. The weight may be computed
/// in a block enclosing the reader's: a loop body (a scan's step) reading
/// weights computed before the loop gets them packed once, before it, not
/// at every step.
bool isPackableWeight(Value w, Block *block) {
  auto type = cast<RankedTensorType>(w.getType());
  Operation *def = w.getDefiningOp();
  if (!def || !type.hasStaticShape() || type.getNumElements() == 0)
    return false;
  Block *home = def->getBlock();
  if (home != block && !home->getParent()->isAncestor(block->getParent()))
    return false;
  return isWeight(w, home);
}

/// Codes and scales of a block-scaled weight the f32 panels hold (G = 1,
/// codes narrower than a byte one per byte): narrow floats, and signless
/// integers of 2 to 8 bits (ONNX's blocked int4, MXINT8's i8, which is
/// packed in groups of 1 here, not the int8 kernel's 4).
bool isBlockCode(Type t) {
  if (t.isSignlessInteger())
    return t.getIntOrFloatBitWidth() >= 2 && t.getIntOrFloatBitWidth() <= 8;
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType, Float6E3M2FNType, Float6E2M3FNType,
             Float4E2M1FNType>(t);
}
bool isBlockScale(Type t) {
  return isa<Float8E8M0FNUType>(t) || t.isF16() || t.isF32();
}

/// The dequantization of a block-scaled weight `rhs` is, when the f32 kernel
/// can read its codes and scales in panels of `columns` (see the file
/// comment); null otherwise.
BlockDequantizeOp panelledBlockScaled(Value rhs, Block *block,
                                      int64_t columns) {
  auto dequantize = rhs.getDefiningOp<BlockDequantizeOp>();
  if (!dequantize || dequantize.getAxis() != 0 ||
      !dequantize.getType().getElementType().isF32())
    return {};
  RankedTensorType codes = dequantize.getX().getType();
  auto scales = cast<RankedTensorType>(dequantize.getScales().getType());
  if (codes.getRank() != 2 || !isBlockCode(codes.getElementType()) ||
      !isBlockScale(scales.getElementType()) ||
      !isPackableWeight(dequantize.getX(), block) ||
      !isPackableWeight(dequantize.getScales(), block) ||
      codes.getDimSize(1) % columns != 0 ||
      codes.getNumElements() * 4 < dot_layout::kMinBlockScaledF32Bytes)
    return {};
  return dequantize;
}

/// The bf16 value `v` widens (rlx.cast to f32 of the same shape), if any.
Value widenedBF16(Value v) {
  auto cast = v.getDefiningOp<CastOp>();
  if (!cast || !hasElement(v, [](Type t) { return t.isF32(); }) ||
      !hasElement(cast.getX(), [](Type t) { return t.isBF16(); }))
    return Value();
  return cast.getX();
}

struct RLXPackDotOperandsPass
    : mlir::rlx::impl::RLXPackDotOperandsBase<RLXPackDotOperandsPass> {
  using Base::Base;

  /// One pack and unpack per weight and group, however many ops read it.
  llvm::DenseMap<std::pair<Value, int64_t>, Value> unpacked;

  /// `weight` packed and unpacked: in its type's default group, or, for a
  /// block-scaled weight's codes and scales (`panels`), in the f32
  /// kernel's groups of 1; groups of 1 in the f32 kernel's panels.
  Value unpack(Value weight, bool panels = false) {
    auto type = cast<RankedTensorType>(weight.getType());
    Type element = type.getElementType();
    int64_t group = panels ? 1 : dot_layout::groupSize(element);
    int64_t columns =
        group == 1 ? int64_t(f32PanelColumns) : dot_layout::kPanelColumns;
    Value &slot = unpacked[{weight, group}];
    if (slot)
      return slot;
    auto [k, n] = dot_layout::asMatrix(type.getShape());
    OpBuilder b = OpBuilder::atBlockBegin(weight.getParentBlock());
    if (Operation *def = weight.getDefiningOp())
      b.setInsertionPointAfter(def);
    Value packed = PackDotOperandOp::create(
        b, weight.getLoc(),
        dot_layout::packedType(k, n, element, group, columns), weight);
    return slot = UnpackDotOperandOp::create(b, weight.getLoc(), type, packed);
  }

  void runOnOperation() override {
    if (f32 && !dot_layout::isF32PanelWidth(f32PanelColumns)) {
      getOperation()->emitError("rlx-pack-dot-operands: f32-panel-columns "
                                "must be 16 or 32, got ")
          << int64_t(f32PanelColumns);
      return signalPassFailure();
    }
    // (operand to rewrite, weight to pack, whether the operand widens it,
    // or the block-scaled weight's dequantization to read packed).
    struct Rewrite {
      OpOperand *use;
      Value weight;
      bool widened;
      BlockDequantizeOp blockScaled = {};
    };
    SmallVector<Rewrite> rewrites;
    getOperation()->walk([&](Operation *op) {
      Block *block = op->getBlock();
      if (auto matmul = dyn_cast<MatmulOp>(op)) {
        Value rhs = matmul.getRhs();
        if (matmul.getRhs().getType().getRank() != 2)
          return;
        if (int8 && hasElement(matmul.getLhs(), isI8) &&
            hasElement(rhs, isI8) && hasElement(matmul, isI32) &&
            isPackableWeight(rhs, block))
          rewrites.push_back({&matmul.getRhsMutable(), rhs, false});
        Value weight = widenedBF16(rhs);
        if (bf16 && weight && widenedBF16(matmul.getLhs()) &&
            isPackableWeight(weight, block)) {
          rewrites.push_back({&matmul.getRhsMutable(), weight, true});
          return;
        }
        if (f32 && hasElement(matmul.getLhs(), isF32) &&
            hasElement(matmul, isF32)) {
          if (BlockDequantizeOp scaled =
                  panelledBlockScaled(rhs, block, f32PanelColumns)) {
            rewrites.push_back(
                {&matmul.getRhsMutable(), Value(), false, scaled});
            return;
          }
        }
        if (f32 && hasElement(matmul.getLhs(), isF32) &&
            hasElement(matmul, isF32) && isPrepackedF32(rhs, f32PanelColumns) &&
            isPackableWeight(rhs, block))
          rewrites.push_back({&matmul.getRhsMutable(), rhs, false});
      } else if (auto conv = dyn_cast<Conv2DOp>(op)) {
        // Grouped convs are not lowered to one matmul by the filter.
        Value filter = conv.getFilter();
        if (conv.getGroups() != 1)
          return;
        // A conv of two widened bf16 values reads its bf16 filter packed
        // (its lowering multiplies the bf16 values, as a matmul's does).
        Value bf16Filter = widenedBF16(filter);
        if (bf16 && bf16Filter && widenedBF16(conv.getInput()) &&
            isPackableWeight(bf16Filter, block)) {
          rewrites.push_back({&conv.getFilterMutable(), bf16Filter, true});
          return;
        }
        if (!isPackableWeight(filter, block))
          return;
        bool int8Conv = int8 && hasElement(conv.getInput(), isI8) &&
                        hasElement(filter, isI8);
        bool f32Conv = f32 && hasElement(conv.getInput(), isF32) &&
                       isPrepackedF32(filter, f32PanelColumns);
        if (int8Conv || f32Conv)
          rewrites.push_back({&conv.getFilterMutable(), filter, false});
      }
    });
    for (Rewrite &r : rewrites) {
      if (BlockDequantizeOp scaled = r.blockScaled) {
        // The matmul's own dequantization of the packed codes and scales;
        // the old one stays for any other reader (unread, it is dead).
        Value codes = unpack(scaled.getX(), /*panels=*/true),
              scales = unpack(scaled.getScales(), /*panels=*/true);
        OpBuilder b(r.use->getOwner());
        r.use->set(BlockDequantizeOp::create(
            b, scaled.getLoc(), scaled.getType(), codes, scales,
            scaled.getAxisAttr(), scaled.getBlockSizeAttr()));
        continue;
      }
      Value operand = unpack(r.weight);
      // The op gets its own widening of the unpacked weight (the old one
      // may have other readers; unread, it is dead code).
      if (r.widened) {
        OpBuilder b(r.use->getOwner());
        operand = CastOp::create(b, r.use->get().getLoc(),
                                 r.use->get().getType(), operand);
      }
      r.use->set(operand);
    }
    unpacked.clear();
  }
};

} // namespace
