//===- DeviceStub.cpp - What the fuzzed readers need of Device.cpp -------===//
//
/// \file
/// Tensor.cpp names a tensor's device in messages; Device.cpp would bring
/// every GPU backend into the fuzzers, so the one function is defined here.
/// Readers only ever make host tensors.
//
//===----------------------------------------------------------------------===//

#include "rlx/runtime.h"

namespace rlxrt {
const char *deviceName(rlx_device_t device) {
  return device == RLX_DEVICE_CPU ? "cpu" : "a device";
}
} // namespace rlxrt
