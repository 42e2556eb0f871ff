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

#include <optional>
#include <string>
#include <vector>

namespace rlx {

/// The phases of DESIGN.md, in order. Compilation can stop after any.
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
/// The names of all phases, for help texts.
llvm::StringRef phaseNames();

/// True for the targets whose kernels run on a GPU (cuda, rocm, vulkan).
bool isGPUTarget(llvm::StringRef target);
/// The targets rlxc accepts, for help texts and errors.
llvm::StringRef targetNames();

/// What the compiler writes.
enum class EmitKind { MLIR, LLVMIR, Object, SharedLibrary };

/// Options of one compilation; the tools fill it from their flags.
struct CompileOptions {
  std::string target = "cpu";
  unsigned optLevel = 2;
  /// Functions to add `FN_grad` / `FN_value_and_grad` entry points for.
  std::vector<std::string> gradFunctions, valueAndGradFunctions;
  /// Functions to add `FN_per_example_grad` entry points for.
  std::vector<std::string> perExampleGradFunctions;
  /// Functions to add `FN_jvp` and `FN_vjp` entry points for.
  std::vector<std::string> checkGradFunctions;
  /// When set, GPU targets also write each device binary (SPIR-V, PTX,
  /// cubin, hsaco) into this folder, for inspection and validation.
  std::string deviceCodeDirectory;
  /// Register tile of the CPU matmul schedule.
  int64_t matmulTileM = 8, matmulTileN = 32;
};

/// Registers every dialect and interface the compiler may meet or create.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Registers rlx passes and one pipeline per phase (`rlx-phase-<name>`) and
/// the whole CPU pipeline (`rlx-cpu-pipeline`).
void registerCompilerPassesAndPipelines();

/// Adds the passes of one phase.
void buildPhasePipeline(mlir::OpPassManager &pm, Phase phase,
                        const CompileOptions &options);

/// Runs the phases up to and including `last`. Diagnostics go to the
/// context's handler; `configure` may set up IR printing on the manager.
/// With `stats`, each phase runs and is timed on its own and the kernels
/// and workspaces are recorded.
mlir::LogicalResult
runPhases(mlir::ModuleOp module, Phase last, const CompileOptions &options,
          llvm::function_ref<void(mlir::PassManager &)> configure = nullptr,
          CompileStats *stats = nullptr);

/// Translates a module at the Codegen phase to LLVM IR, optimized at
/// options.optLevel for the host CPU, and writes `kind` to `outputPath`
/// (LLVM IR text, an object, or a shared library linked with lld). The file
/// appears only when complete.
mlir::LogicalResult emitArtifact(mlir::ModuleOp module,
                                 const CompileOptions &options, EmitKind kind,
                                 llvm::StringRef outputPath);

/// The compiler's version string.
llvm::StringRef compilerVersion();

} // namespace rlx

#endif // RLX_CODEGEN_COMPILER_H
