//===- Xxh64.h - The XXH64 hash, streaming ----------------------*- C++ -*-===//
//
/// \file
/// XXH64 (seed 0), the digest of rlx/abi.h's digest note, fed in pieces so
/// that a file can be hashed as it is read. The compiler computes the same
/// value with LLVM's llvm::xxHash64; the runtime cannot link LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_XXH64_H
#define RLX_RUNTIME_SRC_XXH64_H

#include <cstddef>
#include <cstdint>

namespace rlxrt {

/// An XXH64 computation: update() with consecutive pieces, then digest().
class Xxh64 {
public:
  Xxh64();
  void update(const void *data, size_t size);
  /// The hash of everything passed to update() so far.
  uint64_t digest() const;

private:
  uint64_t lanes[4];
  uint64_t total = 0;
  unsigned char pending[32];
  size_t pendingSize = 0;
};

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_XXH64_H
