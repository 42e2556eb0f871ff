//===- Artifact.cpp - Loading an rlx artifact -----------------------------===//
//
/// \file
/// Loads a model.so per docs/abi.md and answers questions about its
/// manifest. Each way a file can fail to be an artifact gets its own message,
/// since "dlopen failed" alone tells a user nothing.
//
//===----------------------------------------------------------------------===//

#include "Artifact.h"
#include "DType.h"
#include "Status.h"
#include "GuardedCall.h"

#include <cerrno>
#include <dlfcn.h>
#include <memory>
#include <sys/stat.h>

using namespace rlx;

rlx_artifact_s::~rlx_artifact_s() {
  if (library)
    dlclose(library);
}

namespace {

/// The last dlerror() text, or a fallback.
std::string lastDlError() {
  const char *message = dlerror();
  return message ? message : "unknown dlopen error";
}

std::unique_ptr<rlx_artifact_s> loadArtifact(const std::string &path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    int error = errno;
    if (error == ENOENT || error == ENOTDIR)
      fail(RLX_STATUS_NOT_FOUND, "artifact '" + path + "' not found");
    fail(statusCodeFromErrno(error),
         "cannot access artifact " + describeErrno(path, error));
  }
  if (!S_ISREG(info.st_mode))
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "'" + path + "' is not an rlx artifact (not a regular file)");

  auto artifact = std::make_unique<rlx_artifact_s>();
  artifact->path = path;
  // Without a slash dlopen searches the library path instead of the file.
  std::string openPath =
      path.find('/') == std::string::npos ? "./" + path : path;
  dlerror();
  artifact->library = dlopen(openPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!artifact->library)
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "'" + path + "' is not an rlx artifact: " + lastDlError());

  using VersionFunction = uint32_t (*)();
  using ManifestFunction = const char *(*)();
  dlerror();
  auto version = reinterpret_cast<VersionFunction>(
      dlsym(artifact->library, "rlx_artifact_abi_version"));
  if (!version)
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "'" + path +
             "' is not an rlx artifact (no rlx_artifact_abi_version symbol)");
  uint32_t abiVersion = version();
  if (abiVersion != RLX_ABI_VERSION)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "ABI version mismatch: '" + path + "' has ABI version " +
             std::to_string(abiVersion) + ", this runtime supports version " +
             std::to_string(RLX_ABI_VERSION));
  auto manifestFunction = reinterpret_cast<ManifestFunction>(
      dlsym(artifact->library, "rlx_artifact_manifest"));
  if (!manifestFunction)
    fail(RLX_STATUS_DATA_LOSS,
         "malformed artifact '" + path + "': no rlx_artifact_manifest symbol");
  const char *text = manifestFunction();
  if (!text)
    fail(RLX_STATUS_DATA_LOSS,
         "malformed artifact '" + path + "': rlx_artifact_manifest() is NULL");
  artifact->manifestJson = text;
  artifact->manifest = parseManifest(path, artifact->manifestJson);
  if (artifact->manifest.abiVersion != 0 &&
      artifact->manifest.abiVersion != RLX_ABI_VERSION)
    fail(RLX_STATUS_DATA_LOSS,
         "malformed manifest in '" + path + "': abi_version " +
             std::to_string(artifact->manifest.abiVersion) +
             " disagrees with rlx_artifact_abi_version() = " +
             std::to_string(abiVersion));

  artifact->numThreads = static_cast<int32_t *>(
      dlsym(artifact->library, "rlx_artifact_num_threads"));
  artifact->outOfMemoryHook = reinterpret_cast<void (**)(int64_t)>(
      dlsym(artifact->library, "rlx_artifact_oom_hook"));
  if (artifact->outOfMemoryHook)
    *artifact->outOfMemoryHook = rlx::outOfMemoryHook;
  artifact->checkFailedHook = reinterpret_cast<void (**)(const char *)>(
      dlsym(artifact->library, "rlx_artifact_error_hook"));
  if (artifact->checkFailedHook)
    *artifact->checkFailedHook = rlx::checkFailedHook;
  for (rlx_entry_point_s &entry : artifact->manifest.entryPoints) {
    dlerror();
    entry.function = reinterpret_cast<EntryFunction>(
        dlsym(artifact->library, entry.symbol.c_str()));
    if (!entry.function)
      fail(RLX_STATUS_DATA_LOSS, "malformed artifact '" + path +
                                     "': entry point '" + entry.name +
                                     "' has no symbol '" + entry.symbol + "'");
  }
  return artifact;
}

rlx_status_t specAt(const std::vector<TensorSpec> &specs, size_t index,
                    const char *what, rlx_tensor_spec_t *out_spec) {
  return guard([&] {
    requireArg(out_spec, "out_spec");
    if (index >= specs.size())
      fail(RLX_STATUS_OUT_OF_RANGE,
           std::string(what) + " index " + std::to_string(index) +
               " out of range (" + std::to_string(specs.size()) + ")");
    *out_spec = specs[index].view();
  });
}

} // namespace

namespace rlx {

const rlx_entry_point_s &lookupEntryPoint(const rlx_artifact_t &artifact,
                                          const std::string &name) {
  const rlx_entry_point_s *entry = artifact.manifest.findEntryPoint(name);
  if (!entry)
    fail(RLX_STATUS_NOT_FOUND,
         "no entry point '" + name + "' in '" + artifact.path +
             "' (available: " + artifact.manifest.entryPointNames() + ")");
  return *entry;
}

} // namespace rlx

extern "C" {

rlx_status_t rlx_artifact_load(const char *path,
                               rlx_artifact_t **out_artifact) {
  return guard([&] {
    requireArg(path, "path");
    requireArg(out_artifact, "out_artifact");
    *out_artifact = loadArtifact(path).release();
  });
}

void rlx_artifact_retain(rlx_artifact_t *artifact) {
  if (artifact)
    artifact->refCount.fetch_add(1, std::memory_order_relaxed);
}

void rlx_artifact_release(rlx_artifact_t *artifact) {
  if (artifact &&
      artifact->refCount.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete artifact;
}

const char *rlx_artifact_path(const rlx_artifact_t *artifact) {
  return artifact->path.c_str();
}

const char *rlx_artifact_target(const rlx_artifact_t *artifact) {
  return artifact->manifest.target.c_str();
}

const char *rlx_artifact_compiler(const rlx_artifact_t *artifact) {
  return artifact->manifest.compiler.c_str();
}

const char *rlx_artifact_manifest_json(const rlx_artifact_t *artifact) {
  return artifact->manifestJson.c_str();
}

size_t rlx_artifact_entry_point_count(const rlx_artifact_t *artifact) {
  return artifact->manifest.entryPoints.size();
}

const rlx_entry_point_t *
rlx_artifact_entry_point_at(const rlx_artifact_t *artifact, size_t index) {
  if (index >= artifact->manifest.entryPoints.size())
    return nullptr;
  return &artifact->manifest.entryPoints[index];
}

rlx_status_t
rlx_artifact_find_entry_point(const rlx_artifact_t *artifact, const char *name,
                              const rlx_entry_point_t **out_entry_point) {
  return guard([&] {
    requireArg(artifact, "artifact");
    requireArg(name, "name");
    requireArg(out_entry_point, "out_entry_point");
    *out_entry_point = &lookupEntryPoint(*artifact, name);
  });
}

size_t rlx_artifact_param_count(const rlx_artifact_t *artifact) {
  return artifact->manifest.params.size();
}

rlx_status_t rlx_artifact_param(const rlx_artifact_t *artifact, size_t index,
                                rlx_tensor_spec_t *out_spec) {
  return specAt(artifact->manifest.params, index, "param", out_spec);
}

const char *rlx_entry_point_name(const rlx_entry_point_t *entry_point) {
  return entry_point->name.c_str();
}

size_t rlx_entry_point_input_count(const rlx_entry_point_t *entry_point) {
  return entry_point->inputs.size();
}

size_t rlx_entry_point_output_count(const rlx_entry_point_t *entry_point) {
  return entry_point->outputs.size();
}

size_t rlx_entry_point_param_count(const rlx_entry_point_t *entry_point) {
  return entry_point->params.size();
}

uint64_t rlx_entry_point_workspace_bytes(const rlx_entry_point_t *entry_point) {
  return entry_point->workspaceBytes;
}

uint64_t rlx_entry_point_workspace_lower_bound_bytes(
    const rlx_entry_point_t *entry_point) {
  return entry_point->workspaceLowerBoundBytes;
}

rlx_status_t rlx_entry_point_input(const rlx_entry_point_t *entry_point,
                                   size_t index, rlx_tensor_spec_t *out_spec) {
  return specAt(entry_point->inputs, index, "input", out_spec);
}

rlx_status_t rlx_entry_point_output(const rlx_entry_point_t *entry_point,
                                    size_t index, rlx_tensor_spec_t *out_spec) {
  return specAt(entry_point->outputs, index, "output", out_spec);
}

rlx_status_t rlx_entry_point_param(const rlx_entry_point_t *entry_point,
                                   size_t index, rlx_tensor_spec_t *out_spec) {
  return specAt(entry_point->params, index, "param", out_spec);
}

rlx_status_t rlx_entry_point_find_input(const rlx_entry_point_t *entry_point,
                                        const char *name, size_t *out_index) {
  return guard([&] {
    requireArg(entry_point, "entry_point");
    requireArg(name, "name");
    requireArg(out_index, "out_index");
    std::string names;
    for (size_t i = 0; i < entry_point->inputs.size(); ++i) {
      if (entry_point->inputs[i].name == name) {
        *out_index = i;
        return;
      }
      names += (i ? ", '" : "'") + entry_point->inputs[i].name + "'";
    }
    fail(RLX_STATUS_NOT_FOUND,
         std::string("entry point '") + entry_point->name + "' has no input '" +
             name + "' (inputs: " + (names.empty() ? "none" : names) + ")");
  });
}

} // extern "C"
