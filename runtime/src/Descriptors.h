//===- Descriptors.h - The memref descriptors of an entry call --*- C++ -*-===//
//
/// \file
/// The argument block of docs/abi.md, "Calling an entry point": one memref
/// descriptor per input and param, a zero-filled buffer the callee fills
/// with the outputs' descriptors, and the array of pointers to them. The
/// addresses in it are host pointers on the CPU and device pointers on a
/// GPU; nothing here reads what they point to.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_DESCRIPTORS_H
#define RLX_RUNTIME_SRC_DESCRIPTORS_H

#include "Manifest.h"

#include <cstdint>
#include <vector>

namespace rlxrt {

/// Row-major contiguous strides of `dims`.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &dims);

class ArgumentBlock {
public:
  /// Room for the descriptors of `inputs` (inputs then params: address and
  /// dims, contiguous) and of `outputs`.
  ArgumentBlock(
      const std::vector<std::pair<uint64_t, std::vector<int64_t>>> &inputs,
      const std::vector<TensorSpec> &outputs);

  /// What the entry symbol takes.
  void **args() { return pointers.data(); }
  /// Output `index`'s descriptor as the callee wrote it (zeros if not).
  const int64_t *output(size_t index) const {
    return &results[outputOffsets[index]];
  }
  /// The `allocated` word of output `index`.
  uint64_t outputAllocated(size_t index) const {
    return static_cast<uint64_t>(results[outputOffsets[index]]);
  }

private:
  std::vector<int64_t> descriptors;
  std::vector<int64_t> results;
  std::vector<size_t> outputOffsets;
  std::vector<void *> pointers;
};

/// An output descriptor, read and checked against the manifest.
struct OutputDescriptor {
  uint64_t allocated = 0;
  /// The address of the first element (aligned + offset elements).
  uint64_t data = 0;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  size_t elementCount = 0;
  size_t elementSize = 0;
  bool contiguous = true;
  /// Bytes from `data` to one past the last element (0 when empty).
  uint64_t extentBytes = 0;
};

/// Reads output `index` of `entry` from `words`. Throws INTERNAL naming the
/// entry point and output for a shape the manifest forbids, a negative
/// offset or stride, or a null data pointer with elements.
OutputDescriptor readOutputDescriptor(const rlx_entry_point_s &entry,
                                      size_t index, const int64_t *words);

/// Copies the elements of `output`, laid out from `source` (which holds
/// its extent), into `target` in row-major order.
void gatherStrided(const OutputDescriptor &output, const char *source,
                   char *target);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_DESCRIPTORS_H
