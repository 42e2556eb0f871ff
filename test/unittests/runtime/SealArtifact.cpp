//===- SealArtifact.cpp - Seals the digest note of a test artifact --------===//
//
/// \file
/// `rlx-seal-artifact FILE`: writes the size and digest into the digest note
/// of a library built by the C compiler (fake_artifact.c), as rlxc does for
/// the artifacts it links (rlx/abi.h, "Integrity"). The runtime's own
/// integrity code finds the note and computes the digest, so the fakes pass
/// the same check as compiled artifacts.
//
//===----------------------------------------------------------------------===//

#include "ArtifactIntegrity.h"
#include "rlx/abi.h"

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace rlxrt;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: rlx-seal-artifact FILE\n");
    return 2;
  }
  const char *path = argv[1];
  int fd = open(path, O_RDWR | O_CLOEXEC);
  struct stat info;
  if (fd < 0 || fstat(fd, &info) != 0) {
    std::perror(path);
    return 1;
  }
  uint64_t size = static_cast<uint64_t>(info.st_size);
  IntegrityCheck note = findDigestNote(fd, size, /*sealed=*/false);
  uint64_t digest = 0;
  IntegrityCheck hashed =
      note ? digestFile(fd, size, note.descriptorOffset, digest) : note;
  if (!note || !hashed) {
    std::fprintf(stderr, "rlx-seal-artifact: %s: %s\n", path,
                 (note ? hashed : note).what.c_str());
    return 1;
  }
  unsigned char descriptor[16];
  for (int i = 0; i < 8; ++i) {
    descriptor[i] = static_cast<unsigned char>(size >> (8 * i));
    descriptor[8 + i] = static_cast<unsigned char>(digest >> (8 * i));
  }
  if (pwrite(fd, descriptor, sizeof(descriptor),
             static_cast<off_t>(note.descriptorOffset)) !=
          static_cast<ssize_t>(sizeof(descriptor)) ||
      close(fd) != 0) {
    std::perror(path);
    return 1;
  }
  return 0;
}
