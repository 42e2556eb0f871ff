//===- rlx-opt.cpp - The rlx optimizer driver -----------------------------===//
///
/// \file
/// mlir-opt with the rlx dialect, passes and pipelines registered: the tool
/// the lit tests drive, and the one command that reproduces any phase.
///
//===----------------------------------------------------------------------===//

#include "codegen/Compiler.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::rlx::registerCompilerPassesAndPipelines();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::rlx::registerCompilerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "rlx optimizer driver\n", registry));
}
