//===- CallOnDevice.cpp - Calling an entry point of a GPU artifact --------===//
//
/// \file
/// docs/abi.md, "GPU artifacts": every pointer in the descriptors is a
/// device pointer. Host inputs are uploaded for the call, device tensors and
/// the session's device copies of the params are passed in place; the entry
/// code allocates, launches and frees through the hooks while a DeviceCall
/// is active on this thread; the call then waits for the device and each
/// output is downloaded into a host tensor, or handed over as a device
/// tensor when the caller asks. Whatever else the call allocated is freed.
//
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "Call.h"
#include "DType.h"
#include "Descriptors.h"
#include "DeviceCall.h"
#include "CallState.h"
#include "Status.h"

#include <cstdio>
#include <set>

using namespace rlxrt;

namespace {

/// Throws the status a failed guarded call of `entry` deserves.
[[noreturn]] void failCall(const rlx_entry_point_s &entry,
                           const CallFailure &failure) {
  std::string what = "entry point '" + entry.name + "'";
  if (failure.code == RLX_STATUS_RESOURCE_EXHAUSTED)
    fail(failure.code, what + " ran out of device memory: " + failure.message);
  if (failure.code != RLX_STATUS_OK)
    fail(failure.code, what + ": " + failure.message);
  if (!failure.message.empty())
    fail(RLX_STATUS_INVALID_ARGUMENT, what + ": " + failure.message);
  fail(RLX_STATUS_RESOURCE_EXHAUSTED,
       what + " ran out of host memory allocating " +
           std::to_string(failure.failedBytes) + " bytes");
}

/// Output `index` as a tensor on the host, or on the device when
/// `onDevice`; `taken` holds the allocations earlier outputs used.
TensorRef takeOutput(const rlx_entry_point_s &entry, size_t index,
                     const int64_t *words, DeviceCall &call,
                     const std::shared_ptr<Device> &device, bool onDevice,
                     std::set<uint64_t> &taken) {
  const TensorSpec &spec = entry.outputs[index];
  OutputDescriptor output = readOutputDescriptor(entry, index, words);
  auto bad = [&](const std::string &what) {
    fail(RLX_STATUS_INTERNAL, "entry point '" + entry.name +
                                  "' returned a bad descriptor for output '" +
                                  spec.name + "': " + what);
  };
  const int64_t *dims = output.dims.data();
  size_t rank = output.dims.size();
  if (!output.allocated && !output.elementCount) {
    TensorRef empty = allocateTensor(spec.dtype, dims, rank);
    return onDevice ? uploadTensor(device, *empty) : empty;
  }
  if (!taken.insert(output.allocated).second)
    bad("its memory is shared with another output");
  int64_t bytes = call.ownedBytes(output.allocated);
  if (bytes < 0)
    bad("its memory (" + hexAddress(output.allocated) +
        ") was not allocated by this call");
  if (output.data < output.allocated ||
      output.data - output.allocated + output.extentBytes >
          static_cast<uint64_t>(bytes))
    bad("its elements run past the end of its " + std::to_string(bytes) +
        "-byte allocation");

  // Kept in place when a next call can bind it as it is: contiguous, and
  // at an offset any device accepts for a kernel argument (docs/abi.md).
  if (onDevice && output.contiguous &&
      (output.data - output.allocated) % 256 == 0) {
    call.release(output.allocated);
    auto buffer = std::make_shared<DeviceBuffer>(device, output.allocated);
    return wrapDeviceTensor(spec.dtype, dims, rank, std::move(buffer),
                            output.data);
  }
  TensorRef host = allocateTensor(spec.dtype, dims, rank);
  if (output.contiguous) {
    call.queue().download(host->data, output.data, host->byteSize);
  } else {
    std::vector<char> extent(output.extentBytes);
    call.queue().download(extent.data(), output.data, output.extentBytes);
    gatherStrided(output, extent.data(), static_cast<char *>(host->data));
  }
  return onDevice ? uploadTensor(device, *host) : host;
}

} // namespace

std::unique_ptr<rlx_tensor_list_s>
rlxrt::callOnDevice(rlx_session_s &session, const rlx_entry_point_s &entry,
                  rlx_tensor_t *const *inputs,
                  const rlx_call_options_t &options) {
  // Device memory the call reads stays alive until it is done (the call
  // is destroyed first), even if another thread lets go of it meanwhile.
  std::vector<TensorRef> params = boundParams(session, entry);
  std::vector<TensorRef> deviceInputs;
  for (size_t i = 0; i < entry.inputs.size(); ++i)
    if (inputs[i]->deviceBuffer)
      deviceInputs.push_back(TensorRef::retain(inputs[i]));
  DeviceProgram &program = *session.program;
  DeviceCall call(program);
  std::vector<std::pair<uint64_t, std::vector<int64_t>>> arguments;
  for (size_t i = 0; i < entry.inputs.size(); ++i) {
    const rlx_tensor_t &input = *inputs[i];
    uint64_t address = input.deviceAddress;
    if (!input.deviceBuffer)
      address = call.uploadInput(input.data, input.byteSize);
    arguments.emplace_back(address, input.dims);
  }
  for (const TensorRef &param : params)
    arguments.emplace_back(param->deviceAddress, param->dims);
  ArgumentBlock block(arguments, entry.outputs);

  int32_t code = 0;
  CallState state;
  bool completed;
  {
    DeviceCall::Activation active(call);
    completed = runEntry(entry.function, block.args(), code, state);
  }
  if (!completed)
    failCall(entry, state.failure());
  if (code != 0)
    fail(RLX_STATUS_INTERNAL, "entry point '" + entry.name +
                                  "' failed with code " + std::to_string(code));
  call.queue().synchronize();

  auto outputs = std::make_unique<rlx_tensor_list_s>();
  std::set<uint64_t> taken;
  for (size_t i = 0; i < entry.outputs.size(); ++i)
    outputs->append(entry.outputs[i].name,
                    takeOutput(entry, i, block.output(i), call,
                               program.sharedDevice(),
                               options.outputs_on_device != 0, taken));
  return outputs;
}
