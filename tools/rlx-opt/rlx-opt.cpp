//===- rlx-opt.cpp - The rlx optimizer driver -----------------------------===//
///
/// \file
/// mlir-opt with the rlx dialect, passes and pipelines registered: the tool
/// the lit tests drive, and the one command that reproduces any phase. Like
/// rlxc and rlx-run it refuses to write its output over its input.
///
//===----------------------------------------------------------------------===//

#include "codegen/Compiler.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::rlx::registerCompilerPassesAndPipelines();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::rlx::registerCompilerDialects(registry);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "rlx optimizer driver\n", registry);
  bool same = false;
  if (input != "-" && output != "-" &&
      !llvm::sys::fs::equivalent(input, output, same) && same) {
    llvm::errs() << "rlx-opt: error: the output '" << output
                 << "' is the input: refusing to overwrite it\n";
    return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
