//===- TestUtil.h - Helpers for the runtime unit tests ----------*- C++ -*-===//
//
/// \file
/// Status matchers, a per-test scratch directory, and writers for the test
/// weight and input files, all through the runtime's own C API or raw bytes
/// (no Python or numpy).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_RUNTIME_TESTUTIL_H
#define RLX_TEST_UNITTESTS_RUNTIME_TESTUTIL_H

#include "rlx/runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

namespace rlx::test {

/// Consumes `status`; succeeds when it has `code` and its message contains
/// every one of `fragments`.
inline ::testing::AssertionResult
statusIs(rlx_status_t status, rlx_status_code_t code,
         std::initializer_list<std::string> fragments = {}) {
  rlx_status_code_t actual = rlx_status_code(status);
  std::string message = rlx_status_message(status);
  rlx_status_free(status);
  if (actual != code)
    return ::testing::AssertionFailure()
           << "expected " << rlx_status_code_string(code) << ", got "
           << rlx_status_code_string(actual) << ": " << message;
  for (const std::string &fragment : fragments)
    if (message.find(fragment) == std::string::npos)
      return ::testing::AssertionFailure()
             << "message lacks '" << fragment << "': " << message;
  return ::testing::AssertionSuccess() << message;
}

/// Consumes `status`; succeeds when it is OK.
inline ::testing::AssertionResult isOk(rlx_status_t status) {
  if (!status)
    return ::testing::AssertionSuccess();
  std::string message = rlx_status_message(status);
  rlx_status_code_t code = rlx_status_code(status);
  rlx_status_free(status);
  return ::testing::AssertionFailure()
         << rlx_status_code_string(code) << ": " << message;
}

/// A test with its own scratch directory, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "rlxrt-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string path(const std::string &name) const { return dir + "/" + name; }

  static void writeBytes(const std::string &file, const std::string &bytes) {
    std::ofstream stream(file, std::ios::binary | std::ios::trunc);
    stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  static std::string readBytes(const std::string &file) {
    std::ifstream stream(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(stream), {});
  }

  std::string dir;
};

/// An owning f32 tensor with `values` (row-major).
inline rlx_tensor_t *makeF32(std::vector<int64_t> dims,
                             const std::vector<float> &values) {
  rlx_tensor_t *tensor = nullptr;
  rlx_status_t status =
      rlx_tensor_allocate(RLX_DTYPE_F32, dims.size(), dims.data(), &tensor);
  if (status) {
    rlx_status_free(status);
    return nullptr;
  }
  float *data = static_cast<float *>(rlx_tensor_data(tensor));
  for (size_t i = 0; i < values.size() && i < rlx_tensor_element_count(tensor);
       ++i)
    data[i] = values[i];
  return tensor;
}

/// The affine test weights: w[k][j] = 0.5 * (k + 1) - j, bias = {0.25, -1}.
inline std::vector<float> affineWeight() {
  return {0.5f, -0.5f, 1.0f, 0.0f, 1.5f, 0.5f};
}
inline std::vector<float> affineBias() { return {0.25f, -1.0f}; }

/// Writes the named f32 tensors to a safetensors file.
inline void writeSafetensors(
    const std::string &file,
    const std::vector<std::pair<std::string, rlx_tensor_t *>> &items) {
  rlx_tensor_list_t *list = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_list_create(&list)));
  for (const auto &item : items) {
    ASSERT_TRUE(
        isOk(rlx_tensor_list_append(list, item.first.c_str(), item.second)));
    rlx_tensor_release(item.second);
  }
  ASSERT_TRUE(isOk(rlx_safetensors_write(file.c_str(), list)));
  rlx_tensor_list_free(list);
}

/// The good weights of the fake artifact's `affine` entry.
inline void writeAffineWeights(const std::string &file) {
  writeSafetensors(file, {{"layer.0.weight", makeF32({3, 2}, affineWeight())},
                          {"layer.0.bias", makeF32({2}, affineBias())}});
}

/// A safetensors file from a raw JSON header and data bytes.
inline std::string rawSafetensors(const std::string &header,
                                  const std::string &data) {
  std::string bytes(8, '\0');
  uint64_t size = header.size();
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>(size >> (8 * i));
  return bytes + header + data;
}

} // namespace rlx::test

#endif // RLX_TEST_UNITTESTS_RUNTIME_TESTUTIL_H
