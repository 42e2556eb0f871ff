//===- Call.h - Calling an entry point --------------------------*- C++ -*-===//
//
/// \file
/// What CPU and GPU calls share: the checks of a call against the manifest
/// and the session, and the bound params a call reads. The GPU path lives
/// in CallOnDevice.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_CALL_H
#define RLX_RUNTIME_SRC_CALL_H

#include "Session.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace rlxrt {

/// Throws unless `inputs` fit `entry` of `session`'s artifact: their count,
/// dtypes, shapes and dim constraints, and where they live (a device tensor
/// only on the session's device).
void checkCall(const rlx_session_s &session, const rlx_entry_point_s &entry,
               rlx_tensor_t *const *inputs, size_t inputCount);

/// The params `entry` reads, in its order, taken under the session's lock
/// (so a concurrent rebind cannot free one mid-call): the device copies on
/// a GPU session. FAILED_PRECONDITION naming an unbound one.
std::vector<TensorRef> boundParams(rlx_session_s &session,
                                   const rlx_entry_point_s &entry);

/// The params `entry` reads from its prepare entry point (docs/abi.md),
/// made from the bound weights once per binding; empty without one.
std::unordered_map<std::string, TensorRef>
preparedParams(rlx_session_s &session, const rlx_entry_point_s &entry);

/// Calls `entry` of a GPU session: uploads host inputs, runs the entry code
/// with the device hooks acting on this call, waits for the device, and
/// downloads the outputs (or keeps them on the device).
std::unique_ptr<rlx_tensor_list_s>
callOnDevice(rlx_session_s &session, const rlx_entry_point_s &entry,
             rlx_tensor_t *const *inputs, const rlx_call_options_t &options);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_CALL_H
