//===- AutodiffUtil.h - Plumbing of the rlx autodiff tests ------*- C++ -*-===//
//
/// \file
/// Compiling a module with the real rlxc (and --check-grads flags), running
/// rlx::runtime::check_grads in a forked child so that a crashing derivative
/// fails one test and not the run, and small helpers over e2e::Arr.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_AUTODIFF_AUTODIFFUTIL_H
#define RLX_TEST_UNITTESTS_AUTODIFF_AUTODIFFUTIL_H

#include "Harness.h"
#include "rlx/check_grads.hpp"

#include <memory>

namespace rlx::autodiff {

using e2e::Arr;

/// A module compiled by rlxc and loaded (the e2e harness's).
using Compiled = e2e::CompiledModule;

/// rlxc with `extraArgs` on `text`, loaded; a compile is killed after
/// `timeoutSeconds`.
inline std::unique_ptr<Compiled>
compile(const std::string &stem, const std::string &text,
        const std::vector<std::string> &extraArgs = {},
        unsigned timeoutSeconds = 60) {
  return e2e::compileAndLoad(stem, text, extraArgs, timeoutSeconds);
}

/// What a runtime::check_grads run in a child process gave.
struct IsolatedCheck {
  bool ran = false;    // false: it threw or crashed; see `error`
  bool passed = false; // result.passed()
  std::string summary; // result.summary()
  std::string error;
};
IsolatedCheck
checkGradsIsolated(const rlx::runtime::Session &session, const std::string &fn,
                   const std::vector<rlx::runtime::HostTensor> &inputs,
                   const rlx::runtime::GradCheckOptions &options);

/// Calls `entry` (not isolated) and returns its outputs; ADD_FAILURE and
/// an empty vector when the call throws.
std::vector<Arr> call(const rlx::runtime::Session &session,
                      const std::string &entry, const std::vector<Arr> &inputs);

/// An f64 array of `shape` holding `values` (row-major).
Arr f64(std::vector<int64_t> shape, std::vector<double> values);

} // namespace rlx::autodiff

#endif // RLX_TEST_UNITTESTS_AUTODIFF_AUTODIFFUTIL_H
