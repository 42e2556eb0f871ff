//===- frontend_jit.cpp - Trace, differentiate and jit with rlx::frontend -===//
//
/// The frontend from an installed rlx: traces f(x) = sum(x * x), takes its
/// gradient (2x), compiles it in process with the compiler linked into this
/// program, and checks the result.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend.h"

#include <cmath>
#include <cstdio>

int main() {
  try {
    rlx::Func f("f", [](rlx::Scope &s) {
      rlx::Tensor x = s.input("x", {4});
      return rlx::sum(x * x).named("y");
    });
    rlx::Compiled df = f.value_and_grad({"x"}).jit(rlx::Device::cpu());
    std::vector<float> x = {1.0f, -2.0f, 0.5f, 3.0f};
    rlx::Outputs out = df.run({{"x", rlx::Array::from(x, {4})}});
    std::vector<double> grad = out["grad.x"].to_vector();
    double value = out[0].item();
    bool ok = std::fabs(value - 14.25) < 1e-5 && grad.size() == x.size();
    for (size_t i = 0; ok && i < x.size(); ++i)
      ok = std::fabs(grad[i] - 2.0 * x[i]) < 1e-5;
    if (!ok) {
      std::fprintf(stderr, "wrong value_and_grad: f = %g\n", value);
      return 1;
    }
    std::printf("f(x) = %g, grad = [%g, %g, %g, %g]\n", value, grad[0],
                grad[1], grad[2], grad[3]);
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
