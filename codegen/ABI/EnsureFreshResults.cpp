//===- EnsureFreshResults.cpp - Entry results own their buffers -----------===//
///
/// \file
/// The caller frees every result buffer (docs/abi.md). One-shot
/// bufferization may return an argument, a constant global or one buffer
/// twice; each such result is copied into its own allocation here.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"
#include "codegen/Common/BufferAliases.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXENSUREFRESHRESULTS
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {


struct RLXEnsureFreshResultsPass
    : mlir::rlx::impl::RLXEnsureFreshResultsBase<RLXEnsureFreshResultsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr("rlx.entry"))
        continue;
      func.walk([&](func::ReturnOp ret) { freshen(ret); });
    }
  }

  void freshen(func::ReturnOp ret) {
    llvm::DenseSet<Value> claimed;
    OpBuilder b(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type)
        continue;
      Value root = rootBuffer(v);
      bool fresh = root.getDefiningOp<memref::AllocOp>() &&
                   claimed.insert(root).second;
      if (fresh)
        continue;
      Location loc = ret.getLoc();
      SmallVector<Value> dynamicSizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          dynamicSizes.push_back(memref::DimOp::create(b, loc, v, d));
      auto freshType = MemRefType::get(type.getShape(), type.getElementType());
      Value copy = memref::AllocOp::create(b, loc, freshType, dynamicSizes);
      memref::CopyOp::create(b, loc, v, copy);
      claimed.insert(copy);
      if (freshType != type)
        copy = memref::CastOp::create(b, loc, type, copy);
      operand.set(copy);
    }
  }
};

} // namespace
