//===- File.cpp - Reading, mapping and writing files ----------------------===//
//
/// \file
/// POSIX file I/O behind the file formats.
//
//===----------------------------------------------------------------------===//

#include "File.h"
#include "Status.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rlxrt {

MappedFile::~MappedFile() {
  if (base)
    munmap(const_cast<unsigned char *>(base), size);
}

namespace {
/// Closes a file descriptor on scope exit.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0)
      close(fd);
  }
};
} // namespace

/// Opens `path` for reading and returns its size; the checks every reader
/// shares.
static size_t openRegularFile(const std::string &path, FileDescriptor &file) {
  file.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd < 0) {
    int error = errno;
    fail(statusCodeFromErrno(error),
         "cannot open " + describeErrno(path, error));
  }
  struct stat info;
  if (fstat(file.fd, &info) != 0) {
    int error = errno;
    fail(statusCodeFromErrno(error),
         "cannot stat " + describeErrno(path, error));
  }
  if (!S_ISREG(info.st_mode))
    fail(RLX_STATUS_INVALID_ARGUMENT, "'" + path + "' is not a regular file");
  return static_cast<size_t>(info.st_size);
}

std::shared_ptr<MappedFile> mapFile(const std::string &path) {
  FileDescriptor file{-1};
  size_t size = openRegularFile(path, file);
  auto mapped = std::make_shared<MappedFile>();
  mapped->path = path;
  if (size == 0)
    return mapped;
  void *base = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (base == MAP_FAILED) {
    int error = errno;
    fail(statusCodeFromErrno(error),
         "cannot map " + describeErrno(path, error));
  }
  mapped->base = static_cast<const unsigned char *>(base);
  mapped->size = size;
  return mapped;
}

std::vector<unsigned char> readFile(const std::string &path) {
  FileDescriptor file{-1};
  size_t size = openRegularFile(path, file);
  std::vector<unsigned char> bytes(size);
  size_t done = 0;
  while (done < size) {
    ssize_t got = read(file.fd, bytes.data() + done, size - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int error = errno;
      fail(statusCodeFromErrno(error),
           "cannot read " + describeErrno(path, error));
    }
    if (got == 0)
      break; // Shrunk while reading: the parser reports the truncation.
    done += static_cast<size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

void writeFile(const std::string &path, const std::vector<Chunk> &chunks) {
  // Anything but a regular file (a device, a FIFO, a symbolic link) is
  // written through and stays what it is: a rename over it would replace
  // it (as root, over /dev/null, delete the device node).
  struct stat existing;
  bool writeThrough =
      ::lstat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode);
  std::string temporary =
      writeThrough
          ? path
          : path + ".tmp." + std::to_string(static_cast<long>(getpid()));
  FILE *stream = std::fopen(temporary.c_str(), "wb");
  if (!stream) {
    int error = errno;
    fail(statusCodeFromErrno(error),
         "cannot write " + describeErrno(path, error));
  }
  bool ok = true;
  for (const Chunk &chunk : chunks)
    if (chunk.size &&
        std::fwrite(chunk.data, 1, chunk.size, stream) != chunk.size)
      ok = false;
  int error = ok ? 0 : errno;
  if (std::fclose(stream) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && !writeThrough &&
      std::rename(temporary.c_str(), path.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    if (!writeThrough)
      std::remove(temporary.c_str());
    fail(statusCodeFromErrno(error),
         "cannot write " + describeErrno(path, error));
  }
}

} // namespace rlxrt
