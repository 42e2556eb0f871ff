//===- CheckTensorSizes.cpp - Refuse unaddressable tensor types ----------===//
///
/// \file
/// Buffer sizes are computed in 64-bit index arithmetic; a static type whose
/// byte size does not fit wraps to a small allocation that the kernels then
/// overrun. Such types are refused at compile time, with the runtime's cap
/// of 2^62 bytes (checkedElementCount in runtime/src/DType.cpp), which keeps
/// every derived offset and stride clear of overflow too.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCHECKTENSORSIZES
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 62;

/// True when the static dims of `type` times its element size exceed the cap.
bool isTooLarge(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return false;
  Type element = shaped.getElementType();
  uint64_t bytes =
      element.isIntOrFloat() ? llvm::divideCeil(element.getIntOrFloatBitWidth(), 8)
                             : 8;
  for (int64_t d : shaped.getShape())
    if (!ShapedType::isDynamic(d))
      bytes = llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(d));
  return bytes > kMaxTensorBytes;
}

struct RLXCheckTensorSizesPass
    : mlir::rlx::impl::RLXCheckTensorSizesBase<RLXCheckTensorSizesPass> {
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isTooLarge(arg.getType())) {
              InFlightDiagnostic diag = emitError(arg.getLoc());
              diag << "expects tensors of at most 2^62 bytes, ";
              if (auto func = dyn_cast<func::FuncOp>(op))
                diag << "input " << arg.getArgNumber() << " of '"
                     << func.getSymName() << "'";
              else
                diag << "block argument " << arg.getArgNumber() << " of '"
                     << op->getName() << "'";
              diag << " is " << arg.getType();
              return WalkResult::interrupt();
            }
      for (OpResult r : op->getResults())
        if (isTooLarge(r.getType())) {
          op->emitOpError("expects tensors of at most 2^62 bytes, result ")
              << r.getResultNumber() << " is " << r.getType();
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
