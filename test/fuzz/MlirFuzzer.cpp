//===- MlirFuzzer.cpp - libFuzzer harness: parsing and verifying rlx IR --===//
//
/// \file
/// Feeds each input as MLIR text to the parser with the rlx, func, tensor
/// and arith dialects registered (the rlx dialect compiled here with ASan,
/// UBSan and coverage), which verifies what it parsed; then prints a module
/// that verified, parses the print again, and runs the canonicalizer (the
/// folds) over it. Text nested deeper than rlxc and rlx-opt accept
/// (codegen/SourceLimits.h) is skipped, as those tools refuse it.
///
/// A diagnostic is the expected answer to bad text (diagnostics are not
/// printed). A bug is a crash, an assertion, a sanitizer report, a printed
/// module that does not parse again, or a canonicalization that fails (a
/// fold that produced IR the verifier rejects).
//
//===----------------------------------------------------------------------===//

#include "MlirFuzz.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rlxfuzz::MlirFuzzContext &fuzz = rlxfuzz::MlirFuzzContext::get();
  mlir::OwningOpRef<mlir::ModuleOp> module = fuzz.parse(data, size);
  if (!module)
    return 0;
  fuzz.checkRoundTrip(*module);
  mlir::PassManager pm(&fuzz.context());
  pm.addPass(mlir::createCanonicalizerPass());
  if (mlir::failed(pm.run(*module)))
    rlxfuzz::die("canonicalize failed on a module that verified", data, size);
  return 0;
}

void rlxfuzz::MlirFuzzContext::extendRegistry(mlir::DialectRegistry &) {}
