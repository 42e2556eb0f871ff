//===- Call.cpp - Calling an entry point ----------------------------------===//
//
/// \file
/// Checks a call against the manifest, lays out the memref descriptors of
/// docs/abi.md, calls the entry symbol and adopts its outputs. The checks are
/// exhaustive because compiled code trusts its arguments completely: a wrong
/// shape here would be an out-of-bounds access there.
//
//===----------------------------------------------------------------------===//

#include "DType.h"
#include "Session.h"
#include "Status.h"
#include "GuardedCall.h"
#include "Threads.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

using namespace rlx;

namespace {

/// The memref descriptor of a rank-r tensor: 3 + 2r 64-bit words.
size_t descriptorWords(size_t rank) { return 3 + 2 * rank; }

void storePointer(int64_t *word, const void *pointer) {
  std::memcpy(word, &pointer, sizeof(pointer));
}

void *loadPointer(const int64_t *word) {
  void *pointer;
  std::memcpy(&pointer, word, sizeof(pointer));
  return pointer;
}

/// Row-major contiguous strides of `dims`.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i] > 0 ? dims[i] : 1;
  }
  return strides;
}

/// Writes the descriptor of a contiguous tensor (inputs and params).
void fillDescriptor(int64_t *words, const rlx_tensor_t &tensor) {
  size_t rank = tensor.dims.size();
  storePointer(words, tensor.data);
  storePointer(words + 1, tensor.data);
  words[2] = 0;
  std::vector<int64_t> strides = rowMajorStrides(tensor.dims);
  for (size_t i = 0; i < rank; ++i) {
    words[3 + i] = tensor.dims[i];
    words[3 + rank + i] = strides[i];
  }
}

/// Throws unless input `index` matches its spec.
void checkInput(const rlx_entry_point_s &entry, size_t index,
                const rlx_tensor_t *tensor) {
  const TensorSpec &spec = entry.inputs[index];
  std::string what = "input " + std::to_string(index) + " ('" + spec.name +
                     "') of entry point '" + entry.name + "'";
  if (!tensor)
    fail(RLX_STATUS_INVALID_ARGUMENT, what + " is NULL");
  bool matches =
      tensor->dtype == spec.dtype && tensor->dims.size() == spec.shape.size();
  for (size_t i = 0; matches && i < spec.shape.size(); ++i)
    matches = spec.shape[i] < 0 || spec.shape[i] == tensor->dims[i];
  if (!matches)
    fail(RLX_STATUS_INVALID_ARGUMENT,
         what + ": expected " + formatType(spec.dtype, spec.shape) + ", got " +
             formatType(tensor->dtype, tensor->dims));
  if (!tensor->data && tensor->byteSize)
    fail(RLX_STATUS_INVALID_ARGUMENT, what + " has no data");
}

/// Frees output blocks the runtime has not adopted yet, each once.
class OutputBlocks {
public:
  void add(void *block) {
    if (block)
      blocks.insert(block);
  }
  /// Hands `block` to a tensor; false if it was already handed out (two
  /// outputs sharing a block, which the ABI forbids).
  bool adopt(void *block) { return !block || blocks.erase(block) == 1; }
  ~OutputBlocks() {
    for (void *block : blocks)
      std::free(block);
  }

private:
  std::set<void *> blocks;
};

/// A release callback whose user data is the output's `allocated` block
/// (the data pointer may lie inside it, past an offset).
void freeBlock(void *block, void * /*data*/) { std::free(block); }

/// Turns output `index`'s descriptor into an owning tensor.
TensorRef adoptOutput(const rlx_entry_point_s &entry, size_t index,
                      const int64_t *words, OutputBlocks &blocks) {
  const TensorSpec &spec = entry.outputs[index];
  size_t rank = spec.shape.size();
  auto bad = [&](const std::string &what) {
    fail(RLX_STATUS_INTERNAL, "entry point '" + entry.name + "' returned " +
                                  "a bad descriptor for output '" + spec.name +
                                  "': " + what);
  };
  void *allocated = loadPointer(words);
  char *aligned = static_cast<char *>(loadPointer(words + 1));
  int64_t offset = words[2];
  std::vector<int64_t> dims(words + 3, words + 3 + rank);
  std::vector<int64_t> strides(words + 3 + rank, words + 3 + 2 * rank);
  bool shapeOk = true;
  for (size_t i = 0; i < rank; ++i)
    shapeOk &= dims[i] >= 0 && (spec.shape[i] < 0 || spec.shape[i] == dims[i]);
  if (!shapeOk)
    bad("shape " + formatShape(dims) + ", manifest says " +
        formatShape(spec.shape));
  if (offset < 0)
    bad("negative offset");
  size_t elementSize = rlx_dtype_size(spec.dtype);
  size_t count = checkedElementCount(dims.data(), rank, elementSize);
  if (count && !aligned)
    bad("null data pointer");
  if (!blocks.adopt(allocated))
    bad("its block is shared with another output");

  char *data = aligned + offset * static_cast<int64_t>(elementSize);
  bool contiguous = true;
  std::vector<int64_t> expected = rowMajorStrides(dims);
  for (size_t i = 0; i < rank; ++i)
    contiguous &= dims[i] <= 1 || strides[i] == expected[i];
  if (contiguous) {
    rlx_tensor_t *tensor = nullptr;
    rlx_status_t status = rlx_tensor_wrap(
        spec.dtype, rank, dims.data(), count ? data : nullptr,
        count || allocated ? freeBlock : nullptr, allocated, &tensor);
    if (status) {
      std::free(allocated);
      StatusError error(status->code, status->message);
      rlx_status_free(status);
      throw error;
    }
    return TensorRef(tensor);
  }

  // Strided: gather into a fresh contiguous tensor, then free the block.
  std::unique_ptr<void, void (*)(void *)> owner(allocated, std::free);
  TensorRef tensor = allocateTensor(spec.dtype, dims.data(), rank);
  std::vector<int64_t> position(rank, 0);
  char *target = static_cast<char *>(tensor->data);
  for (size_t n = 0; n < count; ++n) {
    int64_t source = 0;
    for (size_t i = 0; i < rank; ++i)
      source += position[i] * strides[i];
    std::memcpy(target + n * elementSize, data + source * int64_t(elementSize),
                elementSize);
    for (size_t i = rank; i-- > 0;) {
      if (++position[i] < dims[i])
        break;
      position[i] = 0;
    }
  }
  return tensor;
}

/// Throws unless the dynamic input dims agree as the compiled code assumes:
/// a mismatch there would be an out-of-bounds access, not an error.
void checkDimConstraints(const rlx_entry_point_s &entry,
                         const rlx_tensor_t *const *inputs) {
  auto describe = [&](std::pair<size_t, size_t> at) {
    return "dim " + std::to_string(at.second) + " of input '" +
           entry.inputs[at.first].name + "' (" +
           std::to_string(inputs[at.first]->dims[at.second]) + ")";
  };
  for (const DimConstraint &constraint : entry.dimConstraints) {
    auto first = constraint.dims.front();
    int64_t expected = constraint.size >= 0
                           ? constraint.size
                           : inputs[first.first]->dims[first.second];
    for (auto at : constraint.dims) {
      if (inputs[at.first]->dims[at.second] == expected)
        continue;
      std::string reason =
          constraint.size >= 0
              ? "must be " + std::to_string(constraint.size)
              : "must equal " + describe(first);
      fail(RLX_STATUS_INVALID_ARGUMENT, "entry point '" + entry.name + "': " +
                                            describe(at) + " " + reason);
    }
  }
}

std::unique_ptr<rlx_tensor_list_s> call(rlx_session_s &session,
                                        const std::string &name,
                                        rlx_tensor_t *const *inputs,
                                        size_t inputCount) {
  const rlx_entry_point_s &entry = lookupEntryPoint(*session.artifact, name);
  if (inputCount != entry.inputs.size()) {
    std::string names;
    for (const TensorSpec &input : entry.inputs)
      names += (names.empty() ? "" : ", ") + input.name;
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "entry point '" + entry.name + "' takes " +
             std::to_string(entry.inputs.size()) + " input" +
             (entry.inputs.size() == 1 ? "" : "s") + " (" + names + "), got " +
             std::to_string(inputCount));
  }
  if (inputCount && !inputs)
    fail(RLX_STATUS_INVALID_ARGUMENT, "inputs must not be NULL");
  for (size_t i = 0; i < inputCount; ++i)
    checkInput(entry, i, inputs[i]);
  checkDimConstraints(entry, inputs);

  // Take references under the lock so a concurrent rebind cannot free a
  // weight this call is reading.
  std::vector<TensorRef> params;
  {
    std::shared_lock<std::shared_mutex> lock(session.mutex);
    for (const TensorSpec &spec : entry.params) {
      auto it = session.weights.find(spec.name);
      if (it == session.weights.end())
        fail(RLX_STATUS_FAILED_PRECONDITION, "weight '" + spec.name +
                                                 "' used by entry point '" +
                                                 entry.name + "' is not bound");
      params.push_back(it->second);
    }
  }

  size_t argCount = inputCount + params.size();
  std::vector<size_t> offsets;
  size_t words = 0;
  for (size_t i = 0; i < inputCount; ++i) {
    offsets.push_back(words);
    words += descriptorWords(inputs[i]->dims.size());
  }
  for (const TensorRef &param : params) {
    offsets.push_back(words);
    words += descriptorWords(param->dims.size());
  }
  std::vector<int64_t> descriptors(words);
  std::vector<void *> args(argCount + 1);
  for (size_t i = 0; i < argCount; ++i) {
    const rlx_tensor_t &tensor =
        i < inputCount ? *inputs[i] : *params[i - inputCount].get();
    fillDescriptor(&descriptors[offsets[i]], tensor);
    args[i] = &descriptors[offsets[i]];
  }
  std::vector<size_t> outputOffsets;
  size_t outputWords = 0;
  for (const TensorSpec &output : entry.outputs) {
    outputOffsets.push_back(outputWords);
    outputWords += descriptorWords(output.shape.size());
  }
  // Zero-filled so that, if the callee fails before writing an output, its
  // `allocated` reads as null and is not freed.
  std::vector<int64_t> results(outputWords + 1, 0);
  args[argCount] = results.data();

  if (int32_t *numThreads = session.artifact->numThreads)
    __atomic_store_n(numThreads, rlx::currentThreadCount(), __ATOMIC_RELAXED);
  int32_t code = 0;
  rlx::CallFailure failure;
  bool completed = rlx::guardedCall(entry.function, args.data(), code, failure);

  OutputBlocks blocks;
  for (size_t i = 0; i < entry.outputs.size(); ++i)
    blocks.add(loadPointer(&results[outputOffsets[i]]));
  if (!completed && !failure.message.empty())
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "entry point '" + entry.name + "': " + failure.message);
  if (!completed)
    fail(RLX_STATUS_RESOURCE_EXHAUSTED,
         "entry point '" + entry.name + "' ran out of memory allocating " +
             std::to_string(failure.failedBytes) +
             " bytes (the inputs' sizes ask for more than this machine has)");
  if (code != 0)
    fail(RLX_STATUS_INTERNAL, "entry point '" + entry.name +
                                  "' failed with code " + std::to_string(code));
  auto outputs = std::make_unique<rlx_tensor_list_s>();
  for (size_t i = 0; i < entry.outputs.size(); ++i)
    outputs->append(entry.outputs[i].name,
                    adoptOutput(entry, i, &results[outputOffsets[i]], blocks));
  return outputs;
}

} // namespace

extern "C" {

rlx_status_t rlx_session_call(rlx_session_t *session, const char *entry_name,
                              rlx_tensor_t *const *inputs, size_t input_count,
                              rlx_tensor_list_t **out_outputs) {
  return guard([&] {
    requireArg(session, "session");
    requireArg(entry_name, "entry_name");
    requireArg(out_outputs, "out_outputs");
    *out_outputs = call(*session, entry_name, inputs, input_count).release();
  });
}

} // extern "C"
