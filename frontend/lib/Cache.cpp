//===- Cache.cpp - In-process compilation with memory and disk caches -----===//
///
/// \file
/// jit hands the traced module to the same compiler library as rlxc
/// (codegen/Compiler.h), in process, without printing and parsing it.
/// Artifacts are cached in memory by (module text, device, options)
/// and on disk under `$XDG_CACHE_HOME/rlx` keyed by the same plus the
/// compiler's version and build, so a new compiler never loads a stale
/// artifact.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Jit.h"

#include "TraceIR.h"

#include "codegen/Compiler.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <dlfcn.h>
#include <sys/stat.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <unistd.h>

/// The dialect and the compiler (mlir::rlx) under the frontend (::rlx):
/// frontend names win where both have one.
using namespace mlir::rlx;

namespace rlx {

namespace {

std::mutex cacheMutex;
std::map<std::string, std::shared_ptr<runtime::Artifact>> memoryCache;
/// Per function name: the last key compiled, to say why a call recompiled.
std::map<std::string, std::string> lastKeyByName;
CacheStats stats;

bool debugEnabled() {
  const char *v = std::getenv("RLX_DEBUG");
  return v && *v && std::string(v) != "0";
}

void debug(const std::string &message) {
  if (debugEnabled())
    std::cerr << "rlx: " << message << "\n";
}

std::string hashHex(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

/// The public function's signature line of a module printed by to_mlir.
std::string signatureOf(const std::string &key) {
  size_t at = key.find("\n  func.func @");
  if (at == std::string::npos)
    return "";
  size_t end = key.find('\n', at + 1);
  return key.substr(at + 3, end - at - 3);
}

std::string tail(const std::string &key) {
  size_t at = key.rfind("\n// device=");
  return at == std::string::npos ? "" : key.substr(at + 1);
}

/// Why `key` differs from `previous`, for RLX_DEBUG.
std::string whyRecompiled(const std::string &previous, const std::string &key) {
  if (signatureOf(previous) != signatureOf(key))
    return "input signature changed: was `" + signatureOf(previous) +
           "`, now `" + signatureOf(key) + "`";
  if (tail(previous) != tail(key))
    return "device or options changed: was `" + tail(previous) + "`, now `" +
           tail(key) + "`";
  return "the traced graph changed (same signature)";
}

bool readFile(const std::string &path, std::string &out) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  std::stringstream buffer;
  buffer << file.rdbuf();
  out = buffer.str();
  return true;
}

/// Compiles `module` (a copy: the compiler rewrites it) to a shared library
/// at `path`; the diagnostics of every pass in the error.
void compileTo(mlir::ModuleOp traced, const Device &device,
               const JitOptions &options, const std::string &what,
               const std::string &path) {
  detail::DiagnosticCapture diagnostics(/*allThreads=*/true);
  mlir::OwningOpRef<mlir::ModuleOp> module = traced.clone();
  if (mlir::failed(mlir::verify(*module)))
    throw Error("rlx::jit: the traced module of '" + what +
                "' does not verify (a frontend bug):\n" + diagnostics.all());
  CompileOptions compileOptions;
  compileOptions.target = device.target;
  compileOptions.optLevel = options.opt_level;
  compileOptions.debugChecks = options.debug_checks;
  compileOptions.quantize = options.quantize_int8 ? "int8" : "none";
  if (mlir::failed(runPhases(*module, Phase::Codegen, compileOptions)))
    throw Error("rlx::jit: compiling '" + what + "' failed:\n" +
                diagnostics.all());
  if (mlir::failed(
          emitArtifact(*module, compileOptions, EmitKind::SharedLibrary, path)))
    throw Error("rlx::jit: emitting '" + what + "' failed:\n" +
                diagnostics.all());
}

/// The compiler's version string is bumped by hand, so the key also names
/// the build of the binary holding the compiler (size and modification
/// time): a rebuilt compiler never loads an artifact of the previous one.
std::string compilerBuild() {
  static const std::string id = [] {
    struct stat st;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&compilerVersion), &info) &&
        info.dli_fname && stat(info.dli_fname, &st) == 0)
      return std::to_string(st.st_size) + "-" + std::to_string(st.st_mtime);
    if (stat("/proc/self/exe", &st) == 0)
      return std::to_string(st.st_size) + "-" + std::to_string(st.st_mtime);
    return std::string("unknown");
  }();
  return id;
}

} // namespace

CacheStats cache_stats() {
  std::lock_guard<std::mutex> lock(cacheMutex);
  return stats;
}

void clear_memory_cache() {
  std::lock_guard<std::mutex> lock(cacheMutex);
  memoryCache.clear();
}

std::string disk_cache_dir() {
  const char *off = std::getenv("RLX_CACHE");
  if (off && std::string(off) == "0")
    return "";
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/rlx";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/rlx";
  return "";
}

std::shared_ptr<runtime::Artifact> compile_module(const Func &func,
                                                  const Device &device,
                                                  const JitOptions &options) {
  const std::string &what = func.name();
  if (device.target != "cpu" && !isGPUTarget(device.target))
    throw Error("rlx::jit: unknown target '" + device.target +
                "'; targets: " + targetNames().str());
  // Keyed by the printed module; the module itself is compiled.
  mlir::OwningOpRef<mlir::ModuleOp> module = detail::buildModule(func.def());
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    module->print(os);
  }
  std::string key = text + "\n// device=" + device.target +
                    " O=" + std::to_string(options.opt_level) +
                    (options.debug_checks ? " debug-checks" : "") +
                    (options.quantize_int8 ? " quantize=int8" : "") +
                    " compiler=" + compilerVersion().str() +
                    " build=" + compilerBuild();
  std::string hex = hashHex(key);
  std::lock_guard<std::mutex> lock(cacheMutex);
  if (auto it = memoryCache.find(key); it != memoryCache.end()) {
    ++stats.memory_hits;
    debug("cache hit (memory) for '" + what + "' [" + hex + "]");
    return it->second;
  }
  std::string reason = "first compile of '" + what + "'";
  if (auto it = lastKeyByName.find(what); it != lastKeyByName.end())
    reason = "recompiling '" + what + "': " + whyRecompiled(it->second, key);
  lastKeyByName[what] = key;

  std::string dir = disk_cache_dir();
  std::string path;
  if (!dir.empty()) {
    llvm::sys::fs::create_directories(dir);
    path = dir + "/" + hex + ".so";
    std::string storedKey;
    if (readFile(dir + "/" + hex + ".key", storedKey) && storedKey == key &&
        llvm::sys::fs::exists(path)) {
      try {
        auto artifact =
            std::make_shared<runtime::Artifact>(runtime::Artifact::load(path));
        ++stats.disk_hits;
        debug("cache hit (disk) for '" + what + "': " + path);
        memoryCache[key] = artifact;
        return artifact;
      } catch (const runtime::RuntimeError &e) {
        debug("disk cache entry " + path + " unusable (" + e.what() +
              "): recompiling");
      }
    }
    debug("cache miss for '" + what + "' [" + hex + "]; " + reason);
  } else {
    llvm::SmallString<128> temp;
    llvm::sys::fs::createTemporaryFile("rlx-jit-" + hex, "so", temp);
    path = temp.str().str();
    debug("cache miss for '" + what + "' (disk cache off); " + reason);
  }
  auto start = std::chrono::steady_clock::now();
  // Written under a process-unique name, then renamed: a concurrent process
  // never loads a half-written library.
  std::string partial = path + ".tmp-" + std::to_string(getpid());
  compileTo(*module, device, options, what, partial);
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    throw Error("rlx::jit: cannot write '" + path + "'");
  if (!dir.empty()) {
    std::ofstream keyFile(dir + "/" + hex + ".key.tmp-" +
                              std::to_string(getpid()),
                          std::ios::binary);
    keyFile << key;
    keyFile.close();
    std::rename(
        (dir + "/" + hex + ".key.tmp-" + std::to_string(getpid())).c_str(),
        (dir + "/" + hex + ".key").c_str());
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ++stats.compiles;
  debug("compiled '" + what + "' in " + std::to_string(seconds) + " s -> " +
        path);
  auto artifact =
      std::make_shared<runtime::Artifact>(runtime::Artifact::load(path));
  memoryCache[key] = artifact;
  return artifact;
}

} // namespace rlx
