//===- OpList.h - The ops of the rlx dialect --------------------*- C++ -*-===//
//
/// \file
/// Every op the rlx dialect registers, with its interfaces, as the test tool
/// rlx-dialect-ops prints them (test/lib), so that coverage tests follow the
/// dialect instead of a list kept by hand.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_E2E_OPLIST_H
#define RLX_TEST_UNITTESTS_E2E_OPLIST_H

#include <string>
#include <vector>

namespace rlx::e2e {

struct DialectOp {
  std::string name;      // without the `rlx.` prefix: "add", "max_pool2d"
  /// Has DifferentiableOpInterface (derivative rules): computes at run time.
  bool differentiable = false;
  /// Names functions by symbol (SymbolUserOpInterface): the markers, and
  /// calls with user rules (custom_vjp, custom_jvp, remat).
  bool symbolUser = false;
  /// A transform marker (grad, vjp, jvp, hvp, value_and_grad): names a
  /// function and has no derivative rules of its own; expanded before code
  /// generation, never a runtime op.
  bool marker() const { return symbolUser && !differentiable; }
};

/// Runs rlx-dialect-ops (RLX_DIALECT_OPS_PATH); throws std::runtime_error
/// when it fails or lists no op.
const std::vector<DialectOp> &dialectOps();

} // namespace rlx::e2e

#endif // RLX_TEST_UNITTESTS_E2E_OPLIST_H
