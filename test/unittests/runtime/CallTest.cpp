//===- CallTest.cpp - Calling entry points --------------------------------===//

#include "TestUtil.h"

#include <cmath>
#include <malloc.h>
#include <thread>

using namespace rlx::test;

namespace {

class CallTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_ARTIFACT, &artifact)));
    ASSERT_TRUE(isOk(rlx_session_create(artifact, &session)));
  }
  void TearDown() override {
    rlx_tensor_list_free(outputs);
    rlx_session_release(session);
    rlx_artifact_release(artifact);
    TempDirTest::TearDown();
  }
  void bindAffineWeights() {
    writeAffineWeights(path("w.safetensors"));
    ASSERT_TRUE(isOk(rlx_session_bind_safetensors(
        session, path("w.safetensors").c_str(), nullptr)));
  }
  rlx_status_t call(const char *entry, std::vector<rlx_tensor_t *> inputs) {
    rlx_tensor_list_free(outputs);
    outputs = nullptr;
    rlx_status_t status = rlx_session_call(session, entry, inputs.data(),
                                           inputs.size(), &outputs);
    for (rlx_tensor_t *input : inputs)
      rlx_tensor_release(input);
    return status;
  }
  /// x[b][k] = b - 0.5 * k + 0.125
  static std::vector<float> affineInput(int rows) {
    std::vector<float> x;
    for (int b = 0; b < rows; ++b)
      for (int k = 0; k < 3; ++k)
        x.push_back(b - 0.5f * k + 0.125f);
    return x;
  }

  rlx_artifact_t *artifact = nullptr;
  rlx_session_t *session = nullptr;
  rlx_tensor_list_t *outputs = nullptr;
};

/// Checks `y` against the affine map computed here by a loop.
void expectAffine(rlx_tensor_t *y, const std::vector<float> &x, int rows) {
  ASSERT_EQ(rlx_tensor_dtype(y), RLX_DTYPE_F32);
  ASSERT_EQ(rlx_tensor_rank(y), 2u);
  ASSERT_EQ(rlx_tensor_dims(y)[0], rows);
  ASSERT_EQ(rlx_tensor_dims(y)[1], 2);
  std::vector<float> w = affineWeight(), bias = affineBias();
  const float *data = static_cast<const float *>(rlx_tensor_data(y));
  for (int b = 0; b < rows; ++b)
    for (int j = 0; j < 2; ++j) {
      float expected = bias[j];
      for (int k = 0; k < 3; ++k)
        expected += x[b * 3 + k] * w[k * 2 + j];
      EXPECT_FLOAT_EQ(data[b * 2 + j], expected) << b << "," << j;
    }
}

TEST_F(CallTest, AffineNumerics) {
  bindAffineWeights();
  for (int rows : {1, 2, 5, 0}) {
    std::vector<float> x = affineInput(rows);
    ASSERT_TRUE(isOk(call("affine", {makeF32({rows, 3}, x)})));
    ASSERT_EQ(rlx_tensor_list_size(outputs), 1u);
    EXPECT_STREQ(rlx_tensor_list_name(outputs, 0), "y");
    expectAffine(rlx_tensor_list_get(outputs, 0), x, rows);
  }
}

TEST_F(CallTest, BorrowedInputIsNotCopied) {
  bindAffineWeights();
  std::vector<float> x = affineInput(2);
  int64_t dims[] = {2, 3};
  rlx_tensor_t *input = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_wrap(RLX_DTYPE_F32, 2, dims, x.data(), nullptr,
                                   nullptr, &input)));
  ASSERT_TRUE(isOk(call("affine", {input})));
  expectAffine(rlx_tensor_list_get(outputs, 0), x, 2);
}

TEST_F(CallTest, TwoOutputsMixedDTypesAndOffset) {
  bindAffineWeights();
  int64_t dims[] = {3, 4};
  rlx_tensor_t *a = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_F64, 2, dims, &a)));
  double *ad = static_cast<double *>(rlx_tensor_data(a));
  for (int i = 0; i < 12; ++i)
    ad[i] = i * 0.5;
  rlx_tensor_t *scale = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_I32, 0, nullptr, &scale)));
  *static_cast<int32_t *>(rlx_tensor_data(scale)) = 3;
  std::vector<double> expected;
  for (int b = 0; b < 3; ++b) {
    double sum = 0;
    for (int k = 0; k < 4; ++k)
      sum += ad[b * 4 + k];
    expected.push_back(3 * sum + 0.25);
  }
  ASSERT_TRUE(isOk(call("stats", {a, scale})));
  ASSERT_EQ(rlx_tensor_list_size(outputs), 2u);
  EXPECT_STREQ(rlx_tensor_list_name(outputs, 0), "rowsum");
  EXPECT_STREQ(rlx_tensor_list_name(outputs, 1), "count");
  rlx_tensor_t *rowsum = rlx_tensor_list_get(outputs, 0);
  ASSERT_EQ(rlx_tensor_dtype(rowsum), RLX_DTYPE_F64);
  ASSERT_EQ(rlx_tensor_element_count(rowsum), 3u);
  for (int b = 0; b < 3; ++b)
    EXPECT_DOUBLE_EQ(static_cast<double *>(rlx_tensor_data(rowsum))[b],
                     expected[b]);
  rlx_tensor_t *count = rlx_tensor_list_get(outputs, 1);
  EXPECT_EQ(rlx_tensor_dtype(count), RLX_DTYPE_I64);
  EXPECT_EQ(rlx_tensor_rank(count), 0u);
  EXPECT_EQ(*static_cast<int64_t *>(rlx_tensor_data(count)), 3);
}

TEST_F(CallTest, StridedOutputIsMadeContiguous) {
  ASSERT_TRUE(isOk(call("transpose", {makeF32({2, 3}, {1, 2, 3, 4, 5, 6})})));
  rlx_tensor_t *t = rlx_tensor_list_get(outputs, 0);
  ASSERT_EQ(rlx_tensor_dims(t)[0], 3);
  ASSERT_EQ(rlx_tensor_dims(t)[1], 2);
  const float expected[] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(static_cast<float *>(rlx_tensor_data(t))[i], expected[i]);
}

TEST_F(CallTest, I1InputsAndOutputs) {
  int64_t dims[] = {4};
  rlx_tensor_t *b = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_I1, 1, dims, &b)));
  unsigned char *flags = static_cast<unsigned char *>(rlx_tensor_data(b));
  flags[1] = flags[2] = 1;
  ASSERT_TRUE(isOk(call("negate", {b})));
  const unsigned char *result = static_cast<unsigned char *>(
      rlx_tensor_data(rlx_tensor_list_get(outputs, 0)));
  EXPECT_EQ(result[0], 1);
  EXPECT_EQ(result[1], 0);
  EXPECT_EQ(result[2], 0);
  EXPECT_EQ(result[3], 1);
}

TEST_F(CallTest, FailingEntryIsInternalAndFreesItsOutputs) {
  EXPECT_TRUE(
      statusIs(call("fail", {}), RLX_STATUS_INTERNAL, {"'fail'", "code 7"}));
  EXPECT_EQ(outputs, nullptr);
}

/// An i64 scalar input.
static rlx_tensor_t *makeI64Scalar(int64_t value) {
  rlx_tensor_t *tensor = nullptr;
  if (rlx_tensor_allocate(RLX_DTYPE_I64, 0, nullptr, &tensor))
    return nullptr;
  *static_cast<int64_t *>(rlx_tensor_data(tensor)) = value;
  return tensor;
}

/// Bytes malloc has handed out and not taken back.
static size_t heapInUse() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

TEST_F(CallTest, FailureOnAWorkerThreadIsReportedAndFreesEveryBlock) {
  // The entry code's worker thread cannot allocate 2^62 bytes; the thread
  // that entered the call finds the failure in the state and returns.
  const int64_t huge = int64_t(1) << 62;
  EXPECT_TRUE(statusIs(call("fail_in_worker", {makeI64Scalar(huge)}),
                       RLX_STATUS_RESOURCE_EXHAUSTED,
                       {"'fail_in_worker'", "4611686018427387904 bytes"}));
  EXPECT_EQ(outputs, nullptr);
  // The same code succeeds when the worker's block fits.
  ASSERT_TRUE(isOk(call("fail_in_worker", {makeI64Scalar(16)})));
  EXPECT_EQ(static_cast<float *>(
                rlx_tensor_data(rlx_tensor_list_get(outputs, 0)))[0],
            1.0f);
  rlx_tensor_list_free(outputs);
  outputs = nullptr;
  // Each failed call leaves 4 MiB of temporaries and its output behind in
  // the entry code; the runtime frees them.
  size_t before = heapInUse();
  for (int i = 0; i < 50; ++i)
    ASSERT_TRUE(statusIs(call("fail_in_worker", {makeI64Scalar(huge)}),
                         RLX_STATUS_RESOURCE_EXHAUSTED, {}));
  size_t after = heapInUse();
  EXPECT_LT(after, before + (size_t(2) << 20))
      << "50 failed calls kept " << (after - before) << " bytes";
}

TEST_F(CallTest, UnknownEntryPoint) {
  EXPECT_TRUE(statusIs(call("forward", {}), RLX_STATUS_NOT_FOUND,
                       {"'forward'", "available: 'affine', 'stats'"}));
}

TEST_F(CallTest, WrongInputCount) {
  bindAffineWeights();
  EXPECT_TRUE(statusIs(call("affine", {}), RLX_STATUS_INVALID_ARGUMENT,
                       {"'affine'", "takes 1 input (x)", "got 0"}));
  EXPECT_TRUE(
      statusIs(call("affine", {makeF32({1, 3}, {}), makeF32({1, 3}, {})}),
               RLX_STATUS_INVALID_ARGUMENT, {"got 2"}));
  EXPECT_TRUE(statusIs(call("affine", {nullptr}), RLX_STATUS_INVALID_ARGUMENT,
                       {"'x'", "NULL"}));
}

TEST_F(CallTest, WrongInputDType) {
  bindAffineWeights();
  int64_t dims[] = {2, 3};
  rlx_tensor_t *x = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_F64, 2, dims, &x)));
  EXPECT_TRUE(statusIs(call("affine", {x}), RLX_STATUS_INVALID_ARGUMENT,
                       {"'x'", "expected f32[?,3]", "got f64[2,3]"}));
}

TEST_F(CallTest, WrongInputShape) {
  bindAffineWeights();
  EXPECT_TRUE(statusIs(
      call("affine", {makeF32({2, 10}, {})}), RLX_STATUS_INVALID_ARGUMENT,
      {"input 0 ('x')", "expected f32[?,3]", "got f32[2,10]"}));
  EXPECT_TRUE(statusIs(call("affine", {makeF32({6}, {})}),
                       RLX_STATUS_INVALID_ARGUMENT,
                       {"expected f32[?,3]", "got f32[6]"}));
  EXPECT_TRUE(statusIs(call("transpose", {makeF32({3, 2}, {})}),
                       RLX_STATUS_INVALID_ARGUMENT,
                       {"'m'", "expected f32[2,3]", "got f32[3,2]"}));
}

TEST_F(CallTest, MissingWeightNamesWeightAndEntry) {
  EXPECT_TRUE(statusIs(call("affine", {makeF32({1, 3}, {})}),
                       RLX_STATUS_FAILED_PRECONDITION,
                       {"'layer.0.weight'", "'affine'", "not bound"}));
  writeSafetensors(path("w.safetensors"),
                   {{"layer.0.weight", makeF32({3, 2}, affineWeight())}});
  ASSERT_TRUE(isOk(rlx_session_bind_safetensors(
      session, path("w.safetensors").c_str(), nullptr)));
  EXPECT_TRUE(statusIs(call("affine", {makeF32({1, 3}, {})}),
                       RLX_STATUS_FAILED_PRECONDITION,
                       {"'layer.0.bias'", "'affine'"}));
}

TEST_F(CallTest, ConcurrentCallsOnOneSession) {
  bindAffineWeights();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        int rows = 1 + (t + i) % 4;
        std::vector<float> x = affineInput(rows);
        rlx_tensor_t *input = makeF32({rows, 3}, x);
        rlx_tensor_list_t *result = nullptr;
        rlx_status_t status =
            rlx_session_call(session, "affine", &input, 1, &result);
        rlx_tensor_release(input);
        if (status) {
          ++failures[t];
          rlx_status_free(status);
          continue;
        }
        const float *y = static_cast<const float *>(
            rlx_tensor_data(rlx_tensor_list_get(result, 0)));
        float expected = affineBias()[1];
        for (int k = 0; k < 3; ++k)
          expected += x[(rows - 1) * 3 + k] * affineWeight()[k * 2 + 1];
        if (std::fabs(y[(rows - 1) * 2 + 1] - expected) > 1e-5f)
          ++failures[t];
        rlx_tensor_list_free(result);
      }
    });
  // Rebinding while calls run is allowed (it waits for them).
  for (int i = 0; i < 20; ++i) {
    rlx_tensor_t *bias = makeF32({2}, affineBias());
    EXPECT_TRUE(isOk(rlx_session_bind_tensor(session, "layer.0.bias", bias)));
    rlx_tensor_release(bias);
  }
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
}

/// The thread-safety runtime.h states: one session called from 8 threads
/// at once, 1,000 calls each, and one session per thread; every output
/// equals the single-threaded call's, bit for bit.
TEST_F(CallTest, EightThreadsThousandCallsEach) {
  bindAffineWeights();
  // Every output of one call, by rows.
  auto affineOutput = [](rlx_session_t *session, int rows) {
    std::vector<float> x = affineInput(rows);
    rlx_tensor_t *input = makeF32({rows, 3}, x);
    rlx_tensor_list_t *result = nullptr;
    rlx_status_t status =
        rlx_session_call(session, "affine", &input, 1, &result);
    rlx_tensor_release(input);
    if (status) {
      rlx_status_free(status);
      return std::vector<float>();
    }
    const float *y = static_cast<const float *>(
        rlx_tensor_data(rlx_tensor_list_get(result, 0)));
    std::vector<float> out(y, y + rows * 2);
    rlx_tensor_list_free(result);
    return out;
  };
  std::vector<std::vector<float>> expected;
  for (int rows = 1; rows <= 4; ++rows)
    expected.push_back(affineOutput(session, rows));
  auto run = [&](rlx_session_t *s, int t, int &failures) {
    for (int i = 0; i < 1000; ++i) {
      int rows = 1 + (t + i) % 4;
      if (affineOutput(s, rows) != expected[rows - 1])
        ++failures;
    }
  };
  std::vector<int> shared(8, 0), own(8, 0);
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] { run(session, t, shared[t]); });
    for (std::thread &thread : threads)
      thread.join();
  }
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        rlx_session_t *mine = nullptr;
        if (rlx_status_t status = rlx_session_create(artifact, &mine)) {
          rlx_status_free(status);
          own[t] = -1;
          return;
        }
        rlx_tensor_t *w = makeF32({3, 2}, affineWeight());
        rlx_tensor_t *b = makeF32({2}, affineBias());
        bool bound =
            isOk(rlx_session_bind_tensor(mine, "layer.0.weight", w)) &&
            isOk(rlx_session_bind_tensor(mine, "layer.0.bias", b));
        rlx_tensor_release(w);
        rlx_tensor_release(b);
        if (bound)
          run(mine, t, own[t]);
        else
          own[t] = -1;
        rlx_session_release(mine);
      });
    for (std::thread &thread : threads)
      thread.join();
  }
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(shared[t], 0) << "shared session, thread " << t;
    EXPECT_EQ(own[t], 0) << "own session, thread " << t;
  }
}

TEST_F(CallTest, OutputsOutliveSessionAndArtifact) {
  bindAffineWeights();
  std::vector<float> x = affineInput(2);
  ASSERT_TRUE(isOk(call("affine", {makeF32({2, 3}, x)})));
  rlx_session_release(session);
  session = nullptr;
  rlx_artifact_release(artifact);
  artifact = nullptr;
  expectAffine(rlx_tensor_list_get(outputs, 0), x, 2);
}

} // namespace
