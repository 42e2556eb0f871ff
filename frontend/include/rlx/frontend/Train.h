//===- Train.h - Optimizers, schedules and compiled train steps -*- C++ -*-===//
///
/// \file
/// `make_train_step(loss, optimizer, schedule, clip)` traces one function:
/// a `rlx.value_and_grad` marker over the loss w.r.t. every param, global-norm
/// clipping, and the optimizer's update as rlx ops. Compiled once, it is one
/// call per step: weights stay bound in the runtime session (each step's new
/// weights are rebound, not copied) and optimizer state tensors are fed back
/// as the next call's inputs.
///
/// Step entry point: inputs are the loss's inputs, then `lr` and `step`
/// (f32 scalars; step counts from 1), then the optimizer state; outputs are
/// `loss`, `new.<param>` per param, then the new state.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_TRAIN_H
#define RLX_FRONTEND_TRAIN_H

#include "rlx/frontend/Jit.h"

#include <map>
#include <optional>

namespace rlx {

/// An optimizer's hyperparameters (the learning rate comes from a Schedule).
struct Optimizer {
  enum class Kind { SGD, Adam, AdamW, Lion } kind = Kind::SGD;
  double momentum = 0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  /// SGD and Adam: L2 added to the gradient; AdamW and Lion: decoupled.
  double weight_decay = 0;
  /// Per-param weight decay overriding `weight_decay`.
  std::map<std::string, double> decay_groups;

  static Optimizer sgd(double momentum = 0, bool nesterov = false,
                       double weight_decay = 0);
  static Optimizer adam(double beta1 = 0.9, double beta2 = 0.999,
                        double eps = 1e-8, double weight_decay = 0);
  static Optimizer adamw(double weight_decay = 0.01, double beta1 = 0.9,
                         double beta2 = 0.999, double eps = 1e-8);
  static Optimizer lion(double beta1 = 0.9, double beta2 = 0.99,
                        double weight_decay = 0);
  /// Gives `names` weight decay `decay` (e.g. 0 for biases and norms).
  Optimizer &decay_group(const std::vector<std::string> &names, double decay);
  double decay_for(const std::string &param) const;
  /// State tensors per param: `momentum.` (SGD with momentum), `m.` and `v.`
  /// (Adam, AdamW), `m.` (Lion).
  std::vector<std::string> state_prefixes() const;
};

/// The learning rate at each step (from 1), computed on the host.
struct Schedule {
  std::function<double(int64_t)> at;

  static Schedule constant(double lr);
  /// lr * gamma^floor((step-1) / every).
  static Schedule step(double lr, int64_t every, double gamma);
  /// From lr to min_lr over total_steps along half a cosine.
  static Schedule cosine(double lr, int64_t total_steps, double min_lr = 0);
  /// Linear from 0 to `then`'s rate over `warmup_steps`, then `then`.
  static Schedule warmup(int64_t warmup_steps, Schedule then);
};

/// A compiled training step and its state.
class TrainStep {
public:
  TrainStep(Func loss, Func step, Optimizer optimizer, Schedule schedule);

  /// The traced step (export_mlir gives what rlxc compiles).
  const Func &func() const { return step_; }
  /// Compiles (cached) and zero-initializes the optimizer state. With
  /// `options.specialize_shapes`, one step per input signature (static
  /// shapes), as for Func::jit.
  TrainStep &jit(const Device &device = Device::cpu(),
                 const JitOptions &options = {});
  TrainStep &with_param(const std::string &name, const Array &value);
  TrainStep &init_randn(uint64_t seed, double stddev = 0.1);
  TrainStep &init_params(
      const std::function<Array(const std::string &, const Shape &)> &init);
  /// One step: returns the loss. `inputs` are the loss's inputs by name.
  double step(const std::map<std::string, Array> &inputs);
  int64_t steps_done() const { return stepCount; }
  /// Every output of the last step: `loss`, `aux.<output>` for the loss's
  /// further outputs (not differentiated), `new.<param>`, new state.
  const Outputs &last_outputs() const { return last_; }
  Array param(const std::string &name) const;
  std::vector<std::string> param_names() const { return loss_.param_names(); }
  /// Params by name, then state as `<prefix><param>` and `step`.
  void save(const std::string &path) const;
  void load(const std::string &path);
  /// Only the params, as an inference model binds them.
  void save_params(const std::string &path) const;

private:
  Func loss_, step_;
  Optimizer optimizer_;
  Schedule schedule_;
  std::unique_ptr<Compiled> compiled_;
  /// State inputs by name, in the step's input order.
  std::vector<std::string> stateNames;
  std::map<std::string, Array> state;
  int64_t stepCount = 0;
  Outputs last_;
};

/// Traces the step of `loss` (first output, one element). `clip` > 0 scales
/// gradients so that their global norm is at most `clip`.
TrainStep make_train_step(const Func &loss, const Optimizer &optimizer,
                          const Schedule &schedule, double clip = 0,
                          SourceLoc loc = SourceLoc::current());

} // namespace rlx

#endif // RLX_FRONTEND_TRAIN_H
