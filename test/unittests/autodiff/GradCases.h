//===- GradCases.h - What the rlx autodiff tests check ----------*- C++ -*-===//
//
/// \file
/// The cases whose derivatives are checked against finite differences: the
/// e2e cases (test/unittests/e2e/Cases.cpp) that have a float leaf, plus
/// composites of the autodiff suite; and the MLIR texts of the closed-form
/// identity tests, which the coverage test scans for markers.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_AUTODIFF_GRADCASES_H
#define RLX_TEST_UNITTESTS_AUTODIFF_GRADCASES_H

#include "Cases.h"

namespace rlx::autodiff {

/// Composites added by the autodiff suite (F64 only; no value reference).
const std::vector<e2e::Case> &extraCases();

/// True when the case has a float input or a param: something to
/// differentiate with respect to.
bool hasFloatLeaf(const e2e::Case &c);

/// Every case whose derivatives are checked in `v` (F64 variants).
std::vector<const e2e::Case *> gradCases(const e2e::Variant &v);

/// The MLIR of every closed-form identity test (IdentityTest.cpp).
std::vector<std::string> identityModuleTexts();

} // namespace rlx::autodiff

#endif // RLX_TEST_UNITTESTS_AUTODIFF_GRADCASES_H
