//===- Descriptors.cpp - The memref descriptors of an entry call ----------===//

#include "Descriptors.h"
#include "DType.h"
#include "Status.h"

#include <cstring>

using namespace rlxrt;

namespace {

/// The memref descriptor of a rank-r tensor: 3 + 2r 64-bit words.
size_t descriptorWords(size_t rank) { return 3 + 2 * rank; }

} // namespace

std::vector<int64_t> rlxrt::rowMajorStrides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i] > 0 ? dims[i] : 1;
  }
  return strides;
}

ArgumentBlock::ArgumentBlock(
    const std::vector<std::pair<uint64_t, std::vector<int64_t>>> &inputs,
    const std::vector<TensorSpec> &outputs) {
  size_t words = 0;
  std::vector<size_t> offsets;
  for (const auto &input : inputs) {
    offsets.push_back(words);
    words += descriptorWords(input.second.size());
  }
  descriptors.assign(words, 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    int64_t *descriptor = &descriptors[offsets[i]];
    const std::vector<int64_t> &dims = inputs[i].second;
    size_t rank = dims.size();
    // allocated == aligned, offset 0, row-major strides.
    descriptor[0] = descriptor[1] = static_cast<int64_t>(inputs[i].first);
    std::vector<int64_t> strides = rowMajorStrides(dims);
    for (size_t d = 0; d < rank; ++d) {
      descriptor[3 + d] = dims[d];
      descriptor[3 + rank + d] = strides[d];
    }
  }
  size_t resultWords = 0;
  for (const TensorSpec &output : outputs) {
    outputOffsets.push_back(resultWords);
    resultWords += descriptorWords(output.shape.size());
  }
  // Zero-filled so that, if the callee fails before writing an output, its
  // `allocated` reads as null.
  results.assign(resultWords + 1, 0);
  for (size_t offset : offsets)
    pointers.push_back(&descriptors[offset]);
  pointers.push_back(results.data());
}

OutputDescriptor rlxrt::readOutputDescriptor(const rlx_entry_point_s &entry,
                                           size_t index, const int64_t *words) {
  const TensorSpec &spec = entry.outputs[index];
  size_t rank = spec.shape.size();
  auto bad = [&](const std::string &what) {
    fail(RLX_STATUS_INTERNAL, "entry point '" + entry.name + "' returned " +
                                  "a bad descriptor for output '" + spec.name +
                                  "': " + what);
  };
  OutputDescriptor output;
  output.allocated = static_cast<uint64_t>(words[0]);
  uint64_t aligned = static_cast<uint64_t>(words[1]);
  int64_t offset = words[2];
  output.dims.assign(words + 3, words + 3 + rank);
  output.strides.assign(words + 3 + rank, words + 3 + 2 * rank);
  bool shapeOk = true;
  for (size_t i = 0; i < rank; ++i)
    shapeOk &= output.dims[i] >= 0 &&
               (spec.shape[i] < 0 || spec.shape[i] == output.dims[i]);
  if (!shapeOk)
    bad("shape " + formatDims(output.dims) + ", manifest says " +
        formatDims(spec.shape));
  if (offset < 0)
    bad("negative offset");
  output.elementSize = rlx_dtype_size(spec.dtype);
  output.elementCount =
      checkedElementCount(output.dims.data(), rank, output.elementSize);
  if (output.elementCount && !aligned)
    bad("null data pointer");
  output.data = aligned + static_cast<uint64_t>(offset) * output.elementSize;
  std::vector<int64_t> expected = rowMajorStrides(output.dims);
  uint64_t lastElement = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (output.dims[i] <= 1)
      continue;
    output.contiguous &= output.strides[i] == expected[i];
    if (output.strides[i] < 0)
      bad("negative stride");
    lastElement += static_cast<uint64_t>(output.dims[i] - 1) *
                   static_cast<uint64_t>(output.strides[i]);
  }
  if (output.elementCount)
    output.extentBytes = (lastElement + 1) * output.elementSize;
  return output;
}

void rlxrt::gatherStrided(const OutputDescriptor &output, const char *source,
                        char *target) {
  size_t rank = output.dims.size(), elementSize = output.elementSize;
  std::vector<int64_t> position(rank, 0);
  for (size_t n = 0; n < output.elementCount; ++n) {
    int64_t element = 0;
    for (size_t i = 0; i < rank; ++i)
      element += position[i] * output.strides[i];
    std::memcpy(target + n * elementSize,
                source + element * static_cast<int64_t>(elementSize),
                elementSize);
    for (size_t i = rank; i-- > 0;) {
      if (++position[i] < output.dims[i])
        break;
      position[i] = 0;
    }
  }
}
