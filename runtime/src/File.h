//===- File.h - Reading, mapping and writing files --------------*- C++ -*-===//
//
/// \file
/// The little file I/O the formats need, with errors that name the file.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_FILE_H
#define RLX_RUNTIME_SRC_FILE_H

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace rlxrt {

/// A read-only private mapping of a whole file, unmapped on destruction.
struct MappedFile {
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  MappedFile() = default;
  ~MappedFile();

  std::string path;
  const unsigned char *base = nullptr;
  size_t size = 0;
};

/// Maps `path` read-only (an empty file gets a null base). Throws NOT_FOUND
/// for a missing file and INVALID_ARGUMENT for a directory.
std::shared_ptr<MappedFile> mapFile(const std::string &path);

/// Reads a whole regular file.
std::vector<unsigned char> readFile(const std::string &path);

/// A byte range to write.
struct Chunk {
  const void *data;
  size_t size;
};

/// Writes `chunks` to `path` through a temporary file renamed into place,
/// so a failed write never leaves a half-written file and a file that is
/// still mapped somewhere keeps its old contents.
void writeFile(const std::string &path, const std::vector<Chunk> &chunks);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_FILE_H
