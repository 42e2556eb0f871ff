//===- TrainReference.h - Train tests' host optimizers ----------*- C++ -*-===//
///
/// \file
/// The loss 0.5 |w - x|^2 + 0.5 |b - x|^2 has the closed-form gradients
/// w - x and b - x, so a compiled train step can be checked against plain
/// loops in double precision written from the textbook update rules, with
/// nothing shared with rlx::optim.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_FRONTEND_TRAINREFERENCE_H
#define RLX_TEST_FRONTEND_TRAINREFERENCE_H

#include "FrontendTestUtil.h"

#include <map>
#include <string>
#include <vector>

namespace rlx::test {

/// 0.5 |w - x|^2 + 0.5 |b - x|^2 over two params of three elements.
Func quadratic(DType dtype = DType::f64);

extern const std::vector<double> kX, kW0, kB0;

/// Params by name.
using HostParams = std::map<std::string, std::vector<double>>;

/// {w: kW0, b: kB0}.
HostParams initialParams();

/// A textbook optimizer on the host.
struct HostOptimizer {
  enum class Rule { SGD, Adam, AdamW, Lion } rule = Rule::SGD;
  double momentum = 0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  /// Weight decay by param: L2 added to the gradient (SGD, Adam) or
  /// decoupled (AdamW, Lion). Absent: 0.
  std::map<std::string, double> decay;
  /// > 0: the gradients are first scaled so their global norm is at most
  /// this (with PyTorch's 1e-6 in the denominator).
  double clip = 0;
};

/// The params after `steps` steps of `o` from `params`, at the rates of
/// `schedule`; only the params in `trained` move (all when empty).
HostParams hostTrain(const HostOptimizer &o, const Schedule &schedule,
                     int steps, HostParams params = initialParams(),
                     const std::vector<std::string> &trained = {});

/// Binds kW0 and kB0 and runs `steps` steps on kX.
void runQuadratic(TrainStep &step, int steps, DType dtype = DType::f64);

/// Trains quadratic() with `optimizer` for `steps` steps and expects the
/// params of hostTrain(host, ...). lr is an f32 input: compared at f32
/// precision of the rate.
void expectTrainsLike(const optim::GradientTransformation &optimizer,
                      const HostOptimizer &host, const Schedule &schedule,
                      int steps = 3);

} // namespace rlx::test

#endif // RLX_TEST_FRONTEND_TRAINREFERENCE_H
