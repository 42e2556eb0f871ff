//===- ArtifactIntegrityFuzzer.cpp - libFuzzer harness: checks before dlopen =//
//
/// \file
/// Feeds each input, as an artifact file, to the checks librlxrt makes
/// before dlopen (runtime/src/ArtifactIntegrity.cpp, compiled here with
/// ASan, UBSan and coverage): rlxrt::checkArtifactFile (ELF header, program
/// headers, segments inside the file, the digest note, the recorded size and
/// XXH64 digest), and findDigestNote without the size check so that
/// unsealed notes reach the code past it. The bytes are never dlopen'ed.
/// NotAnArtifact and Corrupt are the expected answers. A bug is a crash, a
/// sanitizer report (an offset trusted before it was checked), Unreadable
/// (no I/O can fail on a memfd), or Ok for a note lying outside the file.
//
//===----------------------------------------------------------------------===//

#include "ArtifactIntegrity.h"
#include "FuzzFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static rlxfuzz::FuzzFile file;
  file.write(data, size);
  using rlxrt::IntegrityCheck;
  for (IntegrityCheck check :
       {rlxrt::checkArtifactFile(file.fd, size),
        rlxrt::findDigestNote(file.fd, size, /*sealed=*/false)}) {
    if (check.kind == IntegrityCheck::Unreadable)
      __builtin_trap();
    if (check && check.descriptorOffset + 16 > size)
      __builtin_trap();
  }
  return 0;
}
