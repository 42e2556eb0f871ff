//===- ArtifactIntegrityTest.cpp - Damaged artifacts are refused ----------===//
//
/// \file
/// The runtime checks an artifact before dlopen (rlx/abi.h, "Integrity"):
/// copies of the sealed fake artifact, truncated, bit-flipped, edited or
/// made foreign, each fail with a status naming the file and what is wrong.
/// dlopen of such a file used to end the process with SIGBUS or SIGSEGV, so
/// a regression here crashes the test binary rather than failing a check.
/// test/unittests/abi runs the same sweep over artifacts rlxc compiled.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "rlx/abi.h"

#include <cstring>
#include <elf.h>
#include <random>

using namespace rlx::test;

namespace {

class ArtifactIntegrityTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    original = readBytes(RLX_FAKE_ARTIFACT);
    ASSERT_GT(original.size(), 4096u);
  }

  /// Writes `bytes` to a file of the scratch directory and loads it; the
  /// status, consumed, must be one of the refusals with `fragments`.
  ::testing::AssertionResult refused(const std::string &name,
                                     const std::string &bytes,
                                     rlx_status_code_t code,
                                     std::initializer_list<std::string> what) {
    std::string file = path(name);
    writeBytes(file, bytes);
    rlx_artifact_t *artifact = nullptr;
    rlx_status_t status = rlx_artifact_load(file.c_str(), &artifact);
    if (!status) {
      rlx_artifact_release(artifact);
      return ::testing::AssertionFailure() << file << " loaded";
    }
    std::string message = rlx_status_message(status);
    ::testing::AssertionResult result = statusIs(status, code, what);
    if (result && message.find(file) == std::string::npos)
      return ::testing::AssertionFailure() << "no path in: " << message;
    return result;
  }

  std::string original;
};

TEST_F(ArtifactIntegrityTest, TheSealedArtifactLoads) {
  writeBytes(path("copy.so"), original);
  rlx_artifact_t *artifact = nullptr;
  ASSERT_TRUE(isOk(rlx_artifact_load(path("copy.so").c_str(), &artifact)));
  rlx_artifact_release(artifact);
}

TEST_F(ArtifactIntegrityTest, TruncationsAtEvery64thAreCorrupt) {
  for (size_t k = 1; k < 64; ++k) {
    size_t size = original.size() * k / 64;
    EXPECT_TRUE(refused("cut" + std::to_string(k) + ".so",
                        original.substr(0, size), RLX_STATUS_DATA_LOSS,
                        {"corrupt artifact: "}))
        << "cut to " << size << " of " << original.size() << " bytes";
  }
  EXPECT_TRUE(refused("cut0.so", "", RLX_STATUS_INVALID_ARGUMENT,
                      {"not an rlx artifact", "empty"}));
  // The usual truncation reads as one.
  EXPECT_TRUE(refused(
      "half.so", original.substr(0, original.size() / 2), RLX_STATUS_DATA_LOSS,
      {"truncated to " + std::to_string(original.size() / 2) + " of its " +
       std::to_string(original.size()) + " bytes"}));
}

TEST_F(ArtifactIntegrityTest, HundredBitFlipsAreRefused) {
  std::mt19937_64 random(15);
  size_t corrupt = 0;
  for (int i = 0; i < 100; ++i) {
    std::string bytes = original;
    size_t offset = random() % bytes.size();
    int bit = static_cast<int>(random() % 8);
    bytes[offset] = static_cast<char>(bytes[offset] ^ (1 << bit));
    std::string name = "flip" + std::to_string(i) + ".so";
    // A flip in the ELF identity makes a file that is no artifact for this
    // machine; anywhere else the digest or a header check calls it corrupt.
    bool identity =
        offset < EI_VERSION || (offset >= offsetof(Elf64_Ehdr, e_type) &&
                                offset < offsetof(Elf64_Ehdr, e_version));
    if (identity) {
      rlx_artifact_t *artifact = nullptr;
      writeBytes(path(name), bytes);
      rlx_status_t status = rlx_artifact_load(path(name).c_str(), &artifact);
      EXPECT_NE(status, nullptr) << "byte " << offset << " bit " << bit;
      rlx_status_free(status);
      continue;
    }
    ++corrupt;
    EXPECT_TRUE(
        refused(name, bytes, RLX_STATUS_DATA_LOSS, {"corrupt artifact: "}))
        << "byte " << offset << " bit " << bit;
  }
  EXPECT_GT(corrupt, 90u);
}

TEST_F(ArtifactIntegrityTest, EditedManifestFailsItsDigest) {
  // Same length, still valid JSON: only the digest can tell.
  std::string bytes = original;
  size_t at = bytes.find("[-1, 3]");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 7, "[-1, 9]");
  EXPECT_TRUE(refused("edited.so", bytes, RLX_STATUS_DATA_LOSS,
                      {"corrupt artifact: ", "do not match their digest",
                       RLX_ARTIFACT_DIGEST_ALGORITHM}));
}

TEST_F(ArtifactIntegrityTest, AppendedBytesAreCorrupt) {
  EXPECT_TRUE(refused("longer.so", original + "x", RLX_STATUS_DATA_LOSS,
                      {"corrupt artifact: ",
                       std::to_string(original.size() + 1) + " bytes long"}));
}

TEST_F(ArtifactIntegrityTest, ForeignElfFilesAreNotArtifacts) {
  auto patched = [&](size_t offset, const void *value, size_t size) {
    std::string bytes = original;
    std::memcpy(&bytes[offset], value, size);
    return bytes;
  };
  uint16_t machine = EM_AARCH64, type = ET_EXEC;
  unsigned char elfClass = ELFCLASS32;
  EXPECT_TRUE(refused("aarch64.so",
                      patched(offsetof(Elf64_Ehdr, e_machine), &machine, 2),
                      RLX_STATUS_INVALID_ARGUMENT,
                      {"not an rlx artifact", "for aarch64", "x86-64"}));
  EXPECT_TRUE(refused("exec.so",
                      patched(offsetof(Elf64_Ehdr, e_type), &type, 2),
                      RLX_STATUS_INVALID_ARGUMENT,
                      {"not an rlx artifact", "not a shared library"}));
  EXPECT_TRUE(refused("elf32.so", patched(EI_CLASS, &elfClass, 1),
                      RLX_STATUS_INVALID_ARGUMENT,
                      {"not an rlx artifact", "32-bit"}));
  EXPECT_TRUE(refused("plain.so", readBytes(RLX_FAKE_PLAIN_LIBRARY),
                      RLX_STATUS_INVALID_ARGUMENT,
                      {"not an rlx artifact", RLX_ARTIFACT_DIGEST_SECTION}));
}

TEST_F(ArtifactIntegrityTest, UnsealedNoteIsCorrupt) {
  // The note as the linker left it, before rlxc writes size and digest.
  std::string bytes = original;
  const char name[] = RLX_ARTIFACT_DIGEST_NOTE_NAME;
  size_t at = bytes.find(std::string(name, sizeof(name)));
  ASSERT_NE(at, std::string::npos);
  std::memset(&bytes[at + sizeof(name)], 0, 16);
  EXPECT_TRUE(refused("unsealed.so", bytes, RLX_STATUS_DATA_LOSS,
                      {"corrupt artifact: ", "written with 0"}));
}

TEST_F(ArtifactIntegrityTest, EntrySymbolMustBeTheArtifactsOwn) {
  rlx_artifact_t *artifact = nullptr;
  EXPECT_TRUE(
      statusIs(rlx_artifact_load(RLX_FAKE_ARTIFACT_FOREIGN_SYMBOL, &artifact),
               RLX_STATUS_DATA_LOSS,
               {"malformed artifact", "'free'", "does not define"}));
  EXPECT_EQ(artifact, nullptr);
}

} // namespace
