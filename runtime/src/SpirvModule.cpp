//===- SpirvModule.cpp - What the runtime reads of a SPIR-V module --------===//
//
/// \file
/// A walk over the instruction stream (SPIR-V spec, section 2.3: a 5-word
/// header, then instructions whose first word is wordCount << 16 | opcode).
//
//===----------------------------------------------------------------------===//

#include "SpirvModule.h"
#include "Status.h"

#include <cstring>

using namespace rlxrt;

namespace {

constexpr uint32_t magic = 0x07230203;
constexpr uint32_t opEntryPoint = 15;
constexpr uint32_t opExecutionMode = 16;
constexpr uint32_t opCapability = 17;
constexpr uint32_t executionModelGLCompute = 5;
constexpr uint32_t executionModeLocalSize = 17;

/// A literal string operand starting at `words[at]`, within `end` words.
std::string literalString(const std::vector<uint32_t> &words, size_t at,
                          size_t end) {
  std::string text;
  for (; at < end; ++at)
    for (int byte = 0; byte < 4; ++byte) {
      char c = static_cast<char>(words[at] >> (8 * byte));
      if (!c)
        return text;
      text += c;
    }
  return text;
}

} // namespace

SpirvModule rlxrt::parseSpirv(const std::string &module, const uint8_t *data,
                            uint64_t size) {
  auto bad = [&](const std::string &what) {
    fail(RLX_STATUS_DATA_LOSS,
         "GPU module '" + module + "' is not valid SPIR-V: " + what);
  };
  if (!data || size < 20 || size % 4)
    bad("its size (" + std::to_string(size) +
        " bytes) is not a whole number of words past the header");
  SpirvModule result;
  result.words.resize(size / 4);
  std::memcpy(result.words.data(), data, size);
  const std::vector<uint32_t> &words = result.words;
  if (words[0] != magic)
    bad("bad magic number");

  std::map<uint32_t, std::string> entryNames;
  std::map<uint32_t, std::array<uint32_t, 3>> localSizes;
  for (size_t at = 5; at < words.size();) {
    uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size())
      bad("truncated instruction at word " + std::to_string(at));
    if (opcode == opCapability && count >= 2)
      result.capabilities.push_back(words[at + 1]);
    else if (opcode == opEntryPoint && count >= 4 &&
             words[at + 1] == executionModelGLCompute)
      entryNames[words[at + 2]] = literalString(words, at + 3, at + count);
    else if (opcode == opExecutionMode && count >= 6 &&
             words[at + 2] == executionModeLocalSize)
      localSizes[words[at + 1]] = {words[at + 3], words[at + 4], words[at + 5]};
    at += count;
  }
  for (const auto &[id, name] : entryNames) {
    auto fixed = localSizes.find(id);
    result.kernels[name] =
        fixed == localSizes.end() ? std::nullopt : std::optional(fixed->second);
  }
  return result;
}

CapabilityFeature rlxrt::featureForCapability(uint32_t capability) {
  switch (capability) {
  case 9:
    return {"Float16", "shaderFloat16"};
  case 10:
    return {"Float64", "shaderFloat64"};
  case 11:
    return {"Int64", "shaderInt64"};
  case 12:
    return {"Int64Atomics", "shaderBufferInt64Atomics"};
  case 22:
    return {"Int16", "shaderInt16"};
  case 39:
    return {"Int8", "shaderInt8"};
  case 61:
    return {"GroupNonUniform", "subgroup operations (basic)"};
  case 62:
    return {"GroupNonUniformVote", "subgroup operations (vote)"};
  case 63:
    return {"GroupNonUniformArithmetic", "subgroup operations (arithmetic)"};
  case 64:
    return {"GroupNonUniformBallot", "subgroup operations (ballot)"};
  case 65:
    return {"GroupNonUniformShuffle", "subgroup operations (shuffle)"};
  case 66:
    return {"GroupNonUniformShuffleRelative",
            "subgroup operations (shuffle relative)"};
  case 67:
    return {"GroupNonUniformClustered", "subgroup operations (clustered)"};
  case 68:
    return {"GroupNonUniformQuad", "subgroup operations (quad)"};
  case 4433:
    return {"StorageBuffer16BitAccess", "storageBuffer16BitAccess"};
  case 4434:
    return {"UniformAndStorageBuffer16BitAccess",
            "uniformAndStorageBuffer16BitAccess"};
  case 4441:
    return {"VariablePointersStorageBuffer", "variablePointersStorageBuffer"};
  case 4442:
    return {"VariablePointers", "variablePointers"};
  case 4448:
    return {"StorageBuffer8BitAccess", "storageBuffer8BitAccess"};
  case 4449:
    return {"UniformAndStorageBuffer8BitAccess",
            "uniformAndStorageBuffer8BitAccess"};
  default:
    return {};
  }
}
