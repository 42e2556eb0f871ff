//===- remat_workspace.cpp - Peak workspace of a training step, remat vs not ===//
///
/// \file
/// Builds a 16-layer tanh MLP (width 256, batch 64) whose loss is a mean
/// square, compiles `rlxc --value-and-grad=loss` twice: layers called plainly,
/// and in four rlx.remat segments of four layers. Prints the peak workspace
/// each artifact's manifest reports (liveness of temporaries, outputs
/// excluded), the ratio, and checks that both give the same gradients.
/// Usage: rlx-bench-remat
///
//===----------------------------------------------------------------------===//

#include "rlx/runtime.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace {

constexpr int kLayers = 16, kWidth = 256, kBatch = 64, kSegment = 4;

std::string tensor() {
  return "tensor<" + std::to_string(kBatch) + "x" + std::to_string(kWidth) +
         "xf32>";
}

std::string model(bool remat) {
  std::ostringstream os;
  std::string t = tensor();
  std::string w = "tensor<" + std::to_string(kWidth) + "x" +
                  std::to_string(kWidth) + "xf32>";
  for (int i = 0; i < kLayers; ++i)
    os << "func.func private @layer" << i << "(%h: " << t << ") -> " << t
       << " {\n  %w = rlx.param \"l" << i << ".w\" : " << w
       << "\n  %m = rlx.matmul %h, %w : (" << t << ", " << w << ") -> " << t
       << "\n  %r = rlx.tanh %m : " << t << "\n  return %r : " << t
       << "\n}\n";
  for (int s = 0; s < kLayers / kSegment; ++s) {
    os << "func.func private @segment" << s << "(%h: " << t << ") -> " << t
       << " {\n";
    std::string prev = "%h";
    for (int i = s * kSegment; i < (s + 1) * kSegment; ++i) {
      os << "  %a" << i << " = func.call @layer" << i << "(" << prev
         << ") : (" << t << ") -> " << t << "\n";
      prev = "%a" + std::to_string(i);
    }
    os << "  return " << prev << " : " << t << "\n}\n";
  }
  os << "func.func @loss(%x: " << t << " {rlx.name = \"x\"}) -> tensor<f32> {\n";
  std::string prev = "%x";
  for (int s = 0; s < kLayers / kSegment; ++s) {
    os << "  %s" << s << " = "
       << (remat ? "rlx.remat @segment" : "func.call @segment") << s << "("
       << prev << ") : (" << t << ") -> " << t << "\n";
    prev = "%s" + std::to_string(s);
  }
  os << "  %q = rlx.mul " << prev << ", " << prev << " : (" << t << ", " << t
     << ") -> " << t << "\n  %l = rlx.mean %q {axes = array<i64: 0, 1>} : ("
     << t << ") -> tensor<f32>\n  return %l : tensor<f32>\n}\n";
  return os.str();
}

std::string compile(bool remat) {
  std::string base = std::string("/tmp/rlx-bench-remat-") +
                     (remat ? "remat" : "plain");
  std::ofstream(base + ".mlir") << model(remat);
  std::string cmd = std::string(RLXC_PATH) + " " + base +
                    ".mlir --value-and-grad=loss -o " + base + ".so";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "rlxc failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return base + ".so";
}

} // namespace

int main() {
  std::mt19937 rng(0);
  std::normal_distribution<float> normal(0, 1);
  rlx::runtime::HostTensor x =
      rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {kBatch, kWidth});
  for (size_t i = 0; i < x.element_count(); ++i)
    x.data<float>()[i] = normal(rng);
  std::vector<rlx::runtime::HostTensor> weights;
  for (int l = 0; l < kLayers; ++l) {
    weights.push_back(
        rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {kWidth, kWidth}));
    for (size_t i = 0; i < weights.back().element_count(); ++i)
      weights.back().data<float>()[i] = normal(rng) / 16;
  }
  uint64_t bytes[2];
  std::vector<rlx::runtime::TensorList> grads;
  for (int remat = 0; remat < 2; ++remat) {
    rlx::runtime::Artifact artifact =
        rlx::runtime::Artifact::load(compile(remat));
    bytes[remat] =
        artifact.entry_point("loss_value_and_grad").workspace_bytes();
    rlx::runtime::Session session(artifact);
    for (int l = 0; l < kLayers; ++l)
      session.bind_tensor("l" + std::to_string(l) + ".w", weights[l]);
    std::vector<rlx::runtime::HostTensor> inputs;
    inputs.push_back(x.share());
    grads.push_back(session.call("loss_value_and_grad", inputs));
  }
  double diff = 0;
  for (size_t o = 0; o < grads[0].size(); ++o) {
    rlx::runtime::HostTensor a = grads[0].at(o), b = grads[1].at(o);
    for (size_t i = 0; i < a.element_count(); ++i)
      diff = std::max(diff, std::fabs(a.get_f64(i) - b.get_f64(i)));
  }
  std::printf("16-layer tanh MLP, width %d, batch %d, value_and_grad\n",
              kWidth, kBatch);
  std::printf("%-28s %12s\n", "variant", "peak bytes");
  std::printf("%-28s %12llu\n", "plain",
              static_cast<unsigned long long>(bytes[0]));
  std::printf("%-28s %12llu\n", "remat (4 segments of 4)",
              static_cast<unsigned long long>(bytes[1]));
  std::printf("ratio remat/plain: %.2f   max |grad diff|: %.3g\n",
              double(bytes[1]) / double(bytes[0]), diff);
  return diff == 0 ? 0 : 1;
}
