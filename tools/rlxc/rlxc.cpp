//===- rlxc.cpp - The rlx ahead-of-time compiler --------------------------===//
///
/// \file
/// `rlxc model.mlir -o model.so`: parses flags, then calls the compiler
/// library (codegen/Compiler.h). Nothing else happens here.
///
//===----------------------------------------------------------------------===//

#include "codegen/Compiler.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <chrono>

using namespace mlir;

namespace {

int fail(const llvm::Twine &message) {
  llvm::errs() << "rlxc: error: " << message << "\n";
  return 1;
}

/// True when `a` and `b` name the same existing file.
bool sameFile(llvm::StringRef a, llvm::StringRef b) {
  bool result = false;
  return !llvm::sys::fs::equivalent(a, b, result) && result;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"rlxc: compiles an rlx / TOSA model in MLIR into a native "
               "artifact"};
  std::string input, output, target = "cpu", compileTo, emit, deviceCodeDir;
  int optLevel = 2;
  bool printAfterAll = false, version = false, printStats = false;
  app.add_option("input", input, "the model (.mlir)");
  app.add_option("-o,--output", output, "the output file ('-' for stdout "
                                        "with --emit=mlir|llvm)");
  app.add_option("--target", target, "cpu (default), vulkan (SPIR-V), cuda (PTX + "
                                     "cubin sm_80/sm_90), rocm (hsaco "
                                     "gfx90a/gfx942)")
      ->check(CLI::IsMember({"cpu", "cuda", "rocm", "vulkan"}));
  app.add_option("--dump-device-code", deviceCodeDir,
                 "GPU targets: also write each device binary (SPIR-V, PTX, "
                 "cubin, hsaco) into this folder");
  app.add_option("--compile-to", compileTo,
                 "stop after this phase and write MLIR: " +
                     rlx::phaseNames().str());
  app.add_option("--emit", emit, "mlir | llvm | obj | so (default so)")
      ->check(CLI::IsMember({"mlir", "llvm", "obj", "so"}));
  app.footer("-O0, -O1, -O2 (default), -O3: optimization level");
  std::vector<std::string> gradFns, valueAndGradFns, checkGradFns,
      perExampleFns;
  app.add_option("--per-example-grad", perExampleFns,
                 "add an entry point FN_per_example_grad: FN's inputs with a "
                 "leading batch axis, one gradient per example and param "
                 "(outputs grad.<param>)");
  app.add_option("--check-grads", checkGradFns,
                 "add entry points FN_jvp and FN_vjp (w.r.t. every float input "
                 "and param) for rlx-run --check-grads");
  app.add_option("--grad", gradFns,
                 "add an entry point FN_grad: the gradient of FN with respect "
                 "to every param (outputs grad.<param>)");
  app.add_option("--value-and-grad", valueAndGradFns,
                 "add an entry point FN_value_and_grad (outputs value and "
                 "grad.<param>)");
  app.add_flag("--stats", printStats,
               "print time per phase, the kernels of each entry point with "
               "the ops fused into each, and workspace bytes to stderr");
  app.add_flag("--mlir-print-ir-after-all", printAfterAll,
               "print the IR after every pass to stderr");
  app.add_flag("--version", version, "print the version");
  // CLI11 has no -O<digit> style flags: take them out first.
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (i > 0 && arg.size() == 3 && arg.starts_with("-O") && arg[2] >= '0' &&
        arg[2] <= '3') {
      optLevel = arg[2] - '0';
      continue;
    }
    args.push_back(argv[i]);
  }
  CLI11_PARSE(app, static_cast<int>(args.size()), args.data());
  if (version) {
    llvm::outs() << "rlxc " << rlx::compilerVersion() << " (MLIR/LLVM "
                 << LLVM_VERSION_STRING << ")\n";
    return 0;
  }
  if (input.empty())
    return fail("no input file; usage: rlxc model.mlir -o model.so");
  if (target != "cpu" && !rlx::isGPUTarget(target))
    return fail("unknown target '" + target +
                "'; targets: " + rlx::targetNames().str());

  rlx::Phase last = rlx::Phase::Codegen;
  if (!compileTo.empty()) {
    std::optional<rlx::Phase> phase = rlx::parsePhase(compileTo);
    if (!phase)
      return fail("unknown phase '" + compileTo +
                  "'; phases: " + rlx::phaseNames());
    last = *phase;
    if (!emit.empty() && emit != "mlir")
      return fail("--compile-to writes MLIR; drop --emit=" + emit);
    emit = "mlir";
  }
  if (emit.empty())
    emit = "so";
  if (output.empty())
    output = emit == "mlir" || emit == "llvm" ? "-" : "a.out.so";
  if (output != "-" && sameFile(input, output))
    return fail("the output '" + output + "' would overwrite the input");

  DialectRegistry registry;
  rlx::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(input, &error);
  if (!file)
    return fail("cannot read '" + input + "': " + error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  rlx::CompileOptions options;
  options.target = target;
  options.deviceCodeDirectory = deviceCodeDir;
  options.optLevel = optLevel;
  options.gradFunctions = gradFns;
  options.valueAndGradFunctions = valueAndGradFns;
  options.checkGradFunctions = checkGradFns;
  options.perExampleGradFunctions = perExampleFns;
  auto configure = [&](PassManager &pm) {
    if (printAfterAll) {
      context.disableMultithreading();
      pm.enableIRPrinting(
          [](Pass *, Operation *) { return false; },
          [](Pass *, Operation *) { return true; },
          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    }
  };
  rlx::CompileStats stats;
  if (failed(rlx::runPhases(*module, last, options, configure,
                            printStats ? &stats : nullptr)))
    return 1;
  // Printed however the compile ends from here on.
  auto report = llvm::make_scope_exit([&] {
    if (printStats)
      stats.print(llvm::errs());
  });

  if (emit == "mlir") {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(output, &error);
    if (!out)
      return fail("cannot write '" + output + "': " + error);
    module->print(out->os());
    out->os() << "\n";
    out->keep();
    return 0;
  }
  rlx::EmitKind kind = emit == "llvm"  ? rlx::EmitKind::LLVMIR
                       : emit == "obj" ? rlx::EmitKind::Object
                                       : rlx::EmitKind::SharedLibrary;
  if (output == "-" && kind != rlx::EmitKind::LLVMIR)
    return fail("binary output needs a file: pass -o FILE");
  if (output == "-") {
    // LLVM IR to stdout: write to a temporary file, then copy it out.
    llvm::SmallString<128> temp;
    llvm::sys::fs::createTemporaryFile("rlxc", "ll", temp);
    if (failed(rlx::emitArtifact(*module, options, kind, temp)))
      return 1;
    auto buffer = llvm::MemoryBuffer::getFile(temp);
    llvm::sys::fs::remove(temp);
    if (!buffer)
      return fail("cannot read back the LLVM IR");
    llvm::outs() << (*buffer)->getBuffer();
    return 0;
  }
  auto start = std::chrono::steady_clock::now();
  if (failed(rlx::emitArtifact(*module, options, kind, output)))
    return 1;
  stats.phases.push_back({"llvm+link", std::chrono::duration<double>(
                                           std::chrono::steady_clock::now() -
                                           start)
                                           .count()});
  return 0;
}
