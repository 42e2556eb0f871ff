//===- Harness.h - Plumbing of the rlx end-to-end tests ---------*- C++ -*-===//
//
/// \file
/// Host arrays held as doubles (Arr), conversion to and from
/// rlx::runtime::HostTensor, subprocesses (rlxc), scratch directories,
/// deterministic input generation, calls isolated in a forked child (a crashing
/// artifact fails one test, not the whole run), and the comparison of outputs
/// against references.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_E2E_HARNESS_H
#define RLX_TEST_UNITTESTS_E2E_HARNESS_H

#include "rlx/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rlx::e2e {

/// A host array: dtype, row-major shape and every element as a double
/// (exact for f32, f64, i1, i32 and the i64 values these tests use).
struct Arr {
  rlx_dtype_t dtype = RLX_DTYPE_F32;
  std::vector<int64_t> shape;
  std::vector<double> v;

  Arr() = default;
  Arr(rlx_dtype_t dtype, std::vector<int64_t> shape);
  int64_t numel() const { return static_cast<int64_t>(v.size()); }
};

int64_t numElements(const std::vector<int64_t> &shape);
std::string shapeString(const std::vector<int64_t> &shape);
/// `f32`, `f64`, `i1`, `i32`, `i64`: the MLIR element type.
const char *mlirTypeName(rlx_dtype_t dtype);
bool is_float(rlx_dtype_t dtype);
/// `value` rounded to what `dtype` holds (f32, bf16 and f16 round to
/// nearest even, integers truncate toward zero, i1 is value != 0).
double roundTo(rlx_dtype_t dtype, double value);

/// A row-major contiguous tensor holding `a`.
rlx::runtime::HostTensor toTensor(const Arr &a);
Arr fromTensor(const rlx::runtime::HostTensor &t);

/// Which of the four module variants: element type and batch dim.
struct Variant {
  bool f64 = false;
  bool dynamic = false;
  /// rlxc's --target: "cpu", or "vulkan" (runs on Mesa's lavapipe here).
  std::string target = "cpu";
  /// Every dim of every tensor type dynamic but the size-1 ones (which keep
  /// their broadcasting meaning) and those of constants: what a model with
  /// a dynamic batch and sequence length compiles to (F64AllDynamic).
  bool allDims = false;
  /// When not f64: the variant's float, f32 or a 16-bit one (bf16, f16),
  /// whose other float is f32 and whose outputs are compared with the
  /// error model of its unit roundoff (see `matches`).
  rlx_dtype_t narrowFloat = RLX_DTYPE_F32;
  /// F32Static, ...; prefixed with the target when not cpu (VulkanF32Static).
  std::string name() const;
  rlx_dtype_t floatType() const { return f64 ? RLX_DTYPE_F64 : narrowFloat; }
  rlx_dtype_t otherFloatType() const {
    return f64 || narrowFloat != RLX_DTYPE_F32 ? RLX_DTYPE_F32 : RLX_DTYPE_F64;
  }
  /// The batch of a static module.
  static constexpr int64_t kStaticBatch = 2;
  /// The batches an entry point is called with: the static one, or 3 then 1
  /// for a dynamic batch.
  std::vector<int64_t> callBatches() const;
};

//===----------------------------------------------------------------------===//
// Files and processes
//===----------------------------------------------------------------------===//

struct ProcessResult {
  int exitCode = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out, err;
};
/// Runs `argv` (argv[0] is a path) with stdout and stderr captured; killed
/// after `timeoutSeconds`.
ProcessResult runProcess(const std::vector<std::string> &argv,
                         unsigned timeoutSeconds = 300);

/// What `runInChild` gave: the child's bytes, or why there are none.
struct ChildResult {
  bool ok = false;
  std::string data;  // what the child produced
  std::string error; // a crash (signal), a timeout or a bad exit
};

/// Runs `produce` in a forked child (killed after `timeoutSeconds`) and
/// returns what it produced, so a crash or hang in compiled code fails one
/// test instead of the whole run. `what` names the work in messages.
ChildResult runInChild(const std::function<std::string()> &produce,
                       unsigned timeoutSeconds, const std::string &what);

/// Reads a file descriptor to its end.
std::string readAllFd(int fd);

/// A module compiled by rlxc and loaded, or why not.
struct CompiledModule {
  bool ok = false;
  bool compiled = false; // rlxc succeeded (ok is false if loading failed)
  std::string mlirPath;
  std::string error; // rlxc's stderr, or the load error
  double seconds = 0; // compile time
  std::unique_ptr<rlx::runtime::Artifact> artifact;
  std::unique_ptr<rlx::runtime::Session> session;
};

/// Writes `text` to `stem.mlir` in a fresh scratch directory, runs
/// `rlxc FILE extraArgs... -o stem.so` (killed after `timeoutSeconds`: a
/// compile that hangs is a failure, not a stuck test run) and loads it.
/// The compiler is RLXC_PATH, or $RLX_RLXC where set (bench/rlxc_replay.sh
/// on a GPU machine, which has no MLIR, replays artifacts compiled here).
std::unique_ptr<CompiledModule>
compileAndLoad(const std::string &stem, const std::string &text,
               const std::vector<std::string> &extraArgs = {},
               unsigned timeoutSeconds = 300);

/// The scratch directory of this test process, created on first use and
/// removed at exit unless RLX_E2E_KEEP is set.
const std::string &scratchDir();
/// A fresh directory under scratchDir().
std::string makeScratchSubdir(const std::string &stem);
void writeFile(const std::string &path, const std::string &text);
std::string readFile(const std::string &path);
bool fileExists(const std::string &path);

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// How the elements of an input are drawn.
struct Gen {
  enum Kind { Uniform, Int, Cycle, SignedMagnitude } kind = Uniform;
  double lo = -1, hi = 1;
  std::vector<double> list;
};
inline Gen uniform(double lo, double hi) { return {Gen::Uniform, lo, hi, {}}; }
/// Integers in [lo, hi].
inline Gen ints(double lo, double hi) { return {Gen::Int, lo, hi, {}}; }
/// `list` repeated in order.
inline Gen cycle(std::vector<double> list) {
  return {Gen::Cycle, 0, 0, std::move(list)};
}
/// |x| in [lo, hi] with a random sign: never near zero.
inline Gen signedMagnitude(double lo, double hi) {
  return {Gen::SignedMagnitude, lo, hi, {}};
}

/// Deterministic elements for `seedText`, rounded to `dtype`.
Arr generate(rlx_dtype_t dtype, const std::vector<int64_t> &shape,
             const Gen &gen, const std::string &seedText);

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

struct CallResult {
  bool ok = false;
  std::string error;  // the runtime's message, or how the child died
  std::vector<std::string> names;
  std::vector<Arr> outputs;
};
/// Calls `entry` in a forked child (unless RLX_E2E_NO_FORK is set) so that
/// a crash or a hang is a failed call, not a dead test run.
CallResult callIsolated(const rlx::runtime::Session &session,
                        const std::string &entry,
                        const std::vector<rlx::runtime::HostTensor> &inputs);

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

/// Exact: bitwise equal values (data movement, integers, i1). Arith and
/// Trans: f32 |got - ref| <= max(1e-4 |ref|, 1e-5); f64 |got - ref| <=
/// tol * max(|ref|, 1) with tol 1e-10 (Arith) or 1e-9 (Trans). Integer and
/// i1 outputs are always compared exactly.
enum class Tol { Exact, Arith, Trans };

::testing::AssertionResult matches(const Arr &expected, const Arr &got,
                                   Tol tol);

} // namespace rlx::e2e

#endif // RLX_TEST_UNITTESTS_E2E_HARNESS_H
