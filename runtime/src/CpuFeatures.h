//===- CpuFeatures.h - The features of the CPU we run on --------*- C++ -*-===//
//
/// \file
/// Checks an artifact's required CPU features (the manifest's
/// "cpu_features", rlx/abi.h's RLX_X86_CPU_FEATURES) against the CPU the
/// process runs on, with CPUID and XGETBV: code for a feature the CPU lacks
/// dies of SIGILL, so the runtime refuses it before the first call.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_CPUFEATURES_H
#define RLX_RUNTIME_SRC_CPUFEATURES_H

#include <string>
#include <vector>

struct rlx_artifact_s;

namespace rlxrt {

/// The features of `required` ("+name") this CPU lacks or this runtime
/// cannot detect, in their order.
std::vector<std::string>
missingCpuFeatures(const std::vector<std::string> &required);

/// Throws FAILED_PRECONDITION naming the artifact, its CPU and every
/// feature this machine lacks, or naming a triple of another architecture.
void checkCpu(const rlx_artifact_s &artifact);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_CPUFEATURES_H
