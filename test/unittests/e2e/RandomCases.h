//===- RandomCases.h - The e2e cases of the random ops ----------*- C++ -*-===//
//
/// \file
/// The cases of rlx.random_bits, random_uniform, random_normal,
/// random_truncated_normal, random_split and random_fold_in, with a
/// reference threefry2x32 written
/// from the Threefry specification (Salmon et al., "Parallel random numbers:
/// as easy as 1, 2, 3") and JAX's documented conversions, independent of the
/// lowering.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_E2E_RANDOMCASES_H
#define RLX_TEST_UNITTESTS_E2E_RANDOMCASES_H

#include "Cases.h"

namespace rlx::e2e {

/// Appends the random ops' cases to `cases`.
void appendRandomCases(std::vector<Case> &cases);

} // namespace rlx::e2e

#endif // RLX_TEST_UNITTESTS_E2E_RANDOMCASES_H
