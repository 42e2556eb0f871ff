//===- Call.cpp - Calling an entry point ----------------------------------===//
//
/// \file
/// Checks a call against the manifest, lays out the memref descriptors of
/// docs/abi.md, calls the entry symbol and adopts its outputs. The checks are
/// exhaustive because compiled code trusts its arguments completely: a wrong
/// shape here would be an out-of-bounds access there. GPU sessions share
/// the checks and go on in CallOnDevice.cpp.
//
//===----------------------------------------------------------------------===//

#include "Call.h"
#include "Addresses.h"
#include "CallLog.h"
#include "Communicator.h"
#include "DType.h"
#include "Descriptors.h"
#include "CallState.h"
#include "Status.h"
#include "Threads.h"
#include "WorkerPlacement.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

using namespace rlxrt;

namespace {

/// Throws unless input `index` matches its spec and lives where the
/// session's code can read it.
void checkInput(const rlx_session_s &session, const rlx_entry_point_s &entry,
                size_t index, const rlx_tensor_t *tensor) {
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
         what + ": expected " + formatDimsType(spec.dtype, spec.shape) + ", got " +
             formatDimsType(tensor->dtype, tensor->dims));
  if (tensor->deviceBuffer) {
    if (!session.program ||
        tensor->deviceBuffer->device.get() != &session.program->device())
      fail(RLX_STATUS_INVALID_ARGUMENT,
           what + " is in " + deviceName(tensor->device()) +
               " device memory, but the session runs on " +
               deviceName(session.device()) +
               " (copy it with rlx_tensor_to_host)");
    return;
  }
  if (!tensor->data && tensor->byteSize)
    fail(RLX_STATUS_INVALID_ARGUMENT, what + " has no data");
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
      std::string reason = constraint.size >= 0
                               ? "must be " + std::to_string(constraint.size)
                               : "must equal " + describe(first);
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "entry point '" + entry.name + "': " + describe(at) + " " + reason);
    }
  }
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
  OutputDescriptor output = readOutputDescriptor(entry, index, words);
  void *allocated = toPointer(output.allocated);
  if (!blocks.adopt(allocated))
    fail(RLX_STATUS_INTERNAL, "entry point '" + entry.name +
                                  "' returned a bad descriptor for output '" +
                                  spec.name +
                                  "': its block is shared with another output");
  char *data = static_cast<char *>(toPointer(output.data));
  size_t rank = output.dims.size();
  if (output.contiguous) {
    rlx_tensor_t *tensor = nullptr;
    rlx_status_t status =
        rlx_tensor_wrap(spec.dtype, rank, output.dims.data(),
                        output.elementCount ? data : nullptr,
                        output.elementCount || allocated ? freeBlock : nullptr,
                        allocated, &tensor);
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
  TensorRef tensor = allocateTensor(spec.dtype, output.dims.data(), rank);
  gatherStrided(output, data, static_cast<char *>(tensor->data));
  return tensor;
}

std::unique_ptr<rlx_tensor_list_s> callOnHost(rlx_session_s &session,
                                              const rlx_entry_point_s &entry,
                                              rlx_tensor_t *const *inputs) {
  std::vector<TensorRef> params = boundParams(session, entry);
  std::vector<std::pair<uint64_t, std::vector<int64_t>>> arguments;
  for (size_t i = 0; i < entry.inputs.size(); ++i)
    arguments.emplace_back(reinterpret_cast<uintptr_t>(inputs[i]->data),
                           inputs[i]->dims);
  for (const TensorRef &param : params)
    arguments.emplace_back(reinterpret_cast<uintptr_t>(param->data),
                           param->dims);
  ArgumentBlock block(arguments, entry.outputs);

  if (int32_t *numThreads = session.artifact->numThreads) {
    int32_t threads = rlxrt::currentThreadCount();
    __atomic_store_n(numThreads, threads, __ATOMIC_RELAXED);
    rlxrt::placeWorkers(session.artifact->openMp, threads);
  }
  int32_t code = 0;
  // A failed call's blocks, outputs included, are freed with the state.
  rlxrt::CallState state;
  bool completed;
  {
    rlxrt::ActiveCommunicator replicas(session.communicator.load());
    completed = rlxrt::runEntry(entry.function, block.args(), code, state);
  }
  // The outputs' blocks, once the code has run to the end: from the state
  // (the call's hooks allocated them) or from the code itself (another
  // compiler's artifact calling malloc).
  OutputBlocks blocks;
  if (completed)
    for (size_t i = 0; i < entry.outputs.size(); ++i) {
      void *allocated = toPointer(block.outputAllocated(i));
      state.release(allocated);
      blocks.add(allocated);
    }
  const rlxrt::CallFailure &failure = state.failure();
  // A hook that failed with a status of its own (a collective).
  if (!completed && failure.code != RLX_STATUS_OK)
    fail(failure.code, "entry point '" + entry.name + "': " + failure.message);
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
                    adoptOutput(entry, i, block.output(i), blocks));
  return outputs;
}

std::unique_ptr<rlx_tensor_list_s> call(rlx_session_s &session,
                                        const std::string &name,
                                        rlx_tensor_t *const *inputs,
                                        size_t inputCount,
                                        const rlx_call_options_t &options) {
  const rlx_entry_point_s &entry = lookupEntryPoint(*session.artifact, name);
  checkCall(session, entry, inputs, inputCount);
  if (!callLogEnabled()) {
    if (session.program)
      return callOnDevice(session, entry, inputs, options);
    return callOnHost(session, entry, inputs);
  }
  std::vector<std::string> names;
  for (const TensorSpec &input : entry.inputs)
    names.push_back(input.name);
  logCallTensors(entry.name, "input", names, inputs, inputCount);
  std::unique_ptr<rlx_tensor_list_s> outputs =
      session.program ? callOnDevice(session, entry, inputs, options)
                      : callOnHost(session, entry, inputs);
  names.clear();
  std::vector<const rlx_tensor_t *> tensors;
  for (const auto &[outputName, tensor] : outputs->items) {
    names.push_back(outputName);
    tensors.push_back(tensor.get());
  }
  logCallTensors(entry.name, "output", names, tensors.data(), tensors.size());
  return outputs;
}

} // namespace

void rlxrt::checkCall(const rlx_session_s &session,
                    const rlx_entry_point_s &entry, rlx_tensor_t *const *inputs,
                    size_t inputCount) {
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
    checkInput(session, entry, i, inputs[i]);
  checkDimConstraints(entry, inputs);
}

/// The entry point a user called that runs `entry`: `entry` itself, or the
/// one it prepares params for (users never see prepare entry points).
static std::string userEntryName(const rlx_artifact_t &artifact,
                                 const rlx_entry_point_s &entry) {
  if (entry.preparesParams)
    for (const rlx_entry_point_s &other : artifact.manifest.entryPoints)
      if (other.prepare == entry.name)
        return other.name;
  return entry.name;
}

/// The params `entry`'s prepare entry point makes from the bound weights:
/// run once per binding (the first call after one runs it; concurrent
/// calls wait for it), then shared by every call.
std::unordered_map<std::string, TensorRef>
rlxrt::preparedParams(rlx_session_s &session, const rlx_entry_point_s &entry) {
  if (entry.prepare.empty())
    return {};
  std::lock_guard<std::mutex> lock(session.prepareMutex);
  uint64_t bindings = session.bindings.load();
  auto it = session.prepared.find(entry.prepare);
  if (it != session.prepared.end() && it->second.bindings == bindings)
    return it->second.params;
  // Cached only once made: a failed run (a weight not bound yet) is retried
  // by the next call.
  const rlx_entry_point_s &prepare =
      lookupEntryPoint(*session.artifact, entry.prepare);
  std::unique_ptr<rlx_tensor_list_s> made = callOnHost(session, prepare,
                                                       nullptr);
  rlx_session_s::Prepared &slot = session.prepared[entry.prepare];
  slot.params.clear();
  for (auto &[name, tensor] : made->items)
    slot.params[name] = tensor;
  slot.bindings = bindings;
  return slot.params;
}

std::vector<TensorRef> rlxrt::boundParams(rlx_session_s &session,
                                        const rlx_entry_point_s &entry) {
  const auto &bound = session.program ? session.deviceWeights : session.weights;
  // Before the shared lock: the prepare call takes it too.
  std::unordered_map<std::string, TensorRef> prepared =
      preparedParams(session, entry);
  std::vector<TensorRef> params;
  std::shared_lock<std::shared_mutex> lock(session.mutex);
  for (const TensorSpec &spec : entry.params) {
    if (auto made = prepared.find(spec.name); made != prepared.end()) {
      params.push_back(made->second);
      continue;
    }
    auto it = bound.find(spec.name);
    if (it == bound.end())
      fail(RLX_STATUS_FAILED_PRECONDITION,
           "weight '" + spec.name + "' used by entry point '" +
               userEntryName(*session.artifact, entry) + "' is not bound");
    params.push_back(it->second);
  }
  return params;
}

extern "C" {

void rlx_call_options_initialize(rlx_call_options_t *out_options) {
  if (out_options)
    out_options->outputs_on_device = 0;
}

rlx_status_t rlx_session_call(rlx_session_t *session, const char *entry_name,
                              rlx_tensor_t *const *inputs, size_t input_count,
                              rlx_tensor_list_t **out_outputs) {
  return rlx_session_call_with_options(session, entry_name, inputs, input_count,
                                       nullptr, out_outputs);
}

rlx_status_t rlx_session_call_with_options(rlx_session_t *session,
                                           const char *entry_name,
                                           rlx_tensor_t *const *inputs,
                                           size_t input_count,
                                           const rlx_call_options_t *options,
                                           rlx_tensor_list_t **out_outputs) {
  return guard([&] {
    requireArg(session, "session");
    requireArg(entry_name, "entry_name");
    requireArg(out_outputs, "out_outputs");
    rlx_call_options_t defaults;
    rlx_call_options_initialize(&defaults);
    *out_outputs = call(*session, entry_name, inputs, input_count,
                        options ? *options : defaults)
                       .release();
  });
}

} // extern "C"
