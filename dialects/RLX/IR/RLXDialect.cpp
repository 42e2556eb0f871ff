//===- RLXDialect.cpp - rlx dialect registration --------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::rlx;

#include "dialects/RLX/IR/RLXOpsDialect.cpp.inc"
#include "dialects/RLX/IR/RLXInterfaces.cpp.inc"

namespace {
/// rlx ops have value semantics and no regions: they inline anywhere.
struct RLXInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void RLXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/RLX/IR/RLXOps.cpp.inc"
      >();
  addInterfaces<RLXInlinerInterface>();
}

/// Folders produce ElementsAttrs; rlx.constant holds them.
Operation *RLXDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
