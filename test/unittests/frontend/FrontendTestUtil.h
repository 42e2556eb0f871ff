//===- FrontendTestUtil.h - Helpers of the frontend tests -------*- C++ -*-===//
///
/// \file
/// Host arrays of doubles, central finite differences of a jitted function
/// (the independent reference every gradient is checked against), and a
/// fresh temporary folder per test.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_FRONTEND_UTIL_H
#define RLX_TEST_FRONTEND_UTIL_H

#include "rlx/frontend.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace rlx::test {

/// Deterministic values in [-1, 1) (no RNG shared with the code under test).
std::vector<double> values(size_t count, unsigned seed);

/// The gradient of output `out` (one element) of `forward` w.r.t. input
/// `wrt`, by f64 central differences with step `eps`.
std::vector<double> centralDiff(const Compiled &forward,
                                std::map<std::string, Array> inputs,
                                const std::string &wrt, size_t out = 0,
                                double eps = 1e-6);
/// The same w.r.t. a bound param of `forward`.
std::vector<double> centralDiffParam(Compiled &forward,
                                     const std::map<std::string, Array> &inputs,
                                     const std::string &param, size_t out = 0,
                                     double eps = 1e-6);

/// Elementwise |a - b| <= atol + rtol |b|, naming the first bad element.
void expectNear(const std::vector<double> &actual,
                const std::vector<double> &expected, double rtol = 1e-6,
                double atol = 1e-8);

/// A new empty folder under the test's temporary directory.
std::string freshDir(const std::string &name);

/// The message of the rlx::Error `body` throws, or "" when it throws none.
template <typename Body> std::string errorOf(Body body) {
  try {
    body();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

} // namespace rlx::test

#endif // RLX_TEST_FRONTEND_UTIL_H
