//===- LowerStridedCopies.cpp - Strided memref.copy to linalg.copy --------===//
///
/// \file
/// Artifacts link only libc and libm, so no copy may reach MLIR's
/// `memrefCopy` runtime helper.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPULOWERSTRIDEDCOPIES
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

bool isContiguous(Value v) {
  auto type = cast<MemRefType>(v.getType());
  return type.getLayout().isIdentity() ||
         memref::isStaticShapeAndContiguousRowMajor(type);
}

struct RLXCPULowerStridedCopiesPass
    : mlir::rlx::impl::RLXCPULowerStridedCopiesBase<RLXCPULowerStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!isContiguous(copy.getSource()) || !isContiguous(copy.getTarget()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
