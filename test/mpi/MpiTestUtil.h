//===- MpiTestUtil.h - Checks for programs run under mpirun -----*- C++ -*-===//
///
/// \file
/// The MPI tests are plain programs (one per replica under `mpirun -np N`):
/// each check prints `rank R: FAIL ...` and counts; main returns non-zero
/// when any failed, so mpirun's exit code is the test's.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_MPI_MPITESTUTIL_H
#define RLX_TEST_MPI_MPITESTUTIL_H

#include "rlx/frontend.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace rlx::mpitest {

inline int failures = 0;
inline int rank = 0;

inline void expect(bool ok, const std::string &what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "rank %d: FAIL %s\n", rank, what.c_str());
  }
}

/// |got - want| <= atol + rtol |want| elementwise, naming the first miss.
inline void expectNear(const std::vector<double> &got,
                       const std::vector<double> &want, double rtol,
                       double atol, const std::string &what) {
  if (got.size() != want.size()) {
    expect(false, what + ": " + std::to_string(got.size()) +
                      " elements, expected " + std::to_string(want.size()));
    return;
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= atol + rtol * std::fabs(want[i]))) {
      expect(false, what + ": element " + std::to_string(i) + " is " +
                        std::to_string(got[i]) + ", expected " +
                        std::to_string(want[i]));
      return;
    }
}

inline std::vector<double> toVector(const Array &a) {
  std::vector<double> out(a.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = a.at(i);
  return out;
}

} // namespace rlx::mpitest

#endif // RLX_TEST_MPI_MPITESTUTIL_H
