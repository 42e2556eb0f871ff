//===- TensorTest.cpp - Statuses, dtypes, tensors and tensor lists --------===//

#include "TestUtil.h"

#include <cmath>
#include <cstring>

using namespace rlx::test;

TEST(StatusTest, NullIsOk) {
  EXPECT_EQ(rlx_status_code(nullptr), RLX_STATUS_OK);
  EXPECT_STREQ(rlx_status_message(nullptr), "");
  rlx_status_free(nullptr);
  EXPECT_STREQ(rlx_status_code_string(RLX_STATUS_DATA_LOSS), "DATA_LOSS");
}

TEST(DTypeTest, NamesSizesAndParsing) {
  const char *names[] = {"f16",        "bf16",       "f32",      "f64",
                         "i1",         "i8",         "i32",      "i64",
                         "f8E4M3FN",   "f8E5M2",     "f8E4M3FNUZ",
                         "f8E5M2FNUZ", "f6E3M2FN",   "f6E2M3FN", "f4E2M1FN"};
  const size_t sizes[] = {2, 2, 4, 8, 1, 1, 4, 8, 1, 1, 1, 1, 1, 1, 1};
  for (int i = 0; i < 15; ++i) {
    rlx_dtype_t dtype = static_cast<rlx_dtype_t>(i);
    EXPECT_STREQ(rlx_dtype_name(dtype), names[i]);
    EXPECT_EQ(rlx_dtype_size(dtype), sizes[i]);
    rlx_dtype_t parsed;
    ASSERT_TRUE(isOk(rlx_dtype_parse(names[i], &parsed)));
    EXPECT_EQ(parsed, dtype);
  }
  rlx_dtype_t parsed;
  EXPECT_TRUE(statusIs(rlx_dtype_parse("f128", &parsed),
                       RLX_STATUS_INVALID_ARGUMENT, {"f128"}));
  EXPECT_STREQ(rlx_dtype_name(static_cast<rlx_dtype_t>(42)), "?");
}

// Values outside the enum, as a C caller may pass them, are checked as
// integers by every entry taking a dtype (loading them as rlx_dtype_t is
// undefined in C++: UBSan flagged DType.cpp and Tensor.cpp).
TEST(DTypeTest, OutOfRangeValuesAreRefused) {
  for (int value : {21, 99, -1, 1 << 30}) {
    // A prvalue each time: a variable holding it would itself be loaded.
    auto dtype = [&] { return static_cast<rlx_dtype_t>(value); };
    EXPECT_STREQ(rlx_dtype_name(dtype()), "?") << value;
    EXPECT_EQ(rlx_dtype_size(dtype()), 0u) << value;
    int64_t dims[] = {2};
    float data[2] = {};
    rlx_tensor_t *tensor = nullptr;
    EXPECT_TRUE(statusIs(rlx_tensor_allocate(dtype(), 1, dims, &tensor),
                         RLX_STATUS_INVALID_ARGUMENT,
                         {"invalid dtype value " + std::to_string(value)}));
    EXPECT_TRUE(statusIs(rlx_tensor_wrap(dtype(), 1, dims, data, nullptr,
                                         nullptr, &tensor),
                         RLX_STATUS_INVALID_ARGUMENT,
                         {"invalid dtype value " + std::to_string(value)}));
    EXPECT_EQ(tensor, nullptr);
  }
}

/// Narrow float elements read by their definition: (1 + m / 2^M) *
/// 2^(e - bias), subnormals m / 2^M * 2^(1 - bias), and each format's
/// inf/NaN codes (closed forms, not the compiler's decoding).
TEST(DTypeTest, NarrowFloatsReadAsTheirValues) {
  struct Case {
    rlx_dtype_t dtype;
    uint8_t code;
    double value; // NAN: expect NaN
  };
  const Case cases[] = {
      {RLX_DTYPE_F8E4M3FN, 0x7e, 448},    // 1.75 * 2^8, the max
      {RLX_DTYPE_F8E4M3FN, 0x01, 0x1p-9}, // smallest subnormal
      {RLX_DTYPE_F8E4M3FN, 0xb8, -1},     // 1 0111 000
      {RLX_DTYPE_F8E4M3FN, 0x7f, NAN},    // the all-ones magnitude
      {RLX_DTYPE_F8E4M3FN, 0xff, NAN},
      {RLX_DTYPE_F8E5M2, 0x7b, 57344}, // 1.75 * 2^15
      {RLX_DTYPE_F8E5M2, 0x7c, INFINITY},
      {RLX_DTYPE_F8E5M2, 0xfc, -INFINITY},
      {RLX_DTYPE_F8E5M2, 0x7d, NAN},
      {RLX_DTYPE_F8E5M2, 0x03, 0.75 * 0x1p-14}, // subnormal 3/4 * 2^-14
      {RLX_DTYPE_F8E4M3FNUZ, 0x80, NAN},        // -0's code
      {RLX_DTYPE_F8E4M3FNUZ, 0x7f, 240},        // 1.875 * 2^7
      {RLX_DTYPE_F8E5M2FNUZ, 0x7f, 57344},      // 1.75 * 2^15
      {RLX_DTYPE_F6E3M2FN, 0x1f, 28},           // 1.75 * 2^4
      {RLX_DTYPE_F6E3M2FN, 0x21, -0.0625},      // -(1/4) * 2^-2
      {RLX_DTYPE_F6E2M3FN, 0x1f, 7.5},          // 1.875 * 2^2
      {RLX_DTYPE_F4E2M1FN, 0x07, 6},            // 1.5 * 2^2
      {RLX_DTYPE_F4E2M1FN, 0x09, -0.5},         // subnormal
      {RLX_DTYPE_F4E2M1FN, 0xf3, 1.5},          // bits above the code ignored
      {RLX_DTYPE_F8E8M0FNU, 127, 1},            // 2^(code - 127)
      {RLX_DTYPE_F8E8M0FNU, 0, 0x1p-127},       // no zero: the smallest
      {RLX_DTYPE_F8E8M0FNU, 254, 0x1p127},
      {RLX_DTYPE_F8E8M0FNU, 255, NAN},
  };
  for (const Case &c : cases) {
    int64_t dims[] = {1};
    uint8_t code = c.code;
    rlx_tensor_t *tensor = nullptr;
    ASSERT_TRUE(isOk(rlx_tensor_wrap(c.dtype, 1, dims, &code, nullptr,
                                     nullptr, &tensor)));
    double value = 0;
    ASSERT_TRUE(isOk(rlx_tensor_get_f64(tensor, 0, &value)));
    if (std::isnan(c.value))
      EXPECT_TRUE(std::isnan(value)) << rlx_dtype_name(c.dtype) << " "
                                     << int(c.code);
    else
      EXPECT_EQ(value, c.value) << rlx_dtype_name(c.dtype) << " "
                                << int(c.code);
    rlx_tensor_release(tensor);
  }
}

TEST(TensorTest, AllocateIsZeroedAndAligned) {
  int64_t dims[] = {2, 3};
  rlx_tensor_t *tensor = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_F64, 2, dims, &tensor)));
  EXPECT_EQ(rlx_tensor_dtype(tensor), RLX_DTYPE_F64);
  ASSERT_EQ(rlx_tensor_rank(tensor), 2u);
  EXPECT_EQ(rlx_tensor_dims(tensor)[0], 2);
  EXPECT_EQ(rlx_tensor_dims(tensor)[1], 3);
  EXPECT_EQ(rlx_tensor_element_count(tensor), 6u);
  EXPECT_EQ(rlx_tensor_byte_size(tensor), 48u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(rlx_tensor_data(tensor)) % 64, 0u);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(static_cast<double *>(rlx_tensor_data(tensor))[i], 0.0);
  rlx_tensor_retain(tensor);
  rlx_tensor_release(tensor);
  rlx_tensor_release(tensor);
}

TEST(TensorTest, ScalarAndEmpty) {
  rlx_tensor_t *scalar = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_I32, 0, nullptr, &scalar)));
  EXPECT_EQ(rlx_tensor_element_count(scalar), 1u);
  EXPECT_EQ(rlx_tensor_dims(scalar), nullptr);
  rlx_tensor_release(scalar);

  int64_t dims[] = {0, 5};
  rlx_tensor_t *empty = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_F32, 2, dims, &empty)));
  EXPECT_EQ(rlx_tensor_byte_size(empty), 0u);
  rlx_tensor_release(empty);
}

TEST(TensorTest, BadArguments) {
  rlx_tensor_t *tensor = nullptr;
  int64_t negative[] = {2, -1};
  EXPECT_TRUE(statusIs(rlx_tensor_allocate(RLX_DTYPE_F32, 2, negative, &tensor),
                       RLX_STATUS_INVALID_ARGUMENT, {"negative"}));
  int64_t huge[] = {INT64_MAX, INT64_MAX};
  EXPECT_TRUE(statusIs(rlx_tensor_allocate(RLX_DTYPE_F32, 2, huge, &tensor),
                       RLX_STATUS_RESOURCE_EXHAUSTED));
  int64_t dims[] = {2};
  EXPECT_TRUE(statusIs(
      rlx_tensor_allocate(static_cast<rlx_dtype_t>(99), 1, dims, &tensor),
      RLX_STATUS_INVALID_ARGUMENT, {"dtype"}));
  EXPECT_TRUE(statusIs(rlx_tensor_wrap(RLX_DTYPE_F32, 1, dims, nullptr, nullptr,
                                       nullptr, &tensor),
                       RLX_STATUS_INVALID_ARGUMENT, {"NULL"}));
  EXPECT_TRUE(statusIs(rlx_tensor_allocate(RLX_DTYPE_F32, 1, nullptr, &tensor),
                       RLX_STATUS_INVALID_ARGUMENT));
  EXPECT_TRUE(statusIs(rlx_tensor_allocate(RLX_DTYPE_F32, 1, dims, nullptr),
                       RLX_STATUS_INVALID_ARGUMENT, {"out_tensor"}));
  EXPECT_EQ(tensor, nullptr);
}

static int releaseCount = 0;
static void countRelease(void *userData, void *data) {
  EXPECT_EQ(userData, &releaseCount);
  EXPECT_NE(data, nullptr);
  ++releaseCount;
}

TEST(TensorTest, WrapBorrowsWithoutCopying) {
  float values[4] = {1, 2, 3, 4};
  int64_t dims[] = {4};
  rlx_tensor_t *tensor = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_wrap(RLX_DTYPE_F32, 1, dims, values, nullptr,
                                   nullptr, &tensor)));
  EXPECT_EQ(rlx_tensor_data(tensor), values);
  values[2] = 30;
  double value = 0;
  ASSERT_TRUE(isOk(rlx_tensor_get_f64(tensor, 2, &value)));
  EXPECT_EQ(value, 30.0);
  rlx_tensor_release(tensor);

  releaseCount = 0;
  ASSERT_TRUE(isOk(rlx_tensor_wrap(RLX_DTYPE_F32, 1, dims, values, countRelease,
                                   &releaseCount, &tensor)));
  rlx_tensor_retain(tensor);
  rlx_tensor_release(tensor);
  EXPECT_EQ(releaseCount, 0);
  rlx_tensor_release(tensor);
  EXPECT_EQ(releaseCount, 1);
}

TEST(TensorTest, GetF64ConvertsEveryDType) {
  int64_t dims[] = {2};
  struct Case {
    rlx_dtype_t dtype;
    std::vector<unsigned char> bytes;
    double expected;
  };
  auto bytesOf = [](auto value) {
    std::vector<unsigned char> bytes(sizeof(value));
    std::memcpy(bytes.data(), &value, sizeof(value));
    return bytes;
  };
  std::vector<Case> cases = {
      {RLX_DTYPE_F16, bytesOf(uint16_t(0x3e00)), 1.5},
      {RLX_DTYPE_F16, bytesOf(uint16_t(0xc000)), -2.0},
      {RLX_DTYPE_F16, bytesOf(uint16_t(0x0001)), std::ldexp(1.0, -24)},
      {RLX_DTYPE_BF16, bytesOf(uint16_t(0x3fc0)), 1.5},
      {RLX_DTYPE_F32, bytesOf(0.25f), 0.25},
      {RLX_DTYPE_F64, bytesOf(-3.5), -3.5},
      {RLX_DTYPE_I1, bytesOf(uint8_t(1)), 1.0},
      {RLX_DTYPE_I8, bytesOf(int8_t(-7)), -7.0},
      {RLX_DTYPE_I32, bytesOf(int32_t(-100000)), -100000.0},
      {RLX_DTYPE_I64, bytesOf(int64_t(1) << 40), std::ldexp(1.0, 40)},
      {RLX_DTYPE_I16, bytesOf(int16_t(-30000)), -30000.0},
      // The unsigned dtypes read as unsigned: all ones is the maximum.
      {RLX_DTYPE_UI8, bytesOf(uint8_t(0xff)), 255.0},
      {RLX_DTYPE_UI16, bytesOf(uint16_t(0xffff)), 65535.0},
      {RLX_DTYPE_UI32, bytesOf(uint32_t(0xffffffffu)), 4294967295.0},
      {RLX_DTYPE_UI64, bytesOf(uint64_t(1) << 63), std::ldexp(1.0, 63)},
  };
  for (const Case &c : cases) {
    rlx_tensor_t *tensor = nullptr;
    ASSERT_TRUE(isOk(rlx_tensor_allocate(c.dtype, 1, dims, &tensor)));
    std::memcpy(static_cast<char *>(rlx_tensor_data(tensor)) + c.bytes.size(),
                c.bytes.data(), c.bytes.size());
    double value = 0;
    ASSERT_TRUE(isOk(rlx_tensor_get_f64(tensor, 1, &value)));
    EXPECT_EQ(value, c.expected) << rlx_dtype_name(c.dtype);
    EXPECT_TRUE(statusIs(rlx_tensor_get_f64(tensor, 2, &value),
                         RLX_STATUS_OUT_OF_RANGE));
    rlx_tensor_release(tensor);
  }
}

TEST(TensorListTest, AppendFindAndDuplicates) {
  rlx_tensor_list_t *list = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_list_create(&list)));
  rlx_tensor_t *a = makeF32({1}, {1});
  ASSERT_TRUE(isOk(rlx_tensor_list_append(list, "a", a)));
  EXPECT_TRUE(statusIs(rlx_tensor_list_append(list, "a", a),
                       RLX_STATUS_INVALID_ARGUMENT, {"duplicate", "'a'"}));
  rlx_tensor_release(a); // The list holds its own reference.
  EXPECT_EQ(rlx_tensor_list_size(list), 1u);
  EXPECT_STREQ(rlx_tensor_list_name(list, 0), "a");
  EXPECT_EQ(rlx_tensor_list_name(list, 1), nullptr);
  EXPECT_EQ(rlx_tensor_list_get(list, 1), nullptr);
  size_t index = 9;
  ASSERT_TRUE(isOk(rlx_tensor_list_find(list, "a", &index)));
  EXPECT_EQ(index, 0u);
  EXPECT_TRUE(statusIs(rlx_tensor_list_find(list, "b", &index),
                       RLX_STATUS_NOT_FOUND, {"'b'"}));
  EXPECT_EQ(
      *static_cast<float *>(rlx_tensor_data(rlx_tensor_list_get(list, 0))),
      1.0f);
  rlx_tensor_list_free(list);
}
