//===- WorkerPlacementTest.cpp - libomp's workers bound, the caller not ---===//
///
/// A parallel artifact called on every core of the process: afterwards each
/// libomp worker is bound to one core other than the calling thread's, the
/// workers to different cores, and the calling thread is still free to run
/// anywhere (runtime/src/WorkerPlacement.cpp). When the calling thread has
/// moved onto a worker's core, the next call binds the workers around it
/// again. The product is checked against a plain loop each time.
///
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include <dirent.h>
#include <fstream>
#include <pthread.h>
#include <sched.h>
#include <set>
#include <sstream>

using namespace rlx::e2e;
using rlx::runtime::HostTensor;

namespace {

constexpr int64_t kSize = 256;

const char *kModule = R"(
func.func @main(%a: tensor<256x256xf32> {rlx.name = "a"},
                %b: tensor<256x256xf32> {rlx.name = "b"})
    -> (tensor<256x256xf32> {rlx.name = "c"}) {
  %c = rlx.matmul %a, %b : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}
)";

cpu_set_t processMask() {
  cpu_set_t mask;
  EXPECT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  return mask;
}

/// Every thread of this process but the caller, with the cores it may run
/// on (from /proc: the runtime does not expose libomp's threads).
std::vector<std::set<int>> otherThreadsCores() {
  std::vector<std::set<int>> result;
  std::string self = std::to_string(gettid());
  DIR *tasks = opendir("/proc/self/task");
  EXPECT_NE(tasks, nullptr);
  if (!tasks)
    return result;
  while (dirent *entry = readdir(tasks)) {
    std::string tid = entry->d_name;
    if (tid == "." || tid == ".." || tid == self)
      continue;
    std::ifstream status("/proc/self/task/" + tid + "/status");
    std::string line;
    std::set<int> cores;
    while (std::getline(status, line)) {
      if (line.rfind("Cpus_allowed_list:", 0) != 0)
        continue;
      std::stringstream list(line.substr(line.find(':') + 1));
      std::string range;
      while (std::getline(list, range, ',')) {
        int first = 0, last = 0;
        if (std::sscanf(range.c_str(), "%d-%d", &first, &last) != 2)
          last = first = std::stoi(range);
        for (int core = first; core <= last; ++core)
          cores.insert(core);
      }
    }
    result.push_back(cores);
  }
  closedir(tasks);
  return result;
}

/// The single cores the other threads are bound to.
std::vector<int> boundCores() {
  std::vector<int> bound;
  for (const std::set<int> &cores : otherThreadsCores())
    if (cores.size() == 1)
      bound.push_back(*cores.begin());
  return bound;
}

void callAndCheck(const rlx::runtime::Session &session, const Arr &a,
                  const Arr &b) {
  HostTensor ta = toTensor(a), tb = toTensor(b);
  rlx::runtime::TensorList outputs = session.call(
      "main", std::vector<const HostTensor *>{&ta, &tb});
  Arr c = fromTensor(outputs.at(0));
  Arr want(RLX_DTYPE_F32, {kSize, kSize});
  for (int64_t i = 0; i < kSize; ++i)
    for (int64_t j = 0; j < kSize; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < kSize; ++k)
        sum += a.v[i * kSize + k] * b.v[k * kSize + j];
      want.v[i * kSize + j] = sum;
    }
  EXPECT_TRUE(matches(want, c, Tol::Exact));
}

TEST(WorkerPlacement, WorkersBoundAroundTheCaller) {
  cpu_set_t mask = processMask();
  int cores = CPU_COUNT(&mask);
  if (cores < 2)
    GTEST_SKIP() << "one core: no workers to place";
  if (std::getenv("KMP_AFFINITY") || std::getenv("OMP_PROC_BIND") ||
      std::getenv("OMP_PLACES") || std::getenv("RLX_BIND_WORKERS"))
    GTEST_SKIP() << "binding chosen by the environment";
  auto module = compileAndLoad("worker_placement", kModule);
  ASSERT_TRUE(module->ok) << module->error;
  rlx_set_num_threads(0);
  ASSERT_EQ(rlx_get_num_threads(), cores);
  // Small integers: every product and sum is exact in f32.
  Arr a = generate(RLX_DTYPE_F32, {kSize, kSize}, ints(-3, 3), "a");
  Arr b = generate(RLX_DTYPE_F32, {kSize, kSize}, ints(-3, 3), "b");

  callAndCheck(*module->session, a, b);
  std::vector<int> bound = boundCores();
  EXPECT_EQ(static_cast<int>(bound.size()), cores - 1);
  EXPECT_EQ(std::set<int>(bound.begin(), bound.end()).size(), bound.size())
      << "two workers on one core";
  cpu_set_t callerMask;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(callerMask),
                                   &callerMask),
            0);
  EXPECT_TRUE(CPU_EQUAL(&callerMask, &mask)) << "the calling thread was bound";
  ASSERT_FALSE(bound.empty());

  // Move onto the first worker's core, free the caller again and call: the
  // workers leave that core (checked where the caller is still on it after
  // the call; the scheduler may move it anywhere in between).
  int moved = bound.front();
  bool checked = false;
  for (int attempt = 0; attempt < 5 && !checked; ++attempt) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(moved, &one);
    ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
    ASSERT_EQ(sched_getcpu(), moved);
    ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
    callAndCheck(*module->session, a, b);
    if (sched_getcpu() != moved)
      continue;
    checked = true;
    std::vector<int> now = boundCores();
    EXPECT_EQ(static_cast<int>(now.size()), cores - 1);
    for (int core : now)
      EXPECT_NE(core, moved) << "a worker still on the caller's core";
  }
  if (!checked)
    GTEST_SKIP() << "the scheduler moved the caller off core " << moved
                 << " in every attempt";
}

} // namespace
