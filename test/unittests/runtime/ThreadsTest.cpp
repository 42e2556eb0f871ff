//===- ThreadsTest.cpp - The process-wide kernel thread count -------------===//

#include "rlx/runtime.h"

#include <gtest/gtest.h>

#include <sched.h>

namespace {

int coresOfThisProcess() {
  cpu_set_t set;
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  return CPU_COUNT(&set);
}

TEST(ThreadsTest, SetGetAndDefaultToEveryCore) {
  rlx_set_num_threads(3);
  EXPECT_EQ(rlx_get_num_threads(), 3);
  rlx_set_num_threads(1);
  EXPECT_EQ(rlx_get_num_threads(), 1);
  // 0 or less: every core this process may run on.
  rlx_set_num_threads(0);
  EXPECT_EQ(rlx_get_num_threads(), coresOfThisProcess());
  rlx_set_num_threads(-5);
  EXPECT_EQ(rlx_get_num_threads(), coresOfThisProcess());
}

/// More than the pool can create is capped (libomp aborted the process when
/// an artifact's parallel region asked for 100000 threads).
TEST(ThreadsTest, CountIsCapped) {
  rlx_set_num_threads(100000);
  EXPECT_EQ(rlx_get_num_threads(), RLX_MAX_THREADS);
  rlx_set_num_threads(RLX_MAX_THREADS);
  EXPECT_EQ(rlx_get_num_threads(), RLX_MAX_THREADS);
  rlx_set_num_threads(0);
}

} // namespace
