//===- PrepareParams.cpp - What weights alone determine, once per binding --===//
///
/// \file
/// rlx-prepare-params: an entry point often computes from its weights alone
/// (an ONNX Gemm's transposed weight, a folded batch norm's scale, the
/// transposed weight of a backward matmul) and would redo it on every call.
/// Those computations move to a public function `FN__prepare_params` that
/// returns them; FN reads each as a param of a reserved name
/// (`rlx.prepared/FN/N`) and is tagged `rlx.prepare = "FN__prepare_params"`.
/// The manifest records it (docs/abi.md); the runtime runs the prepare entry
/// once per binding of weights and passes its outputs as those params, as
/// ONNX Runtime folds and prepacks initializers at session creation.
///
/// Only the entry block's ops move (loops' param-only parts were hoisted
/// there by loop-invariant code motion), only pure region-free ops, and only
/// values whose computation does work: a param reshaped is already free.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXPREPAREPARAMS
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Ops that only view their operand: moving them saves nothing.
bool isView(Operation *op) {
  return isa<ReshapeOp, tensor::CastOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp>(op);
}

/// Whether `op` may run in the prepare function: pure, no regions, static
/// ranked tensor results, not an unpack.
bool isMovable(Operation *op) {
  // An unpack stays beside the matmul that reads the packed value through
  // it (rlx-pack-dot-operands): its pack is what moves.
  if (isa<UnpackDotOperandOp>(op))
    return false;
  if (op->getNumRegions() || op->getNumResults() == 0 ||
      !isMemoryEffectFree(op))
    return false;
  return llvm::all_of(op->getResultTypes(), [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.hasStaticShape();
  });
}

void prepare(func::FuncOp fn, SymbolTable &symbols) {
  Block &entry = fn.front();
  // Values computed from params and constants alone; `works`: those whose
  // computation does more than read or view a param or constant.
  llvm::DenseSet<Value> fixed, works;
  for (Operation &op : entry.without_terminator()) {
    bool source = isa<ParamOp>(op) || matchPattern(&op, m_Constant());
    if (source && isMovable(&op)) {
      fixed.insert(op.result_begin(), op.result_end());
      continue;
    }
    if (!isMovable(&op) || op.getNumOperands() == 0 ||
        !llvm::all_of(op.getOperands(),
                      [&](Value v) { return fixed.contains(v); }))
      continue;
    fixed.insert(op.result_begin(), op.result_end());
    if (!isView(&op) || llvm::any_of(op.getOperands(), [&](Value v) {
          return works.contains(v);
        }))
      works.insert(op.result_begin(), op.result_end());
  }
  // The prepared values: doing work, read by something that stays (an op
  // of the entry block that does not move, or one nested in a loop there:
  // what loop-invariant code motion hoisted out of a loop body).
  llvm::SetVector<Value> prepared;
  for (Operation &op : entry.without_terminator())
    for (Value v : op.getResults()) {
      if (!works.contains(v))
        continue;
      if (llvm::any_of(v.getUsers(), [&](Operation *user) {
            return user->getBlock() != &entry || user->getNumResults() == 0 ||
                   !fixed.contains(user->getResult(0));
          }))
        prepared.insert(v);
    }
  if (prepared.empty())
    return;

  OpBuilder mb(fn);
  mb.setInsertionPointAfter(fn);
  SmallVector<Type> types;
  for (Value v : prepared)
    types.push_back(v.getType());
  auto prep = func::FuncOp::create(mb, fn.getLoc(),
                                   (fn.getSymName() + "__prepare_params").str(),
                                   mb.getFunctionType({}, types));
  symbols.insert(prep);
  Block *body = prep.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(body);
  llvm::SetVector<Operation *> needed;
  for (Value v : prepared)
    needed.insert(v.getDefiningOp());
  for (size_t i = 0; i < needed.size(); ++i)
    for (Value operand : needed[i]->getOperands())
      needed.insert(operand.getDefiningOp());
  IRMapping mapping;
  for (Operation &op : entry.without_terminator())
    if (needed.contains(&op))
      b.clone(op, mapping);
  SmallVector<Value> results;
  for (Value v : prepared)
    results.push_back(mapping.lookup(v));
  func::ReturnOp::create(b, fn.getLoc(), results);

  // FN reads them back as params of reserved names.
  OpBuilder fb = OpBuilder::atBlockBegin(&entry);
  for (auto [i, v] : llvm::enumerate(prepared)) {
    std::string name =
        ("rlx.prepared/" + fn.getSymName() + "/" + Twine(i)).str();
    prep.setResultAttr(i, "rlx.name", b.getStringAttr(name));
    Value param = ParamOp::create(fb, v.getLoc(), v.getType(),
                                  fb.getStringAttr(name));
    Value(v).replaceAllUsesWith(param);
  }
  SmallVector<Operation *> ops;
  for (Operation &op : entry.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
  fn->setAttr(kPrepareAttrName, b.getStringAttr(prep.getSymName()));
}

struct RLXPrepareParamsPass
    : mlir::rlx::impl::RLXPrepareParamsBase<RLXPrepareParamsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> entries;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal() && !fn->hasAttr(kPrepareAttrName))
        entries.push_back(fn);
    for (func::FuncOp fn : entries)
      prepare(fn, symbols);
  }
};

} // namespace
