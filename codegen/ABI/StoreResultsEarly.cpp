//===- StoreResultsEarly.cpp - Many results written as they are made -----===//
///
/// \file
/// rlx-store-results-early: an entry point with many results (a prepare
/// entry returns one buffer per prepared weight: 338 for DenseNet-121)
/// returned them as one LLVM struct built by a chain of insertvalues, which
/// the C interface wrapper stored to its result pointer. LLVM's code
/// generator splits every link of that chain into all of the struct's
/// scalars, quadratic in the results (over 5 minutes of llc for 338
/// results), and every descriptor stayed live across every kernel call.
/// Here such a function takes the wrapper's result pointer instead and
/// stores each result where it is computed; the memory the runtime reads is
/// the same, so the ABI does not change.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXSTORERESULTSEARLY
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Functions returning structs of more fields than this are rewritten;
/// smaller ones are left as func-to-llvm made them.
constexpr unsigned kMinResults = 4;

/// The callers of `func` when every one is a call whose only use is a store
/// of the whole result to a pointer argument of the calling function (the C
/// interface wrapper); std::nullopt otherwise.
std::optional<SmallVector<std::pair<LLVM::CallOp, LLVM::StoreOp>>>
wrapperCalls(LLVM::LLVMFuncOp func, ModuleOp module) {
  std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
  if (!uses)
    return std::nullopt;
  SmallVector<std::pair<LLVM::CallOp, LLVM::StoreOp>> calls;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<LLVM::CallOp>(use.getUser());
    if (!call || call.getNumResults() != 1 || !call.getResult().hasOneUse())
      return std::nullopt;
    auto store = dyn_cast<LLVM::StoreOp>(*call.getResult().getUsers().begin());
    auto address = dyn_cast<BlockArgument>(
        store ? store.getAddr() : Value());
    if (!store || store.getValue() != call.getResult() || !address ||
        !address.getOwner()->isEntryBlock() ||
        address.getOwner()->getParentOp() != call->getParentOfType<
                                                 LLVM::LLVMFuncOp>())
      return std::nullopt;
    calls.push_back({call, store});
  }
  return calls;
}

/// The fields of `value` set by a chain of single-index insertvalues on a
/// poison or undef struct, by position; std::nullopt when it is not such a
/// chain covering every field.
std::optional<SmallVector<Value>> chainFields(Value value, unsigned fields) {
  SmallVector<Value> byPosition(fields);
  while (auto insert = value.getDefiningOp<LLVM::InsertValueOp>()) {
    if (insert.getPosition().size() != 1)
      return std::nullopt;
    int64_t position = insert.getPosition()[0];
    if (!byPosition[position])
      byPosition[position] = insert.getValue();
    value = insert.getContainer();
  }
  if (!value.getDefiningOp<LLVM::PoisonOp>() &&
      !value.getDefiningOp<LLVM::UndefOp>())
    return std::nullopt;
  if (llvm::is_contained(byPosition, Value()))
    return std::nullopt;
  return byPosition;
}

void storeField(OpBuilder &b, Location loc, LLVM::LLVMStructType type,
                Value out, Value field, int64_t position) {
  Value address = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), type, out,
      ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(position)});
  LLVM::StoreOp::create(b, loc, field, address);
}

void rewrite(LLVM::LLVMFuncOp func,
             ArrayRef<std::pair<LLVM::CallOp, LLVM::StoreOp>> calls) {
  auto type = cast<LLVM::LLVMStructType>(
      func.getFunctionType().getReturnType());
  MLIRContext *context = func.getContext();
  auto pointer = LLVM::LLVMPointerType::get(context);
  SmallVector<Type> inputs{pointer};
  llvm::append_range(inputs, func.getFunctionType().getParams());
  func.setFunctionType(LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context), inputs,
      func.getFunctionType().isVarArg()));
  Block &entry = func.getBody().front();
  Value out = entry.insertArgument(0u, pointer, func.getLoc());
  if (ArrayAttr argAttrs = func.getAllArgAttrs()) {
    SmallVector<Attribute> shifted{DictionaryAttr::get(context)};
    llvm::append_range(shifted, argAttrs);
    func.setAllArgAttrs(shifted);
  }
  func.removeResAttrsAttr();

  SmallVector<LLVM::ReturnOp> returns;
  func.walk([&](LLVM::ReturnOp ret) { returns.push_back(ret); });
  OpBuilder b(context);
  for (LLVM::ReturnOp ret : returns) {
    Value result = ret.getArg();
    std::optional<SmallVector<Value>> fields =
        chainFields(result, type.getBody().size());
    if (!fields) {
      // A failure's zeros, or a struct made otherwise: stored whole here.
      b.setInsertionPoint(ret);
      LLVM::StoreOp::create(b, ret.getLoc(), result, out);
    } else {
      for (auto [position, field] : llvm::enumerate(*fields)) {
        // Right where the field is made, so that it is not kept live.
        if (Operation *def = field.getDefiningOp())
          b.setInsertionPointAfter(def);
        else
          b.setInsertionPointToStart(cast<BlockArgument>(field).getOwner());
        storeField(b, ret.getLoc(), type, out, field, position);
      }
    }
    b.setInsertionPoint(ret);
    LLVM::ReturnOp::create(b, ret.getLoc(), ValueRange{});
    ret.erase();
    // The chain, now unused, from its end.
    while (result && result.use_empty()) {
      Operation *def = result.getDefiningOp();
      if (!def || !isa<LLVM::InsertValueOp, LLVM::PoisonOp, LLVM::UndefOp>(
                      def))
        break;
      auto insert = dyn_cast<LLVM::InsertValueOp>(def);
      result = insert ? insert.getContainer() : Value();
      def->erase();
    }
  }

  for (auto [call, store] : calls) {
    b.setInsertionPoint(call);
    SmallVector<Value> operands{store.getAddr()};
    llvm::append_range(operands, call.getArgOperands());
    LLVM::CallOp::create(b, call.getLoc(), TypeRange{}, func.getSymName(),
                         operands);
    store.erase();
    call.erase();
  }
}

struct RLXStoreResultsEarlyPass
    : mlir::rlx::impl::RLXStoreResultsEarlyBase<RLXStoreResultsEarlyPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::make_early_inc_range(
             module.getOps<LLVM::LLVMFuncOp>())) {
      auto type = dyn_cast<LLVM::LLVMStructType>(
          func.getFunctionType().getReturnType());
      if (func.isExternal() || !type || type.getBody().size() <= kMinResults ||
          func.getFunctionType().isVarArg())
        continue;
      if (std::optional<SmallVector<std::pair<LLVM::CallOp, LLVM::StoreOp>>>
              calls = wrapperCalls(func, module))
        rewrite(func, *calls);
    }
  }
};

} // namespace
