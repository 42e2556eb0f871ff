//===- Status.h - Errors inside the runtime and at its C boundary -*- C++
//-*-===//
//
/// \file
/// Inside librlxrt errors travel as C++ exceptions (`StatusError`), which
/// keeps the parsers short; every C entry point runs its body through
/// `guard`, which turns any exception into an `rlx_status_t` so that none
/// ever crosses the ABI.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_STATUS_H
#define RLX_RUNTIME_SRC_STATUS_H

#include "rlx/runtime.h"

#include <exception>
#include <new>
#include <optional>
#include <string>

struct rlx_status_s {
  rlx_status_code_t code;
  std::string message;
};

namespace rlxrt {

/// An error raised inside the runtime, converted to a status by `guard`.
class StatusError : public std::exception {
public:
  StatusError(rlx_status_code_t code, std::string message)
      : code(code), message(std::move(message)) {}
  const char *what() const noexcept override { return message.c_str(); }

  rlx_status_code_t code;
  std::string message;
};

/// Throws a StatusError.
[[noreturn]] void fail(rlx_status_code_t code, std::string message);

/// Builds a status object; never throws (falls back to a static
/// out-of-memory status when even that allocation fails).
rlx_status_t makeStatus(rlx_status_code_t code, const std::string &message);

/// The status code that best describes a failed system call's errno.
rlx_status_code_t statusCodeFromErrno(int error);

/// `'path': strerror(error)`, for messages about files.
std::string describeErrno(const std::string &path, int error);

/// Runs `body` (returning void); whatever it throws comes back as a
/// StatusError (out of memory: RESOURCE_EXHAUSTED, anything not a
/// StatusError: INTERNAL), nothing when it returns.
template <typename Fn>
std::optional<StatusError> captureFailure(Fn &&body) noexcept {
  try {
    body();
    return std::nullopt;
  } catch (const StatusError &e) {
    return e;
  } catch (const std::bad_alloc &) {
    return StatusError(RLX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  } catch (const std::exception &e) {
    return StatusError(RLX_STATUS_INTERNAL,
                       std::string("internal error: ") + e.what());
  } catch (...) {
    return StatusError(RLX_STATUS_INTERNAL,
                       "internal error: unknown exception");
  }
}

/// Runs `body` (returning void) and converts whatever it throws to a status.
template <typename Fn> rlx_status_t guard(Fn &&body) noexcept {
  std::optional<StatusError> failure = captureFailure(body);
  return failure ? makeStatus(failure->code, failure->message) : nullptr;
}

/// Throws INVALID_ARGUMENT when a required pointer argument is null.
inline void requireArg(const void *pointer, const char *what) {
  if (!pointer)
    fail(RLX_STATUS_INVALID_ARGUMENT, std::string(what) + " must not be NULL");
}

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_STATUS_H
