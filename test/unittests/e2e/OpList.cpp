//===- OpList.cpp - The ops of the rlx dialect, as MLIR registers them ----===//

#include "OpList.h"
#include "Harness.h"

#include <sstream>
#include <stdexcept>

namespace rlx::e2e {

const std::vector<DialectOp> &dialectOps() {
  static const std::vector<DialectOp> ops = [] {
    ProcessResult listed = runProcess({RLX_DIALECT_OPS_PATH}, 60);
    if (listed.exitCode != 0)
      throw std::runtime_error("rlx-dialect-ops failed: " + listed.err);
    std::vector<DialectOp> result;
    std::istringstream lines(listed.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      DialectOp op;
      std::string differentiable, symbolUser;
      if (!(fields >> op.name >> differentiable >> symbolUser))
        throw std::runtime_error("rlx-dialect-ops printed '" + line + "'");
      op.differentiable = differentiable == "differentiable=1";
      op.symbolUser = symbolUser == "symbol_user=1";
      result.push_back(op);
    }
    if (result.empty())
      throw std::runtime_error("rlx-dialect-ops listed no op");
    return result;
  }();
  return ops;
}

} // namespace rlx::e2e
