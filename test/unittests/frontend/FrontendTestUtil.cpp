//===- FrontendTestUtil.cpp - Helpers of the frontend tests ---------------===//

#include "FrontendTestUtil.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace rlx::test {

std::vector<double> values(size_t count, unsigned seed) {
  std::vector<double> result(count);
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (double &v : result) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    v = double(state % 20000) / 10000.0 - 1.0;
  }
  return result;
}

static std::vector<double> diff(const std::function<double(double, size_t)> &f,
                                std::vector<double> x, double eps) {
  std::vector<double> result(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    result[i] = (f(x[i] + eps, i) - f(x[i] - eps, i)) / (2 * eps);
  return result;
}

std::vector<double> centralDiff(const Compiled &forward,
                                std::map<std::string, Array> inputs,
                                const std::string &wrt, size_t out,
                                double eps) {
  Array x = inputs.at(wrt);
  std::vector<double> base = x.to_vector();
  return diff(
      [&](double value, size_t i) {
        std::vector<double> moved = base;
        moved[i] = value;
        inputs[wrt] = Array::from(moved, x.shape(), x.dtype());
        return forward.run(inputs)[out].item();
      },
      base, eps);
}

std::vector<double> centralDiffParam(Compiled &forward,
                                     const std::map<std::string, Array> &inputs,
                                     const std::string &param, size_t out,
                                     double eps) {
  Array w = forward.param(param);
  std::vector<double> base = w.to_vector();
  Shape shape = w.shape();
  DType dtype = w.dtype();
  std::vector<double> result = diff(
      [&](double value, size_t i) {
        std::vector<double> moved = base;
        moved[i] = value;
        forward.with_param(param, Array::from(moved, shape, dtype));
        return forward.run(inputs)[out].item();
      },
      base, eps);
  forward.with_param(param, Array::from(base, shape, dtype));
  return result;
}

void expectNear(const std::vector<double> &actual,
                const std::vector<double> &expected, double rtol, double atol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    ASSERT_LE(std::abs(actual[i] - expected[i]),
              atol + rtol * std::abs(expected[i]))
        << "element " << i << ": " << actual[i] << " vs expected "
        << expected[i];
}

std::string freshDir(const std::string &name) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("rlx-frontend-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

} // namespace rlx::test
