//===- ArtifactIntegrity.h - Checking an artifact before dlopen -*- C++ -*-===//
//
/// \file
/// What the runtime checks of an artifact file before the dynamic loader
/// sees it (rlx/abi.h, "Integrity"): an ELF shared library for this
/// machine whose program headers and segments lie inside the file, holding
/// the digest note, whose recorded size and digest match the file. dlopen
/// of a truncated or damaged library crashes the process (SIGBUS, SIGSEGV)
/// instead of failing; nothing here trusts an offset it has not checked.
/// No Status here: a test tool that seals fake artifacts shares this file.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_ARTIFACTINTEGRITY_H
#define RLX_RUNTIME_SRC_ARTIFACTINTEGRITY_H

#include <cstdint>
#include <string>

namespace rlxrt {

/// The outcome of a check.
struct IntegrityCheck {
  enum Kind {
    Ok,
    NotAnArtifact, ///< not an ELF shared library for this machine, or no note
    Corrupt,       ///< an rlx artifact that is damaged
    Unreadable,    ///< an I/O error (`error` holds errno)
  };
  Kind kind = Ok;
  /// What is wrong, for the message ("truncated to 100 of 4096 bytes").
  std::string what;
  int error = 0;
  /// Where the note's descriptor lies, and what it records.
  uint64_t descriptorOffset = 0;
  uint64_t recordedSize = 0;
  uint64_t recordedDigest = 0;

  explicit operator bool() const { return kind == Ok; }
};

/// Checks the ELF headers of the file open as `fd`, `size` bytes long, and
/// finds the digest note; with `sealed`, also that the note records `size`
/// (an unsealed note records 0). The digest is not compared.
IntegrityCheck findDigestNote(int fd, uint64_t size, bool sealed = true);

/// XXH64 of the file with the note's descriptor read as zeros, into
/// `digest`; fails (Unreadable, Corrupt when the file shrank) only on I/O.
IntegrityCheck digestFile(int fd, uint64_t size, uint64_t descriptorOffset,
                          uint64_t &digest);

/// Everything: findDigestNote, every segment inside the file, the recorded
/// size, the digest.
IntegrityCheck checkArtifactFile(int fd, uint64_t size);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_ARTIFACTINTEGRITY_H
