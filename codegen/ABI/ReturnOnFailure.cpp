//===- ReturnOnFailure.cpp - Entry code stops and returns on failure -----===//
///
/// \file
/// A call can fail half way: an allocation finds no memory, a run-time check
/// (a dynamic reshape that does not divide) fails, a device or collective
/// hook reports an error. The runtime's hooks record the failure on the call
/// and return; this pass makes the entry code leave as soon as they do, by
/// ordinary branches and returns, so no frame is skipped (no longjmp
/// through libomp or device code) and the runtime regains control with the
/// call's state intact.
///
/// The call's state comes from `rlx_call_state()` once per function; every
/// host allocation carries it (`rlx_alloc(state, bytes, alignment)`) so that
/// the runtime knows which call a block belongs to even when a worker thread
/// of a parallel region allocates it, and frees every block of a failed
/// call. Inside an OpenMP region a failure skips the rest of the iteration;
/// the thread that entered the call asks the state after the region.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/DefineFunctions.h"
#include "codegen/ABI/Passes.h"
#include "rlx/abi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXRETURNONFAILURE
#include "codegen/ABI/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

#define RLX_HOOK_SLOT(NAME)                                                    \
  "llvm.mlir.global external @" NAME "() : !llvm.ptr {\n"                      \
  "  %0 = llvm.mlir.zero : !llvm.ptr\n"                                        \
  "  llvm.return %0 : !llvm.ptr\n"                                             \
  "}\n"

// The head of every helper: load the slot, to ^fallback when it is null
// (another loader), else to ^call with the hook in %hook.
#define RLX_LOAD_HOOK(NAME)                                                    \
  "  %null = llvm.mlir.zero : !llvm.ptr\n"                                     \
  "  %slot = llvm.mlir.addressof @" NAME " : !llvm.ptr\n"                      \
  "  %hook = llvm.load %slot : !llvm.ptr -> !llvm.ptr\n"                       \
  "  %none = llvm.icmp \"eq\" %hook, %null : !llvm.ptr\n"                      \
  "  llvm.cond_br %none, ^fallback, ^call\n"

// The slots' names come from rlx/abi.h, spliced into the text. Without a
// runtime the helpers fall back to the C library, and a failed check
// aborts as cf.assert would.
constexpr const char *kDefinitions =
    RLX_HOOK_SLOT(RLX_ARTIFACT_CALL_HOOK_SYMBOL)
    RLX_HOOK_SLOT(RLX_ARTIFACT_ALLOC_HOOK_SYMBOL)
    RLX_HOOK_SLOT(RLX_ARTIFACT_FREE_HOOK_SYMBOL)
    RLX_HOOK_SLOT(RLX_ARTIFACT_ERROR_HOOK_SYMBOL)
    RLX_HOOK_SLOT(RLX_ARTIFACT_FAILED_HOOK_SYMBOL)
    "llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr\n"
    "llvm.func @free(!llvm.ptr)\n"
    "llvm.func @abort()\n"
    "llvm.func @rlx_call_state() -> !llvm.ptr {\n"
    RLX_LOAD_HOOK(RLX_ARTIFACT_CALL_HOOK_SYMBOL) R"mlir(^fallback:
  llvm.return %null : !llvm.ptr
^call:
  %state = llvm.call %hook() : !llvm.ptr, () -> !llvm.ptr
  llvm.return %state : !llvm.ptr
}
llvm.func @rlx_alloc(%state: !llvm.ptr, %bytes: i64, %alignment: i64) -> !llvm.ptr {
)mlir" RLX_LOAD_HOOK(RLX_ARTIFACT_ALLOC_HOOK_SYMBOL) R"mlir(^fallback:
  %p = llvm.call @aligned_alloc(%alignment, %bytes) : (i64, i64) -> !llvm.ptr
  llvm.return %p : !llvm.ptr
^call:
  %q = llvm.call %hook(%state, %bytes, %alignment) : !llvm.ptr, (!llvm.ptr, i64, i64) -> !llvm.ptr
  llvm.return %q : !llvm.ptr
}
llvm.func @rlx_free(%state: !llvm.ptr, %block: !llvm.ptr) {
)mlir" RLX_LOAD_HOOK(RLX_ARTIFACT_FREE_HOOK_SYMBOL) R"mlir(^fallback:
  llvm.call @free(%block) : (!llvm.ptr) -> ()
  llvm.return
^call:
  llvm.call %hook(%state, %block) : !llvm.ptr, (!llvm.ptr, !llvm.ptr) -> ()
  llvm.return
}
llvm.func @rlx_check_failed(%state: !llvm.ptr, %message: !llvm.ptr) {
)mlir" RLX_LOAD_HOOK(RLX_ARTIFACT_ERROR_HOOK_SYMBOL) R"mlir(^fallback:
  llvm.call @abort() : () -> ()
  llvm.unreachable
^call:
  llvm.call %hook(%state, %message) : !llvm.ptr, (!llvm.ptr, !llvm.ptr) -> ()
  llvm.return
}
llvm.func @rlx_call_failed(%state: !llvm.ptr) -> i1 {
)mlir" RLX_LOAD_HOOK(RLX_ARTIFACT_FAILED_HOOK_SYMBOL) R"mlir(^fallback:
  %false = llvm.mlir.constant(false) : i1
  llvm.return %false : i1
^call:
  %code = llvm.call %hook(%state) : !llvm.ptr, (!llvm.ptr) -> i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  %failed = llvm.icmp "ne" %code, %zero : i32
  llvm.return %failed : i1
}
)mlir";

#undef RLX_LOAD_HOOK
#undef RLX_HOOK_SLOT

constexpr llvm::StringLiteral kAlloc = "_mlir_memref_to_llvm_alloc";
constexpr llvm::StringLiteral kAlignedAlloc =
    "_mlir_memref_to_llvm_aligned_alloc";
constexpr llvm::StringLiteral kFree = "_mlir_memref_to_llvm_free";

/// How a failure point tells that the call failed.
enum class FailureTest {
  NullResult, ///< its result is a null block
  Always,     ///< it is reached only on failure (rlx_check_failed)
  AskState,   ///< rlx_call_failed(state) after it
};

/// Helpers the artifact defines for itself: their bodies are not entry code.
bool isHelper(StringRef name) {
  return name.starts_with("_mlir_memref_to_llvm_") ||
         (name.starts_with("rlx_") && !name.starts_with(RLX_IMPL_SYMBOL_PREFIX));
}

/// Helpers after whose call the state must be asked: device memory and
/// launches, collectives (their hooks record failures and return).
bool helperMayFail(StringRef name) {
  return name.starts_with("_mlir_memref_to_llvm_") ||
         name.starts_with("rlx_device_") || name.starts_with("rlx_collective_");
}

struct FailurePoint {
  LLVM::CallOp call;
  FailureTest test;
};

struct RLXReturnOnFailurePass
    : mlir::rlx::impl::RLXReturnOnFailureBase<RLXReturnOnFailurePass> {
  using RLXReturnOnFailureBase::RLXReturnOnFailureBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> functions;
    for (auto function : module.getOps<LLVM::LLVMFuncOp>())
      if (!function.isExternal() && !isHelper(function.getName()))
        functions.push_back(function);

    // Functions that can fail: those with a failure point of their own, then
    // their callers, to a fixed point.
    llvm::StringSet<> mayFail;
    auto calleeFails = [&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee)
        return false;
      if (isHelper(*callee))
        return helperMayFail(*callee) || *callee == "rlx_check_failed";
      return mayFail.contains(*callee);
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (LLVM::LLVMFuncOp function : functions) {
        if (mayFail.contains(function.getName()))
          continue;
        WalkResult found = function.walk([&](LLVM::CallOp call) {
          return calleeFails(call) ? WalkResult::interrupt()
                                   : WalkResult::advance();
        });
        if (found.wasInterrupted()) {
          mayFail.insert(function.getName());
          changed = true;
        }
      }
    }

    for (LLVM::LLVMFuncOp function : functions)
      if (mayFail.contains(function.getName()) &&
          failed(rewriteFunction(function, calleeFails)))
        return signalPassFailure();

    // The rewritten calls name the helpers with their new signatures; the
    // lowerings' declarations give way to the definitions.
    if (auto declared =
            module.lookupSymbol<LLVM::LLVMFuncOp>("rlx_check_failed"))
      if (declared.isExternal())
        declared.erase();
    if (hostAllocations)
      for (StringRef name : {kAlloc, kAlignedAlloc, kFree})
        if (auto declared = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
          if (declared.isExternal() && declared.symbolKnownUseEmpty(module))
            declared.erase();
    if (failed(mlir::rlx::defineFunctions(module, kDefinitions,
                                          "call failure helpers")))
      signalPassFailure();
  }

  LogicalResult
  rewriteFunction(LLVM::LLVMFuncOp function,
                  llvm::function_ref<bool(LLVM::CallOp)> calleeFails) {
    MLIRContext *context = function.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    auto i64Type = IntegerType::get(context, 64);
    auto i1Type = IntegerType::get(context, 1);
    OpBuilder b(context);
    Location loc = function.getLoc();

    Block &entry = function.getBody().front();
    b.setInsertionPointToStart(&entry);
    Value state = LLVM::CallOp::create(b, loc, TypeRange{ptrType},
                                       "rlx_call_state", ValueRange{})
                      .getResult();

    // Rewrite the calls that need the state, collecting failure points.
    SmallVector<FailurePoint> points;
    SmallVector<LLVM::CallOp> calls;
    function.walk([&](LLVM::CallOp call) { calls.push_back(call); });
    for (LLVM::CallOp call : calls) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee)
        continue;
      b.setInsertionPoint(call);
      Location at = call.getLoc();
      if (hostAllocations && (*callee == kAlloc || *callee == kAlignedAlloc)) {
        Value bytes = call.getOperand(*callee == kAlloc ? 0 : 1);
        // malloc's alignment for the unaligned form.
        Value alignment =
            *callee == kAlloc
                ? LLVM::ConstantOp::create(b, at, i64Type, 16).getResult()
                : call.getOperand(0);
        auto alloc = LLVM::CallOp::create(b, at, TypeRange{ptrType},
                                          "rlx_alloc",
                                          ValueRange{state, bytes, alignment});
        call.getResult().replaceAllUsesWith(alloc.getResult());
        call.erase();
        points.push_back({alloc, FailureTest::NullResult});
        continue;
      }
      if (hostAllocations && *callee == kFree) {
        LLVM::CallOp::create(b, at, TypeRange{}, "rlx_free",
                             ValueRange{state, call.getOperand(0)});
        call.erase();
        continue;
      }
      if (*callee == "rlx_check_failed") {
        SmallVector<Value> operands{state};
        llvm::append_range(operands, call.getOperands());
        auto check = LLVM::CallOp::create(b, at, TypeRange{},
                                          "rlx_check_failed", operands);
        call.erase();
        points.push_back({check, FailureTest::Always});
        continue;
      }
      if (calleeFails(call))
        points.push_back({call, FailureTest::AskState});
    }
    if (points.empty())
      return success();

    // The top-level exit: zeros for whatever the function returns.
    Region &body = function.getBody();
    Block *exit = new Block();
    body.push_back(exit);
    b.setInsertionPointToStart(exit);
    Type resultType = function.getFunctionType().getReturnType();
    if (isa<LLVM::LLVMVoidType>(resultType)) {
      LLVM::ReturnOp::create(b, loc, ValueRange{});
    } else {
      Value zero = LLVM::ZeroOp::create(b, loc, resultType);
      LLVM::ReturnOp::create(b, loc, ValueRange{zero});
    }

    // Branches to `target` when `failed` holds, right after `after`.
    auto branchAfter = [&](Operation *after, Value failed, Block *target) {
      Block *block = after->getBlock();
      Block *rest = block->splitBlock(after->getNextNode());
      b.setInsertionPointToEnd(block);
      LLVM::CondBrOp::create(b, after->getLoc(), failed, target, rest);
    };
    // The failure test of `point`, built right after it.
    auto testAfter = [&](FailurePoint point) -> Operation * {
      b.setInsertionPointAfter(point.call);
      Location at = point.call.getLoc();
      switch (point.test) {
      case FailureTest::NullResult: {
        Value null = LLVM::ZeroOp::create(b, at, ptrType);
        return LLVM::ICmpOp::create(b, at, LLVM::ICmpPredicate::eq,
                                    point.call.getResult(), null);
      }
      case FailureTest::Always:
        return LLVM::ConstantOp::create(b, at, i1Type, 1);
      case FailureTest::AskState:
        return LLVM::CallOp::create(b, at, TypeRange{i1Type},
                                    "rlx_call_failed", ValueRange{state});
      }
      llvm_unreachable("unknown failure test");
    };

    // Regions' skip blocks, one per region, and the top-level ops that hold
    // a failure point in a region: the state is asked after each.
    DenseMap<Region *, Block *> skipBlocks;
    llvm::SetVector<Operation *> regionOps;
    for (FailurePoint point : points) {
      Operation *test = testAfter(point);
      Region *region = point.call->getParentRegion();
      if (region == &body) {
        branchAfter(test, test->getResult(0), exit);
        continue;
      }
      Block *&skip = skipBlocks[region];
      if (!skip) {
        // The region's own way out: a copy of an operand-free terminator
        // (omp.yield of a loop body, omp.terminator of a parallel region).
        Operation *terminator = nullptr;
        for (Block &block : *region) {
          Operation *last = block.getTerminator();
          if (last && last->getNumOperands() == 0 &&
              last->getNumSuccessors() == 0) {
            terminator = last;
            break;
          }
        }
        if (!terminator)
          return point.call.emitError(
              "a failure inside '")
                 << region->getParentOp()->getName()
                 << "' has no way out of the region";
        skip = new Block();
        region->push_back(skip);
        b.setInsertionPointToStart(skip);
        b.clone(*terminator);
      }
      branchAfter(test, test->getResult(0), skip);
      Operation *topLevel = region->getParentOp();
      while (topLevel->getParentRegion() != &body)
        topLevel = topLevel->getParentOp();
      regionOps.insert(topLevel);
    }
    for (Operation *op : regionOps) {
      b.setInsertionPointAfter(op);
      auto ask = LLVM::CallOp::create(b, op->getLoc(), TypeRange{i1Type},
                                      "rlx_call_failed", ValueRange{state});
      branchAfter(ask, ask.getResult(), exit);
    }
    return success();
  }
};

} // namespace
