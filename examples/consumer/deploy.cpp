//===- deploy.cpp - Run an rlx artifact with only the runtime ------------===//
//
/// Deploys examples/mlp as an application would: loads the artifact rlxc
/// compiled, binds its weights by name from a safetensors file, calls
/// `forward` on a batch made here, and checks the logits and probabilities
/// against the same MLP computed in plain C++ from the same weights.
///
///   deploy mlp.so weights.safetensors
///
//===----------------------------------------------------------------------===//

#include "rlx/runtime.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace rt = rlx::runtime;

namespace {

/// A row-major [rows, cols] f32 matrix read from a weight.
struct Matrix {
  std::vector<float> values;
  int64_t rows = 0, cols = 0;
  float at(int64_t r, int64_t c) const { return values[r * cols + c]; }
};

Matrix readWeight(const rt::TensorList &weights, const std::string &name) {
  rt::HostTensor t = weights.at(name);
  if (t.dtype() != RLX_DTYPE_F32)
    throw std::runtime_error(name + " is not f32");
  std::vector<int64_t> dims = t.dims();
  Matrix m;
  m.rows = dims.size() == 2 ? dims[0] : 1;
  m.cols = dims.back();
  m.values.assign(t.data<float>(), t.data<float>() + t.element_count());
  return m;
}

/// JAX's default gelu (rlx.gelu's "tanh" approximation).
float gelu(float x) {
  const float k = std::sqrt(2.0f / 3.14159265358979f);
  return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
}

/// x [n, in] times w [in, out] plus b [out], each row through `act`.
std::vector<float> dense(const std::vector<float> &x, int64_t n,
                         const Matrix &w, const Matrix &b,
                         float (*act)(float)) {
  std::vector<float> y(n * w.cols);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < w.cols; ++j) {
      double sum = b.at(0, j);
      for (int64_t k = 0; k < w.rows; ++k)
        sum += double(x[i * w.rows + k]) * w.at(k, j);
      y[i * w.cols + j] = act ? act(float(sum)) : float(sum);
    }
  return y;
}

bool near(float got, float want) {
  return std::fabs(got - want) <= 1e-4f + 1e-4f * std::fabs(want);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ARTIFACT.so WEIGHTS.safetensors\n", argv[0]);
    return 2;
  }
  try {
    rt::Artifact artifact = rt::Artifact::load(argv[1]);
    rt::Session session(artifact);
    session.bind_safetensors(argv[2]);

    // A batch of 5 rows of 4 features; the model's batch dim is dynamic.
    const int64_t n = 5, features = 4;
    std::vector<float> x(n * features);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = 0.25f * float(int(i % 7) - 3);
    rt::HostTensor input =
        rt::HostTensor::borrow(RLX_DTYPE_F32, {n, features}, x.data());
    rt::TensorList outputs = session.call("forward", {&input});
    rt::HostTensor logits = outputs.at("logits"), probs = outputs.at("probs");

    // The same model on the host, from the same file (read by the runtime).
    rt::TensorList weights = rt::TensorList::read_safetensors(argv[2]);
    std::vector<float> h =
        dense(x, n, readWeight(weights, "encoder.layers.0.fc1.weight"),
              readWeight(weights, "encoder.layers.0.fc1.bias"), gelu);
    std::vector<float> want = dense(h, n, readWeight(weights, "head.weight"),
                                    readWeight(weights, "head.bias"), nullptr);
    const int64_t classes = int64_t(want.size()) / n;
    if (logits.dims() != std::vector<int64_t>{n, classes} ||
        probs.dims() != std::vector<int64_t>{n, classes}) {
      std::fprintf(stderr, "unexpected output types %s, %s\n",
                   logits.type_string().c_str(), probs.type_string().c_str());
      return 1;
    }
    int mismatches = 0;
    for (int64_t i = 0; i < n; ++i) {
      float top = want[i * classes], denominator = 0;
      for (int64_t j = 0; j < classes; ++j)
        top = std::max(top, want[i * classes + j]);
      for (int64_t j = 0; j < classes; ++j)
        denominator += std::exp(want[i * classes + j] - top);
      for (int64_t j = 0; j < classes; ++j) {
        int64_t k = i * classes + j;
        float p = std::exp(want[k] - top) / denominator;
        if (!near(logits.data<float>()[k], want[k]) ||
            !near(probs.data<float>()[k], p)) {
          std::fprintf(stderr, "[%lld,%lld]: logit %g (want %g), prob %g (want %g)\n",
                       (long long)i, (long long)j, logits.data<float>()[k],
                       want[k], probs.data<float>()[k], p);
          ++mismatches;
        }
      }
    }
    if (mismatches)
      return 1;
    std::printf("forward(x: f32[%lld,%lld]) on %s: %lld logits and probs "
                "match the host computation\n",
                (long long)n, (long long)features,
                session.device_description().c_str(), (long long)(n * classes));
    return 0;
  } catch (const rt::RuntimeError &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
