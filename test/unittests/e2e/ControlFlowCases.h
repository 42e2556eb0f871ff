//===- ControlFlowCases.h - The e2e cases of loops and branches -*- C++ -*-===//
//
/// \file
/// The cases of rlx.scan (consts, carry, stacked inputs and outputs; a
/// reverse scan over a length), rlx.while and rlx.switch (an i32 index
/// clamped into range, an i1 predicate), with plain C++ loops as the
/// reference.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_E2E_CONTROLFLOWCASES_H
#define RLX_TEST_UNITTESTS_E2E_CONTROLFLOWCASES_H

#include "Cases.h"

namespace rlx::e2e {

/// Appends the control-flow ops' cases to `cases`.
void appendControlFlowCases(std::vector<Case> &cases);

} // namespace rlx::e2e

#endif // RLX_TEST_UNITTESTS_E2E_CONTROLFLOWCASES_H
