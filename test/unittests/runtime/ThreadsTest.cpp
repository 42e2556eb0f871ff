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

} // namespace
