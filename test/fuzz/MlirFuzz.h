//===- MlirFuzz.h - What the MLIR harnesses share ---------------*- C++ -*-===//
//
/// \file
/// A context with the rlx dialect and the upstream ones rlx IR uses,
/// diagnostics swallowed, and parsing of a fuzz input the way rlxc does it
/// (what the parser would crash on refused first).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_FUZZ_MLIRFUZZ_H
#define RLX_TEST_FUZZ_MLIRFUZZ_H

#include "codegen/SourceLimits.h"
#include "dialects/RLX/IR/ExternalModels.h"
#include "dialects/RLX/IR/RLXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace rlxfuzz {

/// Prints `why` and the input, then aborts (a finding).
[[noreturn]] inline void die(const char *why, const uint8_t *data,
                             size_t size) {
  llvm::errs() << "rlx-fuzz: " << why << "; input:\n"
               << llvm::StringRef(reinterpret_cast<const char *>(data), size)
               << "\n";
  std::abort();
}

class MlirFuzzContext {
public:
  /// The process's context, made afresh every `kInputsPerContext` inputs so
  /// that uniqued types and attributes do not grow without bound.
  static MlirFuzzContext &get() {
    static std::unique_ptr<MlirFuzzContext> fuzz;
    static unsigned inputs = 0;
    if (!fuzz || ++inputs % kInputsPerContext == 0)
      fuzz = std::make_unique<MlirFuzzContext>();
    return *fuzz;
  }

  MlirFuzzContext() : ctx(registry(), mlir::MLIRContext::Threading::DISABLED) {
    ctx.loadAllAvailableDialects();
    ctx.getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
  }

  mlir::MLIRContext &context() { return ctx; }

  /// The module parsed (and verified) from the input, or null.
  mlir::OwningOpRef<mlir::ModuleOp> parse(const uint8_t *data, size_t size) {
    std::string text(reinterpret_cast<const char *>(data), size);
    if (mlir::rlx::findUnparseableText(text))
      return nullptr;
    return parseText(text);
  }

  /// Prints `module` and parses the print again; a failure is a finding.
  void checkRoundTrip(mlir::ModuleOp module) {
    std::string printed;
    llvm::raw_string_ostream os(printed);
    module->print(os);
    if (!parseText(printed))
      die("the printed module does not parse again",
          reinterpret_cast<const uint8_t *>(printed.data()), printed.size());
  }

private:
  static constexpr unsigned kInputsPerContext = 2000;

  static mlir::DialectRegistry registry() {
    mlir::DialectRegistry registry;
    registry.insert<mlir::rlx::RLXDialect, mlir::func::FuncDialect,
                    mlir::tensor::TensorDialect, mlir::arith::ArithDialect>();
    mlir::rlx::registerExternalDifferentiationModels(registry);
    extendRegistry(registry);
    return registry;
  }

  /// Defined by each harness: the dialects it adds (TOSA).
  static void extendRegistry(mlir::DialectRegistry &registry);

  mlir::OwningOpRef<mlir::ModuleOp> parseText(const std::string &text) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
    return mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr,
                                                 mlir::ParserConfig(&ctx));
  }

  mlir::MLIRContext ctx;
};

} // namespace rlxfuzz

#endif // RLX_TEST_FUZZ_MLIRFUZZ_H
