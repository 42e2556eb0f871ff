//===- CpuFeatures.cpp - The features of the CPU we run on ----------------===//
//
/// \file
/// A feature counts as present when CPUID reports it and, for the AVX,
/// AVX-512 and AMX families, the OS has enabled the register state it
/// needs (XCR0): a CPU with AVX-512 under an OS that does not save ZMM
/// registers still faults on AVX-512 code.
//
//===----------------------------------------------------------------------===//

#include "CpuFeatures.h"
#include "Artifact.h"
#include "Status.h"
#include "rlx/abi.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace rlxrt {
namespace {

#if defined(__x86_64__)
constexpr const char *kArch = "x86_64";
#elif defined(__aarch64__)
constexpr const char *kArch = "aarch64";
#else
constexpr const char *kArch = "";
#endif

#if defined(__x86_64__) || defined(__i386__)
/// CPUID (leaf, subleaf) as {eax, ebx, ecx, edx}; zeros for a leaf the CPU
/// does not have.
void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t registers[4]) {
  std::memset(registers, 0, 4 * sizeof(uint32_t));
  uint32_t highest = __get_cpuid_max(leaf & 0x80000000u, nullptr);
  if (highest < leaf)
    return;
  __cpuid_count(leaf, subleaf, registers[0], registers[1], registers[2],
                registers[3]);
}

/// The register state the OS saves (XCR0), 0 without OSXSAVE.
uint64_t enabledState() {
  uint32_t registers[4];
  cpuid(1, 0, registers);
  if (!(registers[2] & (1u << 27)))
    return 0;
  uint32_t low, high;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (uint64_t(high) << 32) | low;
}

/// Whether this CPU has the feature of RLX_X86_CPU_FEATURES named `name`;
/// false with `known` false for a name the table lacks.
bool hasFeature(const std::string &name, bool &known) {
  static const uint64_t state = enabledState();
  uint32_t registers[4];
  known = true;
#define RLX_CHECK_FEATURE(featureName, leaf, subleaf, reg, bit, xcr0)          \
  if (name == featureName) {                                                   \
    cpuid(leaf, subleaf, registers);                                           \
    return (registers[reg] >> (bit)&1) && (state & (xcr0)) == (xcr0);          \
  }
  RLX_X86_CPU_FEATURES(RLX_CHECK_FEATURE)
#undef RLX_CHECK_FEATURE
  known = false;
  return false;
}
#else
bool hasFeature(const std::string &, bool &known) {
  known = false;
  return false;
}
#endif

/// Linux hands a process the AMX tile data state only on request
/// (arch_prctl ARCH_REQ_XCOMP_PERM, once per process, for every thread):
/// without it the first tile instruction dies of SIGILL, although CPUID
/// and XCR0 report AMX. Throws FAILED_PRECONDITION when the OS refuses.
void requestAmxTileState(const rlx_artifact_s &artifact) {
#if defined(__linux__) && defined(__x86_64__)
  constexpr int kArchRequestComponentPermission = 0x1023;
  constexpr int kComponentTileData = 18;
  if (syscall(SYS_arch_prctl, kArchRequestComponentPermission,
              kComponentTileData) == 0)
    return;
  int error = errno;
  fail(RLX_STATUS_FAILED_PRECONDITION,
       "artifact '" + artifact.path + "' uses AMX tiles (compiled for CPU '" +
           artifact.manifest.cpu + "') and the OS refused this process " +
           "their register state (arch_prctl ARCH_REQ_XCOMP_PERM: " +
           std::strerror(error) + "); recompile with rlxc " +
           "--cpu-features=-amx-tile, or for a CPU without AMX");
#else
  (void)artifact;
#endif
}

} // namespace

std::vector<std::string>
missingCpuFeatures(const std::vector<std::string> &required) {
  std::vector<std::string> missing;
  for (const std::string &feature : required) {
    bool known = false;
    if (feature.size() < 2 || !hasFeature(feature.substr(1), known))
      missing.push_back(feature);
  }
  return missing;
}

void checkCpu(const rlx_artifact_s &artifact) {
  const Manifest &manifest = artifact.manifest;
  std::string triple = manifest.targetTriple;
  std::string arch = triple.substr(0, triple.find('-'));
  if (!triple.empty() && arch != kArch)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "artifact '" + artifact.path + "' was compiled for " + triple +
             ", not for this machine (" + kArch + ")");
  std::vector<std::string> missing = missingCpuFeatures(manifest.cpuFeatures);
  if (missing.empty()) {
    const std::vector<std::string> &features = manifest.cpuFeatures;
    if (std::find(features.begin(), features.end(), "+amx-tile") !=
        features.end())
      requestAmxTileState(artifact);
    return;
  }
  std::string list;
  for (const std::string &feature : missing)
    list += (list.empty() ? "" : ", ") + feature;
  fail(RLX_STATUS_FAILED_PRECONDITION,
       "artifact '" + artifact.path + "' needs CPU features this machine " +
           "lacks: " + list + " (compiled for CPU '" + manifest.cpu +
           "'; recompile with rlxc --cpu=host on this machine, or a CPU "
           "it has, e.g. --cpu=x86-64-v3)");
}

} // namespace rlxrt
