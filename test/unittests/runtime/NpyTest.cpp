//===- NpyTest.cpp - Reading and writing .npy files -----------------------===//

#include "TestUtil.h"

#include <cstring>
#include <random>

using namespace rlx::test;

namespace {

class NpyTest : public TempDirTest {
protected:
  /// A .npy file as numpy writes it: version `major`, `header` padded.
  static std::string npyBytes(const std::string &header,
                              const std::string &data, int major = 1) {
    std::string bytes = "\x93NUMPY";
    bytes += static_cast<char>(major);
    bytes += '\0';
    size_t lengthSize = major == 1 ? 2 : 4;
    std::string padded = header;
    while ((10 + padded.size() + 1 + (lengthSize - 2)) % 64)
      padded += ' ';
    padded += '\n';
    for (size_t i = 0; i < lengthSize; ++i)
      bytes += static_cast<char>(padded.size() >> (8 * i));
    return bytes + padded + data;
  }
  static std::string floats(std::vector<float> values) {
    return std::string(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float));
  }
  rlx_status_t read(const std::string &bytes, rlx_tensor_t **tensor) {
    writeBytes(path("t.npy"), bytes);
    return rlx_npy_read(path("t.npy").c_str(), tensor);
  }
};

TEST_F(NpyTest, ReadsNumpyLayout) {
  for (int major : {1, 2, 3}) {
    rlx_tensor_t *tensor = nullptr;
    ASSERT_TRUE(isOk(read(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (2, 3), }",
                                   floats({1, 2, 3, 4, 5, 6}), major),
                          &tensor)));
    EXPECT_EQ(rlx_tensor_dtype(tensor), RLX_DTYPE_F32);
    ASSERT_EQ(rlx_tensor_rank(tensor), 2u);
    EXPECT_EQ(rlx_tensor_dims(tensor)[0], 2);
    EXPECT_EQ(rlx_tensor_dims(tensor)[1], 3);
    EXPECT_EQ(static_cast<float *>(rlx_tensor_data(tensor))[5], 6.0f);
    rlx_tensor_release(tensor);
  }
}

TEST_F(NpyTest, ReadsScalarsAndOneElementTuples) {
  rlx_tensor_t *tensor = nullptr;
  ASSERT_TRUE(isOk(
      read(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
                    floats({7})),
           &tensor)));
  EXPECT_EQ(rlx_tensor_rank(tensor), 0u);
  EXPECT_EQ(*static_cast<float *>(rlx_tensor_data(tensor)), 7.0f);
  rlx_tensor_release(tensor);
  // Fortran order is harmless for rank <= 1 (numpy writes it for 1-D views).
  ASSERT_TRUE(isOk(read(
      npyBytes("{\"shape\": (2,), \"fortran_order\": True, \"descr\": \"<f4\"}",
               floats({1, 2})),
      &tensor)));
  EXPECT_EQ(rlx_tensor_dims(tensor)[0], 2);
  rlx_tensor_release(tensor);
}

TEST_F(NpyTest, RoundTripsEveryDType) {
  const rlx_dtype_t dtypes[] = {
      RLX_DTYPE_F16, RLX_DTYPE_F32,  RLX_DTYPE_F64,  RLX_DTYPE_I1,
      RLX_DTYPE_I8,  RLX_DTYPE_I16,  RLX_DTYPE_I32,  RLX_DTYPE_I64,
      RLX_DTYPE_UI8, RLX_DTYPE_UI16, RLX_DTYPE_UI32, RLX_DTYPE_UI64};
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {5}, {2, 0, 3}, {2, 3, 4}};
  for (rlx_dtype_t dtype : dtypes) {
    for (const auto &shape : shapes) {
      rlx_tensor_t *tensor = nullptr;
      ASSERT_TRUE(isOk(
          rlx_tensor_allocate(dtype, shape.size(), shape.data(), &tensor)));
      auto *bytes = static_cast<unsigned char *>(rlx_tensor_data(tensor));
      for (size_t i = 0; i < rlx_tensor_byte_size(tensor); ++i)
        bytes[i] = dtype == RLX_DTYPE_I1 ? (i % 3 == 0) : (i * 37 + 11) & 0x7f;
      std::string file = path("rt.npy");
      ASSERT_TRUE(isOk(rlx_npy_write(file.c_str(), tensor)));
      rlx_tensor_t *back = nullptr;
      ASSERT_TRUE(isOk(rlx_npy_read(file.c_str(), &back)));
      EXPECT_EQ(rlx_tensor_dtype(back), dtype);
      ASSERT_EQ(rlx_tensor_rank(back), shape.size());
      for (size_t i = 0; i < shape.size(); ++i)
        EXPECT_EQ(rlx_tensor_dims(back)[i], shape[i]);
      ASSERT_EQ(rlx_tensor_byte_size(back), rlx_tensor_byte_size(tensor));
      EXPECT_EQ(std::memcmp(rlx_tensor_data(back), rlx_tensor_data(tensor),
                            rlx_tensor_byte_size(tensor)),
                0)
          << rlx_dtype_name(dtype);
      // numpy aligns the data to 64 bytes.
      EXPECT_EQ((readBytes(file).size() - rlx_tensor_byte_size(tensor)) % 64,
                0u);
      rlx_tensor_release(back);
      rlx_tensor_release(tensor);
    }
  }
}

TEST_F(NpyTest, WritesNumpyHeader) {
  rlx_tensor_t *tensor = makeF32({2}, {1, 2});
  ASSERT_TRUE(isOk(rlx_npy_write(path("h.npy").c_str(), tensor)));
  rlx_tensor_release(tensor);
  std::string bytes = readBytes(path("h.npy"));
  EXPECT_NE(
      bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"),
      std::string::npos);
}

TEST_F(NpyTest, Bf16HasNoNumpyDType) {
  int64_t dims[] = {1};
  rlx_tensor_t *tensor = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_BF16, 1, dims, &tensor)));
  EXPECT_TRUE(statusIs(rlx_npy_write(path("b.npy").c_str(), tensor),
                       RLX_STATUS_UNIMPLEMENTED, {"bf16"}));
  rlx_tensor_release(tensor);
}

TEST_F(NpyTest, MissingFile) {
  rlx_tensor_t *tensor = nullptr;
  std::string file = path("absent.npy");
  EXPECT_TRUE(statusIs(rlx_npy_read(file.c_str(), &tensor),
                       RLX_STATUS_NOT_FOUND, {file}));
  EXPECT_TRUE(statusIs(rlx_npy_read(dir.c_str(), &tensor),
                       RLX_STATUS_INVALID_ARGUMENT, {dir}));
}

TEST_F(NpyTest, UnsupportedLayouts) {
  rlx_tensor_t *tensor = nullptr;
  std::string data = floats({1, 2, 3, 4});
  EXPECT_TRUE(statusIs(
      read(
          npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                   data),
          &tensor),
      RLX_STATUS_UNIMPLEMENTED, {"Fortran", "t.npy"}));
  EXPECT_TRUE(statusIs(
      read(npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }",
                    data),
           &tensor),
      RLX_STATUS_UNIMPLEMENTED, {"big-endian", "t.npy"}));
  EXPECT_TRUE(statusIs(
      read(npyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
                    data),
           &tensor),
      RLX_STATUS_UNIMPLEMENTED, {"'<c8'", "t.npy"}));
  EXPECT_TRUE(statusIs(
      read(npyBytes("{'descr': [('a', '<f4')], 'fortran_order': False, "
                    "'shape': (4,), }",
                    data),
           &tensor),
      RLX_STATUS_UNIMPLEMENTED, {"structured", "t.npy"}));
  std::string version4 = npyBytes(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data, 3);
  version4[6] = 4;
  EXPECT_TRUE(statusIs(read(version4, &tensor), RLX_STATUS_UNIMPLEMENTED,
                       {"version 4", "t.npy"}));
}

TEST_F(NpyTest, CorruptHeaders) {
  rlx_tensor_t *tensor = nullptr;
  std::string data = floats({1, 2});
  const char *headers[] = {
      "",
      "not a dict",
      "{'descr': '<f4', 'fortran_order': False}",
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': 2}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
      "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': "
      "(99999999999999999999,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} trailing",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, "
      "8)}",
      "{'descr': [[[[",
  };
  for (const char *header : headers)
    EXPECT_TRUE(statusIs(read(npyBytes(header, data), &tensor),
                         RLX_STATUS_DATA_LOSS, {"t.npy"}))
        << header;
  EXPECT_TRUE(statusIs(read("GARBAGE!!!", &tensor), RLX_STATUS_DATA_LOSS,
                       {"t.npy", "magic"}));
  std::string wrongLength = npyBytes(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data);
  wrongLength[8] = '\xff';
  wrongLength[9] = '\x7f';
  EXPECT_TRUE(statusIs(read(wrongLength, &tensor), RLX_STATUS_DATA_LOSS,
                       {"t.npy", "header length"}));
  EXPECT_TRUE(statusIs(
      read(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                    data + "xx"),
           &tensor),
      RLX_STATUS_DATA_LOSS, {"t.npy", "unexpected bytes"}));
}

TEST_F(NpyTest, EveryTruncationIsDataLoss) {
  std::string valid =
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
               floats({1, 2, 3, 4, 5, 6}));
  for (size_t size = 0; size < valid.size(); ++size) {
    rlx_tensor_t *tensor = nullptr;
    EXPECT_TRUE(statusIs(read(valid.substr(0, size), &tensor),
                         RLX_STATUS_DATA_LOSS, {"t.npy"}))
        << "truncated to " << size;
    EXPECT_EQ(tensor, nullptr);
  }
  rlx_tensor_t *tensor = nullptr;
  EXPECT_TRUE(statusIs(read(valid.substr(0, valid.size() - 1), &tensor),
                       RLX_STATUS_DATA_LOSS, {"truncated"}));
}

TEST_F(NpyTest, FuzzedFilesNeverCrash) {
  std::string valid =
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (3, 1), }",
               std::string(24, '\x01'));
  std::mt19937 random(1234);
  for (int iteration = 0; iteration < 1500; ++iteration) {
    std::string bytes = valid;
    int flips = 1 + random() % 4;
    for (int i = 0; i < flips; ++i)
      bytes[random() % bytes.size()] = static_cast<char>(random());
    if (random() % 4 == 0)
      bytes.resize(random() % bytes.size());
    rlx_tensor_t *tensor = nullptr;
    rlx_status_t status = read(bytes, &tensor);
    if (status) {
      EXPECT_NE(std::string(rlx_status_message(status)).find("t.npy"),
                std::string::npos)
          << rlx_status_message(status);
      rlx_status_free(status);
    } else {
      ASSERT_NE(tensor, nullptr);
      rlx_tensor_release(tensor);
    }
  }
}

} // namespace
