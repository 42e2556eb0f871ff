//===- Status.cpp - rlx_status_t ------------------------------------------===//
//
/// \file
/// Status objects and the C functions that read them.
//
//===----------------------------------------------------------------------===//

#include "Status.h"

#include <cerrno>
#include <cstring>

/// Returned when allocating a status fails; never freed.
static rlx_status_s outOfMemoryStatus{RLX_STATUS_RESOURCE_EXHAUSTED,
                                      std::string()};

namespace rlxrt {

void fail(rlx_status_code_t code, std::string message) {
  throw StatusError(code, std::move(message));
}

rlx_status_t makeStatus(rlx_status_code_t code, const std::string &message) {
  try {
    return new rlx_status_s{code, message};
  } catch (...) {
    return &outOfMemoryStatus;
  }
}

rlx_status_code_t statusCodeFromErrno(int error) {
  switch (error) {
  case ENOENT:
  case ENOTDIR:
    return RLX_STATUS_NOT_FOUND;
  case EACCES:
  case EPERM:
  case EROFS:
    return RLX_STATUS_FAILED_PRECONDITION;
  case ENOMEM:
  case ENOSPC:
  case EMFILE:
  case ENFILE:
  case EFBIG:
    return RLX_STATUS_RESOURCE_EXHAUSTED;
  case EISDIR:
  case EINVAL:
  case ENAMETOOLONG:
    return RLX_STATUS_INVALID_ARGUMENT;
  case EIO:
    return RLX_STATUS_DATA_LOSS;
  default:
    return RLX_STATUS_INTERNAL;
  }
}

std::string describeErrno(const std::string &path, int error) {
  return "'" + path + "': " + std::strerror(error);
}

} // namespace rlxrt

extern "C" {

rlx_status_code_t rlx_status_code(rlx_status_t status) {
  return status ? status->code : RLX_STATUS_OK;
}

const char *rlx_status_message(rlx_status_t status) {
  if (!status)
    return "";
  if (status == &outOfMemoryStatus)
    return "out of memory";
  return status->message.c_str();
}

void rlx_status_free(rlx_status_t status) {
  if (status != &outOfMemoryStatus)
    delete status;
}

const char *rlx_status_code_string(rlx_status_code_t code) {
  switch (code) {
  case RLX_STATUS_OK:
    return "OK";
  case RLX_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case RLX_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case RLX_STATUS_FAILED_PRECONDITION:
    return "FAILED_PRECONDITION";
  case RLX_STATUS_DATA_LOSS:
    return "DATA_LOSS";
  case RLX_STATUS_UNIMPLEMENTED:
    return "UNIMPLEMENTED";
  case RLX_STATUS_INTERNAL:
    return "INTERNAL";
  case RLX_STATUS_OUT_OF_RANGE:
    return "OUT_OF_RANGE";
  case RLX_STATUS_RESOURCE_EXHAUSTED:
    return "RESOURCE_EXHAUSTED";
  case RLX_STATUS_UNAVAILABLE:
    return "UNAVAILABLE";
  }
  return "UNKNOWN";
}

} // extern "C"
