//===- Weights.cpp - Values fixed once the weights are bound --------------===//

#include "dialects/RLX/Transforms/Weights.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

bool mlir::rlx::isWeight(Value value, Block *block) {
  SmallVector<Value> work = {value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      return false;
    if (isa<ParamOp>(def) || matchPattern(def, m_Constant()))
      continue;
    if (def->getNumRegions() || def->getNumOperands() == 0 ||
        !isMemoryEffectFree(def))
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}
