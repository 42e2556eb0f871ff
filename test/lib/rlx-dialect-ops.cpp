//===- rlx-dialect-ops.cpp - The registered ops of the rlx dialect --------===//
///
/// \file
/// Prints one line per op the rlx dialect registers, with the interfaces the
/// coverage tests care about:
///   `<name> differentiable=<0|1> symbol_user=<0|1>`
/// The tests follow the dialect as MLIR sees it, not a list kept by hand nor
/// a parse of generated C++.
///
//===----------------------------------------------------------------------===//

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::MLIRContext context;
  auto *dialect = context.getOrLoadDialect<mlir::rlx::RLXDialect>();
  for (mlir::RegisteredOperationName op : context.getRegisteredOperations()) {
    if (&op.getDialect() != dialect)
      continue;
    llvm::StringRef name = op.getStringRef();
    name.consume_front("rlx.");
    llvm::outs() << name << " differentiable="
                 << op.hasInterface<mlir::rlx::DifferentiableOpInterface>()
                 << " symbol_user="
                 << op.hasInterface<mlir::SymbolUserOpInterface>() << "\n";
  }
  return 0;
}
