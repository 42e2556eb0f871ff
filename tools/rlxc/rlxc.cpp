//===- rlxc.cpp - The rlx ahead-of-time compiler --------------------------===//
///
/// \file
/// `rlxc model.mlir -o model.so`: parses flags, then calls the compiler
/// library (codegen/Compiler.h). Nothing else happens here. `rlxc
/// model.onnx` imports the model first (conversion/ONNXToRLX) and writes its
/// weights beside the artifact. rlxc's own flags
/// are CLI11's; MLIR's (`--mlir-*`: IR printing, timing, crash reproducers,
/// threading) are MLIR's own llvm::cl options, as in mlir-opt.
///
//===----------------------------------------------------------------------===//

#include "codegen/Calibration/Calibration.h"
#include "codegen/Compiler.h"
#include "codegen/SourceLimits.h"
#include "conversion/ONNXToRLX/ONNXToRLX.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <algorithm>
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

/// MLIR's option `name` (without dashes), registered through llvm::cl.
llvm::cl::Option *mlirOption(llvm::StringRef name) {
  return llvm::cl::getRegisteredOptions().lookup(name);
}

/// True when MLIR's option `name` was on the command line.
bool mlirFlagGiven(llvm::StringRef name) {
  llvm::cl::Option *option = mlirOption(name);
  return option && option->getNumOccurrences() > 0;
}

/// True when one of MLIR's IR printing options (--mlir-print-ir-*) was on
/// the command line.
bool printsIR() {
  for (auto &entry : llvm::cl::getRegisteredOptions())
    if (entry.first.starts_with("mlir-print-ir") &&
        entry.second->getNumOccurrences() > 0)
      return true;
  return false;
}

/// Prints MLIR's options that rlxc takes (`rlxc --help-mlir`).
void printMLIRHelp() {
  std::vector<llvm::cl::Option *> options;
  for (auto &entry : llvm::cl::getRegisteredOptions())
    if (entry.first.starts_with("mlir-") &&
        entry.second->getOptionHiddenFlag() == llvm::cl::NotHidden)
      options.push_back(entry.second);
  llvm::sort(options, [](llvm::cl::Option *a, llvm::cl::Option *b) {
    return a->ArgStr < b->ArgStr;
  });
  llvm::outs() << "MLIR's options, as in mlir-opt (--NAME=VALUE; a value "
                  "an option requires may also be the next argument):\n";
  for (llvm::cl::Option *option : options) {
    llvm::outs() << "  --" << option->ArgStr;
    if (!option->ValueStr.empty())
      llvm::outs() << "=<" << option->ValueStr << ">";
    else if (option->getValueExpectedFlag() == llvm::cl::ValueRequired)
      llvm::outs() << "=<value>";
    llvm::outs() << "\n      " << option->HelpStr << "\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  // MLIR's options, and the passes --mlir-print-ir-after=PASS may name.
  registerAllPasses();
  mlir::rlx::registerCompilerPassesAndPipelines();
  registerPassManagerCLOptions();
  registerMLIRContextCLOptions();
  registerAsmPrinterCLOptions();
  registerDefaultTimingManagerCLOptions();

  CLI::App app{"rlxc: compiles an rlx / TOSA model in MLIR, or an ONNX "
               "model, into a native artifact"};
  std::string input, output, target = "cpu", compileTo, emit, deviceCodeDir;
  int optLevel = 2;
  bool version = false, printStats = false, helpMLIR = false,
       debugChecks = false;
  app.add_option("input", input, "the model (.mlir, or .onnx)");
  std::string weightsOut;
  app.add_option("--weights-out", weightsOut,
                 "an ONNX model's weights (its initializers, as safetensors; "
                 "default: -o with the extension .safetensors)");
  app.add_option("-o,--output", output, "the output file ('-' for stdout "
                                        "with --emit=mlir|llvm)");
  app.add_option("--target", target, "cpu (default), vulkan (SPIR-V), cuda (PTX + "
                                     "cubin sm_80/sm_90), rocm (hsaco "
                                     "gfx90a/gfx942)")
      ->check(CLI::IsMember({"cpu", "cuda", "rocm", "vulkan"}));
  std::string cpu = "host";
  std::vector<std::string> cpuFeatures;
  app.add_option("--cpu", cpu,
                 "the CPU the code is compiled for: an LLVM CPU name "
                 "(x86-64-v3 runs on any AVX2 machine; skylake-avx512, "
                 "znver4, ...) or host (default: this machine's CPU and "
                 "every feature it has); the manifest records it and the "
                 "runtime refuses a CPU that lacks a feature it needs");
  app.add_option("--cpu-features", cpuFeatures,
                 "CPU features added (+name) or removed (-name), comma "
                 "separated, LLVM's names (+avx512f,-avx512fp16)")
      ->delimiter(',')
      ->allow_extra_args(false);
  std::vector<std::string> chips;
  app.add_option("--chips", chips,
                 "cuda/rocm: the chips to compile for, comma separated "
                 "(default sm_80,sm_90 or gfx90a,gfx942)")
      ->delimiter(',');
  app.add_option("--dump-device-code", deviceCodeDir,
                 "GPU targets: also write each device binary (SPIR-V, PTX, "
                 "cubin, hsaco) into this folder");
  app.add_option("--compile-to", compileTo,
                 "stop after this phase and write MLIR: " +
                     mlir::rlx::phaseNames().str());
  app.add_option("--emit", emit, "mlir | llvm | obj | so (default so)")
      ->check(CLI::IsMember({"mlir", "llvm", "obj", "so"}));
  app.footer("-O0, -O1, -O2 (default), -O3: optimization level\n"
             "--mlir-*: MLIR's pass manager, context and printing options, "
             "as in mlir-opt (--mlir-print-ir-after=PASS, "
             "--mlir-print-ir-after-all, --mlir-timing, "
             "--mlir-pass-pipeline-crash-reproducer=FILE, ...; "
             "--help-mlir lists them)");
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
  app.add_flag("--debug-checks", debugChecks,
               "cpu: check every op's float result for NaN and Inf; the "
               "first op producing one ends the call with an error naming "
               "it and its location (model.mlir:14:9: rlx.log produced -inf)");
  std::string quantize = "none", calibrateFn, weights;
  std::vector<std::string> calibrate;
  app.add_option("--quantize", quantize,
                 "none (default) or int8: matmuls and convs of an activation "
                 "by a weight run in int8 (VNNI vpdpbusd where the CPU has it), "
                 "weights per output channel, activations per tensor: "
                 "calibrated with --calibrate, else measured at each call")
      ->check(CLI::IsMember({"none", "int8"}));
  app.add_option("--calibrate", calibrate,
                 "[NAME=]FILE.npy: a batch of the input NAME (omitted when "
                 "the quantized ops depend on one input) on which the "
                 "model runs, here, to fix each activation's int8 scale; "
                 "repeat for more batches or inputs");
  std::string calibrateMethod = "max";
  double calibratePercentile = 0;
  app.add_option("--calibrate-method", calibrateMethod,
                 "max (default: the largest |activation| of all batches) or "
                 "percentile (that percentile of |activation| over every "
                 "value of every batch, from a histogram: outliers saturate "
                 "instead of widening the scale)")
      ->check(CLI::IsMember({"max", "percentile"}));
  app.add_option("--calibrate-percentile", calibratePercentile,
                 "the percentile of --calibrate-method=percentile, in "
                 "(0, 100] (default 99.999, ONNX Runtime's)");
  app.add_option("--calibrate-fn", calibrateFn,
                 "the function that calibration runs (default: the only "
                 "public one with a matmul or conv to quantize)");
  app.add_option("--weights", weights,
                 "the safetensors file binding the params, for "
                 "--calibrate (an ONNX model's are its own initializers)");
  app.add_flag("--help-mlir", helpMLIR, "list MLIR's --mlir-* options");
  app.add_flag("--version", version, "print the version");
  // CLI11 has no -O<digit> style flags: take them out first. MLIR's
  // options go to llvm::cl, with the next argument when one of them that
  // needs a value has none after '='.
  std::vector<char *> args = {argv[0]}, mlirArgs = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg.size() == 3 && arg.starts_with("-O") && arg[2] >= '0' &&
        arg[2] <= '3') {
      optLevel = arg[2] - '0';
      continue;
    }
    if (arg.starts_with("--mlir-") || arg.starts_with("-mlir-")) {
      mlirArgs.push_back(argv[i]);
      llvm::cl::Option *option = mlirOption(arg.ltrim('-'));
      if (option &&
          option->getValueExpectedFlag() == llvm::cl::ValueRequired &&
          i + 1 < argc)
        mlirArgs.push_back(argv[++i]);
      continue;
    }
    args.push_back(argv[i]);
  }
  CLI11_PARSE(app, static_cast<int>(args.size()), args.data());
  if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(mlirArgs.size()),
                                         mlirArgs.data(), "rlxc",
                                         &llvm::errs()))
    return 1;
  if (helpMLIR) {
    printMLIRHelp();
    return 0;
  }
  if (version) {
    llvm::outs() << "rlxc " << mlir::rlx::compilerVersion() << " (MLIR/LLVM "
                 << LLVM_VERSION_STRING << ")\n";
    return 0;
  }
  if (input.empty())
    return fail("no input file; usage: rlxc model.mlir -o model.so");

  mlir::rlx::CompileOptions options;
  options.target = target;
  options.chips = chips;
  options.cpu = cpu;
  options.cpuFeatures = cpuFeatures;
  options.deviceCodeDirectory = deviceCodeDir;
  options.optLevel = optLevel;
  options.gradFunctions = gradFns;
  options.valueAndGradFunctions = valueAndGradFns;
  options.checkGradFunctions = checkGradFns;
  options.perExampleGradFunctions = perExampleFns;
  options.debugChecks = debugChecks;
  options.quantize = quantize;
  if (std::string error = options.validate(); !error.empty())
    return fail(error);
  if (!calibrate.empty() && quantize != "int8")
    return fail("--calibrate fixes int8 scales: add --quantize=int8");
  if (calibrate.empty() && (!calibrateFn.empty() || !weights.empty()))
    return fail(std::string(calibrateFn.empty() ? "--weights" : "--calibrate-fn") +
                " is for --calibrate");
  if (calibrate.empty() && app.count("--calibrate-method"))
    return fail("--calibrate-method is for --calibrate");
  if (app.count("--calibrate-percentile") && calibrateMethod != "percentile")
    return fail("--calibrate-percentile is for --calibrate-method=percentile");
  mlir::rlx::CalibrationOptions calibration;
  calibration.function = calibrateFn;
  calibration.weights = weights;
  if (calibrateMethod == "percentile") {
    calibration.method = mlir::rlx::CalibrationMethod::Percentile;
    if (app.count("--calibrate-percentile")) {
      if (!(calibratePercentile > 0 && calibratePercentile <= 100))
        return fail("--calibrate-percentile must be in (0, 100], not " +
                    std::to_string(calibratePercentile));
      calibration.percentile = calibratePercentile;
    }
  }
  for (llvm::StringRef spec : calibrate) {
    // NAME=FILE when it holds '=', else FILE (of the only input).
    auto [name, path] = spec.split('=');
    if (path.empty())
      calibration.inputs.push_back({"", spec.str()});
    else
      calibration.inputs.push_back({name.str(), path.str()});
  }

  mlir::rlx::Phase last = mlir::rlx::Phase::Codegen;
  if (!compileTo.empty()) {
    std::optional<mlir::rlx::Phase> phase = mlir::rlx::parsePhase(compileTo);
    if (!phase)
      return fail("unknown phase '" + compileTo +
                  "'; phases: " + mlir::rlx::phaseNames());
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
  bool onnx = mlir::rlx::isONNXPath(input);
  if (!onnx && !weightsOut.empty())
    return fail("--weights-out is for ONNX models (.onnx)");
  if (onnx && weightsOut.empty())
    weightsOut = mlir::rlx::defaultWeightsPath(input, output);
  if (onnx && !weights.empty())
    return fail("--weights is for .mlir models: an ONNX model's weights are "
                "its initializers");
  if (onnx)
    calibration.weights = weightsOut;
  for (const mlir::rlx::CalibrationInput &file : calibration.inputs)
    if (file.path == output || sameFile(file.path, output))
      return fail("the output '" + output +
                  "' would overwrite the calibration file '" + file.path + "'");
  if (!weights.empty() && (weights == output || sameFile(weights, output)))
    return fail("the output '" + output + "' would overwrite the weights '" +
                weights + "'");
  if (!calibrate.empty() && last < mlir::rlx::Phase::Lower)
    return fail("--calibrate runs the quantization of the lower phase: "
                "compile at least to --compile-to=lower");
  if (onnx && (weightsOut == input || weightsOut == output ||
               sameFile(input, weightsOut) || sameFile(output, weightsOut)))
    return fail("the weights file '" + weightsOut +
                "' would overwrite the input or the output");

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();

  DialectRegistry registry;
  mlir::rlx::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name file:line:col; the op itself only when asked for.
  if (!mlirFlagGiven("mlir-print-op-on-diagnostic"))
    context.printOpOnDiagnostic(false);
  // IR dumps in pass order, and whole modules after nested passes
  // (--mlir-print-ir-module-scope), need one thread.
  if (printsIR())
    context.disableMultithreading();

  std::string error;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module;
  if (onnx) {
    // The weights are written before compiling: the artifact needs them
    // bound however the compile ends, and a failed write fails early.
    TimingScope importTiming = rootTiming.nest("ONNX import");
    std::vector<mlir::rlx::ONNXWeight> weights;
    module = mlir::rlx::importONNXFile(input, &context, weights);
    if (!module)
      return 1;
    if (std::string error = mlir::rlx::writeWeights(weightsOut, weights);
        !error.empty())
      return fail("cannot write the weights '" + weightsOut + "': " + error);
  } else {
    std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(input, &error);
    if (!file)
      return fail("cannot read '" + input + "': " + error);
    if (failed(mlir::rlx::checkParseable(*file, llvm::errs())))
      return 1;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    TimingScope parseTiming = rootTiming.nest("Parser");
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    parseTiming.stop();
    if (!module)
      return 1;
  }

  auto configure = [&](PassManager &pm) -> LogicalResult {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(rootTiming);
    return success();
  };
  mlir::rlx::CompileStats stats;
  mlir::rlx::CompileStats *statsOrNull = printStats ? &stats : nullptr;
  if (calibrate.empty()) {
    if (failed(mlir::rlx::runPhases(*module, last, options, configure,
                                    statsOrNull)))
      return 1;
  } else {
    // Calibration measures the simplified module's matmuls and convs, the
    // very ones the lower phase quantizes.
    if (failed(mlir::rlx::runPhases(*module, mlir::rlx::Phase::Simplify,
                                    options, configure, statsOrNull)))
      return 1;
    TimingScope calibrationTiming = rootTiming.nest("Calibration");
    if (failed(mlir::rlx::calibrateActivations(*module, calibration)))
      return 1;
    calibrationTiming.stop();
    if (failed(mlir::rlx::runPhasesFrom(*module, mlir::rlx::Phase::Lower, last,
                                        options, configure, statsOrNull)))
      return 1;
  }
  // Printed however the compile ends from here on.
  llvm::scope_exit report([&] {
    if (printStats)
      stats.print(llvm::errs());
  });

  TimingScope outputTiming = rootTiming.nest("Output");
  if (emit == "mlir") {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(output, &error);
    if (!out)
      return fail("cannot write '" + output + "': " + error);
    module->print(out->os());
    out->os() << "\n";
    out->keep();
    return 0;
  }
  mlir::rlx::EmitKind kind = emit == "llvm"  ? mlir::rlx::EmitKind::LLVMIR
                       : emit == "obj" ? mlir::rlx::EmitKind::Object
                                       : mlir::rlx::EmitKind::SharedLibrary;
  if (output == "-" && kind != mlir::rlx::EmitKind::LLVMIR)
    return fail("binary output needs a file: pass -o FILE");
  if (output == "-") {
    // LLVM IR to stdout: write to a temporary file, then copy it out.
    llvm::SmallString<128> temp;
    llvm::sys::fs::createTemporaryFile("rlxc", "ll", temp);
    if (failed(mlir::rlx::emitArtifact(*module, options, kind, temp)))
      return 1;
    auto buffer = llvm::MemoryBuffer::getFile(temp);
    llvm::sys::fs::remove(temp);
    if (!buffer)
      return fail("cannot read back the LLVM IR");
    llvm::outs() << (*buffer)->getBuffer();
    return 0;
  }
  auto start = std::chrono::steady_clock::now();
  if (failed(mlir::rlx::emitArtifact(*module, options, kind, output)))
    return 1;
  stats.phases.push_back({"llvm+link", std::chrono::duration<double>(
                                           std::chrono::steady_clock::now() -
                                           start)
                                           .count()});
  return 0;
}
