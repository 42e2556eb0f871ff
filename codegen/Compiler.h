//===- Compiler.h - The rlx compiler driver library -------------*- C++ -*-===//
///
/// \file
/// Phases, the pass pipeline of each, and artifact emission. `rlxc` and the
/// frontend's jit both call this library; `rlx-opt` registers the same
/// pipelines so that any phase reproduces as one command.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_COMPILER_H
#define RLX_CODEGEN_COMPILER_H

#include "codegen/CompileStats.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::rlx {

/// The compile phases, in order (docs/architecture.md "Compile path"). Compilation can stop after any.
enum class Phase {
  Import,    ///< TOSA / ml_program → rlx
  Transform, ///< transform markers expanded (autodiff, vmap: later issues)
  Simplify,  ///< inline, fold, canonicalize, CSE, DCE
  Lower,     ///< params become arguments; rlx → linalg on tensors
  Fuse,      ///< elementwise fusion on linalg
  Bufferize, ///< tensors → buffers, result ownership, deallocation, manifest
  Codegen,   ///< target code: LLVM dialect with the artifact ABI (CPU)
};

/// Parses a phase name (`import`, ..., `codegen`).
std::optional<Phase> parsePhase(llvm::StringRef name);
/// The names of all phases, comma separated, for help texts.
llvm::StringRef phaseNames();

/// True for the targets whose kernels run on a GPU (cuda, rocm, vulkan).
bool isGPUTarget(llvm::StringRef target);
/// The targets rlxc accepts, for help texts and errors.
llvm::StringRef targetNames();

/// What the compiler writes.
enum class EmitKind { MLIR, LLVMIR, Object, SharedLibrary };

/// Everything the phase pipelines are built from: the one list of options
/// that rlxc fills from its flags and `rlx-opt` parses from a pipeline
/// string (`--rlx-phase-codegen='target=vulkan'`,
/// `rlx-phase-transform{grad=loss}`), so every rlxc compile reproduces as
/// rlx-opt pipelines.
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("cpu, vulkan, cuda or rocm"),
                             llvm::cl::init("cpu")};
  ListOption<std::string> chips{
      *this, "chips",
      llvm::cl::desc("cuda/rocm: the chips to compile device code for "
                     "(default sm_80,sm_90 for cuda, gfx90a,gfx942 for "
                     "rocm)")};
  ListOption<std::string> gradFunctions{
      *this, "grad",
      llvm::cl::desc("functions to add FN_grad entry points for")};
  ListOption<std::string> valueAndGradFunctions{
      *this, "value-and-grad",
      llvm::cl::desc("functions to add FN_value_and_grad entry points for")};
  ListOption<std::string> perExampleGradFunctions{
      *this, "per-example-grad",
      llvm::cl::desc("functions to add FN_per_example_grad entry points for")};
  ListOption<std::string> checkGradFunctions{
      *this, "check-grads",
      llvm::cl::desc("functions to add FN_jvp and FN_vjp entry points for")};
  Option<std::string> deviceCodeDirectory{
      *this, "dump-device-code",
      llvm::cl::desc("GPU targets: also write each device binary (SPIR-V, "
                     "PTX, cubin, hsaco) into this folder")};
  Option<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("the CPU that code running on the CPU is compiled for "
                     "(all of a cpu artifact, the host side of a GPU one): "
                     "an LLVM CPU name (x86-64-v3, skylake-avx512, znver4) "
                     "or host, this machine's CPU with its features"),
      llvm::cl::init("host")};
  ListOption<std::string> cpuFeatures{
      *this, "cpu-features",
      llvm::cl::desc("CPU features added (+name) or removed (-name) on top "
                     "of the CPU's, LLVM's names (+avx512f,-avx512fp16)")};
  Option<bool> debugChecks{
      *this, "debug-checks",
      llvm::cl::desc("cpu: check every rlx op's float result for NaN and "
                     "Inf; the first op producing one ends the call with "
                     "its location and name (rlx-insert-debug-checks)"),
      llvm::cl::init(false)};
  Option<std::string> quantize{
      *this, "quantize",
      llvm::cl::desc("none, or int8: activation-by-weight matmuls run in "
                     "int8 (weights per channel; activations per tensor, "
                     "from calibration or measured at each call)"),
      llvm::cl::init("none")};
  Option<int64_t> matmulTileM{
      *this, "matmul-tile-m",
      llvm::cl::desc("rows of the CPU matmul's register tile (0: chosen "
                     "for the target CPU's vector registers)"),
      llvm::cl::init(0)};
  Option<int64_t> matmulTileN{
      *this, "matmul-tile-n",
      llvm::cl::desc("columns of the CPU matmul's register tile (0: chosen "
                     "for the target CPU's vector registers)"),
      llvm::cl::init(0)};

  /// Why these options cannot build a pipeline (an unknown target, chips
  /// for a target without chips), or an empty string when they can.
  std::string validate() const;
};

/// Options of one compilation: the pipeline options plus those of artifact
/// emission. The tools fill it from their flags.
struct CompileOptions : public PipelineOptions {
  /// LLVM's optimization level for the host code (rlxc -O0..-O3).
  unsigned optLevel = 2;
};

/// Registers every dialect and interface the compiler may meet or create.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Registers rlx passes, one pipeline per phase (`rlx-phase-<name>`) and one
/// of every phase (`rlx-phase-all`), all taking PipelineOptions.
void registerCompilerPassesAndPipelines();

/// Adds the passes of one phase; `options` must validate.
void buildPhasePipeline(mlir::OpPassManager &pm, Phase phase,
                        const PipelineOptions &options);

/// Runs the phases up to and including `last`; options that do not validate
/// are an error on the module. Diagnostics go to the
/// context's handler; `configure` may set up instrumentation on each pass
/// manager (IR printing, timing, crash reproducers) and fail the compile.
/// With `stats`, each phase runs and is timed on its own and the kernels
/// and workspaces are recorded.
mlir::LogicalResult
runPhases(mlir::ModuleOp module, Phase last, const PipelineOptions &options,
          llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)>
              configure = nullptr,
          CompileStats *stats = nullptr);

/// Runs the phases from `first` to `last`, both included, on a module that
/// has been through the phases before `first` (rlxc stops after simplify
/// to calibrate, then goes on); otherwise as runPhases.
mlir::LogicalResult
runPhasesFrom(mlir::ModuleOp module, Phase first, Phase last,
              const PipelineOptions &options,
              llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)>
                  configure = nullptr,
              CompileStats *stats = nullptr);

/// Translates a module at the Codegen phase to LLVM IR, optimized at
/// options.optLevel for options.cpu, and writes `kind` to `outputPath`
/// (LLVM IR text, an object, or a shared library linked with lld). The file
/// appears only when complete.
mlir::LogicalResult emitArtifact(mlir::ModuleOp module,
                                 const CompileOptions &options, EmitKind kind,
                                 llvm::StringRef outputPath);

/// The compiler's version string.
llvm::StringRef compilerVersion();

} // namespace mlir::rlx

#endif // RLX_CODEGEN_COMPILER_H
