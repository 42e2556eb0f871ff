//===- ArenaPlan.cpp - Offsets of temporaries in one workspace ------------===//

#include "codegen/Common/ArenaPlan.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace mlir::rlx {

namespace {

int64_t roundUp(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

bool liveTogether(const BufferLifetime &a, const BufferLifetime &b) {
  return a.begin < b.end && b.begin < a.end;
}

} // namespace

ArenaPlan planArena(const std::vector<BufferLifetime> &buffers,
                    int64_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].begin < buffers[b].begin;
  });
  std::vector<size_t> placed;
  for (size_t index : order) {
    const BufferLifetime &buffer = buffers[index];
    int64_t bytes = roundUp(buffer.bytes, alignment);
    // The byte ranges taken by buffers live at the same time, by offset.
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (size_t other : placed)
      if (liveTogether(buffer, buffers[other]))
        taken.push_back({plan.offsets[other],
                         plan.offsets[other] +
                             roundUp(buffers[other].bytes, alignment)});
    std::sort(taken.begin(), taken.end());
    // Best fit: the smallest gap that holds the buffer, else the end.
    int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
    for (auto [begin, end] : taken) {
      if (begin - cursor >= bytes && begin - cursor < bestGap) {
        best = cursor;
        bestGap = begin - cursor;
      }
      cursor = std::max(cursor, end);
    }
    int64_t offset = best >= 0 ? best : cursor;
    plan.offsets[index] = offset;
    plan.size = std::max(plan.size, offset + bytes);
    placed.push_back(index);
  }
  return plan;
}

int64_t livenessLowerBound(const std::vector<BufferLifetime> &buffers,
                           int64_t alignment) {
  std::map<int64_t, int64_t> delta;
  for (const BufferLifetime &buffer : buffers) {
    if (buffer.begin >= buffer.end)
      continue;
    delta[buffer.begin] += roundUp(buffer.bytes, alignment);
    delta[buffer.end] -= roundUp(buffer.bytes, alignment);
  }
  int64_t live = 0, peak = 0;
  for (auto [point, change] : delta) {
    live += change;
    peak = std::max(peak, live);
  }
  return peak;
}

} // namespace mlir::rlx
