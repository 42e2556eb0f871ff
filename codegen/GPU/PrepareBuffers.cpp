//===- PrepareBuffers.cpp - Copies and constants for device memory --------===//
///
/// \file
/// In a GPU artifact the host code never touches element data: a
/// `memref.copy` becomes a `linalg.copy` (which the loop mapping turns into
/// a kernel) and a constant (`memref.get_global`, host storage) is copied to
/// a device buffer at entry by `rlx_device_upload`, freed at each return.
///
//===----------------------------------------------------------------------===//

#include "codegen/Common/BufferAliases.h"
#include "codegen/GPU/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUPREPAREBUFFERS
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kUploadFn = "rlx_device_upload";

/// The aligned pointer of `buffer` as an i64 (what the hooks take).
Value pointerAsI64(OpBuilder &b, Location loc, Value buffer) {
  Value index =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

func::FuncOp declareUpload(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kUploadFn))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = b.getI64Type();
  auto fn = func::FuncOp::create(b, module.getLoc(), kUploadFn,
                                 b.getFunctionType({i64, i64, i64}, {}));
  fn.setPrivate();
  return fn;
}

struct RLXGPUPrepareBuffersPass
    : mlir::rlx::impl::RLXGPUPrepareBuffersBase<RLXGPUPrepareBuffersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    module.walk([&](memref::CopyOp copy) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    });

    SmallVector<memref::GetGlobalOp> constants;
    module.walk([&](memref::GetGlobalOp op) { constants.push_back(op); });
    if (constants.empty())
      return;
    func::FuncOp upload = declareUpload(module);
    for (memref::GetGlobalOp global : constants) {
      auto type = global.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        global.emitError("constant buffer with a dynamic shape or a layout "
                         "cannot be copied to the device");
        return signalPassFailure();
      }
      Location loc = global.getLoc();
      rewriter.setInsertionPointAfter(global);
      auto device = memref::AllocOp::create(rewriter, loc, type);
      rewriter.replaceAllUsesWith(global.getResult(), device.getResult());
      Value bytes = arith::ConstantIntOp::create(rewriter, loc,
                                                 rewriter.getI64Type(),
                                                 mlir::rlx::staticBytes(type));
      func::CallOp::create(rewriter, loc, upload,
                           ValueRange{pointerAsI64(rewriter, loc, device),
                                      pointerAsI64(rewriter, loc, global),
                                      bytes});
      auto fn = global->getParentOfType<func::FuncOp>();
      fn.walk([&](func::ReturnOp ret) {
        rewriter.setInsertionPoint(ret);
        memref::DeallocOp::create(rewriter, ret.getLoc(), device);
      });
    }
  }
};

} // namespace
