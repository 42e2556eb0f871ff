//===- SessionTest.cpp - Binding weights ----------------------------------===//

#include "TestUtil.h"

#include <fstream>
#include <random>
#include <sstream>

using namespace rlx::test;

namespace {

class SessionTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_ARTIFACT, &artifact)));
    ASSERT_TRUE(isOk(rlx_session_create(artifact, &session)));
  }
  void TearDown() override {
    rlx_session_release(session);
    rlx_artifact_release(artifact);
    TempDirTest::TearDown();
  }
  rlx_status_t bind(const std::string &file, bool allowUnused = false) {
    rlx_bind_options_t options;
    rlx_bind_options_initialize(&options);
    options.allow_unused = allowUnused;
    return rlx_session_bind_safetensors(session, file.c_str(), &options);
  }
  bool isBound(const char *name) {
    rlx_tensor_t *tensor = nullptr;
    rlx_status_t status = rlx_session_lookup_weight(session, name, &tensor);
    rlx_tensor_release(tensor);
    bool bound = status == nullptr;
    rlx_status_free(status);
    return bound;
  }

  rlx_artifact_t *artifact = nullptr;
  rlx_session_t *session = nullptr;
};

TEST_F(SessionTest, BindsEveryWeightOfAFile) {
  writeAffineWeights(path("w.safetensors"));
  ASSERT_TRUE(isOk(bind(path("w.safetensors"))));
  EXPECT_TRUE(isBound("layer.0.weight"));
  EXPECT_TRUE(isBound("layer.0.bias"));
  EXPECT_TRUE(statusIs(rlx_session_lookup_weight(session, "nope", nullptr),
                       RLX_STATUS_INVALID_ARGUMENT));
  rlx_tensor_t *tensor = nullptr;
  EXPECT_TRUE(statusIs(rlx_session_lookup_weight(session, "nope", &tensor),
                       RLX_STATUS_NOT_FOUND, {"'nope'"}));
}

TEST_F(SessionTest, BindsSeveralFilesOneAfterAnother) {
  writeSafetensors(path("a.safetensors"),
                   {{"layer.0.weight", makeF32({3, 2}, affineWeight())}});
  writeSafetensors(path("b.safetensors"),
                   {{"layer.0.bias", makeF32({2}, affineBias())}});
  ASSERT_TRUE(isOk(bind(path("a.safetensors"))));
  EXPECT_FALSE(isBound("layer.0.bias"));
  ASSERT_TRUE(isOk(bind(path("b.safetensors"))));
  EXPECT_TRUE(isBound("layer.0.weight"));
  EXPECT_TRUE(isBound("layer.0.bias"));
}

/// The [start, end) address ranges mapped from `file`, from /proc/self/maps.
static std::vector<std::pair<uintptr_t, uintptr_t>>
mappingsOf(const std::string &file) {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  std::string canonical = std::filesystem::canonical(file).string();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.size() < canonical.size() ||
        line.compare(line.size() - canonical.size(), canonical.size(),
                     canonical) != 0)
      continue;
    std::istringstream fields(line);
    std::string range;
    fields >> range;
    size_t dash = range.find('-');
    ranges.emplace_back(std::stoull(range.substr(0, dash), nullptr, 16),
                        std::stoull(range.substr(dash + 1), nullptr, 16));
  }
  return ranges;
}

TEST_F(SessionTest, BoundWeightsAreMappedNotCopied) {
  writeAffineWeights(path("w.safetensors"));
  ASSERT_TRUE(isOk(bind(path("w.safetensors"))));
  rlx_tensor_t *weight = nullptr;
  ASSERT_TRUE(
      isOk(rlx_session_lookup_weight(session, "layer.0.weight", &weight)));
  auto address = reinterpret_cast<uintptr_t>(rlx_tensor_data(weight));
  auto ranges = mappingsOf(path("w.safetensors"));
  ASSERT_FALSE(ranges.empty()) << "the file is not mapped";
  bool inside = false;
  for (const auto &range : ranges)
    inside |= address >= range.first && address < range.second;
  EXPECT_TRUE(inside);
  EXPECT_EQ(static_cast<float *>(rlx_tensor_data(weight))[2],
            affineWeight()[2]);
  rlx_tensor_release(weight);
  // Rebinding the name from a host tensor drops the mapping.
  rlx_tensor_t *weight2 = makeF32({3, 2}, affineWeight());
  ASSERT_TRUE(
      isOk(rlx_session_bind_tensor(session, "layer.0.weight", weight2)));
  rlx_tensor_t *bias2 = makeF32({2}, affineBias());
  ASSERT_TRUE(isOk(rlx_session_bind_tensor(session, "layer.0.bias", bias2)));
  rlx_tensor_release(weight2);
  rlx_tensor_release(bias2);
  EXPECT_TRUE(mappingsOf(path("w.safetensors")).empty());
}

TEST_F(SessionTest, UnknownWeightInFile) {
  writeSafetensors(path("w.safetensors"),
                   {{"layer.0.weight", makeF32({3, 2}, affineWeight())},
                    {"layer.9.weight", makeF32({1}, {0})}});
  EXPECT_TRUE(
      statusIs(bind(path("w.safetensors")), RLX_STATUS_INVALID_ARGUMENT,
               {"unknown weight 'layer.9.weight'", path("w.safetensors")}));
  // All or nothing: the good name was not bound either.
  EXPECT_FALSE(isBound("layer.0.weight"));
  ASSERT_TRUE(isOk(bind(path("w.safetensors"), /*allowUnused=*/true)));
  EXPECT_TRUE(isBound("layer.0.weight"));
  EXPECT_FALSE(isBound("layer.9.weight"));
  // NULL options mean the defaults: strict.
  EXPECT_TRUE(statusIs(rlx_session_bind_safetensors(
                           session, path("w.safetensors").c_str(), nullptr),
                       RLX_STATUS_INVALID_ARGUMENT, {"unknown weight"}));
}

TEST_F(SessionTest, DTypeMismatchNamesWeightExpectedAndGot) {
  int64_t dims[] = {3, 2};
  rlx_tensor_t *wrong = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_F64, 2, dims, &wrong)));
  writeSafetensors(path("w.safetensors"), {{"layer.0.weight", wrong}});
  EXPECT_TRUE(statusIs(bind(path("w.safetensors")), RLX_STATUS_INVALID_ARGUMENT,
                       {"'layer.0.weight'", "expected f32[3,2]", "got f64[3,2]",
                        path("w.safetensors")}));
}

TEST_F(SessionTest, ShapeMismatchNamesWeightExpectedAndGot) {
  writeSafetensors(path("w.safetensors"),
                   {{"layer.0.weight", makeF32({2, 3}, affineWeight())}});
  EXPECT_TRUE(
      statusIs(bind(path("w.safetensors")), RLX_STATUS_INVALID_ARGUMENT,
               {"'layer.0.weight'", "expected f32[3,2]", "got f32[2,3]"}));
  writeSafetensors(path("r.safetensors"),
                   {{"layer.0.bias", makeF32({2, 1}, affineBias())}});
  EXPECT_TRUE(statusIs(bind(path("r.safetensors")), RLX_STATUS_INVALID_ARGUMENT,
                       {"'layer.0.bias'", "expected f32[2]", "got f32[2,1]"}));
}

TEST_F(SessionTest, BindTensorChecksToo) {
  rlx_tensor_t *tensor = makeF32({2}, affineBias());
  EXPECT_TRUE(statusIs(rlx_session_bind_tensor(session, "bias", tensor),
                       RLX_STATUS_INVALID_ARGUMENT, {"unknown weight 'bias'"}));
  EXPECT_TRUE(statusIs(
      rlx_session_bind_tensor(session, "layer.0.weight", tensor),
      RLX_STATUS_INVALID_ARGUMENT, {"expected f32[3,2]", "got f32[2]"}));
  ASSERT_TRUE(isOk(rlx_session_bind_tensor(session, "layer.0.bias", tensor)));
  rlx_tensor_release(tensor); // The session keeps its own reference.
  EXPECT_TRUE(isBound("layer.0.bias"));
}

TEST_F(SessionTest, CorruptWeightFilesAreDataLoss) {
  writeAffineWeights(path("w.safetensors"));
  std::string valid = readBytes(path("w.safetensors"));
  for (size_t size : {size_t(0), size_t(4), size_t(8), size_t(20),
                      valid.size() / 2, valid.size() - 1}) {
    writeBytes(path("t.safetensors"), valid.substr(0, size));
    EXPECT_TRUE(statusIs(bind(path("t.safetensors")), RLX_STATUS_DATA_LOSS,
                         {path("t.safetensors")}))
        << size;
  }
  EXPECT_FALSE(isBound("layer.0.weight"));
  EXPECT_TRUE(statusIs(bind(path("none.safetensors")), RLX_STATUS_NOT_FOUND,
                       {"none.safetensors"}));
}

TEST_F(SessionTest, FuzzedWeightFilesNeverCrash) {
  writeAffineWeights(path("w.safetensors"));
  std::string valid = readBytes(path("w.safetensors"));
  std::mt19937 random(99);
  for (int iteration = 0; iteration < 1000; ++iteration) {
    std::string bytes = valid;
    bytes[random() % bytes.size()] ^= static_cast<char>(1 << (random() % 8));
    if (random() % 3 == 0)
      bytes.resize(random() % bytes.size());
    writeBytes(path("f.safetensors"), bytes);
    rlx_status_t status = bind(path("f.safetensors"), random() % 2);
    if (status) {
      EXPECT_NE(std::string(rlx_status_message(status)).find("f.safetensors"),
                std::string::npos)
          << rlx_status_message(status);
    }
    rlx_status_free(status);
  }
}

TEST_F(SessionTest, UnalignedWeightsAreCopiedAligned) {
  // A hand-made file whose f32 data starts at an odd address.
  std::string header =
      "{\"layer.0.bias\": {\"dtype\": \"F32\", \"shape\": [2], "
      "\"data_offsets\": [1, 9]}}";
  while ((8 + header.size()) % 8)
    header += ' ';
  float bias[2] = {0.25f, -1.0f};
  std::string data = "X" + std::string(reinterpret_cast<char *>(bias), 8);
  writeBytes(path("u.safetensors"), rawSafetensors(header, data));
  ASSERT_TRUE(isOk(bind(path("u.safetensors"))));
  rlx_tensor_t *tensor = nullptr;
  ASSERT_TRUE(
      isOk(rlx_session_lookup_weight(session, "layer.0.bias", &tensor)));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(rlx_tensor_data(tensor)) % 4, 0u);
  EXPECT_EQ(static_cast<float *>(rlx_tensor_data(tensor))[1], -1.0f);
  rlx_tensor_release(tensor);
}

} // namespace
