//===- RuntimeChecks.cpp - Failed checks become a status ------------------===//
///
/// \file
/// Lowerings assert what shapes cannot show statically (a dynamic reshape
/// must divide evenly) with `cf.assert`, whose message names the op's
/// file:line:col. Upstream lowers cf.assert to abort(); here each becomes
/// a call of `rlx_check_failed(message)` when the condition is false;
/// rlx-return-on-failure passes it the call's state, defines it over the
/// runtime's `rlx_artifact_error_hook` and returns from the entry code after
/// it: the runtime reports the message as INVALID_ARGUMENT.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXRUNTIMECHECKS
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

struct RLXRuntimeChecksPass
    : mlir::rlx::impl::RLXRuntimeChecksBase<RLXRuntimeChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    MLIRContext *context = &getContext();
    OpBuilder b(context);
    b.setInsertionPointToStart(module.getBody());
    auto ptrType = LLVM::LLVMPointerType::get(context);
    StringRef failName = "rlx_check_failed";
    if (!module.lookupSymbol(failName)) {
      auto failType = b.getFunctionType({ptrType}, {});
      auto fail =
          func::FuncOp::create(b, module.getLoc(), failName, failType);
      fail.setPrivate();
    }
    unsigned index = 0;
    for (cf::AssertOp check : asserts) {
      // The message, NUL-terminated, as a private constant.
      std::string text = check.getMsg().str();
      text.push_back('\0');
      std::string name = "rlx_check_message_" + std::to_string(index++);
      b.setInsertionPointToStart(module.getBody());
      auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
      LLVM::GlobalOp::create(b, check.getLoc(), arrayType, /*isConstant=*/true,
                             LLVM::Linkage::Private, name,
                             b.getStringAttr(text));
      b.setInsertionPoint(check);
      Location loc = check.getLoc();
      Value failed = arith::XOrIOp::create(
          b, loc, check.getArg(),
          arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
      auto branch = scf::IfOp::create(b, loc, failed, /*withElse=*/false);
      b.setInsertionPointToStart(branch.thenBlock());
      Value message = LLVM::AddressOfOp::create(b, loc, ptrType, name);
      func::CallOp::create(b, loc, failName, TypeRange{}, ValueRange{message});
      check.erase();
    }
  }
};

} // namespace
