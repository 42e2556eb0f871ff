//===- Artifact.cpp - Loading an rlx artifact -----------------------------===//
//
/// \file
/// Loads a model.so per docs/abi.md and answers questions about its
/// manifest. Each way a file can fail to be an artifact gets its own message,
/// since "dlopen failed" alone tells a user nothing.
//
//===----------------------------------------------------------------------===//

#include "Artifact.h"
#include "ArtifactIntegrity.h"
#include "Communicator.h"
#include "CpuFeatures.h"
#include "DType.h"
#include "DeviceCall.h"
#include "CallState.h"
#include "Status.h"
#include "rlx/abi.h"

#include <cerrno>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

using namespace rlxrt;

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

/// Reads a GPU artifact's device code table and points its device hooks at
/// the runtime (docs/abi.md, "GPU artifacts"). Everything is required: an
/// artifact without it could not run a single call.
void loadDeviceCode(rlx_artifact_s &artifact) {
  const std::string &path = artifact.path;
  auto symbol = [&](const char *name) {
    void *address = dlsym(artifact.library, name);
    if (!address)
      fail(RLX_STATUS_DATA_LOSS, "malformed artifact '" + path +
                                     "': its target is '" +
                                     artifact.manifest.target +
                                     "' but it has no symbol '" + name + "'");
    return address;
  };
  auto *records = static_cast<const DeviceBinary *>(
      symbol(RLX_ARTIFACT_DEVICE_BINARIES_SYMBOL));
  int64_t count = *static_cast<const int64_t *>(
      symbol(RLX_ARTIFACT_DEVICE_BINARY_COUNT_SYMBOL));
  auto bad = [&](const std::string &what) {
    fail(RLX_STATUS_DATA_LOSS,
         "malformed artifact '" + path +
             "': " RLX_ARTIFACT_DEVICE_BINARIES_SYMBOL " " + what);
  };
  if (count < 0 || count > (1 << 20))
    bad("has count " + std::to_string(count));
  const char *format =
      artifact.device == RLX_DEVICE_VULKAN ? RLX_DEVICE_BINARY_FORMAT_SPIRV
      : artifact.device == RLX_DEVICE_CUDA ? RLX_DEVICE_BINARY_FORMAT_CUBIN
          " or " RLX_DEVICE_BINARY_FORMAT_PTX
                                           : RLX_DEVICE_BINARY_FORMAT_HSACO;
  for (int64_t i = 0; i < count; ++i) {
    const DeviceBinary &record = records[i];
    std::string at = "record " + std::to_string(i);
    if (!record.module || !record.format || !record.chip ||
        (!record.data && record.size))
      bad(at + " has a null field");
    std::string kind = record.format;
    bool fits = artifact.device == RLX_DEVICE_VULKAN
                    ? kind == RLX_DEVICE_BINARY_FORMAT_SPIRV
                : artifact.device == RLX_DEVICE_CUDA
                    ? kind == RLX_DEVICE_BINARY_FORMAT_CUBIN ||
                          kind == RLX_DEVICE_BINARY_FORMAT_PTX
                    : kind == RLX_DEVICE_BINARY_FORMAT_HSACO;
    if (!fits)
      bad(at + " (module '" + record.module + "') has format '" + kind +
          "'; a " + artifact.manifest.target + " artifact holds " + format);
    artifact.deviceBinaries.push_back(record);
  }
  *static_cast<rlx_artifact_device_alloc_hook_t *>(
      symbol(RLX_ARTIFACT_DEVICE_ALLOC_HOOK_SYMBOL)) = deviceAllocateHook;
  *static_cast<rlx_artifact_device_free_hook_t *>(
      symbol(RLX_ARTIFACT_DEVICE_FREE_HOOK_SYMBOL)) = deviceFreeHook;
  *static_cast<rlx_artifact_device_upload_hook_t *>(
      symbol(RLX_ARTIFACT_DEVICE_UPLOAD_HOOK_SYMBOL)) = deviceUploadHook;
  *static_cast<rlx_artifact_device_launch_hook_t *>(
      symbol(RLX_ARTIFACT_DEVICE_LAUNCH_HOOK_SYMBOL)) = deviceLaunchHook;
  *static_cast<rlx_artifact_device_download_hook_t *>(
      symbol(RLX_ARTIFACT_DEVICE_DOWNLOAD_HOOK_SYMBOL)) = deviceDownloadHook;
}

/// Refuses a file that dlopen must not see (ArtifactIntegrity.h): not an
/// ELF library for this machine, no digest note, or damaged.
void checkIntegrity(const std::string &path) {
  // O_NONBLOCK: a FIFO put in the file's place since stat must not hang.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int error = errno;
    fail(statusCodeFromErrno(error),
         "cannot open artifact " + describeErrno(path, error));
  }
  struct stat info;
  IntegrityCheck check;
  if (fstat(fd, &info) != 0) {
    check.kind = IntegrityCheck::Unreadable;
    check.error = errno;
  } else if (!S_ISREG(info.st_mode)) {
    check.kind = IntegrityCheck::NotAnArtifact;
    check.what = "not a regular file";
  } else {
    check = checkArtifactFile(fd, static_cast<uint64_t>(info.st_size));
  }
  close(fd);
  switch (check.kind) {
  case IntegrityCheck::Ok:
    return;
  case IntegrityCheck::NotAnArtifact:
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "'" + path + "' is not an rlx artifact (" + check.what + ")");
  case IntegrityCheck::Corrupt:
    fail(RLX_STATUS_DATA_LOSS, "corrupt artifact: " + path + ": " + check.what);
  case IntegrityCheck::Unreadable:
    fail(statusCodeFromErrno(check.error),
         "cannot read artifact " + describeErrno(path, check.error));
  }
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
  checkIntegrity(path);

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

  dlerror();
  auto version = reinterpret_cast<rlx_artifact_abi_version_fn_t>(
      dlsym(artifact->library, RLX_ARTIFACT_ABI_VERSION_SYMBOL));
  if (!version)
    fail(RLX_STATUS_INVALID_ARGUMENT,
         "'" + path +
             "' is not an rlx artifact (no " RLX_ARTIFACT_ABI_VERSION_SYMBOL
             " symbol)");
  uint32_t abiVersion = version();
  if (abiVersion != RLX_ABI_VERSION)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "ABI version mismatch: '" + path + "' has ABI version " +
             std::to_string(abiVersion) + ", this runtime supports version " +
             std::to_string(RLX_ABI_VERSION));
  auto manifestFunction = reinterpret_cast<rlx_artifact_manifest_fn_t>(
      dlsym(artifact->library, RLX_ARTIFACT_MANIFEST_SYMBOL));
  if (!manifestFunction)
    fail(RLX_STATUS_DATA_LOSS, "malformed artifact '" + path +
                                   "': no " RLX_ARTIFACT_MANIFEST_SYMBOL
                                   " symbol");
  const char *text = manifestFunction();
  if (!text)
    fail(RLX_STATUS_DATA_LOSS, "malformed artifact '" + path +
                                   "': " RLX_ARTIFACT_MANIFEST_SYMBOL
                                   "() is NULL");
  artifact->manifestJson = text;
  artifact->manifest = parseManifest(path, artifact->manifestJson);
  // Here, where the entry points stay put for the artifact's life.
  for (rlx_entry_point_s &entry : artifact->manifest.entryPoints)
    if (!entry.prepare.empty())
      entry.preparedBy = artifact->manifest.findEntryPoint(entry.prepare);
  if (artifact->manifest.abiVersion != 0 &&
      artifact->manifest.abiVersion != RLX_ABI_VERSION)
    fail(RLX_STATUS_DATA_LOSS,
         "malformed manifest in '" + path + "': abi_version " +
             std::to_string(artifact->manifest.abiVersion) +
             " disagrees with " RLX_ARTIFACT_ABI_VERSION_SYMBOL "() = " +
             std::to_string(abiVersion));

  auto join = [](const std::vector<std::string> &names) {
    std::string text;
    for (const std::string &name : names)
      text += (text.empty() ? "" : ",") + name;
    return text;
  };
  artifact->cpuFeatures = join(artifact->manifest.cpuFeatures);
  artifact->missingCpuFeatures =
      join(missingCpuFeatures(artifact->manifest.cpuFeatures));

  const std::string &target = artifact->manifest.target;
  artifact->device = target.empty() ? RLX_DEVICE_CPU : deviceForTarget(target);
  if (artifact->device == RLX_DEVICE_DEFAULT)
    fail(RLX_STATUS_UNIMPLEMENTED,
         "'" + path + "' was compiled for target '" + target +
             "', which this runtime cannot run (targets: cpu, cuda, rocm, "
             "vulkan)");
  if (artifact->device != RLX_DEVICE_CPU)
    loadDeviceCode(*artifact);

  artifact->numThreads = static_cast<int32_t *>(
      dlsym(artifact->library, RLX_ARTIFACT_NUM_THREADS_SYMBOL));
  if (artifact->numThreads)
    artifact->openMp = rlxrt::findOpenMpEntries(artifact->library);
  // The hooks are pointed at the runtime's handlers once, here; an
  // artifact whose entry code cannot fail (no allocation, no check) has
  // none.
  auto setHook = [&](const char *symbol, auto handler) {
    if (auto slot = static_cast<decltype(handler) *>(
            dlsym(artifact->library, symbol)))
      *slot = handler;
  };
  setHook(RLX_ARTIFACT_CALL_HOOK_SYMBOL,
          static_cast<rlx_artifact_call_hook_t>(rlxrt::callHook));
  setHook(RLX_ARTIFACT_ALLOC_HOOK_SYMBOL,
          static_cast<rlx_artifact_alloc_hook_t>(rlxrt::allocHook));
  setHook(RLX_ARTIFACT_FREE_HOOK_SYMBOL,
          static_cast<rlx_artifact_free_hook_t>(rlxrt::freeHook));
  setHook(RLX_ARTIFACT_ERROR_HOOK_SYMBOL,
          static_cast<rlx_artifact_error_hook_t>(rlxrt::errorHook));
  setHook(RLX_ARTIFACT_FAILED_HOOK_SYMBOL,
          static_cast<rlx_artifact_failed_hook_t>(rlxrt::failedHook));
  if (auto collective = static_cast<rlx_artifact_collective_hook_t *>(
          dlsym(artifact->library, RLX_ARTIFACT_COLLECTIVE_HOOK_SYMBOL)))
    *collective = rlxrt::collectiveHook;
  // dlsym searches the artifact's dependencies too: a manifest naming
  // `free` would otherwise get the C library's. An entry symbol must be
  // defined in the artifact itself.
  struct link_map *artifactMap = nullptr;
  if (dlinfo(artifact->library, RTLD_DI_LINKMAP, &artifactMap) != 0)
    artifactMap = nullptr;
  for (rlx_entry_point_s &entry : artifact->manifest.entryPoints) {
    dlerror();
    void *address = entry.symbol.find('\0') == std::string::npos
                        ? dlsym(artifact->library, entry.symbol.c_str())
                        : nullptr;
    if (!address)
      fail(RLX_STATUS_DATA_LOSS, "malformed artifact '" + path +
                                     "': entry point '" + entry.name +
                                     "' has no symbol '" + entry.symbol + "'");
    Dl_info info;
    struct link_map *symbolMap = nullptr;
    if (!dladdr1(address, &info, reinterpret_cast<void **>(&symbolMap),
                 RTLD_DL_LINKMAP) ||
        !artifactMap || symbolMap != artifactMap)
      fail(RLX_STATUS_DATA_LOSS, "malformed artifact '" + path +
                                     "': entry point '" + entry.name +
                                     "' names symbol '" + entry.symbol +
                                     "', which the artifact does not define");
    entry.function = reinterpret_cast<EntryFunction>(address);
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

namespace rlxrt {

const rlx_entry_point_s &lookupEntryPoint(const rlx_artifact_t &artifact,
                                          const std::string &name) {
  const rlx_entry_point_s *entry = artifact.manifest.findEntryPoint(name);
  if (!entry)
    fail(RLX_STATUS_NOT_FOUND,
         "no entry point '" + name + "' in '" + artifact.path +
             "' (available: " + artifact.manifest.entryPointNames() + ")");
  return *entry;
}

} // namespace rlxrt

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

rlx_device_t rlx_artifact_device(const rlx_artifact_t *artifact) {
  return artifact->device;
}

const char *rlx_artifact_compiler(const rlx_artifact_t *artifact) {
  return artifact->manifest.compiler.c_str();
}

const char *rlx_artifact_cpu(const rlx_artifact_t *artifact) {
  return artifact->manifest.cpu.c_str();
}

const char *rlx_artifact_cpu_features(const rlx_artifact_t *artifact) {
  return artifact->cpuFeatures.c_str();
}

const char *rlx_artifact_missing_cpu_features(const rlx_artifact_t *artifact) {
  return artifact->missingCpuFeatures.c_str();
}

const char *rlx_artifact_manifest_json(const rlx_artifact_t *artifact) {
  return artifact->manifestJson.c_str();
}

size_t rlx_artifact_entry_point_count(const rlx_artifact_t *artifact) {
  return artifact->manifest.userEntryPoints.size();
}

const rlx_entry_point_t *
rlx_artifact_entry_point_at(const rlx_artifact_t *artifact, size_t index) {
  if (index >= artifact->manifest.userEntryPoints.size())
    return nullptr;
  return &artifact->manifest.entryPoints[artifact->manifest.userEntryPoints[index]];
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
  return entry_point->publicParams.size();
}

const rlx_entry_point_t *
rlx_entry_point_prepare(const rlx_entry_point_t *entry_point) {
  return entry_point->preparedBy;
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
  return specAt(entry_point->publicParams, index, "param", out_spec);
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
