//===- RLXDialect.cpp - rlx dialect registration --------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"

using namespace mlir;
using namespace rlx;

#include "dialects/RLX/IR/RLXOpsDialect.cpp.inc"
#include "dialects/RLX/IR/RLXInterfaces.cpp.inc"

void RLXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/RLX/IR/RLXOps.cpp.inc"
      >();
}

/// Folders produce ElementsAttrs; rlx.constant holds them.
Operation *RLXDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
