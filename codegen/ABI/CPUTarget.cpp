//===- CPUTarget.cpp - The CPU that compiled code runs on -----------------===//
///
/// \file
/// "host" takes the host's CPU name and every feature the host reports, on
/// or off, so an artifact for the host uses exactly what the host has.
/// Another CPU name takes LLVM's features of that CPU; `features` are added
/// or removed on top. The required list comes from the subtarget LLVM
/// builds from both, so it is what the code generator may actually use.
///
//===----------------------------------------------------------------------===//

#include "codegen/ABI/CPUTarget.h"
#include "rlx/abi.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

namespace mlir::rlx {

FailureOr<CPUTarget> resolveCPUTarget(llvm::StringRef cpu,
                                      ArrayRef<std::string> features,
                                      std::string &error) {
  llvm::InitializeNativeTarget();
  CPUTarget result;
  result.triple = llvm::sys::getProcessTriple();
  llvm::Triple triple(result.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return failure();

  llvm::SubtargetFeatures featureList;
  if (cpu.empty() || cpu == kHostCPU) {
    result.cpu = llvm::sys::getHostCPUName().str();
    for (const auto &[feature, enabled] : llvm::sys::getHostCPUFeatures())
      featureList.AddFeature(feature, enabled);
  } else {
    result.cpu = cpu.str();
  }
  // A generic subtarget to ask about names: one built for an unknown CPU
  // or feature would print LLVM's warning and carry on.
  std::unique_ptr<llvm::MCSubtargetInfo> probe(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!probe || !probe->isCPUStringValid(result.cpu)) {
    error = "unknown CPU '" + result.cpu + "' for " + result.triple +
            " (LLVM's CPU names, e.g. x86-64-v3, skylake-avx512, znver4; "
            "'host' for this machine's)";
    return failure();
  }
  for (const std::string &feature : features) {
    llvm::StringRef name(feature);
    if (name.empty())
      continue;
    if (name[0] != '+' && name[0] != '-') {
      error = "CPU feature '" + feature + "' must start with + or -";
      return failure();
    }
    if (!llvm::any_of(probe->getAllProcessorFeatures(),
                      [&](const llvm::SubtargetFeatureKV &known) {
                        return name.drop_front() == known.Key;
                      })) {
      error = "unknown CPU feature '" + name.drop_front().str() + "' for " +
              result.triple;
      return failure();
    }
    featureList.AddFeature(name);
  }
  result.features = featureList.getString();

  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, result.cpu, result.features));
  if (triple.isX86()) {
#define RLX_ADD_REQUIRED(name, leaf, subleaf, reg, bit, xcr0)                  \
  if (subtarget->checkFeatures("+" name))                                      \
    result.required.push_back("+" name);
    RLX_X86_CPU_FEATURES(RLX_ADD_REQUIRED)
#undef RLX_ADD_REQUIRED
  }
  return result;
}

std::unique_ptr<llvm::TargetMachine>
createCPUTargetMachine(const CPUTarget &cpuTarget, unsigned optLevel,
                       std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(cpuTarget.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::CodeGenOptLevel level = optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : optLevel == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpuTarget.cpu, cpuTarget.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, level));
}

} // namespace mlir::rlx
