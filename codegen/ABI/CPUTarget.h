//===- CPUTarget.h - The CPU that compiled code runs on ---------*- C++ -*-===//
///
/// \file
/// What `--cpu` and `--cpu-features` resolve to: the LLVM triple, CPU name
/// and feature string the code of an artifact that runs on the CPU is
/// compiled for (all of a CPU artifact, the host side of a GPU artifact),
/// and the features of rlx/abi.h's RLX_X86_CPU_FEATURES that it therefore
/// needs, which the manifest records and the runtime checks.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_ABI_CPUTARGET_H
#define RLX_CODEGEN_ABI_CPUTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace mlir::rlx {

/// The CPU name meaning "the machine that compiles, with all its features".
inline constexpr llvm::StringLiteral kHostCPU = "host";

struct CPUTarget {
  std::string triple;
  /// LLVM's CPU name; "host" resolved to the host's ("znver4").
  std::string cpu;
  /// The feature string for LLVM ("+avx2,-avx512f,...").
  std::string features;
  /// "+name" for each feature of RLX_X86_CPU_FEATURES the code may use.
  std::vector<std::string> required;
};

/// Resolves `cpu` (an LLVM CPU name or "host") and `features` ("+a", "-b")
/// for the process's triple. Fails with a message naming an unknown CPU or
/// feature.
FailureOr<CPUTarget> resolveCPUTarget(llvm::StringRef cpu,
                                      ArrayRef<std::string> features,
                                      std::string &error);

/// A TargetMachine for `target` at LLVM optimization level `optLevel`,
/// position-independent code.
std::unique_ptr<llvm::TargetMachine>
createCPUTargetMachine(const CPUTarget &target, unsigned optLevel,
                       std::string &error);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_ABI_CPUTARGET_H
