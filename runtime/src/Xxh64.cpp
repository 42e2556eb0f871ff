//===- Xxh64.cpp - The XXH64 hash, streaming ------------------------------===//
//
/// \file
/// XXH64 as its specification defines it: four lanes over 32-byte stripes,
/// then the tail and the avalanche.
//
//===----------------------------------------------------------------------===//

#include "Xxh64.h"

#include <cstring>

namespace rlxrt {
namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

uint64_t rotateLeft(uint64_t value, int bits) {
  return (value << bits) | (value >> (64 - bits));
}

/// Little-endian loads (memcpy: any alignment).
uint64_t load64(const unsigned char *bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | bytes[i];
  return value;
}
uint32_t load32(const unsigned char *bytes) {
  return uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8 |
         uint32_t(bytes[2]) << 16 | uint32_t(bytes[3]) << 24;
}

uint64_t round(uint64_t lane, uint64_t input) {
  lane += input * kPrime2;
  return rotateLeft(lane, 31) * kPrime1;
}

uint64_t mergeRound(uint64_t hash, uint64_t lane) {
  hash ^= round(0, lane);
  return hash * kPrime1 + kPrime4;
}

/// Consumes one 32-byte stripe into the four lanes.
void stripe(uint64_t lanes[4], const unsigned char *bytes) {
  for (int i = 0; i < 4; ++i)
    lanes[i] = round(lanes[i], load64(bytes + 8 * i));
}

} // namespace

Xxh64::Xxh64() : lanes{kPrime1 + kPrime2, kPrime2, 0, uint64_t(0) - kPrime1} {}

void Xxh64::update(const void *data, size_t size) {
  auto *bytes = static_cast<const unsigned char *>(data);
  total += size;
  if (pendingSize) {
    size_t take = size < 32 - pendingSize ? size : 32 - pendingSize;
    std::memcpy(pending + pendingSize, bytes, take);
    pendingSize += take;
    bytes += take;
    size -= take;
    if (pendingSize < 32)
      return;
    stripe(lanes, pending);
    pendingSize = 0;
  }
  for (; size >= 32; bytes += 32, size -= 32)
    stripe(lanes, bytes);
  std::memcpy(pending, bytes, size);
  pendingSize = size;
}

uint64_t Xxh64::digest() const {
  uint64_t hash;
  if (total >= 32) {
    hash = rotateLeft(lanes[0], 1) + rotateLeft(lanes[1], 7) +
           rotateLeft(lanes[2], 12) + rotateLeft(lanes[3], 18);
    for (uint64_t lane : lanes)
      hash = mergeRound(hash, lane);
  } else {
    hash = kPrime5;
  }
  hash += total;
  const unsigned char *bytes = pending;
  size_t size = pendingSize;
  for (; size >= 8; bytes += 8, size -= 8) {
    hash ^= round(0, load64(bytes));
    hash = rotateLeft(hash, 27) * kPrime1 + kPrime4;
  }
  if (size >= 4) {
    hash ^= uint64_t(load32(bytes)) * kPrime1;
    hash = rotateLeft(hash, 23) * kPrime2 + kPrime3;
    bytes += 4;
    size -= 4;
  }
  for (; size; ++bytes, --size) {
    hash ^= *bytes * kPrime5;
    hash = rotateLeft(hash, 11) * kPrime1;
  }
  hash ^= hash >> 33;
  hash *= kPrime2;
  hash ^= hash >> 29;
  hash *= kPrime3;
  hash ^= hash >> 32;
  return hash;
}

} // namespace rlxrt
