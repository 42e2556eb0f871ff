//===- CollectivesTest.cpp - Collectives and DataParallel on one replica --===//
///
/// \file
/// What needs no MPI: collectives traced and run on a single-replica
/// communicator (each is the identity, axis_index 0), the errors of a
/// collective with no communicator or the wrong axis size, trace-time
/// errors, the bucketing of DataParallel's gradients (counted in the traced
/// step) and its step on one replica against the plain step, bit for bit;
/// and an MPI communicator without MPI failing with a status. Several
/// replicas: test/mpi under mpirun.
///
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "rlx/frontend/Collectives.h"

#include <cstdlib>

using namespace rlx;
using namespace rlx::test;

namespace {

size_t countOf(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + part.size()))
    ++n;
  return n;
}

TEST(Collectives, SingleReplicaIsIdentity) {
  Func f("single", [](Scope &s) {
    Tensor x = s.input("x", {2, 3});
    return std::vector<Tensor>{psum(x, "r"),
                               pmean(x, "r"),
                               pmax(x, "r"),
                               pmin(x, "r"),
                               all_gather(x, "r", 1, 1),
                               psum_scatter(x, "r", 0, 1),
                               pbroadcast(x, "r"),
                               axis_index(s, "r")};
  });
  Compiled c = f.jit(Device::cpu());
  c.with_communicator(runtime::Communicator::single());
  std::vector<double> x = values(6, 1);
  Outputs out = c.run({{"x", Array::from(x, {2, 3})}});
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    std::vector<double> got(6);
    for (size_t j = 0; j < 6; ++j)
      got[j] = out[i].at(j);
    expectNear(got, x, 0, 1e-7);
  }
  EXPECT_EQ(out[7].item(), 0);
}

TEST(Collectives, RunErrors) {
  Func f("summed", [](Scope &s) { return psum(s.input("x", {3}), "r"); });
  Compiled alone = f.jit(Device::cpu());
  Array x = Array::from(std::vector<float>{1, 2, 3}, {3});
  EXPECT_NE(errorOf([&] { alone.run({{"x", x}}); })
                .find("rlx.all_reduce sum needs a communicator: set one on "
                      "the session"),
            std::string::npos);
  Func g("gathered", [](Scope &s) {
    return all_gather(s.input("x", {3}), "r", 0, 2);
  });
  Compiled gathered = g.jit(Device::cpu());
  gathered.with_communicator(runtime::Communicator::single());
  EXPECT_NE(errorOf([&] { gathered.run({{"x", x}}); })
                .find("all_gather over an axis of size 2 ran on a "
                      "communicator of 1 replicas"),
            std::string::npos);
}

TEST(Collectives, TraceErrors) {
  auto traced = [](auto body) {
    return errorOf([&] { Func("bad", body); });
  };
  EXPECT_NE(traced([](Scope &s) {
              return all_gather(s.input("x", {3}), "r", 1, 2);
            }).find("rlx::all_gather: dim 1 is out of range for f32[3]"),
            std::string::npos);
  EXPECT_NE(traced([](Scope &s) {
              return psum_scatter(s.input("x", {3}), "r", 0, 0);
            }).find("rlx::psum_scatter: axis_size must be >= 1, got 0"),
            std::string::npos);
  EXPECT_NE(traced([](Scope &s) {
              return psum_scatter(s.input("x", {3}), "r", 0, 2);
            }).find("expects operand dim 0 (3) to divide by axis_size 2"),
            std::string::npos);
  EXPECT_NE(traced([](Scope &s) {
              return pmean(s.input("i", {3}, DType::i32), "r");
            }).find("expects a float tensor for kind 'mean'"),
            std::string::npos);
  EXPECT_NE(traced([](Scope &s) { return psum(s.input("x", {3}), ""); })
                .find("expects a non-empty axis name"),
            std::string::npos);
}

Func regression() {
  return Func("reg", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 4});
    Tensor y = s.input("y", {dyn, 1});
    return mse(linear(s, "out", tanh(linear(s, "hidden", x, 8)), 1), y);
  });
}

TEST(Collectives, DataParallelBuckets) {
  Func loss = regression();
  DataParallel parallel;
  // The traced step's text with `parallel` as it is when called.
  auto stepText = [&] {
    return make_train_step(loss, Optimizer::adam(), Schedule::constant(0.01),
                           parallel)
        .func()
        .to_mlir();
  };
  // The default: every gradient in one bucket, plus the loss's mean.
  std::string one = stepText();
  EXPECT_EQ(countOf(one, "rlx.value_and_grad"), 1u);
  EXPECT_EQ(countOf(one, "rlx.all_reduce"), 2u) << one;
  // 0 bytes: one bucket per gradient (4 params), plus the loss.
  parallel.bucket_bytes = 0;
  std::string each = stepText();
  EXPECT_EQ(countOf(each, "rlx.all_reduce"), 5u) << each;
  // Buckets fill from the last param (out.bias, 4 bytes; out.weight, 32;
  // hidden.bias, 32; hidden.weight, 128): a first bucket closed at 36 bytes
  // holds the output layer's 9 gradients, the second the hidden layer's 40.
  parallel.bucket_bytes = 1 << 20;
  parallel.first_bucket_bytes = 36;
  std::string two = stepText();
  EXPECT_EQ(countOf(two, "rlx.all_reduce"), 3u) << two;
  // The line of the n-th all_reduce (from 0).
  auto allReduceLine = [&](int n) {
    size_t at = two.find("rlx.all_reduce");
    for (int i = 0; i < n && at != std::string::npos; ++i)
      at = two.find("rlx.all_reduce", at + 1);
    return at == std::string::npos ? std::string()
                                   : two.substr(at, two.find('\n', at) - at);
  };
  EXPECT_NE(allReduceLine(0).find("tensor<9xf32>"), std::string::npos) << two;
  EXPECT_NE(allReduceLine(1).find("tensor<40xf32>"), std::string::npos) << two;
  parallel.axis = "";
  EXPECT_NE(errorOf([&] {
              make_train_step(loss, Optimizer::adam(),
                              Schedule::constant(0.01), parallel);
            }).find("DataParallel::axis is empty"),
            std::string::npos);
}

TEST(Collectives, DataParallelOnOneReplicaIsThePlainStep) {
  Func loss = regression();
  DataParallel parallel;
  parallel.communicator =
      std::make_shared<runtime::Communicator>(runtime::Communicator::single());
  parallel.bucket_bytes = 100; // several buckets, concatenated and sliced
  TrainStep dp = make_train_step(loss, Optimizer::adam(),
                                 Schedule::constant(0.01), parallel);
  TrainStep plain =
      make_train_step(loss, Optimizer::adam(), Schedule::constant(0.01));
  dp.jit().init_randn(3);
  plain.jit().init_randn(3);
  EXPECT_EQ(dp.replicas(), 1);
  EXPECT_EQ(dp.replica(), 0);
  std::vector<double> x = values(32, 4), y = values(8, 5);
  std::map<std::string, Array> batch = {{"x", Array::from(x, {8, 4})},
                                        {"y", Array::from(y, {8, 1})}};
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(dp.step(batch), plain.step(batch));
  for (const std::string &p : loss.param_names()) {
    Array a = dp.param(p), b = plain.param(p);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(a.at(i), b.at(i)) << p << "[" << i << "]";
  }
}

TEST(Collectives, MpiWithoutTheShimIsAStatus) {
  setenv("RLX_MPI_SHIM", "/nonexistent/librlx-mpi.so", 1);
  try {
    runtime::Communicator::mpi();
    ADD_FAILURE() << "an MPI communicator without its shim";
  } catch (const runtime::RuntimeError &e) {
    EXPECT_EQ(e.code(), RLX_STATUS_FAILED_PRECONDITION);
    EXPECT_NE(std::string(e.what()).find("MPI is not available: "
                                         "/nonexistent/librlx-mpi.so"),
              std::string::npos)
        << e.what();
  }
  unsetenv("RLX_MPI_SHIM");
}

/// NCCL: here without a GPU, a status saying what is missing (NCCL, the
/// driver or a device); where NCCL and a device exist, a psum on one
/// replica through it.
TEST(Collectives, NcclIsAStatusOrWorks) {
  runtime::Communicator single = runtime::Communicator::single();
  try {
    runtime::Communicator nccl = runtime::Communicator::nccl(single);
    EXPECT_NE(nccl.description().find("NCCL"), std::string::npos);
    Func f("nccl_sum", [](Scope &s) { return psum(s.input("x", {3}), "r"); });
    Compiled c = f.jit(Device::cpu());
    c.with_communicator(nccl);
    Outputs out =
        c.run({{"x", Array::from(std::vector<float>{1, 2, 3}, {3})}});
    EXPECT_EQ(out[0].at(2), 3);
  } catch (const runtime::RuntimeError &e) {
    std::string message = e.what();
    EXPECT_EQ(e.code(), RLX_STATUS_FAILED_PRECONDITION) << message;
    bool known = message.rfind("NCCL is not available: ", 0) == 0 ||
                 (message.rfind("NCCL 2.", 0) == 0 &&
                  (message.find("loaded, but no CUDA driver") !=
                       std::string::npos ||
                   message.find("loaded, but no CUDA device") !=
                       std::string::npos));
    EXPECT_TRUE(known) << message;
    // With RLX_NCCL_LIBRARY naming a libnccl.so.2 (pip's
    // nvidia-nccl-cu12), NCCL itself must load.
    if (const char *path = std::getenv("RLX_NCCL_LIBRARY"); path && *path)
      EXPECT_EQ(message.rfind("NCCL 2.", 0), 0u) << message;
  }
}

} // namespace
