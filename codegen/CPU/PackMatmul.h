//===- PackMatmul.h - Packed operands for large matmuls ---------*- C++ -*-===//

#ifndef RLX_CODEGEN_CPU_PACKMATMUL_H
#define RLX_CODEGEN_CPU_PACKMATMUL_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::rlx {

/// The f32 kernel's register tile: `rows` x `columns`, and `tallRows` (at
/// least `rows`) for a product whose row tiles each stream B's panels from
/// L2, where taller tiles mean fewer passes over B.
struct RegisterTile {
  int64_t rows, columns, tallRows;
};

/// Splits every static linalg.matmul whose B the kernel packs at each call
/// (dot_layout::packedAtEachCall: 512 KiB or more, or rows crowding L1
/// sets) into register-tile-sized matmuls over packed copies of its operands
/// (PackMatmul.cpp). Runs before the register tiling of the matmul pass.
void packLargeMatmuls(mlir::ModuleOp module, const RegisterTile &tile);

/// Whether `op` is a product by a prepacked f32 B that
/// expandPrepackedMatmuls expands (a linalg.generic marked
/// `rlx.packed_rhs` on memrefs, B in panels x K x tileN with tileN 32).
bool isPrepackedF32Matmul(mlir::Operation *op);

/// Whether `op` is a product by a prepacked block-scaled B: the same
/// generic reading B's codes and scales, both in panels, marked
/// `rlx.scale_block_size` too.
bool isPrepackedBlockScaledMatmul(mlir::Operation *op);

/// The same loops for every f32 matmul by a prepacked B (a linalg.generic
/// marked `rlx.packed_rhs`, B in panels x K x tileN), without the copy; a
/// block-scaled B's K blocks are decoded panel by panel into a buffer the
/// tile matmuls read, or, for one or two rows of A, each weight in the
/// product. Runs first: its loops' matmuls are then scheduled
/// like any other. Fails, with an error on the op, for a block-scaled
/// product whose body is not its lowering's.
mlir::LogicalResult expandPrepackedMatmuls(mlir::ModuleOp module,
                                           const RegisterTile &tile);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_PACKMATMUL_H
