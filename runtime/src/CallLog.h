//===- CallLog.h - RLX_DEBUG=ops: each call's tensors on stderr -*- C++ -*-===//
//
/// \file
/// With `RLX_DEBUG=ops` (a comma-separated list holding `ops`) every
/// entry-point call logs its inputs before the call and its outputs after
/// it: name, type, and for host tensors the min and max of the finite
/// elements and how many are NaN or Inf. For locating where bad values
/// enter or leave compiled code; `rlxc --debug-checks` locates the op.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_CALLLOG_H
#define RLX_RUNTIME_SRC_CALLLOG_H

#include "Tensor.h"

#include <string>

namespace rlxrt {

/// Whether RLX_DEBUG asks for the call log (read once).
bool callLogEnabled();

/// Writes one line per tensor, `rlx: ENTRY: KIND NAME TYPE min=.. max=..`,
/// to stderr in one write (calls from several threads do not interleave
/// lines).
void logCallTensors(const std::string &entry, const char *kind,
                    const std::vector<std::string> &names,
                    const rlx_tensor_t *const *tensors, size_t count);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_CALLLOG_H
