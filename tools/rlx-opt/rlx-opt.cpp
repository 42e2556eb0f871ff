//===- rlx-opt.cpp - The rlx optimizer driver -----------------------------===//
///
/// \file
/// mlir-opt with the rlx dialect, passes and pipelines registered: the tool
/// the lit tests drive, and the one command that reproduces any phase. Like
/// rlxc and rlx-run it refuses to write its output over its input, and like
/// rlxc it refuses input nested deeper than the parser's stack can take
/// (codegen/SourceLimits.h).
///
//===----------------------------------------------------------------------===//

#include "codegen/Compiler.h"
#include "codegen/SourceLimits.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
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
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));
  // MlirOptMain(argc, argv, ...) opens the input itself; the text is read
  // here to refuse what the parser would crash on (codegen/SourceLimits.h).
  llvm::InitLLVM init(argc, argv);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << "rlx-opt: error: " << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::rlx::checkParseable(*file, llvm::errs())))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> out =
      mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "rlx-opt: error: " << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(out->os(), std::move(file), registry, config)))
    return 1;
  out->keep();
  return 0;
}
