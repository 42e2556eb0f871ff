//===- DefineFunctions.cpp - Artifact-side functions from MLIR text -------===//

#include "codegen/ABI/DefineFunctions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

namespace mlir::rlx {

LogicalResult defineFunctions(ModuleOp module, llvm::StringRef source,
                              llvm::StringRef what) {
  OwningOpRef<ModuleOp> definitions =
      parseSourceString<ModuleOp>(source, module.getContext());
  if (!definitions)
    return module.emitError("failed to parse the ") << what;
  SymbolTable symbols(module);
  for (Operation &op :
       llvm::make_early_inc_range(definitions->getBody()->getOperations())) {
    auto symbol = cast<SymbolOpInterface>(op);
    if (Operation *existing = symbols.lookup(symbol.getName())) {
      auto existingFunc = dyn_cast<LLVM::LLVMFuncOp>(existing);
      auto newFunc = dyn_cast<LLVM::LLVMFuncOp>(op);
      if (!existingFunc || !newFunc || !existingFunc.isExternal() ||
          newFunc.isExternal())
        continue;
      symbols.erase(existing);
    }
    op.moveBefore(module.getBody(), module.getBody()->end());
    symbols.insert(&op);
  }
  return success();
}

} // namespace mlir::rlx
