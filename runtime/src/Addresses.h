//===- Addresses.h - Device addresses as numbers ----------------*- C++ -*-===//
//
/// \file
/// Device pointers travel as 64-bit numbers between artifacts, hooks and
/// devices (docs/abi.md); these convert and print them.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_ADDRESSES_H
#define RLX_RUNTIME_SRC_ADDRESSES_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace rlxrt {

inline void *toPointer(uint64_t address) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

inline uint64_t toAddress(const void *pointer) {
  return reinterpret_cast<uintptr_t>(pointer);
}

/// `0x1f00`, for messages.
inline std::string hexAddress(uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx",
                static_cast<unsigned long long>(address));
  return text;
}

/// `value` rounded up to a multiple of `to` (> 0).
inline uint64_t roundUp(uint64_t value, uint64_t to) {
  return (value + to - 1) / to * to;
}

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_ADDRESSES_H
