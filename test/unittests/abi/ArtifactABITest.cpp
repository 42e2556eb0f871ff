//===- ArtifactABITest.cpp - Compiled artifacts against rlx/abi.h ---------===//
//
/// \file
/// The compiler and the runtime both take the artifact contract from
/// rlx/abi.h; these tests hold real artifacts (rlxc, CPU with and without
/// parallel kernels, Vulkan) to it: the library exports exactly the symbols
/// abi.h names for its kind (read from the ELF dynamic symbol table, so an
/// export abi.h does not name fails too), the embedded manifest has exactly
/// the keys abi.h lists at every level, and loading it through librlxrt sets
/// every hook abi.h names.
//
//===----------------------------------------------------------------------===//

#include "rlx/abi.h"
#include "rlx/runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using Json = nlohmann::json;
using Names = std::set<std::string>;

namespace {

#define RLX_TEST_ADD_NAME(name) names.insert(name);

Names requiredSymbols() {
  Names names;
  RLX_ARTIFACT_REQUIRED_SYMBOLS(RLX_TEST_ADD_NAME)
  return names;
}
Names hookSymbols() {
  Names names;
  RLX_ARTIFACT_HOOK_SYMBOLS(RLX_TEST_ADD_NAME)
  return names;
}
Names threadSymbols() {
  Names names;
  RLX_ARTIFACT_THREAD_SYMBOLS(RLX_TEST_ADD_NAME)
  return names;
}
Names deviceSymbols() {
  Names names;
  RLX_ARTIFACT_DEVICE_SYMBOLS(RLX_TEST_ADD_NAME)
  return names;
}
/// The device hook slots among deviceSymbols().
Names deviceHookSymbols() {
  return {RLX_ARTIFACT_DEVICE_ALLOC_HOOK_SYMBOL,
          RLX_ARTIFACT_DEVICE_FREE_HOOK_SYMBOL,
          RLX_ARTIFACT_DEVICE_UPLOAD_HOOK_SYMBOL,
          RLX_ARTIFACT_DEVICE_LAUNCH_HOOK_SYMBOL,
          RLX_ARTIFACT_DEVICE_DOWNLOAD_HOOK_SYMBOL};
}
Names manifestKeys() {
  Names names;
  RLX_MANIFEST_KEYS(RLX_TEST_ADD_NAME)
  return names;
}
Names entryPointKeys() {
  Names names;
  RLX_MANIFEST_ENTRY_POINT_KEYS(RLX_TEST_ADD_NAME)
  return names;
}
Names tensorKeys() {
  Names names;
  RLX_MANIFEST_TENSOR_KEYS(RLX_TEST_ADD_NAME)
  return names;
}
Names dimConstraintKeys() {
  Names names;
  RLX_MANIFEST_DIM_CONSTRAINT_KEYS(RLX_TEST_ADD_NAME)
  return names;
}

#undef RLX_TEST_ADD_NAME

/// `object[key]`, or null when `object` is no object or lacks `key`.
Json field(const Json &object, const char *key) {
  if (!object.is_object() || !object.contains(key))
    return Json();
  return object[key];
}

Names keysOf(const Json &object) {
  Names keys;
  for (auto it = object.begin(); it != object.end(); ++it)
    keys.insert(it.key());
  return keys;
}

std::string join(const Names &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return "{" + text + "}";
}

/// The names the shared library at `path` exports: defined global or weak
/// symbols of default or protected visibility in its ELF dynamic symbol
/// table. Hidden definitions never reach that table.
Names exportedSymbols(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  Names names;
  if (bytes.size() < sizeof(Elf64_Ehdr) ||
      std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0 ||
      bytes[EI_CLASS] != ELFCLASS64) {
    ADD_FAILURE() << path << " is not a 64-bit ELF file";
    return names;
  }
  auto at = [&](uint64_t offset, uint64_t size) -> const char * {
    if (offset > bytes.size() || size > bytes.size() - offset) {
      ADD_FAILURE() << path << ": offset " << offset << " out of the file";
      return nullptr;
    }
    return bytes.data() + offset;
  };
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  const char *table =
      at(header.e_shoff, uint64_t(header.e_shnum) * sizeof(Elf64_Shdr));
  if (!table)
    return names;
  std::memcpy(sections.data(), table, sections.size() * sizeof(Elf64_Shdr));
  bool found = false;
  for (const Elf64_Shdr &section : sections) {
    if (section.sh_type != SHT_DYNSYM || section.sh_link >= sections.size())
      continue;
    found = true;
    const Elf64_Shdr &strings = sections[section.sh_link];
    const char *stringData = at(strings.sh_offset, strings.sh_size);
    const char *symbolData = at(section.sh_offset, section.sh_size);
    if (!stringData || !symbolData)
      return names;
    for (uint64_t i = 0; i < section.sh_size / sizeof(Elf64_Sym); ++i) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, symbolData + i * sizeof(Elf64_Sym), sizeof(symbol));
      unsigned bind = ELF64_ST_BIND(symbol.st_info);
      unsigned visibility = ELF64_ST_VISIBILITY(symbol.st_other);
      if (symbol.st_shndx == SHN_UNDEF ||
          (bind != STB_GLOBAL && bind != STB_WEAK) ||
          (visibility != STV_DEFAULT && visibility != STV_PROTECTED) ||
          symbol.st_name >= strings.sh_size)
        continue;
      names.insert(std::string(stringData + symbol.st_name,
                               strnlen(stringData + symbol.st_name,
                                       strings.sh_size - symbol.st_name)));
    }
  }
  EXPECT_TRUE(found) << path << " has no dynamic symbol table";
  return names;
}

/// Runs `argv` and returns its exit code; its stderr lands in `errPath`.
int runProcess(const std::vector<std::string> &argv,
               const std::string &errPath) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    std::vector<char *> args;
    for (const std::string &arg : argv)
      args.push_back(const_cast<char *>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string readText(const std::string &path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// Two entry points: `affine` reads a param and has a dim constraint (x and
/// y share their dynamic dim 0); `big` is large enough for parallel kernels.
constexpr const char *kModel = R"mlir(
func.func @affine(%x: tensor<?x4xf32> {rlx.name = "x"},
                  %y: tensor<?x4xf32> {rlx.name = "y"})
    -> (tensor<?x4xf32> {rlx.name = "out"}) {
  %w = rlx.param "w" : tensor<4x4xf32>
  %s = rlx.add %x, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %m = rlx.matmul %s, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  return %m : tensor<?x4xf32>
}
func.func @big(%x: tensor<1024x1024xf32> {rlx.name = "x"})
    -> tensor<1024x1024xf32> {
  %e = rlx.exp %x : tensor<1024x1024xf32>
  return %e : tensor<1024x1024xf32>
}
)mlir";

/// `affine` on static shapes, too small for parallel kernels (a dynamic
/// trip count gets a parallel copy behind a run-time test).
constexpr const char *kSerialModel = R"mlir(
func.func @affine(%x: tensor<2x4xf32> {rlx.name = "x"},
                  %y: tensor<2x4xf32> {rlx.name = "y"})
    -> (tensor<2x4xf32> {rlx.name = "out"}) {
  %w = rlx.param "w" : tensor<4x4xf32>
  %s = rlx.add %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = rlx.matmul %s, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}
)mlir";

/// One kind of artifact: what it is compiled from and which symbol groups
/// of abi.h it must export.
struct Kind {
  const char *name;
  const char *model;
  const char *target; ///< an RLX_MANIFEST_TARGET_* value
  bool parallel;      ///< CPU kernels on several threads
  bool gpu;
};

void PrintTo(const Kind &kind, std::ostream *os) { *os << kind.name; }

const Kind kKinds[] = {
    {"CpuParallel", kModel, RLX_MANIFEST_TARGET_CPU, true, false},
    {"CpuSerial", kSerialModel, RLX_MANIFEST_TARGET_CPU, false, false},
    {"Vulkan", kModel, RLX_MANIFEST_TARGET_VULKAN, false, true},
};

/// The scratch directory of this process, removed at exit.
const std::string &scratchDir() {
  static const std::string dir = [] {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/rlx-abi-test-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
      return std::string();
    return std::string(buffer.data());
  }();
  // Registered after `dir` is constructed, so it runs before `dir` is
  // destroyed (ASan found the removal reading a destroyed string).
  static const bool removedAtExit = [] {
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    });
    return true;
  }();
  (void)removedAtExit;
  return dir;
}

class ArtifactABI : public ::testing::TestWithParam<Kind> {
protected:
  /// Compiles the kind's model with rlxc, once per process and kind;
  /// returns the artifact's path, or "" after reporting the failure.
  static std::string compile(const Kind &kind) {
    static std::map<std::string, std::string> compiled;
    auto it = compiled.find(kind.name);
    if (it != compiled.end())
      return it->second;
    std::string &path = compiled[kind.name];
    const std::string &dir = scratchDir();
    if (dir.empty()) {
      ADD_FAILURE() << "cannot create a scratch directory";
      return path;
    }
    std::string stem = dir + "/" + kind.name;
    std::ofstream(stem + ".mlir") << kind.model;
    int code =
        runProcess({RLXC_PATH, stem + ".mlir",
                    std::string("--target=") + kind.target, "-o", stem + ".so"},
                   stem + ".log");
    if (code != 0) {
      ADD_FAILURE() << "rlxc exited with " << code << ":\n"
                    << readText(stem + ".log");
      return path;
    }
    path = stem + ".so";
    return path;
  }

  void SetUp() override {
    path = compile(GetParam());
    ASSERT_FALSE(path.empty());
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    auto manifestFunction = reinterpret_cast<rlx_artifact_manifest_fn_t>(
        dlsym(handle, RLX_ARTIFACT_MANIFEST_SYMBOL));
    ASSERT_NE(manifestFunction, nullptr);
    manifest = Json::parse(manifestFunction(), nullptr,
                           /*allow_exceptions=*/false);
    ASSERT_TRUE(manifest.is_object()) << manifestFunction();
  }
  void TearDown() override {
    if (handle)
      dlclose(handle);
  }

  std::string path;
  void *handle = nullptr;
  Json manifest;
};

TEST_P(ArtifactABI, ExportsExactlyTheSymbolsAbiHNames) {
  const Kind &kind = GetParam();
  Names expected = requiredSymbols();
  Names hooks = hookSymbols();
  expected.insert(hooks.begin(), hooks.end());
  if (kind.parallel) {
    Names threads = threadSymbols();
    expected.insert(threads.begin(), threads.end());
  }
  if (kind.gpu) {
    Names device = deviceSymbols();
    expected.insert(device.begin(), device.end());
  }
  Json entryPoints = field(manifest, RLX_MANIFEST_ENTRY_POINTS);
  ASSERT_TRUE(entryPoints.is_array());
  size_t entries = 0;
  for (const Json &entry : entryPoints) {
    std::string name = entry.value(RLX_MANIFEST_ENTRY_NAME, "");
    std::string symbol = entry.value(RLX_MANIFEST_ENTRY_SYMBOL, "");
    EXPECT_EQ(symbol, RLX_ENTRY_SYMBOL_PREFIX + name);
    expected.insert(symbol);
    ++entries;
  }
  EXPECT_EQ(entries, kind.model == kModel ? 2u : 1u);

  Names exported = exportedSymbols(path);
  EXPECT_EQ(exported, expected)
      << "exported: " << join(exported) << "\nabi.h: " << join(expected);
  for (const std::string &name : expected)
    EXPECT_NE(dlsym(handle, name.c_str()), nullptr) << name;
}

TEST_P(ArtifactABI, ManifestHasExactlyTheKeysAbiHLists) {
  const Kind &kind = GetParam();
  EXPECT_EQ(keysOf(manifest), manifestKeys());
  EXPECT_EQ(manifest.value(RLX_MANIFEST_FORMAT, ""), RLX_MANIFEST_FORMAT_NAME);
  EXPECT_EQ(manifest.value(RLX_MANIFEST_TARGET, ""), kind.target);
  EXPECT_EQ(manifest.value(RLX_MANIFEST_ABI_VERSION, -1), RLX_ABI_VERSION);
  auto version = reinterpret_cast<rlx_artifact_abi_version_fn_t>(
      dlsym(handle, RLX_ARTIFACT_ABI_VERSION_SYMBOL));
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(version(), uint32_t(RLX_ABI_VERSION));

  size_t tensors = 0, constraints = 0;
  auto checkTensors = [&](const Json &list, const std::string &where) {
    ASSERT_TRUE(list.is_array()) << where;
    for (const Json &tensor : list) {
      EXPECT_EQ(keysOf(tensor), tensorKeys()) << where;
      ++tensors;
    }
  };
  checkTensors(field(manifest, RLX_MANIFEST_PARAMS), RLX_MANIFEST_PARAMS);
  Json entryPoints = field(manifest, RLX_MANIFEST_ENTRY_POINTS);
  ASSERT_TRUE(entryPoints.is_array());
  for (const Json &entry : entryPoints) {
    std::string name = entry.value(RLX_MANIFEST_ENTRY_NAME, "");
    EXPECT_EQ(keysOf(entry), entryPointKeys()) << name;
    for (const char *list :
         {RLX_MANIFEST_ENTRY_INPUTS, RLX_MANIFEST_ENTRY_PARAMS,
          RLX_MANIFEST_ENTRY_OUTPUTS})
      checkTensors(field(entry, list), name + "." + list);
    Json dims = field(entry, RLX_MANIFEST_ENTRY_DIM_CONSTRAINTS);
    ASSERT_TRUE(dims.is_array()) << name;
    for (const Json &constraint : dims) {
      EXPECT_EQ(keysOf(constraint), dimConstraintKeys()) << name;
      ++constraints;
    }
  }
  // `affine` has a param (listed twice), two inputs and an output, and in
  // kModel the constraint between x and y: every object kind was seen.
  EXPECT_GE(tensors, 5u);
  EXPECT_EQ(constraints, kind.model == kModel ? 1u : 0u);
}

TEST_P(ArtifactABI, RuntimeSetsEveryHookAbiHNames) {
  Names slots = hookSymbols();
  if (GetParam().gpu) {
    Names device = deviceHookSymbols();
    slots.insert(device.begin(), device.end());
  }
  for (const std::string &slot : slots) {
    void *address = dlsym(handle, slot.c_str());
    ASSERT_NE(address, nullptr) << slot;
    EXPECT_EQ(*static_cast<void **>(address), nullptr)
        << slot << " is set before the runtime loads the artifact";
  }
  rlx_artifact_t *artifact = nullptr;
  rlx_status_t status = rlx_artifact_load(path.c_str(), &artifact);
  ASSERT_EQ(status, nullptr) << rlx_status_message(status);
  // Same file, same library: dlopen hands back the instance the runtime
  // loaded, whose slots it has now set.
  for (const std::string &slot : slots)
    EXPECT_NE(*static_cast<void **>(dlsym(handle, slot.c_str())), nullptr)
        << slot;
  EXPECT_STREQ(rlx_artifact_target(artifact), GetParam().target);
  rlx_artifact_release(artifact);
}

/// Loads `bytes` from a scratch file through librlxrt; returns the status
/// message of the refusal ("" when it loaded) and its code in `code`.
std::string loadCopy(const std::string &name, const std::string &bytes,
                     rlx_status_code_t &code) {
  std::string file = scratchDir() + "/" + name;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  rlx_artifact_t *artifact = nullptr;
  rlx_status_t status = rlx_artifact_load(file.c_str(), &artifact);
  if (!status) {
    rlx_artifact_release(artifact);
    code = RLX_STATUS_OK;
    return "";
  }
  code = rlx_status_code(status);
  std::string message = rlx_status_message(status);
  rlx_status_free(status);
  return message;
}

/// The integrity check (rlx/abi.h, "Integrity") on what rlxc writes: the
/// artifact loads as written; cut at every 64th of its size, with any of
/// 100 bits flipped or its manifest edited in place it is refused before
/// dlopen, which crashed on such files (SIGBUS, SIGSEGV) or ran them.
TEST_P(ArtifactABI, DamagedCopiesAreRefusedBeforeLoading) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::string stem = GetParam().name;
  rlx_status_code_t code;
  EXPECT_EQ(loadCopy(stem + "-copy.so", bytes, code), "");
  for (size_t k = 1; k < 64; ++k) {
    std::string message = loadCopy(
        stem + "-cut.so", bytes.substr(0, bytes.size() * k / 64), code);
    EXPECT_EQ(code, RLX_STATUS_DATA_LOSS) << k << "/64: " << message;
    EXPECT_NE(message.find("corrupt artifact: "), std::string::npos)
        << k << "/64: " << message;
  }
  std::mt19937_64 random(15);
  for (int i = 0; i < 100; ++i) {
    std::string flipped = bytes;
    size_t offset = random() % flipped.size();
    flipped[offset] =
        static_cast<char>(flipped[offset] ^ (1 << (random() % 8)));
    std::string message = loadCopy(stem + "-flip.so", flipped, code);
    // A flip in the ELF identity is "not an rlx artifact"; elsewhere corrupt.
    bool identity =
        offset < EI_VERSION || (offset >= offsetof(Elf64_Ehdr, e_type) &&
                                offset < offsetof(Elf64_Ehdr, e_version));
    EXPECT_EQ(code,
              identity ? RLX_STATUS_INVALID_ARGUMENT : RLX_STATUS_DATA_LOSS)
        << "byte " << offset << ": " << message;
  }
  // Same length, still valid JSON: the param w of another shape.
  std::string edited = bytes;
  size_t at = edited.find("\"shape\":[4,4]");
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, 13, "\"shape\":[4,5]");
  std::string message = loadCopy(stem + "-edited.so", edited, code);
  EXPECT_EQ(code, RLX_STATUS_DATA_LOSS) << message;
  EXPECT_NE(message.find("do not match their digest"), std::string::npos)
      << message;
}

/// rlxc --cpu: the manifest records the CPU and the features it needs, and
/// the runtime refuses, before the first call, an artifact whose CPU has a
/// feature this one lacks (code for it would die of SIGILL). x86-64-v3 code
/// runs on any AVX2 machine; sapphirerapids has AVX512-FP16 and AMX, which
/// AMD's Zen 4 lacks; graniterapids adds AMX-FP16, which Sapphire Rapids
/// lacks.
TEST(ArtifactCPU, CpuFeaturesThisMachineLacksAreRefused) {
  const std::string &dir = scratchDir();
  ASSERT_FALSE(dir.empty());
  std::ofstream(dir + "/cpu.mlir") << kSerialModel;
  auto compileFor = [&](const std::string &cpu) {
    std::string out = dir + "/cpu-" + cpu + ".so";
    int code =
        runProcess({RLXC_PATH, dir + "/cpu.mlir", "--cpu=" + cpu, "-o", out},
                   dir + "/cpu.log");
    EXPECT_EQ(code, 0) << readText(dir + "/cpu.log");
    return out;
  };
  auto sessionStatus = [](const std::string &path, std::string &message) {
    rlx_artifact_t *artifact = nullptr;
    rlx_status_t status = rlx_artifact_load(path.c_str(), &artifact);
    if (!status) {
      rlx_session_t *session = nullptr;
      status = rlx_session_create(artifact, &session);
      rlx_session_release(session);
      rlx_artifact_release(artifact);
    }
    rlx_status_code_t code = rlx_status_code(status);
    message = status ? rlx_status_message(status) : "";
    rlx_status_free(status);
    return code;
  };

  std::string message;
  std::string v3 = compileFor("x86-64-v3");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    EXPECT_EQ(sessionStatus(v3, message), RLX_STATUS_OK) << message;

  std::string spr = compileFor("sapphirerapids");
  rlx_artifact_t *artifact = nullptr;
  ASSERT_EQ(rlx_artifact_load(spr.c_str(), &artifact), nullptr);
  Json manifest = Json::parse(rlx_artifact_manifest_json(artifact));
  rlx_artifact_release(artifact);
  EXPECT_EQ(manifest.value(RLX_MANIFEST_CPU, ""), "sapphirerapids");
  Json features = field(manifest, RLX_MANIFEST_CPU_FEATURES);
  for (const char *feature : {"+avx512fp16", "+amx-tile", "+avx512bf16"})
    EXPECT_NE(std::find(features.begin(), features.end(), feature),
              features.end())
        << feature << " not in " << features.dump();
  // On a Sapphire Rapids the refusal is shown with Granite Rapids, whose
  // AMX-FP16 Sapphire Rapids lacks.
  std::string refused = spr;
  // A feature the refusal must name ("" when this machine lacks only others).
  std::string missing =
      __builtin_cpu_supports("avx512fp16") ? "" : "+avx512fp16";
  if (__builtin_cpu_supports("avx512fp16") &&
      __builtin_cpu_supports("amx-tile")) {
    if (__builtin_cpu_supports("amx-fp16"))
      GTEST_SKIP() << "this machine has graniterapids' features";
    refused = compileFor("graniterapids");
    missing = "+amx-fp16";
  }
  EXPECT_EQ(sessionStatus(refused, message), RLX_STATUS_FAILED_PRECONDITION)
      << message;
  EXPECT_NE(message.find("needs CPU features this machine lacks: "),
            std::string::npos)
      << message;
  if (!missing.empty())
    EXPECT_NE(message.find(missing), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(Kinds, ArtifactABI, ::testing::ValuesIn(kKinds),
                         [](const ::testing::TestParamInfo<Kind> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
