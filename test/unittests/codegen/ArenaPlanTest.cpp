//===- ArenaPlanTest.cpp - The arena plan on random live ranges -----------===//
///
/// \file
/// On random sets of live ranges: no two buffers live at the same time
/// share a byte, offsets are aligned, and the arena stays close to the
/// liveness lower bound (it can never be below it).
///
//===----------------------------------------------------------------------===//

#include "codegen/Common/ArenaPlan.h"

#include <gtest/gtest.h>

#include <random>

namespace {

TEST(ArenaPlan, NeverOverlapsLiveBuffersOnRandomGraphs) {
  std::mt19937_64 rng(42);
  double worstRatio = 1.0;
  for (int trial = 0; trial < 500; ++trial) {
    int count = 1 + static_cast<int>(rng() % 60);
    int64_t horizon = 1 + static_cast<int64_t>(rng() % 200);
    std::vector<mlir::rlx::BufferLifetime> buffers;
    for (int i = 0; i < count; ++i) {
      int64_t begin = static_cast<int64_t>(rng() % horizon);
      int64_t end = begin + 1 + static_cast<int64_t>(rng() % 40);
      // Sizes from 1 byte to 1 MiB, skewed small like real temporaries.
      int64_t bytes = int64_t(1) << (rng() % 21);
      bytes += static_cast<int64_t>(rng() % bytes);
      buffers.push_back({begin, end, bytes});
    }
    mlir::rlx::ArenaPlan plan = mlir::rlx::planArena(buffers, 64);
    ASSERT_EQ(plan.offsets.size(), buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_EQ(plan.offsets[i] % 64, 0);
      EXPECT_LE(plan.offsets[i] + buffers[i].bytes, plan.size);
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        bool liveTogether = buffers[i].begin < buffers[j].end &&
                            buffers[j].begin < buffers[i].end;
        bool shareBytes =
            plan.offsets[i] < plan.offsets[j] + buffers[j].bytes &&
            plan.offsets[j] < plan.offsets[i] + buffers[i].bytes;
        ASSERT_FALSE(liveTogether && shareBytes)
            << "trial " << trial << ": buffers " << i << " and " << j;
      }
    }
    int64_t bound = mlir::rlx::livenessLowerBound(buffers, 64);
    EXPECT_GE(plan.size, bound);
    worstRatio = std::max(worstRatio, double(plan.size) / double(bound));
  }
  // Best fit is not optimal (the problem is NP-hard) but stays close.
  EXPECT_LT(worstRatio, 2.0);
  RecordProperty("worst_ratio", std::to_string(worstRatio));
}

TEST(ArenaPlan, ChainReusesOneBuffer) {
  // a -> b -> c -> d, each freed after the next is written: two slots.
  std::vector<mlir::rlx::BufferLifetime> chain = {
      {0, 2, 1000}, {1, 3, 1000}, {2, 4, 1000}, {3, 5, 1000}};
  mlir::rlx::ArenaPlan plan = mlir::rlx::planArena(chain, 64);
  EXPECT_EQ(plan.size, 2 * 1024);
  EXPECT_EQ(mlir::rlx::livenessLowerBound(chain, 64), 2 * 1024);
}

TEST(ArenaPlan, Empty) {
  mlir::rlx::ArenaPlan plan = mlir::rlx::planArena({}, 64);
  EXPECT_EQ(plan.size, 0);
  EXPECT_EQ(mlir::rlx::livenessLowerBound({}, 64), 0);
}

} // namespace
