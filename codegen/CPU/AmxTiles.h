//===- AmxTiles.h - Matmul tiles on AMX tile registers ----------*- C++ -*-===//
///
/// \file
/// The AMX part of rlx-cpu-dot-product-matmul: on a CPU with AMX-BF16 or
/// AMX-INT8 (Intel Sapphire Rapids and later), whole 16 x 16 blocks of C
/// are computed on tile registers (tdpbf16ps, tdpbsud) instead of zmm
/// registers, reading A in place and B from the same k-group panels the
/// AVX-512 kernel reads (DotOperandLayout.h): a panel's row of groups is
/// 32 columns x G values = 64 bytes per half, so a B tile is 16 group rows
/// of one half at a stride of the panel's row.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_AMXTILES_H
#define RLX_CODEGEN_CPU_AMXTILES_H

#include "mlir/IR/Builders.h"

namespace mlir::rlx::amx_tiles {

/// Rows of A (and C) in one tile.
constexpr int64_t kTileRows = 16;

/// Consecutive k one tile multiplication consumes: 64 bytes of A's row,
/// 32 bf16 or 64 int8 values.
int64_t tileK(bool int8);

/// C[row0 + r][32 * panel + c] += sum over k < kTiles * tileK of
/// A[row0 + r][k] * B[k][32 * panel + c], for r < 16 * rowTiles (1 or 2)
/// and the panel's 32 columns (which must lie inside C), B as the packed
/// `[panels, groups, 32 * G]` buffer. The C tiles stay on tile registers
/// across the k loop (2 x 2 of them for two row tiles: 4 accumulators,
/// 2 A and 2 B tiles, the 8 registers). int8 multiplies signed A by B
/// offset to unsigned (tdpbsud); the caller subtracts the offsets.
void emitPanelTiles(OpBuilder &b, Location loc, bool int8, Value aMatrix,
                    Value packed, Value cMatrix, Value row0, Value panel,
                    int64_t rowTiles, Value kTiles);

} // namespace mlir::rlx::amx_tiles

#endif // RLX_CODEGEN_CPU_AMXTILES_H
