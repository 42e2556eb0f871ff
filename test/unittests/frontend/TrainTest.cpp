//===- TrainTest.cpp - Schedules, train steps, checkpoints ----------------===//
///
/// \file
/// The compiled train step around an optimizer: schedules, auxiliary
/// outputs, checkpoints, shape specialization, rlxc export and Vulkan. The
/// optimizers themselves are checked in OptimTest.cpp.
///
//===----------------------------------------------------------------------===//

#include "TrainReference.h"

#include <cmath>

using namespace rlx;
using namespace rlx::test;
using Rule = HostOptimizer::Rule;

namespace {

TEST(Train, Schedules) {
  EXPECT_DOUBLE_EQ(Schedule::constant(0.1).at(7), 0.1);
  Schedule st = Schedule::step(1.0, 2, 0.5);
  EXPECT_DOUBLE_EQ(st.at(1), 1.0);
  EXPECT_DOUBLE_EQ(st.at(2), 1.0);
  EXPECT_DOUBLE_EQ(st.at(3), 0.5);
  EXPECT_DOUBLE_EQ(st.at(5), 0.25);
  Schedule cos = Schedule::cosine(1.0, 10, 0.1);
  EXPECT_DOUBLE_EQ(cos.at(1), 1.0);
  EXPECT_NEAR(cos.at(6), 0.55, 1e-12);
  EXPECT_NEAR(cos.at(11), 0.1, 1e-12);
  Schedule warm = Schedule::warmup(4, Schedule::constant(2.0));
  EXPECT_DOUBLE_EQ(warm.at(1), 0.5);
  EXPECT_DOUBLE_EQ(warm.at(4), 2.0);
  EXPECT_DOUBLE_EQ(warm.at(9), 2.0);
  // A schedule drives the compiled step.
  HostOptimizer momentum;
  momentum.momentum = 0.5;
  expectTrainsLike(Optimizer::sgd(0.5), momentum,
                   Schedule::warmup(2, Schedule::cosine(0.2, 3)));
}

/// A small regression MLP in f32.
Func regression() {
  return Func("reg", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 4});
    Tensor y = s.input("y", {dyn, 1});
    return mse(linear(s, "out", tanh(linear(s, "hidden", x, 8)), 1), y);
  });
}

/// Adam after clipping the global norm to 1.
optim::GradientTransformation adamClipped() {
  return optim::chain(optim::clip_by_global_norm(1.0), Optimizer::adam());
}

std::map<std::string, Array> regressionBatch() {
  std::vector<double> x = test::values(32 * 4, 3), y(32);
  for (int r = 0; r < 32; ++r)
    y[r] = std::sin(x[r * 4]) + 0.5 * x[r * 4 + 1] * x[r * 4 + 2];
  return {{"x", Array::from(x, {32, 4})}, {"y", Array::from(y, {32, 1})}};
}

TEST(Train, LossDecreasesAndCheckpointsResume) {
  std::string dir = test::freshDir("ckpt");
  auto batch = regressionBatch();
  TrainStep a =
      make_train_step(regression(), adamClipped(), Schedule::constant(0.02));
  a.jit().init_randn(7, 0.5);
  double first = a.step(batch);
  for (int i = 0; i < 50; ++i)
    a.step(batch);
  double later = a.step(batch);
  EXPECT_LT(later, 0.5 * first);
  a.save(dir + "/ckpt.safetensors");
  TrainStep b =
      make_train_step(regression(), adamClipped(), Schedule::constant(0.02));
  b.jit().init_randn(99, 0.5);
  b.load(dir + "/ckpt.safetensors");
  EXPECT_EQ(b.steps_done(), a.steps_done());
  double la = a.step(batch), lb = b.step(batch);
  EXPECT_EQ(la, lb);
  for (const std::string &p : a.param_names())
    EXPECT_EQ(a.param(p).to_vector(), b.param(p).to_vector()) << p;
  // Params alone bind into the inference function by name.
  a.save_params(dir + "/params.safetensors");
  Compiled forward = regression().jit(Device::cpu());
  forward.load_params(dir + "/params.safetensors");
  EXPECT_NEAR(forward.run(batch)[0].item(), a.step(batch), 1e-6);
}

TEST(Train, SpecializedStepMatchesTheDynamicOne) {
  auto batch = regressionBatch();
  JitOptions special;
  special.specialize_shapes = true;
  TrainStep dynamic =
      make_train_step(regression(), adamClipped(), Schedule::constant(0.02));
  TrainStep fixed =
      make_train_step(regression(), adamClipped(), Schedule::constant(0.02));
  dynamic.jit().init_randn(3, 0.5);
  fixed.jit(Device::cpu(), special).init_randn(3, 0.5);
  unsigned compiles = cache_stats().compiles;
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(fixed.step(batch), dynamic.step(batch), 1e-5);
  // One specialization for the one batch shape (or none: cached on disk).
  EXPECT_LE(cache_stats().compiles, compiles + 1);
  EXPECT_EQ(fixed.last_outputs()["new.hidden.weight"].type_string(),
            "f32[4,8]");
  expectNear(fixed.param("out.weight").to_vector(),
             dynamic.param("out.weight").to_vector(), 1e-4, 1e-5);
}

TEST(Train, ExportedStepCompilesWithRlxcAndMatchesJit) {
  std::string dir = test::freshDir("step");
  auto batch = regressionBatch();
  TrainStep step = make_train_step(regression(), Optimizer::adamw(0.01),
                                   Schedule::constant(0.01));
  step.func().export_mlir(dir + "/step.mlir");
  std::string cmd =
      std::string(RLXC_PATH) + " " + dir + "/step.mlir -o " + dir + "/step.so";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  step.jit().init_randn(1, 0.3);
  step.save_params(dir + "/w.safetensors");
  // One step through the deployable library: inputs by manifest order.
  runtime::Artifact artifact = runtime::Artifact::load(dir + "/step.so");
  runtime::Session session(artifact);
  session.bind_safetensors(dir + "/w.safetensors");
  std::map<std::string, Array> all = batch;
  all["lr"] = Array::scalar(0.01);
  all["step"] = Array::scalar(1);
  Func model = regression();
  for (const detail::Arg &p : model.params()) {
    all["m." + p.name] = Array::zeros(p.type.shape);
    all["v." + p.name] = Array::zeros(p.type.shape);
  }
  std::vector<const runtime::HostTensor *> inputs;
  for (const runtime::TensorSpec &spec :
       artifact.entry_point(step.func().name()).inputs())
    inputs.push_back(&all.at(spec.name).host());
  runtime::TensorList out = session.call(step.func().name(), inputs);
  double loss = step.step(batch);
  EXPECT_EQ(Array(out.at("loss")).item(), loss);
  for (const std::string &p : step.param_names())
    expectNear(Array(out.at("new." + p)).to_vector(), step.param(p).to_vector(),
               0, 0);
}

TEST(Train, AuxiliaryOutputsComeBackUndifferentiated) {
  Func loss("with_aux", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {3}, f64);
    Tensor w = s.param("w", {3}, f64);
    return {(0.5 * sum(square(w - x))).named("l"),
            sum(w * 100.0).named("score")};
  });
  TrainStep step =
      make_train_step(loss, Optimizer::sgd(), Schedule::constant(0.1));
  step.jit().with_param("w", Array::from(kW0, {3}, f64));
  step.step({{"x", Array::from(kX, {3}, f64)}});
  const Outputs &out = step.last_outputs();
  EXPECT_NEAR(out["aux.score"].item(), 100 * (kW0[0] + kW0[1] + kW0[2]), 1e-9);
  // The auxiliary output contributes no gradient: plain SGD on the loss.
  expectNear(step.param("w").to_vector(),
             hostTrain({}, Schedule::constant(0.1), 1, {{"w", kW0}})["w"], 1e-6,
             1e-7);
}

TEST(Train, ErrorPaths) {
  Func noParams("np", [](Scope &s) { return sum(s.input("x", {3})); });
  EXPECT_NE(errorOf([&] {
              make_train_step(noParams, Optimizer::sgd(),
                              Schedule::constant(0.1));
            }).find("has no params"),
            std::string::npos);
  EXPECT_NE(errorOf([] { Optimizer::sgd(0, true); }).find("Nesterov"),
            std::string::npos);
  TrainStep step =
      make_train_step(quadratic(), Optimizer::adam(), Schedule::constant(0.1));
  EXPECT_NE(errorOf([&] { step.step({}); }).find("jit() first"),
            std::string::npos);
  step.jit().init_randn(0);
  EXPECT_NE(
      errorOf([&] {
        step.step({{"x", Array::from(kX, {3}, f64)}, {"lr", Array::scalar(1)}});
      }).find("'lr' is set by the train step"),
      std::string::npos);
  EXPECT_NE(errorOf([&] {
              step.step({{"x", Array::from(kX, {3})}});
            })
                .find("input 'x' of 'quad_train_step' is f32[3], expected "
                      "f64[3]"),
            std::string::npos);
}

} // namespace

namespace {

/// The same compiled train step on Vulkan (lavapipe here): the updates
/// match the textbook host reference, and the new weights and optimizer
/// state stay in device memory between steps (only x moves). f32 Adam: the
/// tolerance is f32's, as divisions by sqrt of small second moments amplify
/// rounding.
TEST(Train, AdamOnVulkanKeepsStateOnTheDevice) {
  // f32: Vulkan has no 64-bit pow for Adam's bias correction.
  TrainStep step = make_train_step(quadratic(f32), Optimizer::adam(),
                                   Schedule::constant(0.1));
  try {
    step.jit(Device::vulkan());
    step.with_param("w",
                    Array::from(std::vector<float>{1.0f, 0.5f, -0.5f}, {3}));
    step.with_param("b",
                    Array::from(std::vector<float>{-0.25f, 0.0f, 0.75f}, {3}));
    for (int t = 0; t < 3; ++t)
      step.step(
          {{"x", Array::from(std::vector<float>{0.5f, -1.0f, 2.0f}, {3})}});
  } catch (const Error &e) {
    if (std::string(e.what()).find("no Vulkan device") != std::string::npos)
      GTEST_SKIP() << e.what();
    throw;
  }
  Array w = step.param("w");
  EXPECT_TRUE(w.on_device()) << "the updated weight was copied to the host";
  HostOptimizer adam;
  adam.rule = Rule::Adam;
  HostParams expected = hostTrain(adam, Schedule::constant(0.1), 3);
  expectNear(w.to_vector(), expected["w"], 1e-4, 5e-5);
  expectNear(step.param("b").to_vector(), expected["b"], 1e-4, 5e-5);
}

} // namespace
