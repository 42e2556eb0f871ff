//===- ArtifactTest.cpp - Loading artifacts and reading manifests ---------===//

#include "TestUtil.h"

#include <random>

using namespace rlx::test;

namespace {

class ArtifactTest : public TempDirTest {
protected:
  rlx_status_t load(const std::string &file) {
    return rlx_artifact_load(file.c_str(), &artifact);
  }
  void TearDown() override {
    rlx_artifact_release(artifact);
    TempDirTest::TearDown();
  }
  rlx_artifact_t *artifact = nullptr;
};

TEST_F(ArtifactTest, LoadsAndDescribesTheFakeArtifact) {
  ASSERT_TRUE(isOk(load(RLX_FAKE_ARTIFACT)));
  EXPECT_STREQ(rlx_artifact_path(artifact), RLX_FAKE_ARTIFACT);
  EXPECT_STREQ(rlx_artifact_target(artifact), "cpu");
  EXPECT_STREQ(rlx_artifact_compiler(artifact), "fake_artifact.c");
  EXPECT_NE(std::string(rlx_artifact_manifest_json(artifact))
                .find("\"rlx-artifact\""),
            std::string::npos);
  ASSERT_EQ(rlx_artifact_entry_point_count(artifact), 6u);
  EXPECT_EQ(rlx_artifact_entry_point_at(artifact, 6), nullptr);

  const rlx_entry_point_t *affine = rlx_artifact_entry_point_at(artifact, 0);
  EXPECT_STREQ(rlx_entry_point_name(affine), "affine");
  ASSERT_EQ(rlx_entry_point_input_count(affine), 1u);
  ASSERT_EQ(rlx_entry_point_param_count(affine), 2u);
  ASSERT_EQ(rlx_entry_point_output_count(affine), 1u);
  rlx_tensor_spec_t spec;
  ASSERT_TRUE(isOk(rlx_entry_point_input(affine, 0, &spec)));
  EXPECT_STREQ(spec.name, "x");
  EXPECT_EQ(spec.dtype, RLX_DTYPE_F32);
  ASSERT_EQ(spec.rank, 2u);
  EXPECT_EQ(spec.shape[0], -1);
  EXPECT_EQ(spec.shape[1], 3);
  ASSERT_TRUE(isOk(rlx_entry_point_param(affine, 1, &spec)));
  EXPECT_STREQ(spec.name, "layer.0.bias");
  ASSERT_TRUE(isOk(rlx_entry_point_output(affine, 0, &spec)));
  EXPECT_STREQ(spec.name, "y");
  EXPECT_TRUE(statusIs(rlx_entry_point_input(affine, 1, &spec),
                       RLX_STATUS_OUT_OF_RANGE));

  const rlx_entry_point_t *stats = nullptr;
  ASSERT_TRUE(isOk(rlx_artifact_find_entry_point(artifact, "stats", &stats)));
  EXPECT_EQ(rlx_entry_point_workspace_bytes(stats), 128u);
  // The fake manifest has no lower bound: it reads as the workspace.
  EXPECT_EQ(rlx_entry_point_workspace_lower_bound_bytes(stats), 128u);
  size_t index = 0;
  ASSERT_TRUE(isOk(rlx_entry_point_find_input(stats, "scale", &index)));
  EXPECT_EQ(index, 1u);
  EXPECT_TRUE(statusIs(rlx_entry_point_find_input(stats, "w", &index),
                       RLX_STATUS_NOT_FOUND, {"'w'", "'a', 'scale'"}));
  ASSERT_TRUE(isOk(rlx_entry_point_input(stats, 1, &spec)));
  EXPECT_EQ(spec.rank, 0u);

  ASSERT_EQ(rlx_artifact_param_count(artifact), 2u);
  ASSERT_TRUE(isOk(rlx_artifact_param(artifact, 0, &spec)));
  EXPECT_STREQ(spec.name, "layer.0.weight");
  EXPECT_TRUE(statusIs(rlx_artifact_param(artifact, 2, &spec),
                       RLX_STATUS_OUT_OF_RANGE));
}

TEST_F(ArtifactTest, UnknownEntryPointListsTheOthers) {
  ASSERT_TRUE(isOk(load(RLX_FAKE_ARTIFACT)));
  const rlx_entry_point_t *entry = nullptr;
  EXPECT_TRUE(statusIs(
      rlx_artifact_find_entry_point(artifact, "forward", &entry),
      RLX_STATUS_NOT_FOUND, {"'forward'", "'affine', 'stats', 'transpose'"}));
}

TEST_F(ArtifactTest, FileNotFound) {
  std::string file = path("model.so");
  EXPECT_TRUE(statusIs(load(file), RLX_STATUS_NOT_FOUND, {file}));
  EXPECT_EQ(artifact, nullptr);
}

TEST_F(ArtifactTest, DirectoryIsNotAnArtifact) {
  EXPECT_TRUE(statusIs(load(dir), RLX_STATUS_INVALID_ARGUMENT,
                       {dir, "not an rlx artifact"}));
}

TEST_F(ArtifactTest, RandomBytesAreNotAnArtifact) {
  std::mt19937 random(7);
  std::string bytes(4096, '\0');
  for (char &byte : bytes)
    byte = static_cast<char>(random());
  writeBytes(path("random.so"), bytes);
  EXPECT_TRUE(statusIs(load(path("random.so")), RLX_STATUS_INVALID_ARGUMENT,
                       {path("random.so"), "not an rlx artifact"}));
  // An ELF magic followed by garbage must not fool dlopen either.
  writeBytes(path("elf.so"), "\x7f"
                             "ELF" +
                                 bytes);
  EXPECT_TRUE(statusIs(load(path("elf.so")), RLX_STATUS_INVALID_ARGUMENT,
                       {"elf.so", "not an rlx artifact"}));
}

TEST_F(ArtifactTest, TextFileIsNotAnArtifact) {
  writeBytes(path("model.txt"), "hello, I am not a shared library\n");
  EXPECT_TRUE(statusIs(load(path("model.txt")), RLX_STATUS_INVALID_ARGUMENT,
                       {path("model.txt"), "not an rlx artifact"}));
  writeBytes(path("empty.so"), "");
  EXPECT_TRUE(statusIs(load(path("empty.so")), RLX_STATUS_INVALID_ARGUMENT,
                       {"empty.so", "not an rlx artifact"}));
}

TEST_F(ArtifactTest, PlainSharedLibraryIsNotAnArtifact) {
  EXPECT_TRUE(statusIs(load(RLX_FAKE_PLAIN_LIBRARY),
                       RLX_STATUS_INVALID_ARGUMENT,
                       {RLX_FAKE_PLAIN_LIBRARY, "not an rlx artifact",
                        "without the rlx digest note"}));
}

TEST_F(ArtifactTest, AbiVersionMismatchNamesBothVersions) {
  EXPECT_TRUE(statusIs(load(RLX_FAKE_ARTIFACT_ABI1),
                       RLX_STATUS_FAILED_PRECONDITION,
                       {"ABI version mismatch", RLX_FAKE_ARTIFACT_ABI1,
                        "version 1", "version 4"}));
}

TEST_F(ArtifactTest, MalformedManifest) {
  EXPECT_TRUE(statusIs(
      load(RLX_FAKE_ARTIFACT_BAD_JSON), RLX_STATUS_DATA_LOSS,
      {"malformed manifest", RLX_FAKE_ARTIFACT_BAD_JSON, "not valid JSON"}));
  EXPECT_TRUE(statusIs(load(RLX_FAKE_ARTIFACT_BAD_FIELD), RLX_STATUS_DATA_LOSS,
                       {"malformed manifest", RLX_FAKE_ARTIFACT_BAD_FIELD,
                        "entry_points[0].inputs[0].shape"}));
  EXPECT_TRUE(statusIs(load(RLX_FAKE_ARTIFACT_BAD_PREPARE),
                       RLX_STATUS_DATA_LOSS,
                       {"malformed manifest", "entry_points[0].prepare",
                        "'g' is not an entry point without inputs"}));
  EXPECT_TRUE(statusIs(load(RLX_FAKE_ARTIFACT_BAD_PREPARED_TYPE),
                       RLX_STATUS_DATA_LOSS,
                       {"malformed manifest", "entry_points[0].prepare",
                        "param 'p' is f32[2] but 'g' makes it f64[2]"}));
}

TEST_F(ArtifactTest, RelativePathWithoutSlash) {
  // dlopen would search the library path for "model.so"; the runtime must
  // open the file in the current directory instead.
  std::string cwd = std::filesystem::current_path().string();
  std::filesystem::copy_file(RLX_FAKE_ARTIFACT, path("model.so"));
  std::filesystem::current_path(dir);
  rlx_status_t status = load("model.so");
  std::filesystem::current_path(cwd);
  EXPECT_TRUE(isOk(status));
}

TEST_F(ArtifactTest, OutlivesItsLoaderThroughSessions) {
  ASSERT_TRUE(isOk(load(RLX_FAKE_ARTIFACT)));
  rlx_session_t *session = nullptr;
  ASSERT_TRUE(isOk(rlx_session_create(artifact, &session)));
  rlx_artifact_release(artifact);
  artifact = nullptr;
  EXPECT_STREQ(rlx_artifact_target(rlx_session_artifact(session)), "cpu");
  rlx_session_release(session);
}

} // namespace
