//===- SpirvModule.h - What the runtime reads of a SPIR-V module -*- C++
//-*-===//
//
/// \file
/// The few facts a Vulkan device needs before it builds pipelines from a
/// SPIR-V module: the capabilities it declares (to refuse a device that
/// lacks one, naming the feature, instead of failing in the driver), its
/// compute entry points, and their fixed workgroup sizes (to check a
/// launch's block against them).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_SPIRVMODULE_H
#define RLX_RUNTIME_SRC_SPIRVMODULE_H

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rlxrt {

struct SpirvModule {
  std::vector<uint32_t> words;
  std::vector<uint32_t> capabilities;
  /// GLCompute entry points by name, with their LocalSize when the module
  /// fixes it with literals (not with LocalSizeId).
  std::map<std::string, std::optional<std::array<uint32_t, 3>>> kernels;
};

/// Parses SPIR-V `data` of GPU module `module`. Throws DATA_LOSS naming the
/// module when it is not SPIR-V or is truncated.
SpirvModule parseSpirv(const std::string &module, const uint8_t *data,
                       uint64_t size);

/// The Vulkan feature a SPIR-V capability needs, with the capability's name:
/// {"Float64", "shaderFloat64"}. Null names for a capability every Vulkan
/// compute device has, or one the runtime does not know (left to the
/// driver).
struct CapabilityFeature {
  const char *capability = nullptr;
  const char *feature = nullptr;
};
CapabilityFeature featureForCapability(uint32_t capability);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_SPIRVMODULE_H
