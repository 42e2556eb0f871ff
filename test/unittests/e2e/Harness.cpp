//===- Harness.cpp - Plumbing of the rlx end-to-end tests -----------------===//

#include "Harness.h"

#include <cctype>
#include <csignal>

#include <chrono>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace rlx::e2e {

Arr::Arr(rlx_dtype_t dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)), v(numElements(this->shape), 0.0) {
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  return rlx::runtime::format_shape(shape);
}

const char *mlirTypeName(rlx_dtype_t dtype) {
  switch (dtype) {
  case RLX_DTYPE_F16:
    return "f16";
  case RLX_DTYPE_BF16:
    return "bf16";
  case RLX_DTYPE_F32:
    return "f32";
  case RLX_DTYPE_F64:
    return "f64";
  case RLX_DTYPE_I1:
    return "i1";
  case RLX_DTYPE_I8:
    return "i8";
  case RLX_DTYPE_I32:
    return "i32";
  case RLX_DTYPE_I64:
    return "i64";
  }
  return "?";
}

bool is_float(rlx_dtype_t dtype) {
  return dtype == RLX_DTYPE_F16 || dtype == RLX_DTYPE_BF16 ||
         dtype == RLX_DTYPE_F32 || dtype == RLX_DTYPE_F64;
}

namespace {
/// `value` rounded to `mantissaBits` bits after the point with normal
/// exponents down to `minExponent` (subnormals below), ties to even, and
/// to inf beyond `maxFinite`: bf16 and f16, independently of any library.
double roundToBinary(double value, int mantissaBits, int minExponent,
                     double maxFinite) {
  if (std::isnan(value) || std::isinf(value) || value == 0)
    return value;
  int exponent;
  std::frexp(value, &exponent);
  int ulpExponent = std::max(exponent - 1, minExponent) - mantissaBits;
  double rounded =
      std::ldexp(std::nearbyint(std::ldexp(value, -ulpExponent)), ulpExponent);
  return std::fabs(rounded) > maxFinite ? std::copysign(INFINITY, value)
                                        : rounded;
}
} // namespace

double roundTo(rlx_dtype_t dtype, double value) {
  switch (dtype) {
  case RLX_DTYPE_F32:
    return static_cast<double>(static_cast<float>(value));
  case RLX_DTYPE_BF16:
    return roundToBinary(value, 7, -126, 0x1.FEp127);
  case RLX_DTYPE_F16:
    return roundToBinary(value, 10, -14, 65504);
  case RLX_DTYPE_F64:
    return value;
  case RLX_DTYPE_I1:
    return value != 0 ? 1.0 : 0.0;
  case RLX_DTYPE_I8:
  case RLX_DTYPE_I32:
  case RLX_DTYPE_I64:
    return std::trunc(value);
  default:
    return value;
  }
}

namespace {
/// The f16 code of a value f16 holds exactly.
uint16_t halfBits(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (std::isnan(x))
    return 0x7e00;
  if (std::isinf(a))
    return sign | 0x7c00;
  if (a < 0x1p-14) // subnormal: a count of 2^-24
    return sign | static_cast<uint16_t>(a * 0x1p24);
  int exponent;
  double fraction = std::frexp(a, &exponent); // a = fraction * 2^exponent
  uint16_t mantissa =
      static_cast<uint16_t>((fraction * 2 - 1) * 1024); // exact for f16
  return sign | static_cast<uint16_t>((exponent - 1 + 15) << 10) | mantissa;
}
} // namespace

rlx::runtime::HostTensor toTensor(const Arr &a) {
  rlx::runtime::HostTensor t =
      rlx::runtime::HostTensor::allocate(a.dtype, a.shape);
  for (size_t i = 0; i < a.v.size(); ++i) {
    double x = a.v[i];
    switch (a.dtype) {
    case RLX_DTYPE_F32:
      t.data<float>()[i] = static_cast<float>(x);
      break;
    case RLX_DTYPE_F64:
      t.data<double>()[i] = x;
      break;
    case RLX_DTYPE_BF16: {
      // x is a bf16 value (roundTo): its f32 bits' top half.
      float f = static_cast<float>(x);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof(bits));
      t.data<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
      break;
    }
    case RLX_DTYPE_F16:
      t.data<uint16_t>()[i] = halfBits(x);
      break;
    case RLX_DTYPE_I1:
      t.data<uint8_t>()[i] = x != 0 ? 1 : 0;
      break;
    case RLX_DTYPE_I8:
      t.data<int8_t>()[i] = static_cast<int8_t>(x);
      break;
    case RLX_DTYPE_I32:
      t.data<int32_t>()[i] = static_cast<int32_t>(x);
      break;
    case RLX_DTYPE_I64:
      t.data<int64_t>()[i] = static_cast<int64_t>(x);
      break;
    default:
      throw std::runtime_error("toTensor: unsupported dtype");
    }
  }
  return t;
}

Arr fromTensor(const rlx::runtime::HostTensor &t) {
  Arr a(t.dtype(), t.dims());
  for (size_t i = 0; i < a.v.size(); ++i)
    a.v[i] = t.get_f64(i);
  return a;
}

std::string Variant::name() const {
  std::string prefix;
  if (target != "cpu") {
    prefix = target;
    prefix[0] = static_cast<char>(std::toupper(prefix[0]));
  }
  return prefix +
         (f64 ? "F64"
          : narrowFloat == RLX_DTYPE_BF16 ? "BF16"
          : narrowFloat == RLX_DTYPE_F16  ? "F16"
                                          : "F32") +
         (allDims ? "AllDynamic" : dynamic ? "Dynamic" : "Static");
}

std::vector<int64_t> Variant::callBatches() const {
  if (dynamic || allDims)
    return {3, 1};
  return {kStaticBatch};
}

//===----------------------------------------------------------------------===//
// Files and processes
//===----------------------------------------------------------------------===//

std::string readAllFd(int fd) {
  std::string data;
  char buffer[65536];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    data.append(buffer, static_cast<size_t>(n));
  }
  return data;
}

namespace {

bool writeAllFd(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

struct ScratchRoot {
  std::string path;
  ScratchRoot() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/rlx-e2e-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
      throw std::runtime_error("mkdtemp failed: " +
                               std::string(std::strerror(errno)));
    path = buffer.data();
  }
  ~ScratchRoot() {
    // Forked children exit with _exit and never get here.
    if (std::getenv("RLX_E2E_KEEP")) {
      std::fprintf(stderr, "rlx-e2e: kept %s\n", path.c_str());
      return;
    }
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};
} // namespace

std::unique_ptr<CompiledModule>
compileAndLoad(const std::string &stem, const std::string &text,
               const std::vector<std::string> &extraArgs,
               unsigned timeoutSeconds) {
  auto result = std::make_unique<CompiledModule>();
  auto start = std::chrono::steady_clock::now();
  std::string dir = makeScratchSubdir(stem);
  result->mlirPath = dir + "/" + stem + ".mlir";
  std::string so = dir + "/" + stem + ".so";
  writeFile(result->mlirPath, text);
  const char *rlxc = std::getenv("RLX_RLXC");
  std::vector<std::string> argv = {rlxc && *rlxc ? rlxc : RLXC_PATH,
                                   result->mlirPath};
  argv.insert(argv.end(), extraArgs.begin(), extraArgs.end());
  argv.insert(argv.end(), {"-o", so});
  ProcessResult p = runProcess(argv, timeoutSeconds);
  result->seconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  if (p.exitCode != 0) {
    result->error = "rlxc " + result->mlirPath + " failed (" +
                    (p.signal == SIGALRM
                         ? "killed after " + std::to_string(timeoutSeconds) +
                               " s: it hangs or is far too slow"
                     : p.signal ? "signal " + std::to_string(p.signal)
                                : "exit " + std::to_string(p.exitCode)) +
                    "):\n" + p.err + p.out;
    return result;
  }
  result->compiled = true;
  try {
    result->artifact = std::make_unique<rlx::runtime::Artifact>(
        rlx::runtime::Artifact::load(so));
    result->session =
        std::make_unique<rlx::runtime::Session>(*result->artifact);
  } catch (const rlx::runtime::RuntimeError &e) {
    result->error = "loading " + so + ": " + e.what();
    return result;
  }
  result->ok = true;
  return result;
}

ProcessResult runProcess(const std::vector<std::string> &argv,
                         unsigned timeoutSeconds) {
  ProcessResult result;
  std::string dir = makeScratchSubdir("proc");
  std::string outPath = dir + "/stdout", errPath = dir + "/stderr";
  pid_t pid = fork();
  if (pid < 0)
    throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0)
      _exit(127);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    alarm(timeoutSeconds); // survives exec: a hung child gets SIGALRM
    execv(args[0], args.data());
    std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    result.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  result.out = readFile(outPath);
  result.err = readFile(errPath);
  return result;
}

const std::string &scratchDir() {
  static ScratchRoot root;
  return root.path;
}

std::string makeScratchSubdir(const std::string &stem) {
  static int counter = 0;
  std::string path =
      scratchDir() + "/" + stem + "." + std::to_string(counter++);
  fs::create_directories(path);
  return path;
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool fileExists(const std::string &path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

Arr generate(rlx_dtype_t dtype, const std::vector<int64_t> &shape,
             const Gen &gen, const std::string &seedText) {
  // FNV-1a of the seed text, then a 64-bit Mersenne twister; the doubles are
  // built from raw bits so that no library distribution is involved.
  uint64_t seed = 1469598103934665603ull;
  for (unsigned char c : seedText)
    seed = (seed ^ c) * 1099511628211ull;
  std::mt19937_64 rng(seed);
  auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  Arr a(dtype, shape);
  for (size_t i = 0; i < a.v.size(); ++i) {
    double x = 0;
    switch (gen.kind) {
    case Gen::Uniform:
      x = gen.lo + (gen.hi - gen.lo) * unit();
      break;
    case Gen::Int:
      x = gen.lo + static_cast<double>(rng() % static_cast<uint64_t>(
                                                   gen.hi - gen.lo + 1));
      break;
    case Gen::Cycle:
      x = gen.list[i % gen.list.size()];
      break;
    case Gen::SignedMagnitude:
      x = (gen.lo + (gen.hi - gen.lo) * unit()) * ((rng() & 1) ? 1 : -1);
      break;
    }
    a.v[i] = roundTo(dtype, x);
  }
  return a;
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

namespace {
CallResult callDirect(const rlx::runtime::Session &session,
                      const std::string &entry,
                      const std::vector<rlx::runtime::HostTensor> &inputs) {
  CallResult result;
  try {
    rlx::runtime::TensorList outputs = session.call(entry, inputs);
    for (size_t i = 0; i < outputs.size(); ++i) {
      result.names.push_back(outputs.name(i));
      result.outputs.push_back(fromTensor(outputs.at(i)));
    }
    result.ok = true;
  } catch (const rlx::runtime::RuntimeError &e) {
    result.error = std::string("runtime error: ") + e.what();
  }
  return result;
}

template <typename T> void put(std::string &s, T value) {
  s.append(reinterpret_cast<const char *>(&value), sizeof value);
}
void putString(std::string &s, const std::string &text) {
  put<uint64_t>(s, text.size());
  s += text;
}

struct Reader {
  const std::string &s;
  size_t at = 0;
  bool bad = false;
  template <typename T> T get() {
    T value{};
    if (at + sizeof value > s.size()) {
      bad = true;
      return value;
    }
    std::memcpy(&value, s.data() + at, sizeof value);
    at += sizeof value;
    return value;
  }
  std::string getString() {
    uint64_t n = get<uint64_t>();
    if (bad || at + n > s.size()) {
      bad = true;
      return {};
    }
    std::string text = s.substr(at, n);
    at += n;
    return text;
  }
};

std::string serialize(const CallResult &r) {
  std::string s;
  put<uint8_t>(s, r.ok);
  putString(s, r.error);
  put<uint64_t>(s, r.outputs.size());
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const Arr &a = r.outputs[i];
    putString(s, r.names[i]);
    put<int32_t>(s, a.dtype);
    put<uint64_t>(s, a.shape.size());
    for (int64_t d : a.shape)
      put<int64_t>(s, d);
    put<uint64_t>(s, a.v.size());
    for (double x : a.v)
      put<double>(s, x);
  }
  return s;
}

bool deserialize(const std::string &s, CallResult &r) {
  Reader in{s};
  r.ok = in.get<uint8_t>();
  r.error = in.getString();
  uint64_t count = in.get<uint64_t>();
  for (uint64_t i = 0; i < count && !in.bad; ++i) {
    r.names.push_back(in.getString());
    Arr a;
    a.dtype = static_cast<rlx_dtype_t>(in.get<int32_t>());
    uint64_t rank = in.get<uint64_t>();
    for (uint64_t d = 0; d < rank && !in.bad; ++d)
      a.shape.push_back(in.get<int64_t>());
    uint64_t n = in.get<uint64_t>();
    if (n > s.size())
      return false;
    for (uint64_t k = 0; k < n && !in.bad; ++k)
      a.v.push_back(in.get<double>());
    r.outputs.push_back(std::move(a));
  }
  return !in.bad && in.at == s.size();
}
} // namespace

ChildResult runInChild(const std::function<std::string()> &produce,
                       unsigned timeoutSeconds, const std::string &what) {
  int fds[2];
  if (pipe(fds) != 0)
    throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0)
    throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    alarm(timeoutSeconds);
    std::string data = produce();
    _exit(writeAllFd(fds[1], data) ? 0 : 3);
  }
  close(fds[1]);
  ChildResult result;
  result.data = readAllFd(fds[0]);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    result.error = what + " crashed: signal " + std::to_string(sig) + " (" +
                   strsignal(sig) + ")" +
                   (sig == SIGALRM
                        ? ", it ran over " + std::to_string(timeoutSeconds) +
                              " s"
                        : "");
    return result;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.error = what + ": the child exited with status " +
                   std::to_string(WEXITSTATUS(status));
    return result;
  }
  result.ok = true;
  return result;
}

CallResult callIsolated(const rlx::runtime::Session &session,
                        const std::string &entry,
                        const std::vector<rlx::runtime::HostTensor> &inputs) {
  // A GPU device does not survive fork (its driver's threads and queues
  // stay in the parent), so device sessions are called in process.
  if (std::getenv("RLX_E2E_NO_FORK") ||
      session.device() != RLX_DEVICE_CPU)
    return callDirect(session, entry, inputs);
  ChildResult child = runInChild(
      [&] { return serialize(callDirect(session, entry, inputs)); }, 60,
      "the call of '" + entry + "'");
  CallResult result;
  if (!child.ok) {
    result.error = child.error;
    return result;
  }
  const std::string &data = child.data;
  if (!deserialize(data, result)) {
    CallResult bad;
    bad.error = "garbled result from the calling child";
    return bad;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

namespace {
std::string indexString(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return shapeString(index);
}
} // namespace

::testing::AssertionResult matches(const Arr &expected, const Arr &got,
                                   Tol tol) {
  if (got.dtype != expected.dtype)
    return ::testing::AssertionFailure()
           << "dtype: expected " << mlirTypeName(expected.dtype) << ", got "
           << mlirTypeName(got.dtype);
  if (got.shape != expected.shape)
    return ::testing::AssertionFailure()
           << "shape: expected " << shapeString(expected.shape) << ", got "
           << shapeString(got.shape);
  if (got.v.size() != expected.v.size())
    return ::testing::AssertionFailure() << "element count differs";
  bool exact = tol == Tol::Exact || !is_float(expected.dtype);
  double rtol = 0, atol = 0;
  bool f32 = expected.dtype != RLX_DTYPE_F64;
  if (!exact) {
    if (expected.dtype == RLX_DTYPE_BF16 || expected.dtype == RLX_DTYPE_F16) {
      // The 16-bit error model: u is the unit roundoff (2^-8 for bf16,
      // 2^-11 for f16). One rounded result is within u of the reference
      // computed from the same (rounded) inputs; an op rounds its inputs'
      // errors through once more and the cases' reductions add a few dozen
      // O(1) terms, so 8u relative (16u for transcendental ops) with an
      // equal floor for results near 0.
      double u = expected.dtype == RLX_DTYPE_BF16 ? 0x1p-8 : 0x1p-11;
      rtol = atol = (tol == Tol::Trans ? 16 : 8) * u;
    } else if (f32) {
      rtol = 1e-4;
      atol = 1e-5;
    } else {
      rtol = atol = tol == Tol::Trans ? 1e-9 : 1e-10;
    }
  }
  int64_t bad = 0;
  double worst = 0;
  std::ostringstream details;
  details.precision(17);
  for (size_t i = 0; i < got.v.size(); ++i) {
    double e = expected.v[i], g = got.v[i];
    bool ok;
    if (std::isnan(e) || std::isnan(g))
      ok = std::isnan(e) && std::isnan(g);
    else if (exact)
      ok = e == g;
    else if (f32)
      ok = std::fabs(g - e) <= std::max(rtol * std::fabs(e), atol);
    else
      ok = std::fabs(g - e) <= rtol * std::max(std::fabs(e), 1.0);
    if (!ok) {
      worst = std::max(worst, std::fabs(g - e));
      if (bad < 8)
        details << "\n    at " << indexString(got.shape, i) << ": expected "
                << e << ", got " << g;
      ++bad;
    }
  }
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.v.size() << " elements differ ("
         << (exact ? std::string("exact")
                   : "rtol " + std::to_string(rtol) + ", atol " +
                         std::to_string(atol))
         << ", worst |diff| " << worst << "):" << details.str();
}

} // namespace rlx::e2e
