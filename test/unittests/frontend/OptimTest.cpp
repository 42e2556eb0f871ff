//===- OptimTest.cpp - Gradient transformations in the train step --------===//
///
/// \file
/// Every built-in chain, user-written transformations, chain order, masks
/// and training a subset of the params (`wrt`), each against a plain loop
/// in double precision over the closed-form gradients of quadratic().
///
//===----------------------------------------------------------------------===//

#include "TrainReference.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace rlx;
using namespace rlx::optim;
using namespace rlx::test;
using Rule = HostOptimizer::Rule;

namespace {

HostOptimizer sgdHost(double momentum = 0, bool nesterov = false,
                      double decay = 0) {
  HostOptimizer o;
  o.momentum = momentum;
  o.nesterov = nesterov;
  o.decay = {{"w", decay}, {"b", decay}};
  return o;
}

HostOptimizer adamHost(Rule rule, double beta1, double beta2, double decay) {
  HostOptimizer o;
  o.rule = rule;
  o.beta1 = beta1;
  o.beta2 = beta2;
  o.decay = {{"w", decay}, {"b", decay}};
  return o;
}

/// The step's state names as a sorted set.
std::set<std::string> stateOf(const GradientTransformation &optimizer,
                              const TrainOptions &options = {}) {
  std::vector<std::string> names =
      make_train_step(quadratic(), optimizer, Schedule::constant(0.1), options)
          .state_names();
  return {names.begin(), names.end()};
}

TEST(Optim, SgdMomentumNesterov) {
  Schedule rate = Schedule::constant(0.1);
  expectTrainsLike(Optimizer::sgd(), sgdHost(), rate);
  expectTrainsLike(Optimizer::sgd(0.9), sgdHost(0.9), rate);
  expectTrainsLike(Optimizer::sgd(0.9, true, 0.01), sgdHost(0.9, true, 0.01),
                   rate);
  // The same chains written out.
  expectTrainsLike(chain(trace(0.9, true), scale_by_learning_rate()),
                   sgdHost(0.9, true), rate);
  expectTrainsLike(
      chain(add_decayed_weights(0.01), trace(0.9), scale_by_learning_rate()),
      sgdHost(0.9, false, 0.01), rate);
}

TEST(Optim, AdamAdamWLion) {
  Schedule rate = Schedule::constant(0.05);
  expectTrainsLike(Optimizer::adam(), adamHost(Rule::Adam, 0.9, 0.999, 0),
                   rate);
  expectTrainsLike(Optimizer::adam(0.8, 0.99, 1e-8, 0.1),
                   adamHost(Rule::Adam, 0.8, 0.99, 0.1), rate);
  expectTrainsLike(Optimizer::adamw(0.1),
                   adamHost(Rule::AdamW, 0.9, 0.999, 0.1), rate);
  expectTrainsLike(Optimizer::lion(0.9, 0.99, 0.1),
                   adamHost(Rule::Lion, 0.9, 0.99, 0.1), rate);
  expectTrainsLike(chain(scale_by_adam(0.8, 0.99), add_decayed_weights(0.1),
                         scale_by_learning_rate()),
                   adamHost(Rule::AdamW, 0.8, 0.99, 0.1), rate);
  expectTrainsLike(chain(scale_by_lion(0.8, 0.9), scale_by_learning_rate()),
                   adamHost(Rule::Lion, 0.8, 0.9, 0), rate);
}

TEST(Optim, BuiltinStateKeepsItsCheckpointNames) {
  using Names = std::set<std::string>;
  EXPECT_EQ(stateOf(Optimizer::sgd()), Names{});
  EXPECT_EQ(stateOf(Optimizer::sgd(0.9)), (Names{"momentum.w", "momentum.b"}));
  EXPECT_EQ(stateOf(Optimizer::adam()), (Names{"m.w", "m.b", "v.w", "v.b"}));
  EXPECT_EQ(stateOf(Optimizer::adamw()), (Names{"m.w", "m.b", "v.w", "v.b"}));
  EXPECT_EQ(stateOf(Optimizer::lion()), (Names{"m.w", "m.b"}));
  // The input order of the step: m per param, then v per param.
  EXPECT_EQ(
      make_train_step(quadratic(), Optimizer::adam(), Schedule::constant(0.1))
          .state_names(),
      (std::vector<std::string>{"m.w", "m.b", "v.w", "v.b"}));
}

TEST(Optim, WeightDecayMasks) {
  Schedule rate = Schedule::constant(0.05);
  HostOptimizer host = adamHost(Rule::AdamW, 0.9, 0.999, 0);
  host.decay = {{"w", 0.5}};
  expectTrainsLike(
      Optimizer::adamw(0.5, 0.9, 0.999, 1e-8, ParamMask::all_but({"b"})), host,
      rate);
  expectTrainsLike(Optimizer::adamw(0.5, 0.9, 0.999, 1e-8,
                                    ParamMask::where([](const std::string &p) {
                                      return p != "b";
                                    })),
                   host, rate);
  // Two decays by two masks (what decay groups were).
  host.decay = {{"w", 0.5}, {"b", 0.1}};
  expectTrainsLike(chain(scale_by_adam(),
                         add_decayed_weights(0.5, ParamMask::only({"w"})),
                         add_decayed_weights(0.1, ParamMask::only({"b"})),
                         scale_by_learning_rate()),
                   host, rate);
  // L2 on one param of SGD.
  HostOptimizer sgd = sgdHost(0.9);
  sgd.decay = {{"b", 0.2}};
  expectTrainsLike(Optimizer::sgd(0.9, false, 0.2, ParamMask::only({"b"})), sgd,
                   Schedule::constant(0.1));
}

TEST(Optim, MaskedKeepsStateForItsParamsOnly) {
  Schedule rate = Schedule::constant(0.1);
  GradientTransformation momentumOnW = chain(
      masked(trace(0.9), ParamMask::only({"w"})), scale_by_learning_rate());
  EXPECT_EQ(stateOf(momentumOnW), std::set<std::string>{"momentum.w"});
  TrainStep step = make_train_step(quadratic(), momentumOnW, rate);
  step.jit();
  runQuadratic(step, 3);
  // Without clipping each param's update is its own: w with momentum, b
  // plain SGD.
  expectNear(step.param("w").to_vector(), hostTrain(sgdHost(0.9), rate, 3)["w"],
             1e-6, 1e-7);
  expectNear(step.param("b").to_vector(), hostTrain(sgdHost(), rate, 3)["b"],
             1e-6, 1e-7);
}

TEST(Optim, ClipByGlobalNorm) {
  double norm2 = 0;
  for (int i = 0; i < 3; ++i)
    norm2 += std::pow(kW0[i] - kX[i], 2) + std::pow(kB0[i] - kX[i], 2);
  ASSERT_GT(std::sqrt(norm2), 0.5) << "the clip would not clip";
  HostOptimizer sgd = sgdHost(0.9);
  sgd.clip = 0.5;
  expectTrainsLike(chain(clip_by_global_norm(0.5), Optimizer::sgd(0.9)), sgd,
                   Schedule::constant(0.1), 4);
  HostOptimizer adam = adamHost(Rule::Adam, 0.9, 0.999, 0.1);
  adam.clip = 0.5;
  expectTrainsLike(
      chain(clip_by_global_norm(0.5), Optimizer::adam(0.9, 0.999, 1e-8, 0.1)),
      adam, Schedule::constant(0.05), 4);
}

/// Params after `steps` of SGD whose update is `s * g` clipped to a global
/// norm `c` (clipFirst: `s * clip(g)`), from quadratic()'s start.
HostParams scaledAndClipped(bool clipFirst, double s, double c, double lr,
                            int steps) {
  HostParams p = initialParams();
  auto clipScale = [c](const HostParams &u) {
    double norm2 = 0;
    for (const auto &[name, v] : u)
      for (double x : v)
        norm2 += x * x;
    return std::min(1.0, c / (std::sqrt(norm2) + 1e-6));
  };
  for (int t = 1; t <= steps; ++t) {
    HostParams u;
    for (const auto &[name, w] : p)
      for (size_t i = 0; i < w.size(); ++i)
        u[name].push_back((w[i] - kX[i]) * (clipFirst ? 1 : s));
    double k = clipScale(u) * (clipFirst ? s : 1);
    for (auto &[name, w] : p)
      for (size_t i = 0; i < w.size(); ++i)
        w[i] -= lr * k * u[name][i];
  }
  return p;
}

TEST(Optim, ChainOrderMatters) {
  double s = 4, c = 1, lr = 0.05;
  std::map<std::string, std::vector<double>> got[2];
  for (bool clipFirst : {true, false}) {
    GradientTransformation t =
        clipFirst
            ? chain(clip_by_global_norm(c), scale(s), scale_by_learning_rate())
            : chain(scale(s), clip_by_global_norm(c), scale_by_learning_rate());
    TrainStep step = make_train_step(quadratic(), t, Schedule::constant(lr));
    step.jit();
    runQuadratic(step, 3);
    HostParams expected = scaledAndClipped(clipFirst, s, c, lr, 3);
    for (const char *p : {"w", "b"}) {
      SCOPED_TRACE(std::string(p) + (clipFirst ? ", clip first" : ""));
      got[clipFirst][p] = step.param(p).to_vector();
      expectNear(got[clipFirst][p], expected[p], 1e-6, 1e-7);
    }
  }
  // The two orders train differently (by far more than rounding).
  EXPECT_GT(std::abs(got[0]["w"][0] - got[1]["w"][0]), 1e-3);
}

TEST(Optim, UserTransformationWithoutState) {
  // sign-SGD: the update is the gradient's sign.
  GradientTransformation signs;
  signs.update = [](const Tree &updates, Tree &, const StepContext &) {
    Tree out;
    for (const auto &[name, u] : updates)
      out.emplace(name, sign(u));
    return out;
  };
  double lr = 0.3;
  TrainStep step =
      make_train_step(quadratic(), chain(signs, scale_by_learning_rate()),
                      Schedule::constant(lr));
  EXPECT_TRUE(step.state_names().empty());
  step.jit();
  runQuadratic(step, 3);
  HostParams p = initialParams();
  for (int t = 0; t < 3; ++t)
    for (auto &[name, w] : p)
      for (size_t i = 0; i < 3; ++i) {
        double g = w[i] - kX[i];
        w[i] -= lr * ((g > 0) - (g < 0));
      }
  for (const char *name : {"w", "b"})
    expectNear(step.param(name).to_vector(), p[name], 1e-6, 1e-7);
}

TEST(Optim, UserTransformationWithState) {
  // Adagrad: acc = acc + g^2 (from 0.1), update g / sqrt(acc).
  GradientTransformation adagrad;
  adagrad.init = [](const std::vector<detail::Arg> &params) {
    std::vector<StateSpec> specs;
    for (const detail::Arg &p : params)
      specs.push_back({"acc." + p.name, p.type, 0.1});
    return specs;
  };
  adagrad.update = [](const Tree &updates, Tree &state, const StepContext &) {
    Tree out;
    for (const auto &[name, g] : updates) {
      Tensor &acc = state.at("acc." + name);
      acc = acc + square(g);
      out.emplace(name, g / sqrt(acc));
    }
    return out;
  };
  double lr = 0.2;
  TrainStep step =
      make_train_step(quadratic(), chain(adagrad, scale_by_learning_rate()),
                      Schedule::constant(lr));
  EXPECT_EQ(step.state_names(), (std::vector<std::string>{"acc.w", "acc.b"}));
  step.jit();
  runQuadratic(step, 4);
  HostParams p = initialParams();
  HostParams acc{{"w", std::vector<double>(3, 0.1)},
                 {"b", std::vector<double>(3, 0.1)}};
  for (int t = 0; t < 4; ++t)
    for (auto &[name, w] : p)
      for (size_t i = 0; i < 3; ++i) {
        double g = w[i] - kX[i];
        acc[name][i] += g * g;
        w[i] -= lr * g / std::sqrt(acc[name][i]);
      }
  for (const char *name : {"w", "b"})
    expectNear(step.param(name).to_vector(), p[name], 1e-6, 1e-7);
}

TEST(Optim, TracedScheduleScalesByTheStep) {
  // -0.1 / step in the graph; the host schedule's lr goes unused.
  GradientTransformation t =
      scale_by_schedule([](const Tensor &step) { return -0.1 / step; });
  TrainStep step = make_train_step(quadratic(), t, Schedule::constant(123));
  step.jit();
  runQuadratic(step, 3);
  HostParams p = initialParams();
  for (int k = 1; k <= 3; ++k)
    for (auto &[name, w] : p)
      for (size_t i = 0; i < 3; ++i)
        w[i] -= 0.1 / k * (w[i] - kX[i]);
  for (const char *name : {"w", "b"})
    expectNear(step.param(name).to_vector(), p[name], 1e-6, 1e-7);
}

TEST(Optim, WrtTrainsOnlyTheChosenParams) {
  Schedule rate = Schedule::constant(0.05);
  TrainOptions onlyW{{"w"}};
  TrainStep step = make_train_step(quadratic(), Optimizer::adam(), rate, onlyW);
  EXPECT_EQ(step.trained_param_names(), std::vector<std::string>{"w"});
  EXPECT_EQ(step.state_names(), (std::vector<std::string>{"m.w", "v.w"}));
  for (const std::string &name : step.func().input_names())
    EXPECT_EQ(name.find(".b"), std::string::npos) << name;
  for (const std::string &name : step.func().output_names())
    EXPECT_EQ(name.find("b"), std::string::npos) << name;
  step.jit();
  runQuadratic(step, 3);
  EXPECT_EQ(step.param("b").to_vector(), kB0) << "a fixed param moved";
  expectNear(step.param("w").to_vector(),
             hostTrain(adamHost(Rule::Adam, 0.9, 0.999, 0), rate, 3,
                       initialParams(), {"w"})["w"],
             1e-6, 1e-7);
  // A checkpoint holds every param but state only for the trained ones,
  // and resumes.
  std::string path = freshDir("wrt") + "/ckpt.safetensors";
  step.save(path);
  runtime::TensorList saved = runtime::TensorList::read_safetensors(path);
  std::set<std::string> names;
  for (size_t i = 0; i < saved.size(); ++i)
    names.insert(saved.name(i));
  EXPECT_EQ(names, (std::set<std::string>{"w", "b", "m.w", "v.w", "step"}));
  TrainStep resumed =
      make_train_step(quadratic(), Optimizer::adam(), rate, onlyW);
  resumed.jit().init_randn(5);
  resumed.load(path);
  std::map<std::string, Array> x{{"x", Array::from(kX, {3}, f64)}};
  EXPECT_EQ(resumed.step(x), step.step(x));
  EXPECT_EQ(resumed.param("w").to_vector(), step.param("w").to_vector());
  EXPECT_EQ(resumed.param("b").to_vector(), kB0);

  // Clipping sees only the trained params' gradients.
  HostOptimizer clipped = sgdHost();
  clipped.clip = 0.5;
  TrainStep clippedStep = make_train_step(
      quadratic(), chain(clip_by_global_norm(0.5), Optimizer::sgd()),
      Schedule::constant(0.1), TrainOptions{{"b"}});
  clippedStep.jit();
  runQuadratic(clippedStep, 2);
  EXPECT_EQ(clippedStep.param("w").to_vector(), kW0);
  expectNear(clippedStep.param("b").to_vector(),
             hostTrain(clipped, Schedule::constant(0.1), 2, initialParams(),
                       {"b"})["b"],
             1e-6, 1e-7);
}

TEST(Optim, WrtInAShapeSpecializedStep) {
  // The step traced again per batch shape keeps training the chosen params.
  Func loss("head", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 4});
    Tensor y = s.input("y", {dyn, 1});
    return mse(linear(s, "out", tanh(linear(s, "hidden", x, 8)), 1), y);
  });
  JitOptions special;
  special.specialize_shapes = true;
  TrainStep step =
      make_train_step(loss, Optimizer::adam(), Schedule::constant(0.05),
                      TrainOptions{{"out.weight", "out.bias"}});
  step.jit(Device::cpu(), special).init_randn(3, 0.5);
  std::vector<double> hidden = step.param("hidden.weight").to_vector();
  std::vector<double> out = step.param("out.weight").to_vector();
  for (int64_t rows : {8, 5}) {
    std::map<std::string, Array> batch{
        {"x", Array::from(values(rows * 4, 1), {rows, 4})},
        {"y", Array::from(values(rows, 2), {rows, 1})}};
    step.step(batch);
    EXPECT_EQ(step.last_outputs()["new.out.weight"].type_string(), "f32[8,1]");
  }
  EXPECT_EQ(step.param("hidden.weight").to_vector(), hidden);
  EXPECT_NE(step.param("out.weight").to_vector(), out);
  EXPECT_EQ(step.state_names(),
            (std::vector<std::string>{"m.out.weight", "m.out.bias",
                                      "v.out.weight", "v.out.bias"}));
}

TEST(Optim, CheckpointOfAnotherOptimizerIsAClearError) {
  std::string dir = freshDir("other");
  Schedule rate = Schedule::constant(0.1);
  TrainStep adam = make_train_step(quadratic(), Optimizer::adam(), rate);
  adam.jit();
  runQuadratic(adam, 1);
  adam.save(dir + "/adam.safetensors");
  TrainStep sgd = make_train_step(quadratic(), Optimizer::sgd(), rate);
  sgd.jit();
  runQuadratic(sgd, 1);
  sgd.save(dir + "/sgd.safetensors");

  TrainStep lion = make_train_step(quadratic(), Optimizer::lion(), rate);
  lion.jit().init_randn(0);
  EXPECT_NE(errorOf([&] { lion.load(dir + "/adam.safetensors"); })
                .find("holds 'v.w', neither a param nor optimizer state of "
                      "'quad_train_step' (saved by a step with another "
                      "optimizer?)"),
            std::string::npos);
  // Nothing was loaded.
  EXPECT_EQ(lion.steps_done(), 0);
  TrainStep adam2 = make_train_step(quadratic(), Optimizer::adam(), rate);
  adam2.jit().init_randn(0);
  EXPECT_NE(errorOf([&] {
              adam2.load(dir + "/sgd.safetensors");
            }).find("holds no optimizer state 'm.w'"),
            std::string::npos);
  adam2.load(dir + "/adam.safetensors");
  EXPECT_EQ(adam2.steps_done(), 1);
}

TEST(Optim, ErrorPaths) {
  Schedule rate = Schedule::constant(0.1);
  auto errorFor = [&](const GradientTransformation &t,
                      const TrainOptions &options = {}) {
    return errorOf([&] { make_train_step(quadratic(), t, rate, options); });
  };
  EXPECT_NE(errorFor(chain(scale_by_adam(), scale_by_adam()))
                .find("optimizer state 'm.w' is declared twice"),
            std::string::npos);
  EXPECT_NE(errorFor(add_decayed_weights(0.1, ParamMask::only({"nope"})))
                .find("the mask names 'nope', not a param being trained"),
            std::string::npos);
  EXPECT_NE(errorFor(masked(trace(0.9), ParamMask::all_but({"b"})),
                     TrainOptions{{"w"}})
                .find("the mask names 'b', not a param being trained"),
            std::string::npos);
  EXPECT_NE(errorFor(Optimizer::sgd(), TrainOptions{{"nope"}})
                .find("wrt names 'nope', not a param of 'quad'"),
            std::string::npos);
  EXPECT_NE(errorFor(Optimizer::sgd(), TrainOptions{{"w", "w"}})
                .find("wrt names 'w' twice"),
            std::string::npos);
  GradientTransformation toF32;
  toF32.update = [](const Tree &updates, Tree &, const StepContext &) {
    Tree out;
    for (const auto &[name, u] : updates)
      out.emplace(name, cast(u, f32));
    return out;
  };
  EXPECT_NE(errorFor(toF32).find("the optimizer's update of 'w' is f32[3], "
                                 "expected f64[3]"),
            std::string::npos);
  GradientTransformation dropsB;
  dropsB.update = [](const Tree &updates, Tree &, const StepContext &) {
    return Tree{{"w", updates.at("w")}};
  };
  EXPECT_NE(errorFor(dropsB).find("gives no update for 'b'"),
            std::string::npos);
  GradientTransformation badState;
  badState.init = [](const std::vector<detail::Arg> &) {
    return std::vector<StateSpec>{{"count", {f32, {}}, 0}};
  };
  badState.update = [](const Tree &updates, Tree &state, const StepContext &) {
    state.at("count") = state.at("count").reshape({1});
    return updates;
  };
  EXPECT_NE(errorFor(badState).find("new state 'count' is f32[1], declared "
                                    "f32[]"),
            std::string::npos);
  EXPECT_NE(errorFor(GradientTransformation{}).find("has no update"),
            std::string::npos);
  EXPECT_NE(errorFor(scale_by_schedule([](const Tensor &t) {
              return reshape(t, {1});
            })).find("expected a scalar"),
            std::string::npos);
  EXPECT_NE(errorOf([] { trace(0, true); }).find("Nesterov"),
            std::string::npos);
  EXPECT_NE(errorOf([] { clip_by_global_norm(0); }).find("must be positive"),
            std::string::npos);
}

} // namespace
