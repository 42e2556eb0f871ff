//===- OutlineKernels.cpp - One function per loop nest in long functions --===//
///
/// \file
/// An entry point lowers to one function holding every kernel of the model.
/// LLVM's optimizer is superlinear in the size of one function (loop
/// rotation updates the dominator tree of all that follows each loop), so a
/// model of a few hundred kernels spent most of its compile time there. In a
/// long function each top-level op with regions (a loop nest, a parallel
/// region, a branch) moves into a private function of its own, marked never
/// to be inlined back.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUOUTLINEKERNELS
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

struct RLXCPUOutlineKernelsPass
    : mlir::rlx::impl::RLXCPUOutlineKernelsBase<RLXCPUOutlineKernelsPass> {
  using RLXCPUOutlineKernelsBase::RLXCPUOutlineKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      SmallVector<Operation *> kernels;
      for (Block &block : function.getBody())
        for (Operation &op : block)
          if (op.getNumRegions() != 0)
            kernels.push_back(&op);
      if (static_cast<int64_t>(kernels.size()) <= minKernels)
        continue;
      for (auto [index, kernel] : llvm::enumerate(kernels))
        outline(kernel, function, index, symbols);
    }
  }

  /// Whether `value` is computed by pure, region-free ops from nothing but
  /// constants, at most `depth` deep (a long chain is passed, not recomputed,
  /// and the recursion stays shallow); if so, appends those ops to `chain`
  /// (operands first).
  static bool recomputable(Value value, DenseMap<Operation *, bool> &known,
                           llvm::SetVector<Operation *> &chain,
                           unsigned depth = 16) {
    Operation *producer = value.getDefiningOp();
    if (!producer || producer->getNumRegions() != 0 || !isPure(producer) ||
        depth == 0)
      return false;
    auto [it, inserted] = known.try_emplace(producer, false);
    if (!inserted)
      return it->second;
    for (Value operand : producer->getOperands())
      if (!recomputable(operand, known, chain, depth - 1))
        return false;
    known[producer] = true;
    chain.insert(producer);
    return true;
  }

  /// Replaces `kernel` by a call of a new private function computing it.
  void outline(Operation *kernel, func::FuncOp parent, size_t index,
               SymbolTable &symbols) {
    // What the kernel reads from outside: its operands and the values its
    // regions use from above. What constants alone determine (constants,
    // vector masks built from them) is recomputed in the new function: it
    // stays constant to LLVM, and vectors of i1 passed through a call were
    // miscompiled (a conv's vjp returned wrong primal values).
    llvm::SetVector<Value> captured;
    for (Value operand : kernel->getOperands())
      captured.insert(operand);
    getUsedValuesDefinedAbove(kernel->getRegions(), captured);
    SmallVector<Value> arguments;
    llvm::SetVector<Operation *> recomputed;
    DenseMap<Operation *, bool> known;
    for (Value value : captured) {
      if (recomputable(value, known, recomputed))
        continue;
      // A value that cannot be recomputed and is a vector stays where it
      // is, with its kernel.
      if (isa<VectorType>(value.getType()))
        return;
      arguments.push_back(value);
    }

    OpBuilder b(parent);
    Location loc = kernel->getLoc();
    auto type = b.getFunctionType(ValueRange(arguments).getTypes(),
                                  kernel->getResultTypes());
    auto function = func::FuncOp::create(
        b, loc, (parent.getName() + "_kernel" + Twine(index)).str(), type);
    function.setPrivate();
    // LLVM would inline a function called once straight back.
    function->setAttr("passthrough",
                      b.getArrayAttr({b.getStringAttr("noinline")}));
    symbols.insert(function);

    Block *body = function.addEntryBlock();
    b.setInsertionPointToStart(body);
    IRMapping mapping;
    for (auto [value, argument] : llvm::zip(arguments, body->getArguments()))
      mapping.map(value, argument);
    for (Operation *op : recomputed)
      b.clone(*op, mapping);
    Operation *copy = b.clone(*kernel, mapping);
    func::ReturnOp::create(b, loc, copy->getResults());

    b.setInsertionPoint(kernel);
    auto call = func::CallOp::create(b, loc, function, arguments);
    kernel->replaceAllUsesWith(call.getResults());
    kernel->erase();
  }
};

} // namespace
