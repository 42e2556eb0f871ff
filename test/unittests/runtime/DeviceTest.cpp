//===- DeviceTest.cpp - GPU artifacts on Vulkan, CUDA and HIP -------------===//
//
/// \file
/// Runs the hand-written GPU artifact (gpu/fake_gpu_artifact.c) through the
/// public API: on Vulkan for real (Mesa's lavapipe runs it on the CPU), on
/// CUDA and HIP only as far as a machine without them allows (the status
/// that says so). The Vulkan tests skip on a machine with no Vulkan device
/// at all, and fail on any other Vulkan error.
//
//===----------------------------------------------------------------------===//

#include "rlx/runtime.hpp"

#include "TestUtil.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <thread>

using namespace rlx::test;

namespace {

/// The fake artifact's param p and the constant c its code uploads.
const float paramValues[4] = {0.25f, -1.0f, 2.0f, 0.5f};
const float constantValues[4] = {0.0f, 0.5f, 1.0f, 1.5f};

/// x[r, j] = (4r + j) / 4 - 7.
rlx_tensor_t *makeInput(int64_t rows) {
  std::vector<float> values(rows * 4);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i) * 0.25f - 7.0f;
  return makeF32({rows, 4}, values);
}

/// The loop `forward` computes: y = 2 x + c + p, row by row.
std::vector<float> forwardOf(const std::vector<float> &x) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = x[i] * 2.0f + constantValues[i % 4] + paramValues[i % 4];
  return y;
}

std::vector<float> valuesOf(rlx_tensor_t *tensor) {
  const float *data = static_cast<const float *>(rlx_tensor_data(tensor));
  return std::vector<float>(data, data + rlx_tensor_element_count(tensor));
}

/// The machine has no Vulkan device at all (as opposed to one that fails).
bool noVulkanHere(const std::string &message) {
  for (const char *reason :
       {"libvulkan.so.1 not found", "found no physical device",
        "no Vulkan driver is installed", "built without the Vulkan headers"})
    if (message.find(reason) != std::string::npos)
      return true;
  return false;
}

/// Whether `library` can be loaded here (a driver is installed).
bool loadable(const char *library) {
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle)
    dlclose(handle);
  return handle != nullptr;
}

/// Sets an environment variable for the life of a fixture.
class ScopedEnvironment {
public:
  void set(const char *name, const char *value) {
    setenv(name, value, 1);
    names.push_back(name);
  }
  ~ScopedEnvironment() {
    for (const char *name : names)
      unsetenv(name);
  }

private:
  std::vector<const char *> names;
};

/// A session of the Vulkan fake artifact; `p` bound unless a test says not.
class VulkanTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    if (!RLX_FAKE_GPU_HAS_SPIRV)
      GTEST_SKIP() << "built without glslangValidator: no SPIR-V kernels";
    configure(environment);
    ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_GPU_ARTIFACT, &artifact)));
    rlx_status_t status = rlx_session_create(artifact, &session);
    if (status) {
      std::string message = rlx_status_message(status);
      if (rlx_status_code(status) == RLX_STATUS_FAILED_PRECONDITION &&
          noVulkanHere(message)) {
        rlx_status_free(status);
        GTEST_SKIP() << message;
      }
      ASSERT_TRUE(isOk(status));
    }
    rlx_tensor_t *p = makeF32({4}, {paramValues, paramValues + 4});
    ASSERT_TRUE(isOk(rlx_session_bind_tensor(session, "p", p)));
    rlx_tensor_release(p);
  }
  void TearDown() override {
    rlx_session_release(session);
    rlx_artifact_release(artifact);
    TempDirTest::TearDown();
  }
  /// Environment the device must see when it opens.
  virtual void configure(ScopedEnvironment &) {}

  /// Calls `forward` on `x` and returns its output (owned).
  rlx_tensor_t *forward(rlx_tensor_t *x, bool on_device = false) {
    rlx_call_options_t options;
    rlx_call_options_initialize(&options);
    options.outputs_on_device = on_device;
    rlx_tensor_list_t *outputs = nullptr;
    rlx_status_t status = rlx_session_call_with_options(session, "forward", &x,
                                                        1, &options, &outputs);
    EXPECT_TRUE(isOk(status));
    if (!outputs)
      return nullptr;
    rlx_tensor_t *y = rlx_tensor_list_get(outputs, 0);
    rlx_tensor_retain(y);
    rlx_tensor_list_free(outputs);
    return y;
  }
  /// Checks forward(x) against the loop, for `rows` rows.
  void checkForward(int64_t rows) {
    rlx_tensor_t *x = makeInput(rows);
    rlx_tensor_t *y = forward(x);
    ASSERT_NE(y, nullptr);
    EXPECT_EQ(rlx_tensor_device(y), RLX_DEVICE_CPU);
    ASSERT_EQ(rlx_tensor_rank(y), 2u);
    EXPECT_EQ(rlx_tensor_dims(y)[0], rows);
    std::vector<float> expected = forwardOf(valuesOf(x));
    std::vector<float> actual = valuesOf(y);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_FLOAT_EQ(actual[i], expected[i]) << "element " << i;
    rlx_tensor_release(x);
    rlx_tensor_release(y);
  }
  rlx_status_t callWithoutInputs(const char *entry) {
    rlx_tensor_list_t *outputs = nullptr;
    rlx_status_t status =
        rlx_session_call(session, entry, nullptr, 0, &outputs);
    rlx_tensor_list_free(outputs);
    return status;
  }

  rlx_device_memory_t memory() {
    rlx_device_memory_t result{};
    EXPECT_TRUE(isOk(rlx_session_device_memory(session, &result)));
    return result;
  }

  ScopedEnvironment environment;
  rlx_artifact_t *artifact = nullptr;
  rlx_session_t *session = nullptr;
};

TEST_F(VulkanTest, SessionRunsOnTheArtifactsDevice) {
  EXPECT_EQ(rlx_artifact_device(artifact), RLX_DEVICE_VULKAN);
  EXPECT_STREQ(rlx_artifact_target(artifact), "vulkan");
  EXPECT_EQ(rlx_session_device(session), RLX_DEVICE_VULKAN);
  EXPECT_STRNE(rlx_session_device_description(session), "");
}

TEST_F(VulkanTest, ForwardMatchesALoop) {
  checkForward(1);
  checkForward(3);
  // Several workgroups, the last one partly idle.
  checkForward(100);
  // No rows: zero-byte buffers, an empty grid.
  checkForward(0);
}

TEST_F(VulkanTest, DownloadWaitsForTheKernels) {
  for (int64_t rows : {1, 100}) {
    rlx_tensor_t *x = makeInput(rows);
    rlx_tensor_list_t *outputs = nullptr;
    ASSERT_TRUE(isOk(rlx_session_call(session, "first", &x, 1, &outputs)));
    std::vector<float> z = valuesOf(rlx_tensor_list_get(outputs, 0));
    ASSERT_EQ(z.size(), 1u);
    EXPECT_FLOAT_EQ(z[0], forwardOf(valuesOf(x))[0]) << rows << " rows";
    rlx_tensor_list_free(outputs);
    rlx_tensor_release(x);
  }
}

TEST_F(VulkanTest, BindsParamsFromSafetensors) {
  writeSafetensors(path("p.safetensors"),
                   {{"p", makeF32({4}, {paramValues, paramValues + 4})}});
  rlx_tensor_t *zero = makeF32({4}, {0, 0, 0, 0});
  ASSERT_TRUE(isOk(rlx_session_bind_tensor(session, "p", zero)));
  rlx_tensor_release(zero);
  ASSERT_TRUE(isOk(rlx_session_bind_safetensors(
      session, path("p.safetensors").c_str(), nullptr)));
  checkForward(5);
}

TEST_F(VulkanTest, RebindingReplacesTheDeviceCopy) {
  rlx_tensor_t *x = makeInput(2);
  rlx_tensor_t *before = forward(x);
  rlx_tensor_t *ones = makeF32({4}, {1, 1, 1, 1});
  ASSERT_TRUE(isOk(rlx_session_bind_tensor(session, "p", ones)));
  rlx_tensor_release(ones);
  rlx_tensor_t *after = forward(x);
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  std::vector<float> b = valuesOf(before), a = valuesOf(after);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_FLOAT_EQ(a[i] - b[i], 1.0f - paramValues[i % 4]);
  rlx_tensor_release(x);
  rlx_tensor_release(before);
  rlx_tensor_release(after);
}

TEST_F(VulkanTest, UnboundParamIsAnError) {
  rlx_session_t *fresh = nullptr;
  ASSERT_TRUE(isOk(rlx_session_create(artifact, &fresh)));
  rlx_tensor_t *x = makeInput(1);
  rlx_tensor_list_t *outputs = nullptr;
  EXPECT_TRUE(statusIs(rlx_session_call(fresh, "forward", &x, 1, &outputs),
                       RLX_STATUS_FAILED_PRECONDITION, {"'p'", "not bound"}));
  rlx_tensor_release(x);
  rlx_session_release(fresh);
}

TEST_F(VulkanTest, DeviceResidentOutputFeedsTheNextCall) {
  rlx_tensor_t *x = makeInput(7);
  rlx_tensor_t *y = forward(x, /*on_device=*/true);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(rlx_tensor_device(y), RLX_DEVICE_VULKAN);
  EXPECT_EQ(rlx_tensor_data(y), nullptr);
  EXPECT_EQ(rlx_tensor_dims(y)[0], 7);
  double value = 0;
  EXPECT_TRUE(statusIs(rlx_tensor_get_f64(y, 0, &value),
                       RLX_STATUS_FAILED_PRECONDITION,
                       {"vulkan device memory", "rlx_tensor_to_host"}));
  EXPECT_TRUE(statusIs(rlx_npy_write(path("y.npy").c_str(), y),
                       RLX_STATUS_FAILED_PRECONDITION, {"y.npy"}));

  // The device tensor goes straight back in.
  rlx_tensor_t *z = forward(y);
  ASSERT_NE(z, nullptr);
  std::vector<float> once = forwardOf(valuesOf(x));
  std::vector<float> twice = forwardOf(once);
  std::vector<float> actual = valuesOf(z);
  for (size_t i = 0; i < twice.size(); ++i)
    EXPECT_FLOAT_EQ(actual[i], twice[i]) << "element " << i;

  // And reads back on request.
  rlx_tensor_t *host = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_to_host(y, &host)));
  EXPECT_EQ(rlx_tensor_device(host), RLX_DEVICE_CPU);
  std::vector<float> back = valuesOf(host);
  for (size_t i = 0; i < once.size(); ++i)
    EXPECT_FLOAT_EQ(back[i], once[i]) << "element " << i;
  // A host tensor is its own host copy.
  rlx_tensor_t *same = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_to_host(host, &same)));
  EXPECT_EQ(same, host);
  rlx_tensor_release(same);
  rlx_tensor_release(host);
  rlx_tensor_release(x);
  rlx_tensor_release(y);
  rlx_tensor_release(z);
}

/// An output 16 bytes into its memory is copied to memory of its own when
/// it stays on the device (a kernel could not bind it there everywhere).
TEST_F(VulkanTest, DeviceResidentViewAtAnOffset) {
  rlx_tensor_t *x = makeInput(3);
  rlx_call_options_t options;
  rlx_call_options_initialize(&options);
  options.outputs_on_device = 1;
  rlx_tensor_list_t *outputs = nullptr;
  ASSERT_TRUE(isOk(rlx_session_call_with_options(session, "tail", &x, 1,
                                                 &options, &outputs)));
  rlx_tensor_t *y = rlx_tensor_list_get(outputs, 0);
  EXPECT_EQ(rlx_tensor_device(y), RLX_DEVICE_VULKAN);
  EXPECT_EQ(rlx_tensor_dims(y)[0], 2);
  std::vector<float> all = forwardOf(valuesOf(x));
  std::vector<float> tail(all.begin() + 4, all.end());
  rlx_tensor_t *z = forward(y);
  ASSERT_NE(z, nullptr);
  std::vector<float> expected = forwardOf(tail), actual = valuesOf(z);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_FLOAT_EQ(actual[i], expected[i]) << "element " << i;
  rlx_tensor_t *host = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_to_host(y, &host)));
  EXPECT_EQ(valuesOf(host), tail);
  rlx_tensor_release(host);
  rlx_tensor_release(z);
  rlx_tensor_list_free(outputs);
  // Downloaded, the view is read from its offset too.
  ASSERT_TRUE(isOk(rlx_session_call(session, "tail", &x, 1, &outputs)));
  EXPECT_EQ(valuesOf(rlx_tensor_list_get(outputs, 0)), tail);
  rlx_tensor_list_free(outputs);
  rlx_tensor_release(x);
}

/// A strided output is gathered into row-major order, on the host or back
/// on the device.
TEST_F(VulkanTest, StridedOutput) {
  rlx_tensor_t *x = makeInput(3);
  std::vector<float> rows = forwardOf(valuesOf(x)), expected;
  for (int j = 0; j < 4; ++j)
    for (int r = 0; r < 3; ++r)
      expected.push_back(rows[r * 4 + j]);
  for (int on_device = 0; on_device < 2; ++on_device) {
    rlx_call_options_t options;
    rlx_call_options_initialize(&options);
    options.outputs_on_device = on_device;
    rlx_tensor_list_t *outputs = nullptr;
    ASSERT_TRUE(isOk(rlx_session_call_with_options(session, "transposed", &x, 1,
                                                   &options, &outputs)));
    rlx_tensor_t *y = rlx_tensor_list_get(outputs, 0);
    EXPECT_EQ(rlx_tensor_device(y),
              on_device ? RLX_DEVICE_VULKAN : RLX_DEVICE_CPU);
    EXPECT_EQ(rlx_tensor_dims(y)[0], 4);
    EXPECT_EQ(rlx_tensor_dims(y)[1], 3);
    rlx_tensor_t *host = nullptr;
    ASSERT_TRUE(isOk(rlx_tensor_to_host(y, &host)));
    EXPECT_EQ(valuesOf(host), expected);
    rlx_tensor_release(host);
    rlx_tensor_list_free(outputs);
  }
  rlx_tensor_release(x);
}

TEST_F(VulkanTest, DeviceTensorsOutliveTheirSession) {
  rlx_tensor_t *x = makeInput(3);
  rlx_tensor_t *y = forward(x, /*on_device=*/true);
  ASSERT_NE(y, nullptr);
  rlx_session_release(session);
  session = nullptr;
  rlx_tensor_t *host = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_to_host(y, &host)));
  std::vector<float> expected = forwardOf(valuesOf(x)), actual = valuesOf(host);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_FLOAT_EQ(actual[i], expected[i]);
  rlx_tensor_release(host);
  rlx_tensor_release(y);
  rlx_tensor_release(x);
}

TEST_F(VulkanTest, UploadedInputsAndWeightsAreUsedInPlace) {
  rlx_tensor_t *x = makeInput(4);
  rlx_tensor_t *on_device = nullptr;
  ASSERT_TRUE(isOk(rlx_session_to_device(session, x, &on_device)));
  EXPECT_EQ(rlx_tensor_device(on_device), RLX_DEVICE_VULKAN);
  // Already there: the same tensor back.
  rlx_tensor_t *again = nullptr;
  ASSERT_TRUE(isOk(rlx_session_to_device(session, on_device, &again)));
  EXPECT_EQ(again, on_device);
  rlx_tensor_release(again);

  rlx_tensor_t *p = makeF32({4}, {paramValues, paramValues + 4});
  rlx_tensor_t *pOnDevice = nullptr;
  ASSERT_TRUE(isOk(rlx_session_to_device(session, p, &pOnDevice)));
  ASSERT_TRUE(isOk(rlx_session_bind_tensor(session, "p", pOnDevice)));
  rlx_tensor_t *bound = nullptr;
  ASSERT_TRUE(isOk(rlx_session_lookup_weight(session, "p", &bound)));
  EXPECT_EQ(bound, pOnDevice);
  rlx_tensor_release(bound);

  rlx_tensor_t *y = forward(on_device);
  ASSERT_NE(y, nullptr);
  std::vector<float> expected = forwardOf(valuesOf(x)), actual = valuesOf(y);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_FLOAT_EQ(actual[i], expected[i]);
  rlx_tensor_release(y);
  rlx_tensor_release(p);
  rlx_tensor_release(pOnDevice);
  rlx_tensor_release(on_device);
  rlx_tensor_release(x);
}

TEST_F(VulkanTest, Float64Kernel) {
  std::vector<double> values = {1.5, -2.25, 1e300, 3.0};
  int64_t dims[1] = {4};
  rlx_tensor_t *x = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_F64, 1, dims, &x)));
  std::memcpy(rlx_tensor_data(x), values.data(), sizeof(double) * 4);
  rlx_tensor_list_t *outputs = nullptr;
  ASSERT_TRUE(isOk(rlx_session_call(session, "twice", &x, 1, &outputs)));
  const double *y = static_cast<const double *>(
      rlx_tensor_data(rlx_tensor_list_get(outputs, 0)));
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(y[i], 2 * values[i]);
  rlx_tensor_list_free(outputs);
  rlx_tensor_release(x);
}

/// Calls reuse the memory earlier calls freed: the same numbers every
/// time, nothing left live, the cache no larger than one call needs.
TEST_F(VulkanTest, ManyCallsReuseTheirMemory) {
  checkForward(10);
  rlx_device_memory_t first = memory();
  EXPECT_GT(first.live_bytes, 0u); // p
  EXPECT_GT(first.cached_bytes, 0u);
  EXPECT_LE(first.cached_bytes, first.cache_limit_bytes);
  for (int call = 0; call < 200; ++call)
    checkForward(10);
  rlx_device_memory_t after = memory();
  EXPECT_EQ(after.live_bytes, first.live_bytes);
  EXPECT_EQ(after.cached_bytes, first.cached_bytes);
  // Other sizes take other size classes; the cache stays capped.
  for (int rows = 1; rows < 300; rows += 7)
    checkForward(rows);
  after = memory();
  EXPECT_EQ(after.live_bytes, first.live_bytes);
  EXPECT_LE(after.cached_bytes, after.cache_limit_bytes);
}

TEST_F(VulkanTest, DeviceTensorsKeepTheirMemoryOutOfThePool) {
  rlx_tensor_t *x = makeInput(6);
  rlx_device_memory_t before = memory();
  rlx_tensor_t *y = forward(x, /*on_device=*/true);
  ASSERT_NE(y, nullptr);
  EXPECT_GT(memory().live_bytes, before.live_bytes);
  // Calls that reuse freed blocks do not hand out y's.
  for (int call = 0; call < 20; ++call)
    checkForward(6);
  rlx_tensor_t *host = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_to_host(y, &host)));
  EXPECT_EQ(valuesOf(host), forwardOf(valuesOf(x)));
  rlx_tensor_release(host);
  rlx_tensor_release(y);
  EXPECT_EQ(memory().live_bytes, before.live_bytes);
  rlx_tensor_release(x);
}

TEST_F(VulkanTest, DeviceOutOfMemoryIsResourceExhausted) {
  // With blocks cached, too.
  checkForward(2);
  EXPECT_TRUE(statusIs(
      callWithoutInputs("huge"), RLX_STATUS_RESOURCE_EXHAUSTED,
      {"entry point 'huge'", "device memory", "1125899906842624 bytes"}));
  // The session goes on working.
  checkForward(2);
}

TEST_F(VulkanTest, UnknownKernelFailsTheCall) {
  EXPECT_TRUE(statusIs(callWithoutInputs("bad_kernel"), RLX_STATUS_INTERNAL,
                       {"entry point 'bad_kernel'", "no kernel 'nope'",
                        "forward_kernel_0", "'scale_add'"}));
  checkForward(2);
}

TEST_F(VulkanTest, OutputMustBeMemoryOfTheCall) {
  rlx_tensor_t *x = makeF32({4}, {1, 2, 3, 4});
  rlx_tensor_list_t *outputs = nullptr;
  EXPECT_TRUE(statusIs(rlx_session_call(session, "alias", &x, 1, &outputs),
                       RLX_STATUS_INTERNAL,
                       {"output 'y'", "not allocated by this call"}));
  // A device tensor input is not the call's either.
  rlx_tensor_t *on_device = nullptr;
  ASSERT_TRUE(isOk(rlx_session_to_device(session, x, &on_device)));
  EXPECT_TRUE(
      statusIs(rlx_session_call(session, "alias", &on_device, 1, &outputs),
               RLX_STATUS_INTERNAL, {"not allocated by this call"}));
  // The input is intact.
  rlx_tensor_t *host = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_to_host(on_device, &host)));
  EXPECT_EQ(valuesOf(host), (std::vector<float>{1, 2, 3, 4}));
  rlx_tensor_release(host);
  rlx_tensor_release(on_device);
  rlx_tensor_release(x);
}

TEST_F(VulkanTest, ConcurrentCallsOnOneSession) {
  rlx_device_memory_t before = memory();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int call = 0; call < 10; ++call) {
        rlx_tensor_t *x = makeInput(1 + t * 10 + call);
        rlx_tensor_list_t *outputs = nullptr;
        rlx_status_t status =
            rlx_session_call(session, "forward", &x, 1, &outputs);
        if (status) {
          ++failures[t];
          rlx_status_free(status);
        } else {
          std::vector<float> expected = forwardOf(valuesOf(x));
          std::vector<float> actual = valuesOf(rlx_tensor_list_get(outputs, 0));
          failures[t] += actual != expected;
        }
        rlx_tensor_list_free(outputs);
        rlx_tensor_release(x);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  rlx_device_memory_t after = memory();
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_LE(after.cached_bytes, after.cache_limit_bytes);
}

TEST_F(VulkanTest, CppWrapper) {
  rlx::runtime::Artifact artifact =
      rlx::runtime::Artifact::load(RLX_FAKE_GPU_ARTIFACT);
  EXPECT_EQ(artifact.device(), RLX_DEVICE_VULKAN);
  rlx::runtime::Session session(artifact, rlx::runtime::parse_device("vulkan"));
  EXPECT_EQ(session.device(), RLX_DEVICE_VULKAN);
  std::vector<float> p(paramValues, paramValues + 4);
  session.bind_tensor(
      "p", rlx::runtime::HostTensor::borrow(RLX_DTYPE_F32, {4}, p.data()));
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  rlx::runtime::HostTensor input =
      rlx::runtime::HostTensor::borrow(RLX_DTYPE_F32, {2, 4}, x.data());
  rlx::runtime::HostTensor on_device = session.to_device(input);
  EXPECT_TRUE(on_device.on_device());
  rlx::runtime::TensorList first =
      session.call("forward", {&on_device}, {true});
  rlx::runtime::HostTensor y = first.at("y");
  EXPECT_EQ(y.device(), RLX_DEVICE_VULKAN);
  rlx::runtime::TensorList second = session.call("forward", {&y});
  rlx::runtime::HostTensor z = second.at(0);
  EXPECT_FALSE(z.on_device());
  std::vector<float> expected = forwardOf(forwardOf(x));
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_FLOAT_EQ(z.data<float>()[i], expected[i]);
  std::vector<float> once = forwardOf(x);
  rlx::runtime::HostTensor yHost = y.to_host();
  for (size_t i = 0; i < once.size(); ++i)
    EXPECT_FLOAT_EQ(yHost.data<float>()[i], once[i]);
  try {
    rlx::runtime::Session(artifact, RLX_DEVICE_CUDA);
    ADD_FAILURE() << "a CUDA session of a Vulkan artifact";
  } catch (const rlx::runtime::RuntimeError &error) {
    EXPECT_EQ(error.code(), RLX_STATUS_INVALID_ARGUMENT);
  }
}

/// Data moves through staging buffers, as on a discrete GPU.
class VulkanStagingTest : public VulkanTest {
  void configure(ScopedEnvironment &environment) override {
    environment.set("RLX_VULKAN_STAGING", "1");
  }
};

TEST_F(VulkanStagingTest, ForwardAndChainMatchALoop) {
  checkForward(3);
  {
    rlx_tensor_t *x = makeInput(4);
    rlx_tensor_list_t *outputs = nullptr;
    ASSERT_TRUE(isOk(rlx_session_call(session, "first", &x, 1, &outputs)));
    EXPECT_FLOAT_EQ(valuesOf(rlx_tensor_list_get(outputs, 0))[0],
                    forwardOf(valuesOf(x))[0]);
    rlx_tensor_list_free(outputs);
    rlx_tensor_release(x);
  }
  checkForward(100);
  rlx_tensor_t *x = makeInput(5);
  rlx_tensor_t *y = forward(x, /*on_device=*/true);
  ASSERT_NE(y, nullptr);
  rlx_tensor_t *z = forward(y);
  ASSERT_NE(z, nullptr);
  std::vector<float> expected = forwardOf(forwardOf(valuesOf(x)));
  std::vector<float> actual = valuesOf(z);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_FLOAT_EQ(actual[i], expected[i]);
  rlx_tensor_release(x);
  rlx_tensor_release(y);
  rlx_tensor_release(z);
}

/// RLX_DEVICE_POOL_MB=0: every free goes back to the driver.
class VulkanWithoutPoolTest : public VulkanTest {
  void configure(ScopedEnvironment &environment) override {
    environment.set("RLX_DEVICE_POOL_MB", "0");
  }
};

TEST_F(VulkanWithoutPoolTest, CachesNothing) {
  for (int call = 0; call < 5; ++call)
    checkForward(30);
  rlx_device_memory_t stats = memory();
  EXPECT_EQ(stats.cache_limit_bytes, 0u);
  EXPECT_EQ(stats.cached_bytes, 0u);
  EXPECT_GT(stats.live_bytes, 0u); // p
}

/// A device without 64-bit floats.
class VulkanWithoutFloat64Test : public VulkanTest {
  void configure(ScopedEnvironment &environment) override {
    environment.set("RLX_VULKAN_DISABLE", "shaderFloat64");
  }
};

TEST_F(VulkanWithoutFloat64Test, ModuleNeedingItIsRefused) {
  int64_t dims[1] = {2};
  rlx_tensor_t *x = nullptr;
  ASSERT_TRUE(isOk(rlx_tensor_allocate(RLX_DTYPE_F64, 1, dims, &x)));
  rlx_tensor_list_t *outputs = nullptr;
  EXPECT_TRUE(statusIs(rlx_session_call(session, "twice", &x, 1, &outputs),
                       RLX_STATUS_FAILED_PRECONDITION,
                       {"lacks shaderFloat64", "double_kernel", "Float64"}));
  rlx_tensor_release(x);
  // Modules that need no such feature still run.
  checkForward(2);
}

TEST(DeviceTest, CpuSessionHasNoDeviceMemory) {
  rlx_artifact_t *artifact = nullptr;
  ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_ARTIFACT, &artifact)));
  rlx_session_t *session = nullptr;
  ASSERT_TRUE(isOk(rlx_session_create(artifact, &session)));
  rlx_device_memory_t memory{1, 1, 1};
  ASSERT_TRUE(isOk(rlx_session_device_memory(session, &memory)));
  EXPECT_EQ(memory.live_bytes + memory.cached_bytes + memory.cache_limit_bytes,
            0u);
  EXPECT_TRUE(statusIs(rlx_session_device_memory(session, nullptr),
                       RLX_STATUS_INVALID_ARGUMENT, {"out_memory"}));
  rlx_session_release(session);
  rlx_artifact_release(artifact);
}

TEST(DeviceTest, ParsesAndNamesDevices) {
  rlx_device_t device = RLX_DEVICE_DEFAULT;
  ASSERT_TRUE(isOk(rlx_device_parse("hip", &device)));
  EXPECT_EQ(device, RLX_DEVICE_HIP);
  EXPECT_STREQ(rlx_device_name(RLX_DEVICE_VULKAN), "vulkan");
  EXPECT_STREQ(rlx_device_name(RLX_DEVICE_CPU), "cpu");
  EXPECT_TRUE(statusIs(rlx_device_parse("rocm", &device),
                       RLX_STATUS_INVALID_ARGUMENT,
                       {"'rocm'", "cpu, vulkan, cuda, hip"}));
}

TEST(DeviceTest, AskingForAnotherDeviceIsAnError) {
  rlx_artifact_t *artifact = nullptr;
  ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_GPU_ARTIFACT, &artifact)));
  rlx_session_options_t options;
  rlx_session_options_initialize(&options);
  options.device = RLX_DEVICE_CUDA;
  rlx_session_t *session = nullptr;
  EXPECT_TRUE(statusIs(
      rlx_session_create_with_options(artifact, &options, &session),
      RLX_STATUS_INVALID_ARGUMENT, {"was compiled for vulkan, not cuda"}));
  options.device = RLX_DEVICE_CPU;
  EXPECT_TRUE(statusIs(
      rlx_session_create_with_options(artifact, &options, &session),
      RLX_STATUS_INVALID_ARGUMENT, {"was compiled for vulkan, not cpu"}));
  rlx_artifact_release(artifact);

  ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_ARTIFACT, &artifact)));
  EXPECT_EQ(rlx_artifact_device(artifact), RLX_DEVICE_CPU);
  options.device = RLX_DEVICE_VULKAN;
  EXPECT_TRUE(statusIs(
      rlx_session_create_with_options(artifact, &options, &session),
      RLX_STATUS_INVALID_ARGUMENT, {"was compiled for cpu, not vulkan"}));
  options.device = RLX_DEVICE_CPU;
  ASSERT_TRUE(
      isOk(rlx_session_create_with_options(artifact, &options, &session)));
  EXPECT_EQ(rlx_session_device(session), RLX_DEVICE_CPU);
  EXPECT_STREQ(rlx_session_device_description(session), "cpu");
  rlx_session_release(session);
  rlx_artifact_release(artifact);
}

/// Without the driver the session says so; with it (a CUDA machine) the
/// artifact's PTX runs.
TEST(DeviceTest, CudaWithoutADriverIsAClearStatus) {
  rlx_artifact_t *artifact = nullptr;
  ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_GPU_ARTIFACT_CUDA, &artifact)));
  EXPECT_EQ(rlx_artifact_device(artifact), RLX_DEVICE_CUDA);
  rlx_session_t *session = nullptr;
  rlx_status_t status = rlx_session_create(artifact, &session);
  if (status) {
    if (loadable("libcuda.so.1"))
      EXPECT_TRUE(
          statusIs(status, RLX_STATUS_FAILED_PRECONDITION, {"no CUDA device"}));
    else
      EXPECT_TRUE(statusIs(status, RLX_STATUS_FAILED_PRECONDITION,
                           {"no CUDA driver (libcuda.so.1 not found"}));
  } else {
    rlx_tensor_t *p = makeF32({4}, {paramValues, paramValues + 4});
    ASSERT_TRUE(isOk(rlx_session_bind_tensor(session, "p", p)));
    rlx_tensor_t *x = makeInput(100);
    rlx_tensor_list_t *outputs = nullptr;
    ASSERT_TRUE(isOk(rlx_session_call(session, "forward", &x, 1, &outputs)));
    std::vector<float> expected = forwardOf(valuesOf(x));
    std::vector<float> actual = valuesOf(rlx_tensor_list_get(outputs, 0));
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_FLOAT_EQ(actual[i], expected[i]);
    rlx_tensor_list_free(outputs);
    rlx_tensor_release(x);
    rlx_tensor_release(p);
  }
  rlx_session_release(session);
  rlx_artifact_release(artifact);
}

TEST(DeviceTest, HipWithoutARuntimeIsAClearStatus) {
  rlx_artifact_t *artifact = nullptr;
  ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_GPU_ARTIFACT_ROCM, &artifact)));
  EXPECT_EQ(rlx_artifact_device(artifact), RLX_DEVICE_HIP);
  EXPECT_STREQ(rlx_artifact_target(artifact), "rocm");
  rlx_session_t *session = nullptr;
  rlx_status_t status = rlx_session_create(artifact, &session);
  if (!status) {
    rlx_session_release(session);
    rlx_artifact_release(artifact);
    GTEST_SKIP() << "a HIP device is present; the fake artifact has no "
                    "real hsaco to run on it";
  }
  // The runtime tries the same three names.
  if (loadable("libamdhip64.so") || loadable("libamdhip64.so.6") ||
      loadable("libamdhip64.so.5"))
    EXPECT_TRUE(
        statusIs(status, RLX_STATUS_FAILED_PRECONDITION, {"no HIP device"}));
  else
    EXPECT_TRUE(statusIs(status, RLX_STATUS_FAILED_PRECONDITION,
                         {"no HIP runtime (libamdhip64.so not found"}));
  rlx_artifact_release(artifact);
}

TEST(DeviceTest, MissingHookIsAMalformedArtifact) {
  rlx_artifact_t *artifact = nullptr;
  EXPECT_TRUE(statusIs(
      rlx_artifact_load(RLX_FAKE_GPU_ARTIFACT_NO_LAUNCH_HOOK, &artifact),
      RLX_STATUS_DATA_LOSS,
      {"malformed artifact", "target is 'vulkan'",
       "rlx_artifact_device_launch_hook"}));
  EXPECT_EQ(artifact, nullptr);
}

TEST(DeviceTest, CpuSessionRefusesDeviceTensors) {
  if (!RLX_FAKE_GPU_HAS_SPIRV)
    GTEST_SKIP() << "built without glslangValidator";
  rlx_artifact_t *gpuArtifact = nullptr, *cpuArtifact = nullptr;
  rlx_session_t *gpu = nullptr, *cpu = nullptr;
  ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_GPU_ARTIFACT, &gpuArtifact)));
  rlx_status_t status = rlx_session_create(gpuArtifact, &gpu);
  if (status) {
    std::string message = rlx_status_message(status);
    rlx_status_free(status);
    rlx_artifact_release(gpuArtifact);
    if (noVulkanHere(message))
      GTEST_SKIP() << message;
    FAIL() << message;
  }
  ASSERT_TRUE(isOk(rlx_artifact_load(RLX_FAKE_ARTIFACT, &cpuArtifact)));
  ASSERT_TRUE(isOk(rlx_session_create(cpuArtifact, &cpu)));
  rlx_tensor_t *x = makeF32({1, 3}, {1, 2, 3});
  rlx_tensor_t *on_device = nullptr;
  ASSERT_TRUE(isOk(rlx_session_to_device(gpu, x, &on_device)));
  rlx_tensor_list_t *outputs = nullptr;
  EXPECT_TRUE(statusIs(
      rlx_session_call(cpu, "affine", &on_device, 1, &outputs),
      RLX_STATUS_INVALID_ARGUMENT,
      {"input 0 ('x')", "vulkan device memory", "session runs on cpu"}));
  rlx_tensor_t *bias = makeF32({2}, {0, 0});
  rlx_tensor_t *biasOnDevice = nullptr;
  ASSERT_TRUE(isOk(rlx_session_to_device(gpu, bias, &biasOnDevice)));
  EXPECT_TRUE(statusIs(
      rlx_session_bind_tensor(cpu, "layer.0.bias", biasOnDevice),
      RLX_STATUS_INVALID_ARGUMENT, {"weight 'layer.0.bias'", "vulkan"}));
  rlx_tensor_release(bias);
  rlx_tensor_release(biasOnDevice);
  rlx_tensor_release(on_device);
  rlx_tensor_release(x);
  rlx_session_release(cpu);
  rlx_session_release(gpu);
  rlx_artifact_release(cpuArtifact);
  rlx_artifact_release(gpuArtifact);
}

} // namespace
