//===- FuzzFile.h - Fuzz input as a file the runtime can open ---*- C++ -*-===//
//
/// \file
/// The runtime's readers take paths; a fuzz input becomes a memfd (no disk
/// I/O per input) that is opened again through /proc/self/fd, and a status
/// the readers should never return fails the run.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_FUZZ_FUZZFILE_H
#define RLX_TEST_FUZZ_FUZZFILE_H

#include "rlx/runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace rlxfuzz {

/// One memfd per process, rewritten with each input.
class FuzzFile {
public:
  FuzzFile() {
    fd = memfd_create("rlx-fuzz", 0);
    if (fd < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path = "/proc/self/fd/" + std::to_string(fd);
  }

  /// Replaces the contents with `size` bytes of `data`.
  void write(const uint8_t *data, size_t size) {
    if (ftruncate(fd, 0) != 0 ||
        (size && pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))) {
      std::perror("rlx-fuzz: writing the memfd");
      std::abort();
    }
  }

  int fd = -1;
  std::string path;
};

/// Frees `status`; aborts (a finding) when it is INTERNAL, which the C API
/// returns only for an exception no reader should throw.
inline void checkStatus(rlx_status_t status) {
  if (rlx_status_code(status) == RLX_STATUS_INTERNAL) {
    std::fprintf(stderr, "rlx-fuzz: INTERNAL status: %s\n",
                 rlx_status_message(status));
    std::abort();
  }
  rlx_status_free(status);
}

/// Reads every byte of a tensor the reader returned, so that ASan sees any
/// byte range that points outside what was mapped or allocated.
inline unsigned touch(const rlx_tensor_t *tensor) {
  const auto *bytes = static_cast<const unsigned char *>(rlx_tensor_data(tensor));
  size_t size = rlx_tensor_byte_size(tensor);
  unsigned sum = 0;
  for (size_t i = 0; i < size; ++i)
    sum += bytes[i];
  return sum;
}

} // namespace rlxfuzz

#endif // RLX_TEST_FUZZ_FUZZFILE_H
