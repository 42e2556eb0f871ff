//===- DotOperandLayout.h - The CPU dot-product kernels' B layout -*- C++ -*-===//
///
/// \file
/// One definition of the layout rlx.pack_dot_operand produces and the CPU
/// matmul kernels read: the dot-product kernel (also when it packs B
/// itself, per call) and, for f32 (G = 1), the panels of the f32 kernel
/// with its default 32-column tile, so the two sides cannot drift apart.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_DOTOPERANDLAYOUT_H
#define RLX_DIALECTS_RLX_IR_DOTOPERANDLAYOUT_H

#include "mlir/IR/BuiltinTypes.h"
#include <numeric>

namespace mlir::rlx::dot_layout {

/// The unit attribute marking the linalg.generic of a matmul whose B is
/// read in this layout (its lowering, then rlx-cpu-dot-product-matmul).
inline constexpr llvm::StringLiteral kPackedRhsAttrName = "rlx.packed_rhs";

/// The block size (an integer attribute) on a `rlx.packed_rhs` generic
/// whose B is block-scaled: it reads B's codes and its scales, one per
/// block_size consecutive k, both in the f32 panels.
inline constexpr llvm::StringLiteral kScaleBlockAttrName =
    "rlx.scale_block_size";

/// Columns of B per panel: two 16-lane zmm registers of 32-bit sums.
inline constexpr int64_t kPanelColumns = 32;

/// Columns of B per panel of the f32 kernel's layouts (groups of 1: f32
/// weights, a block-scaled weight's codes and scales): its register
/// tile's width, 32 with AVX-512, 16 (two ymm registers) with AVX2 alone.
/// A 16-column tile reading half of each row of a 32-column panel streams
/// twice the lines it uses (ResNet-50's 1x1 256 -> 64 conv at 56x56 on one
/// Zen 3 core: 1.38 ms in 32-column panels, 1.10 in 16-column ones).
inline constexpr int64_t kAVX2PanelColumns = 16;
inline bool isF32PanelWidth(int64_t columns) {
  return columns == kAVX2PanelColumns || columns == kPanelColumns;
}

/// Consecutive k one 32-bit lane multiplies: 4 i8 (vpdpbusd) or 2 bf16
/// (vdpbf16ps); 1 f32 (FMA: the f32 kernel's K x P column panels). The
/// default group of each type: i8 may also be packed in groups of 1, the
/// f32 kernel's panels, as the codes of a block-scaled weight (MXINT8),
/// which that kernel decodes; a packed type says its group
/// (packedGroup).
inline int64_t groupSize(Type element) {
  if (element.isInteger(8))
    return 4;
  return element.isBF16() ? 2 : 1;
}

/// A product by a prepacked f32 weight of this many bytes or more keeps
/// the whole-product schedule of the f32 kernel (rlx-cpu-vectorize-matmul)
/// rather than an epilogue's row tiles, each of which would stream B again
/// (BERT-base's 768x768 weights); the default of
/// rlx-cpu-fuse-matmul-epilogues' `whole-product-bytes`, which the
/// pipeline lowers to 1 MiB for AVX-512 targets.
inline constexpr int64_t kMinPanelledF32Bytes = int64_t(2) << 20;

/// The f32 kernel packs a B that is no weight into panels at each call
/// when B has this many bytes or more, N is a multiple of the panel width
/// and more than one panel; such a product also keeps the whole-product
/// schedule. Below, a tile's B stays in L2 (512 KiB on Zen 3, the smallest
/// this project runs on). Above it, unpacked, B streamed from L3 once per
/// row tile, its rows a power-of-two stride apart in the same cache sets:
/// on one Zen 3 core 512^3 ran at 59-66 GFLOP/s against 78-93 packed
/// (OpenBLAS 80-92), and a 1x1 conv's input gradient (196 x 256 by a 1 MiB
/// transposed filter) at 0.59x oneDNN against 0.86x.
inline constexpr int64_t kMinPackedAtEachCallF32Bytes = int64_t(512) << 10;

/// L1D geometry shared by Zen 3, Zen 4 and Sapphire Rapids: 64-byte lines
/// in 64 sets, so addresses 4 KiB apart fall in the same set. Rows of a B
/// `r` bytes apart (a multiple of a line) fall in
/// kCacheSetStrideBytes / gcd(r, kCacheSetStrideBytes) sets.
inline constexpr int64_t kCacheLineBytes = 64;
inline constexpr int64_t kCacheSetStrideBytes = 4096;

/// Rows of B per L1 set from which a B that is no weight is packed at each
/// call: a register tile's column panel, one line per row, then outnumbers
/// the set's ways (8 on Zen 3, 12 on Sapphire Rapids) by enough that every
/// row tile misses on all of them again, and the copy pays for itself. A
/// weight, packed once per binding, is packed from kL1Ways + 1.
inline constexpr int64_t kMinRowsPerSet = 16;

/// L1D ways on Zen 3, the fewest of the CPUs this project runs on.
inline constexpr int64_t kL1Ways = 8;

/// Whether a register tile's column panel of a B of k rows `rowBytes`
/// apart, read in place, puts `rowsPerSet` or more rows in each of the few
/// L1 sets its rows fall in (rows 8 KiB apart, all in one set: from
/// `rowsPerSet` rows; 2 KiB apart, two sets: from twice that).
inline bool rowsCrowdL1Sets(int64_t k, int64_t rowBytes,
                            int64_t rowsPerSet = kMinRowsPerSet) {
  if (rowBytes % kCacheLineBytes != 0)
    return false;
  int64_t sets =
      kCacheSetStrideBytes / std::gcd(rowBytes, kCacheSetStrideBytes);
  return k >= rowsPerSet * sets;
}

/// Whether the f32 kernel packs a B of k x n elements of `elementBytes`
/// that is no weight at each call (N's panel conditions aside): from
/// kMinPackedAtEachCallF32Bytes, or smaller when its rows crowd L1 sets
/// (rowsCrowdL1Sets) and `rowsOfA` (-1 when dynamic) are more than
/// `tileRows` (two register tiles: an epilogue's row tile, whose product
/// reads B in place rather than pack it for so few rows). A filter
/// gradient's [49, 2048] output gradient at 7x7, read in place, ran at
/// 0.64x oneDNN.
inline bool packedAtEachCall(int64_t k, int64_t n, int64_t elementBytes,
                             int64_t rowsOfA, int64_t tileRows) {
  int64_t rowBytes = n * elementBytes;
  if (k * rowBytes >= kMinPackedAtEachCallF32Bytes)
    return true;
  return (rowsOfA < 0 || rowsOfA > tileRows) && rowsCrowdL1Sets(k, rowBytes);
}

/// An f32 weight (a matmul's or a conv's filter) is prepacked into the
/// panels from this size: packed once per binding it costs no call
/// anything, and the panels stream from consecutive addresses where the
/// weight's own rows lie a row apart (the MLP 784-512-512-10 at batch 128
/// on Sapphire Rapids, 2 threads: medians 1.13-1.23 ms against 1.60-2.26
/// unpacked). Products by such weights keep their epilogues fused into row
/// tiles (rlx-cpu-fuse-matmul-epilogues) below its `whole-product-bytes`
/// (ResNet-50 b1 on Zen 3, filters from 256 KiB prepacked: 157-184 ms
/// against 162-214 on one thread).
inline constexpr int64_t kMinPrepackedF32Bytes = int64_t(256) << 10;

/// Whether an f32 weight of k x n is prepacked (N's panel conditions
/// aside): from kMinPrepackedF32Bytes, or smaller where read in place a
/// register tile's column panel would put more rows in one of the L1 sets
/// it falls in than the set has ways. Packed once per binding, a weight
/// costs no call anything, so the bound is the cache's own, not the
/// kMinRowsPerSet that a copy at each call must pay for: ResNet-50's 1x1
/// 64 -> 256 filter, [64, 256], falls in four sets; its 3x3 64 -> 64 one,
/// [576, 64], in 16; its 7x7 stem, [147, 64], nine rows in each of 16
/// (2.97-3.06 ms against 2.79-2.81 prepacked, one Zen 3 core).
inline bool prepackedF32Weight(int64_t k, int64_t n) {
  return k * n * 4 >= kMinPrepackedF32Bytes ||
         rowsCrowdL1Sets(k, n * 4, kL1Ways + 1);
}

/// A block-scaled weight is decoded in the f32 kernel (its codes and
/// scales packed, about a byte per weight in memory) from this many bytes
/// as f32, and prepared in f32 once per binding below: a weight that fits
/// in L2 as f32 is read faster as f32 than decoded at every call (one
/// Sapphire Rapids core, `bench/mx_matmul.py`, one row: 512 x 512 0.075 ms
/// decoded against 0.018 ms in f32; 2048 x 2048 1.05 against 0.96; 4096 x
/// 4096 5.4 against 8.0).
inline constexpr int64_t kMinBlockScaledF32Bytes = int64_t(2) << 20;

/// i8 values in the int8 kernel's groups of 4 are stored plus 128 (sign
/// bit flipped): vpdpbusd multiplies unsigned bytes of one operand by
/// signed bytes of the other. In groups of 1 they are stored as they are.
inline bool isOffsetBy128(Type element, int64_t group) {
  return element.isInteger(8) && group == 4;
}

/// The element type the packed layout stores `element` as: itself, but a
/// code narrower than a byte (f4E2M1FN, f6E3M2FN, f6E2M3FN, i2-i7) one per
/// byte, in the low bits of an i8 (no offset): LLVM stores a vector of
/// sub-byte elements bit-packed, so the kernel's vector loads could not
/// read them in place, and the runtime has no sub-byte dtype for a
/// prepared param.
inline Type storedElementType(Type element) {
  if (element.isIntOrFloat() && element.getIntOrFloatBitWidth() < 8)
    return IntegerType::get(element.getContext(), 8);
  return element;
}

/// The packed type of a `[k, n]` operand in panels of `columns` (32, or
/// an f32 panel width in groups of 1): [panels, groups, columns * group].
inline RankedTensorType packedType(int64_t k, int64_t n, Type element,
                                   int64_t group,
                                   int64_t columns = kPanelColumns) {
  return RankedTensorType::get(
      {(n + columns - 1) / columns, (k + group - 1) / group, columns * group},
      storedElementType(element));
}

/// The packed type of a `[k, n]` operand in its type's default group.
inline RankedTensorType packedType(int64_t k, int64_t n, Type element) {
  return packedType(k, n, element, groupSize(element));
}

/// The group of k a packed type holds per lane: its last dim / 32 for the
/// dot-product kernels' groups of 2 and 4, 1 for the f32 kernel's panels
/// (16 or 32 wide).
inline int64_t packedGroup(RankedTensorType packed) {
  int64_t last = packed.getDimSize(2);
  return last > kPanelColumns ? last / kPanelColumns : 1;
}

/// Columns of B per panel of a packed type.
inline int64_t packedPanelColumns(RankedTensorType packed) {
  return packed.getDimSize(2) / packedGroup(packed);
}

/// `shape` ([..., N], static) read as [K, N]: the leading dims collapsed.
inline std::pair<int64_t, int64_t> asMatrix(ArrayRef<int64_t> shape) {
  int64_t k = 1;
  for (int64_t d : shape.drop_back())
    k *= d;
  return {k, shape.back()};
}

} // namespace mlir::rlx::dot_layout

#endif // RLX_DIALECTS_RLX_IR_DOTOPERANDLAYOUT_H
