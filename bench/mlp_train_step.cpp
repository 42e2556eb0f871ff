//===- mlp_train_step.cpp - MLP forward, gradient and Adam step timings ---===//
///
/// \file
/// The benchmark MLP (784-512-512-10, ReLU, softmax cross entropy): times
/// the forward pass at batch 128 and 1024, forward+backward
/// (value_and_grad w.r.t. every weight) and a whole Adam training step at
/// batch 128, each as one call of an artifact compiled by rlxc. The train
/// step takes weights and Adam moments as inputs and returns their updated
/// values, which are fed to the next call as they are (no copy). Prints one
/// line per figure in the form `bench/run-all.sh` parses:
///   rlx <name> <milliseconds>
/// Also prints rlxc's compile time of the train step and its peak workspace.
/// Usage: rlx-bench-mlp [steps] (default 50)
///
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"
#include "rlx/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

const int kIn = 784, kHidden = 512, kOut = 10;

std::string type(std::vector<std::string> dims) {
  std::string s = "tensor<";
  for (const std::string &d : dims)
    s += d + "x";
  return s + "f32>";
}

struct Weight {
  std::string name;
  std::vector<int64_t> dims;
};

const std::vector<Weight> &weights() {
  static const std::vector<Weight> all = {
      {"w1", {kIn, kHidden}},     {"b1", {kHidden}}, {"w2", {kHidden, kHidden}},
      {"b2", {kHidden}},          {"w3", {kHidden, kOut}}, {"b3", {kOut}}};
  return all;
}

std::string weightType(const Weight &w) {
  std::vector<std::string> dims;
  for (int64_t d : w.dims)
    dims.push_back(std::to_string(d));
  return type(dims);
}

/// The model text: logits(w..., x), loss(w..., x, y), grads(w..., x, y)
/// and step(w..., m..., v..., x, y, c1, c2) for a dynamic batch.
std::string model() {
  std::ostringstream os;
  std::string tx = type({"?", std::to_string(kIn)});
  std::string th = type({"?", std::to_string(kHidden)});
  std::string to = type({"?", std::to_string(kOut)});
  std::string scalar = "tensor<f32>";
  auto weightArgs = [&](const std::string &prefix) {
    std::string s;
    for (const Weight &w : weights())
      s += "%" + prefix + w.name + ": " + weightType(w) + " {rlx.name = \"" +
           prefix + w.name + "\"}, ";
    return s;
  };
  auto body = [&](const std::string &p) {
    std::ostringstream b;
    b << "  %h0 = rlx.matmul %x, %" << p << "w1 : (" << tx << ", "
      << weightType(weights()[0]) << ") -> " << th << "\n"
      << "  %h1 = rlx.add %h0, %" << p << "b1 : (" << th << ", "
      << weightType(weights()[1]) << ") -> " << th << "\n"
      << "  %h2 = rlx.relu %h1 : " << th << "\n"
      << "  %h3 = rlx.matmul %h2, %" << p << "w2 : (" << th << ", "
      << weightType(weights()[2]) << ") -> " << th << "\n"
      << "  %h4 = rlx.add %h3, %" << p << "b2 : (" << th << ", "
      << weightType(weights()[3]) << ") -> " << th << "\n"
      << "  %h5 = rlx.relu %h4 : " << th << "\n"
      << "  %l0 = rlx.matmul %h5, %" << p << "w3 : (" << th << ", "
      << weightType(weights()[4]) << ") -> " << to << "\n"
      << "  %l = rlx.add %l0, %" << p << "b3 : (" << to << ", "
      << weightType(weights()[5]) << ") -> " << to << "\n";
    return b.str();
  };
  std::string weightTypes;
  for (const Weight &w : weights())
    weightTypes += weightType(w) + ", ";

  os << "func.func @logits(" << weightArgs("") << "%x: " << tx
     << " {rlx.name = \"x\"}) -> (" << to << " {rlx.name = \"logits\"}) {\n"
     << body("") << "  return %l : " << to << "\n}\n";

  os << "func.func private @loss(" << weightArgs("") << "%x: " << tx
     << ", %y: " << to << ") -> " << scalar << " {\n"
     << body("") << "  %lp = rlx.log_softmax %l {axis = 1 : i64} : " << to
     << "\n  %t = rlx.mul %lp, %y : (" << to << ", " << to << ") -> " << to
     << "\n  %s = rlx.sum %t {axes = array<i64: 0, 1>} : (" << to << ") -> "
     << scalar << "\n  %n = rlx.neg %s : " << scalar
     << "\n  %b = rlx.constant dense<" << 1.0 / 128
     << "> : tensor<f32>\n  %m = rlx.mul %n, %b : (" << scalar << ", "
     << scalar << ") -> " << scalar << "\n  return %m : " << scalar << "\n}\n";

  std::string call = "@loss(%w1, %b1, %w2, %b2, %w3, %b3, %x, %y) {wrt = "
                     "array<i64: 0, 1, 2, 3, 4, 5>} : (" +
                     weightTypes + tx + ", " + to + ") -> (" + scalar + ", " +
                     weightTypes.substr(0, weightTypes.size() - 2) + ")";

  os << "func.func @grads(" << weightArgs("") << "%x: " << tx
     << " {rlx.name = \"x\"}, %y: " << to << " {rlx.name = \"y\"}) -> ("
     << scalar << " {rlx.name = \"loss\"}";
  for (const Weight &w : weights())
    os << ", " << weightType(w) << " {rlx.name = \"grad." << w.name << "\"}";
  os << ") {\n  %r:7 = rlx.value_and_grad " << call << "\n  return %r#0";
  for (size_t i = 0; i < weights().size(); ++i)
    os << ", %r#" << i + 1;
  os << " : " << scalar << ", " << weightTypes.substr(0, weightTypes.size() - 2)
     << "\n}\n";

  // Adam (PyTorch's defaults and lr 1e-3): c1 = 1/(1-b1^t), c2 = 1/(1-b2^t).
  os << "func.func @step(" << weightArgs("") << weightArgs("m_")
     << weightArgs("v_") << "%x: " << tx << " {rlx.name = \"x\"}, %y: " << to
     << " {rlx.name = \"y\"}, %c1: " << scalar
     << " {rlx.name = \"c1\"}, %c2: " << scalar
     << " {rlx.name = \"c2\"}) -> (" << scalar << " {rlx.name = \"loss\"}";
  for (const std::string &p : {"", "m_", "v_"})
    for (const Weight &w : weights())
      os << ", " << weightType(w) << " {rlx.name = \"" << p << w.name << "\"}";
  os << ") {\n  %r:7 = rlx.value_and_grad " << call << "\n";
  const char *constants[][2] = {{"beta1", "0.9"},   {"one_beta1", "0.1"},
                                {"beta2", "0.999"}, {"one_beta2", "0.001"},
                                {"lr", "0.001"},    {"eps", "1.0e-08"}};
  for (auto &c : constants)
    os << "  %" << c[0] << " = rlx.constant dense<" << c[1]
       << "> : tensor<f32>\n";
  std::string results;
  for (size_t i = 0; i < weights().size(); ++i) {
    const Weight &w = weights()[i];
    std::string t = weightType(w), n = w.name, g = "%r#" + std::to_string(i + 1);
    auto bin = [&](const std::string &out, const std::string &op,
                   const std::string &a, const std::string &aType,
                   const std::string &b, const std::string &bType) {
      os << "  %" << out << "_" << n << " = rlx." << op << " " << a << ", " << b
         << " : (" << aType << ", " << bType << ") -> " << t << "\n";
    };
    bin("ma", "mul", "%m_" + n, t, "%beta1", scalar);
    bin("mb", "mul", g, t, "%one_beta1", scalar);
    bin("nm", "add", "%ma_" + n, t, "%mb_" + n, t);
    bin("gg", "mul", g, t, g, t);
    bin("va", "mul", "%v_" + n, t, "%beta2", scalar);
    bin("vb", "mul", "%gg_" + n, t, "%one_beta2", scalar);
    bin("nv", "add", "%va_" + n, t, "%vb_" + n, t);
    bin("mhat", "mul", "%nm_" + n, t, "%c1", scalar);
    bin("vhat", "mul", "%nv_" + n, t, "%c2", scalar);
    os << "  %sq_" << n << " = rlx.sqrt %vhat_" << n << " : " << t << "\n";
    bin("den", "add", "%sq_" + n, t, "%eps", scalar);
    bin("q", "div", "%mhat_" + n, t, "%den_" + n, t);
    bin("u", "mul", "%q_" + n, t, "%lr", scalar);
    bin("np", "sub", "%" + n, t, "%u_" + n, t);
  }
  os << "  return %r#0";
  for (const std::string &p : {"np", "nm", "nv"})
    for (const Weight &w : weights())
      os << ", %" << p << "_" << w.name;
  os << " : " << scalar;
  for (int k = 0; k < 3; ++k)
    os << ", " << weightTypes.substr(0, weightTypes.size() - 2);
  os << "\n}\n";
  return os.str();
}

rlx::runtime::HostTensor scalar(float value) {
  rlx::runtime::HostTensor t =
      rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {});
  t.data<float>()[0] = value;
  return t;
}

} // namespace

using rlx::bench::medianMs;

int main(int argc, char **argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 50;
  const std::string src = "/tmp/rlx-bench-mlp.mlir", so = "/tmp/rlx-bench-mlp.so";
  std::ofstream(src) << model();
  std::string cmd = std::string(RLXC_PATH) + " " + src + " -o " + so;
  auto t0 = std::chrono::steady_clock::now();
  if (std::system(cmd.c_str()) != 0)
    return 1;
  double compileS = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - t0)
                        .count();
  rlx::runtime::Artifact artifact = rlx::runtime::Artifact::load(so);
  rlx::runtime::Session session(artifact);

  std::mt19937 rng(0);
  auto randn = [&](std::vector<int64_t> dims, float scale) {
    return rlx::bench::randn(rng, std::move(dims), scale);
  };
  std::vector<rlx::runtime::HostTensor> state; // weights, then m, then v
  for (const Weight &w : weights())
    state.push_back(randn(w.dims, w.dims.size() == 2 ? 0.05f : 0.0f));
  for (int k = 0; k < 2; ++k)
    for (const Weight &w : weights())
      state.push_back(
          rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, w.dims));
  auto batch = [&](int n) {
    std::vector<rlx::runtime::HostTensor> xy;
    xy.push_back(randn({n, kIn}, 1.0f));
    rlx::runtime::HostTensor y =
        rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {n, kOut});
    for (int i = 0; i < n; ++i)
      y.data<float>()[i * kOut + i % kOut] = 1;
    xy.push_back(std::move(y));
    return xy;
  };
  std::vector<rlx::runtime::HostTensor> b128 = batch(128), b1024 = batch(1024);
  auto inputs = [&](size_t stateCount,
                    std::vector<rlx::runtime::HostTensor> &xy,
                    bool withLabels) {
    std::vector<rlx::runtime::HostTensor> in;
    for (size_t i = 0; i < stateCount; ++i)
      in.push_back(state[i].share());
    in.push_back(xy[0].share());
    if (withLabels)
      in.push_back(xy[1].share());
    return in;
  };

  double forward128 = medianMs(
      [&] { session.call("logits", inputs(6, b128, false)); }, steps);
  double forward1024 = medianMs(
      [&] { session.call("logits", inputs(6, b1024, false)); }, steps);
  double grads128 =
      medianMs([&] { session.call("grads", inputs(6, b128, true)); }, steps);
  int t = 0;
  float firstLoss = 0, lastLoss = 0;
  double step128 = medianMs(
      [&] {
        ++t;
        std::vector<rlx::runtime::HostTensor> in = inputs(18, b128, true);
        in.push_back(scalar(1.0f / (1.0f - std::pow(0.9f, float(t)))));
        in.push_back(scalar(1.0f / (1.0f - std::pow(0.999f, float(t)))));
        rlx::runtime::TensorList out = session.call("step", in);
        lastLoss = out.at(0).data<float>()[0];
        if (t == 1)
          firstLoss = lastLoss;
        for (size_t i = 0; i < state.size(); ++i)
          state[i] = out.at(i + 1); // the new state, not copied
      },
      steps);
  size_t workspace = 0;
  for (const rlx::runtime::EntryPoint &entry : artifact.entry_points())
    if (entry.name() == "step")
      workspace = entry.workspace_bytes();

  std::printf("MLP %d-%d-%d-%d, %d threads, median of %d calls\n", kIn, kHidden,
              kHidden, kOut, rlx_get_num_threads(), steps);
  std::printf("rlx forward_b128 %.4f\n", forward128);
  std::printf("rlx forward_b1024 %.4f\n", forward1024);
  std::printf("rlx forward_backward_b128 %.4f\n", grads128);
  std::printf("rlx train_step_adam_b128 %.4f\n", step128);
  std::printf("rlx compile_s %.3f\n", compileS);
  std::printf("rlx step_workspace_bytes %zu\n", workspace);
  std::printf("loss on a fixed batch: step 1 %.4f, step %d %.4f\n", firstLoss,
              t, lastLoss);
  return lastLoss < firstLoss ? 0 : 1;
}
