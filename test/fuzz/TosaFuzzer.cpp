//===- TosaFuzzer.cpp - libFuzzer harness: the TOSA import ---------------===//
//
/// \file
/// Feeds each input as MLIR text with the TOSA and ml_program dialects
/// registered besides rlx's, and runs convert-tosa-to-rlx (the import rlxc
/// runs on a TOSA model; conversion/TosaToRLX and the rlx dialect compiled
/// here with ASan, UBSan and coverage) over every module that verifies.
/// Text that does not parse, and a conversion that fails with a diagnostic
/// (an unsupported op or attribute), are expected. A bug is a crash, a
/// sanitizer report, or a conversion that succeeds with IR the verifier
/// rejects.
//
//===----------------------------------------------------------------------===//

#include "MlirFuzz.h"

#include "conversion/TosaToRLX/Passes.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

void rlxfuzz::MlirFuzzContext::extendRegistry(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tosa::TosaDialect, mlir::ml_program::MLProgramDialect>();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rlxfuzz::MlirFuzzContext &fuzz = rlxfuzz::MlirFuzzContext::get();
  mlir::OwningOpRef<mlir::ModuleOp> module = fuzz.parse(data, size);
  if (!module)
    return 0;
  mlir::PassManager pm(&fuzz.context());
  pm.enableVerifier(false);
  pm.addPass(mlir::rlx::createConvertTosaToRLX());
  if (mlir::succeeded(pm.run(*module)) && mlir::failed(mlir::verify(*module)))
    rlxfuzz::die("convert-tosa-to-rlx produced IR that does not verify", data,
                 size);
  return 0;
}
