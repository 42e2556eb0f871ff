//===- WindowReductions.h - Pools and depthwise convs in registers -*- C++ -*-===//
///
/// \file
/// A window reduction (a max or average pool, a depthwise conv: an input
/// read at `oh * s + kh`, the window dims reductions between the output's
/// parallel dims and its innermost channel dim), tiled in the op's order,
/// read each vector of outputs, combined it with one window element and
/// wrote it back, once per window element (ResNet-50's 3x3 max pool: nine
/// read-modify-writes per vector). Tiled with its window loops innermost
/// and the output vector carried through them in a register instead, it
/// reads the output once and writes it once.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CPU_WINDOWREDUCTIONS_H
#define RLX_CODEGEN_CPU_WINDOWREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::rlx {

/// For a window reduction, its loop order for tiling: the parallel dims in
/// order, then the reduction dims (outermost first); empty for any other op.
SmallVector<int64_t> windowInnermostOrder(linalg::LinalgOp op);

/// In the loops under each of `nests` (a window reduction's tiles, after
/// vectorization), innermost first: a vector read and written back at the
/// same place in a loop, where nothing else in the loop writes memory or
/// reads that buffer (an allocation of its own), becomes a value the loop
/// carries: read before it, written after it. Upstream's hoisting refuses
/// any buffer with a view-like user anywhere, as the pool's output has.
void hoistWindowAccumulators(RewriterBase &rewriter,
                             ArrayRef<Operation *> nests);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CPU_WINDOWREDUCTIONS_H
