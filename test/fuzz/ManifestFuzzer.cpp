//===- ManifestFuzzer.cpp - libFuzzer harness: the manifest parser -------===//
//
/// \file
/// Feeds each input as manifest JSON text to rlxrt::parseManifest
/// (runtime/src/Manifest.cpp, compiled here with ASan, UBSan and coverage),
/// the check every artifact's `rlx_artifact_manifest` string passes at load
/// time. A StatusError (DATA_LOSS naming the bad field, UNIMPLEMENTED for an
/// unknown dtype) is the expected answer to a bad manifest. A bug is a
/// crash, a sanitizer report, any other exception (a nlohmann type error the
/// parser let through escapes and aborts), or an accepted manifest whose
/// lookups disagree with what it holds.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"
#include "Status.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rlxrt::Manifest manifest;
  try {
    manifest = rlxrt::parseManifest(
        "fuzz.so", std::string(reinterpret_cast<const char *>(data), size));
  } catch (const rlxrt::StatusError &) {
    return 0;
  }
  for (const rlx_entry_point_s &entry : manifest.entryPoints) {
    if (manifest.findEntryPoint(entry.name) != &entry)
      __builtin_trap();
    for (const rlxrt::TensorSpec &param : entry.params)
      if (!manifest.findParam(param.name))
        __builtin_trap();
    for (const rlxrt::DimConstraint &constraint : entry.dimConstraints)
      for (auto [input, dim] : constraint.dims)
        if (input >= entry.inputs.size() ||
            dim >= entry.inputs[input].shape.size())
          __builtin_trap(); // a constraint naming a dim that is not there
  }
  (void)manifest.entryPointNames();
  return 0;
}
