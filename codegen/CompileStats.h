//===- CompileStats.h - What one compilation did, for rlxc --stats -*- C++ -*-===//
///
/// \file
/// Figures a user asks for when tuning a model: time per phase, the
/// kernels (loop nests) each entry point became and how many operations
/// were fused into each, and each entry point's workspace arena against the
/// liveness lower bound.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_COMPILESTATS_H
#define RLX_CODEGEN_COMPILESTATS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::rlx {

struct CompileStats {
  struct PhaseTime {
    std::string phase;
    double seconds;
  };
  /// One loop nest after fusion.
  struct Kernel {
    std::string function; ///< the entry point's implementation function
    std::string kind;     ///< e.g. "matmul", "elementwise", "reduction"
    unsigned fusedOps;    ///< arithmetic/math ops in its body (1 if named)
  };
  struct Workspace {
    std::string entryPoint;
    int64_t peakBytes;       ///< the arena (and any other static temporary)
    int64_t lowerBoundBytes; ///< most bytes of temporaries live at once
  };
  std::vector<PhaseTime> phases;
  std::vector<Kernel> kernels;
  std::vector<Workspace> workspaces;

  /// Records the kernels of `module` at the end of the Fuse phase.
  void collectKernels(mlir::ModuleOp module);
  /// Records workspaces of `module` at the end of the Bufferize phase.
  void collectWorkspaces(mlir::ModuleOp module);
  /// A human-readable report.
  void print(llvm::raw_ostream &os) const;
};

} // namespace mlir::rlx

#endif // RLX_CODEGEN_COMPILESTATS_H
