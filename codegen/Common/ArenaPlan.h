//===- ArenaPlan.h - Offsets of temporaries in one workspace ----*- C++ -*-===//
///
/// \file
/// Packs buffers with known sizes and live ranges into one arena so that
/// two buffers live at the same time never share bytes, and the arena is
/// close to the liveness lower bound (the most bytes live at any point).
/// Pure arithmetic, no MLIR: the pass that rewrites allocations and the
/// randomized test both call it.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_COMMON_ARENAPLAN_H
#define RLX_CODEGEN_COMMON_ARENAPLAN_H

#include <cstdint>
#include <vector>

namespace mlir::rlx {

/// A buffer live from op `begin` up to, not including, op `end`.
struct BufferLifetime {
  int64_t begin, end, bytes;
};

struct ArenaPlan {
  std::vector<int64_t> offsets; ///< one per buffer, multiples of alignment
  int64_t size = 0;             ///< bytes of the arena
};

/// Greedy best fit, largest buffers first: each buffer goes to the lowest
/// aligned offset that does not overlap a placed buffer live at the same
/// time.
ArenaPlan planArena(const std::vector<BufferLifetime> &buffers,
                    int64_t alignment = 64);

/// The most bytes (each size rounded up to `alignment`) live at once: no
/// plan can use less.
int64_t livenessLowerBound(const std::vector<BufferLifetime> &buffers,
                           int64_t alignment = 64);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_COMMON_ARENAPLAN_H
