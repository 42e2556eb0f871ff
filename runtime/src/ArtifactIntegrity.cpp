//===- ArtifactIntegrity.cpp - Checking an artifact before dlopen ---------===//
//
/// \file
/// Reads the file with pread, never mmap: a file that shrinks while it is
/// checked reads short instead of raising SIGBUS. The checks go from the
/// outside in: the ELF identity (is this a library for this machine at
/// all), the program header table, the digest note, the recorded size (so a
/// truncation says "truncated"), every segment, the digest of all bytes.
//
//===----------------------------------------------------------------------===//

#include "ArtifactIntegrity.h"
#include "Xxh64.h"
#include "rlx/abi.h"

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <unistd.h>
#include <vector>

namespace rlxrt {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
constexpr uint16_t kHostMachine = EM_RISCV;
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
#elif defined(__s390x__)
constexpr uint16_t kHostMachine = EM_S390;
#else
#error "rlx artifacts: unknown ELF machine for this host"
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2LSB;
#else
constexpr unsigned char kHostData = ELFDATA2MSB;
#endif

/// More program headers than any linker writes for a library.
constexpr uint64_t kMaxProgramHeaders = 1024;
/// Note segments are small; a larger one is damage.
constexpr uint64_t kMaxNoteSegmentBytes = 1 << 20;

std::string machineName(uint16_t machine) {
  switch (machine) {
  case EM_386:
    return "i386";
  case EM_ARM:
    return "arm";
  case EM_X86_64:
    return "x86-64";
  case EM_AARCH64:
    return "aarch64";
  case EM_RISCV:
    return "riscv";
  case EM_PPC64:
    return "ppc64";
  case EM_S390:
    return "s390";
  default:
    return "machine " + std::to_string(machine);
  }
}

std::string range(uint64_t offset, uint64_t size) {
  return "bytes " + std::to_string(offset) + ".." +
         std::to_string(offset + size);
}

/// True when [offset, offset + size) lies inside a file of `fileSize`.
bool inside(uint64_t offset, uint64_t size, uint64_t fileSize) {
  return offset <= fileSize && size <= fileSize - offset;
}

IntegrityCheck failure(IntegrityCheck::Kind kind, std::string what) {
  IntegrityCheck check;
  check.kind = kind;
  check.what = std::move(what);
  return check;
}

/// Reads exactly `size` bytes at `offset` (inside the file as stat saw it);
/// a short read means the file shrank meanwhile.
IntegrityCheck readAt(int fd, uint64_t offset, void *buffer, size_t size) {
  auto *bytes = static_cast<unsigned char *>(buffer);
  size_t done = 0;
  while (done < size) {
    ssize_t got =
        pread(fd, bytes + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      IntegrityCheck check = failure(IntegrityCheck::Unreadable, "");
      check.error = errno;
      return check;
    }
    if (got == 0)
      return failure(IntegrityCheck::Corrupt,
                     "the file shrank while it was read");
    done += static_cast<size_t>(got);
  }
  return {};
}

uint64_t littleEndian64(const uint8_t bytes[8]) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | bytes[i];
  return value;
}

/// Walks the notes of one PT_NOTE segment for the digest note.
IntegrityCheck findInNoteSegment(const std::vector<unsigned char> &notes,
                                 uint64_t segmentOffset, uint64_t alignment,
                                 IntegrityCheck &found, bool &seen) {
  auto alignUp = [&](uint64_t value) {
    return (value + alignment - 1) & ~(alignment - 1);
  };
  uint64_t at = 0;
  while (at < notes.size()) {
    Elf64_Nhdr header;
    if (notes.size() - at < sizeof(header))
      return failure(IntegrityCheck::Corrupt,
                     "a note at byte " + std::to_string(segmentOffset + at) +
                         " is cut off by the end of its segment");
    std::memcpy(&header, notes.data() + at, sizeof(header));
    uint64_t name = at + sizeof(header);
    uint64_t descriptor = alignUp(name + header.n_namesz);
    uint64_t next = alignUp(descriptor + header.n_descsz);
    if (header.n_namesz > notes.size() || header.n_descsz > notes.size() ||
        next > alignUp(notes.size()))
      return failure(IntegrityCheck::Corrupt,
                     "the note at byte " + std::to_string(segmentOffset + at) +
                         " overruns its segment");
    // A note with the digest's type or owner name but not both (or another
    // name size) is the digest note damaged, not a library without one.
    bool typeMatches = header.n_type == RLX_ARTIFACT_DIGEST_NOTE_TYPE;
    bool nameMatches =
        name + sizeof(RLX_ARTIFACT_DIGEST_NOTE_NAME) <= notes.size() &&
        std::memcmp(notes.data() + name, RLX_ARTIFACT_DIGEST_NOTE_NAME,
                    sizeof(RLX_ARTIFACT_DIGEST_NOTE_NAME)) == 0;
    bool isDigest = typeMatches && nameMatches &&
                    header.n_namesz == sizeof(RLX_ARTIFACT_DIGEST_NOTE_NAME);
    if ((typeMatches || nameMatches) && !isDigest)
      return failure(IntegrityCheck::Corrupt,
                     "the digest note at byte " +
                         std::to_string(segmentOffset + at) +
                         " is damaged (type, owner name or its size)");
    if (isDigest) {
      rlx_artifact_digest_note_t note;
      if (header.n_descsz != sizeof(note.file_size) + sizeof(note.digest) ||
          descriptor + header.n_descsz > notes.size())
        return failure(
            IntegrityCheck::Corrupt,
            "the digest note has a descriptor of " +
                std::to_string(header.n_descsz) + " bytes, not " +
                std::to_string(sizeof(note.file_size) + sizeof(note.digest)));
      if (seen)
        return failure(IntegrityCheck::Corrupt, "two digest notes");
      seen = true;
      std::memcpy(note.file_size, notes.data() + descriptor, 8);
      std::memcpy(note.digest, notes.data() + descriptor + 8, 8);
      found.descriptorOffset = segmentOffset + descriptor;
      found.recordedSize = littleEndian64(note.file_size);
      found.recordedDigest = littleEndian64(note.digest);
    }
    at = next;
  }
  return {};
}

/// The offset of the digest note's header and name anywhere in the file,
/// or UINT64_MAX: tells a damaged program header table from a library that
/// never had the note.
uint64_t findDigestNoteBytes(int fd, uint64_t size) {
  const rlx_artifact_digest_note_t note = RLX_ARTIFACT_DIGEST_NOTE_INITIALIZER;
  constexpr size_t kPattern = offsetof(rlx_artifact_digest_note_t, file_size);
  constexpr size_t kChunk = 1 << 20;
  std::vector<unsigned char> buffer(kChunk + kPattern);
  for (uint64_t offset = 0; offset < size; offset += kChunk) {
    size_t bytes = static_cast<size_t>(
        size - offset < buffer.size() ? size - offset : buffer.size());
    if (!readAt(fd, offset, buffer.data(), bytes) || bytes < kPattern)
      return UINT64_MAX;
    for (size_t i = 0; i + kPattern <= bytes; ++i)
      if (buffer[i] == 4 && std::memcmp(&buffer[i], &note, kPattern) == 0)
        return offset + i;
  }
  return UINT64_MAX;
}

} // namespace

IntegrityCheck findDigestNote(int fd, uint64_t size, bool sealed) {
  unsigned char ident[EI_NIDENT] = {};
  if (size < SELFMAG)
    return failure(IntegrityCheck::NotAnArtifact,
                   size ? "not an ELF file" : "an empty file");
  if (IntegrityCheck check =
          readAt(fd, 0, ident, size < EI_NIDENT ? SELFMAG : EI_NIDENT);
      !check)
    return check;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0)
    return failure(IntegrityCheck::NotAnArtifact, "not an ELF file");
  if (size < sizeof(Elf64_Ehdr))
    return failure(IntegrityCheck::Corrupt, "truncated in its ELF header (" +
                                                std::to_string(size) +
                                                " bytes)");
  if (ident[EI_CLASS] != ELFCLASS64)
    return failure(IntegrityCheck::NotAnArtifact,
                   ident[EI_CLASS] == ELFCLASS32
                       ? "a 32-bit ELF file; artifacts are 64-bit"
                       : "ELF class " + std::to_string(ident[EI_CLASS]) +
                             " is not 64-bit");
  if (ident[EI_DATA] != kHostData)
    return failure(IntegrityCheck::NotAnArtifact,
                   "an ELF file of the other byte order");
  Elf64_Ehdr header;
  if (IntegrityCheck check = readAt(fd, 0, &header, sizeof(header)); !check)
    return check;
  if (header.e_machine != kHostMachine)
    return failure(IntegrityCheck::NotAnArtifact,
                   "an ELF file for " + machineName(header.e_machine) +
                       "; this process runs " + machineName(kHostMachine));
  if (header.e_type != ET_DYN)
    return failure(IntegrityCheck::NotAnArtifact,
                   "an ELF file of type " + std::to_string(header.e_type) +
                       ", not a shared library");
  if (ident[EI_VERSION] != EV_CURRENT || header.e_version != EV_CURRENT)
    return failure(IntegrityCheck::Corrupt, "unknown ELF version");
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 ||
      header.e_phnum > kMaxProgramHeaders)
    return failure(IntegrityCheck::Corrupt,
                   std::to_string(header.e_phnum) + " program headers of " +
                       std::to_string(header.e_phentsize) + " bytes");
  uint64_t tableBytes = uint64_t(header.e_phnum) * sizeof(Elf64_Phdr);
  if (!inside(header.e_phoff, tableBytes, size))
    return failure(IntegrityCheck::Corrupt,
                   "the program headers (" + range(header.e_phoff, tableBytes) +
                       ") lie outside the file (" + std::to_string(size) +
                       " bytes)");
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  if (IntegrityCheck check =
          readAt(fd, header.e_phoff, segments.data(), tableBytes);
      !check)
    return check;

  IntegrityCheck found;
  bool seen = false;
  for (const Elf64_Phdr &segment : segments) {
    if (segment.p_type != PT_NOTE)
      continue;
    if (!inside(segment.p_offset, segment.p_filesz, size) ||
        segment.p_filesz > kMaxNoteSegmentBytes)
      return failure(
          IntegrityCheck::Corrupt,
          "a note segment (" + range(segment.p_offset, segment.p_filesz) +
              ") lies outside the file (" + std::to_string(size) + " bytes)");
    std::vector<unsigned char> notes(segment.p_filesz);
    if (IntegrityCheck check =
            readAt(fd, segment.p_offset, notes.data(), notes.size());
        !check)
      return check;
    // glibc reads notes 4- or 8-aligned by their segment's alignment.
    uint64_t alignment = segment.p_align == 8 ? 8 : 4;
    if (IntegrityCheck check =
            findInNoteSegment(notes, segment.p_offset, alignment, found, seen);
        !check)
      return check;
  }
  if (!seen) {
    uint64_t stray = findDigestNoteBytes(fd, size);
    if (stray != UINT64_MAX)
      return failure(IntegrityCheck::Corrupt,
                     "its digest note (byte " + std::to_string(stray) +
                         ") lies in no note segment: the program headers "
                         "are damaged");
    return failure(IntegrityCheck::NotAnArtifact,
                   "an ELF library without the rlx digest note (" +
                       std::string(RLX_ARTIFACT_DIGEST_SECTION) +
                       "); an artifact from an rlxc before digests must be "
                       "recompiled");
  }

  // A truncated artifact says so before anything else.
  if (sealed && found.recordedSize != size)
    return failure(IntegrityCheck::Corrupt,
                   found.recordedSize > size
                       ? "truncated to " + std::to_string(size) + " of its " +
                             std::to_string(found.recordedSize) + " bytes"
                       : std::to_string(size) + " bytes long, but written " +
                             "with " + std::to_string(found.recordedSize));
  for (size_t i = 0; i < segments.size(); ++i) {
    const Elf64_Phdr &segment = segments[i];
    if (segment.p_filesz && !inside(segment.p_offset, segment.p_filesz, size))
      return failure(IntegrityCheck::Corrupt,
                     "segment " + std::to_string(i) + " (" +
                         range(segment.p_offset, segment.p_filesz) +
                         ") lies outside the file (" + std::to_string(size) +
                         " bytes)");
    if (segment.p_type == PT_LOAD && segment.p_filesz > segment.p_memsz)
      return failure(IntegrityCheck::Corrupt,
                     "loadable segment " + std::to_string(i) + " has " +
                         std::to_string(segment.p_filesz) + " file bytes but " +
                         std::to_string(segment.p_memsz) + " in memory");
  }
  if (header.e_shnum &&
      (header.e_shentsize != sizeof(Elf64_Shdr) ||
       !inside(header.e_shoff, uint64_t(header.e_shnum) * sizeof(Elf64_Shdr),
               size)))
    return failure(IntegrityCheck::Corrupt,
                   "the section headers lie outside the file");
  return found;
}

IntegrityCheck digestFile(int fd, uint64_t size, uint64_t descriptorOffset,
                          uint64_t &digest) {
  constexpr size_t kChunk = 1 << 20;
  constexpr uint64_t kDescriptorBytes = 16;
  std::vector<unsigned char> buffer(size < kChunk ? size : kChunk);
  Xxh64 hash;
  for (uint64_t offset = 0; offset < size;) {
    size_t bytes = static_cast<size_t>(
        size - offset < buffer.size() ? size - offset : buffer.size());
    if (IntegrityCheck check = readAt(fd, offset, buffer.data(), bytes); !check)
      return check;
    // The descriptor reads as zeros wherever it overlaps this chunk.
    uint64_t begin = descriptorOffset > offset ? descriptorOffset : offset;
    uint64_t end = descriptorOffset + kDescriptorBytes < offset + bytes
                       ? descriptorOffset + kDescriptorBytes
                       : offset + bytes;
    if (begin < end)
      std::memset(buffer.data() + (begin - offset), 0, end - begin);
    hash.update(buffer.data(), bytes);
    offset += bytes;
  }
  digest = hash.digest();
  return {};
}

IntegrityCheck checkArtifactFile(int fd, uint64_t size) {
  IntegrityCheck found = findDigestNote(fd, size);
  if (!found)
    return found;
  uint64_t digest = 0;
  if (IntegrityCheck check =
          digestFile(fd, size, found.descriptorOffset, digest);
      !check)
    return check;
  if (digest != found.recordedDigest) {
    char text[80];
    std::snprintf(text, sizeof(text),
                  " (" RLX_ARTIFACT_DIGEST_ALGORITHM
                  " %016llx, recorded %016llx)",
                  static_cast<unsigned long long>(digest),
                  static_cast<unsigned long long>(found.recordedDigest));
    return failure(IntegrityCheck::Corrupt,
                   std::string("its bytes do not match their digest") + text +
                       ": the file was damaged or edited after rlxc wrote it");
  }
  return found;
}

} // namespace rlxrt
