//===- rlx-import-onnx.cpp - ONNX model to rlx MLIR -----------------------===//
///
/// \file
/// `rlx-import-onnx model.onnx -o model.mlir`: the rlx module of an ONNX
/// model, for inspection or `rlx-opt`, and its initializers as
/// `model.safetensors` beside `-o` (or `--weights-out FILE`). Flag parsing
/// only; the importer is conversion/ONNXToRLX.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ONNXToRLX.h"

#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

using namespace mlir;

namespace {

int fail(const llvm::Twine &message) {
  llvm::errs() << "rlx-import-onnx: error: " << message << "\n";
  return 1;
}

/// True when `a` and `b` name the same file (existing), or the same path.
bool samePath(llvm::StringRef a, llvm::StringRef b) {
  bool result = false;
  return a == b || (!llvm::sys::fs::equivalent(a, b, result) && result);
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"rlx-import-onnx: imports an ONNX model into the rlx dialect "
               "(MLIR) and writes its weights as safetensors"};
  std::string input, output = "-", weightsOut;
  app.add_option("input", input, "the model (.onnx)")->required();
  app.add_option("-o,--output", output,
                 "the MLIR file ('-', the default: stdout)");
  app.add_option("--weights-out", weightsOut,
                 "the weights file (default: -o with the extension "
                 ".safetensors, or beside the input when -o is stdout)");
  CLI11_PARSE(app, argc, argv);

  if (weightsOut.empty())
    weightsOut = rlx::defaultWeightsPath(input, output);
  if (output != "-" && samePath(input, output))
    return fail("the output '" + output + "' would overwrite the input");
  if (samePath(input, weightsOut) ||
      (output != "-" && samePath(output, weightsOut)))
    return fail("the weights file '" + weightsOut +
                "' would overwrite the input or the output");

  DialectRegistry registry;
  registry.insert<rlx::RLXDialect, func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  std::vector<rlx::ONNXWeight> weights;
  OwningOpRef<ModuleOp> module = rlx::importONNXFile(input, &context, weights);
  if (!module)
    return 1;

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(output, &error);
  if (!out)
    return fail("cannot write '" + output + "': " + error);
  if (std::string error = rlx::writeWeights(weightsOut, weights);
      !error.empty())
    return fail("cannot write the weights '" + weightsOut + "': " + error);
  module->print(out->os());
  out->os() << "\n";
  out->keep();
  return 0;
}
