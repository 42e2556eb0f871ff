//===- FillSplatConstants.cpp - Large splat constants become fills --------===//
///
/// \file
/// One-shot bufferization turns a tensor constant into a global that holds
/// every element, and LLVM writes each of them into the artifact: a splat
/// of 8192x8192 f32 was a 256 MiB .so. A fill of a fresh buffer costs one
/// pass over memory per call instead, and nothing in the artifact.
///
//===----------------------------------------------------------------------===//

#include "codegen/Common/Passes.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXFILLSPLATCONSTANTS
#include "codegen/Common/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The bytes of a static tensor type, saturating at UINT64_MAX (the
/// dimensions of a huge type can overflow any product).
uint64_t saturatingByteSize(RankedTensorType type) {
  uint64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  for (int64_t d : type.getShape())
    bytes = llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(d));
  return bytes;
}

struct RLXFillSplatConstantsPass
    : mlir::rlx::impl::RLXFillSplatConstantsBase<RLXFillSplatConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](arith::ConstantOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getType());
      auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
      if (!type || !splat || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat())
        return;
      if (saturatingByteSize(type) < static_cast<uint64_t>(minBytes))
        return;
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                            type.getElementType());
      Value scalar =
          arith::ConstantOp::create(b, loc, splat.getSplatValue<TypedAttr>());
      Value fill = linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
      op.replaceAllUsesWith(fill);
      op.erase();
    });
  }
};

} // namespace
