//===- Train.h - Schedules and compiled train steps -------------*- C++ -*-===//
///
/// \file
/// `make_train_step(loss, optimizer, schedule)` traces one function: a
/// `rlx.value_and_grad` marker over the loss w.r.t. the trained params, the
/// optimizer's gradient transformation (Optim.h) as rlx ops, and
/// `new.<param> = param + update`. Compiled once, it is one call per step:
/// weights stay bound in the runtime session (each step's new weights are
/// rebound, not copied) and optimizer state tensors are fed back as the next
/// call's inputs.
///
/// Step entry point: inputs are the loss's inputs, then `lr` and `step`
/// (f32 scalars; step counts from 1), then the optimizer state in the order
/// of the transformation's `init`; outputs are `loss`, `aux.<output>` for
/// the loss's further outputs, `new.<param>` per trained param (declaration
/// order), then `new.<state>` per state tensor. With loss scaling
/// (Precision::f16) the state ends with `loss_scale` and
/// `loss_scale.good_steps`, and a last output `skipped` (f32, 1 when the
/// step's gradients were not finite and nothing was applied).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_TRAIN_H
#define RLX_FRONTEND_TRAIN_H

#include "rlx/frontend/Jit.h"
#include "rlx/frontend/Ops.h"
#include "rlx/frontend/Optim.h"

#include <map>
#include <optional>

namespace rlx {

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

/// Data-parallel training: make_train_step with it traces a step whose
/// gradients are averaged over the replicas of `axis` before the optimizer
/// (pmean, inside the compiled step), so every replica applies the same
/// update and holds the same weights; each replica feeds its own shard of
/// the batch. The reported loss is the mean over replicas. At its first
/// step a TrainStep broadcasts replica 0's params to the others (after
/// checking that every replica has the same params with the same shapes);
/// save() and save_params() write on replica 0 only. The step runs on 1 or
/// N replicas unchanged.
struct DataParallel {
  /// The replica axis the collectives name.
  std::string axis = "replicas";
  /// Gradients are flattened and concatenated into buckets, one all-reduce
  /// each, instead of one per tensor: fewer, larger messages. A bucket
  /// closes once it holds this many bytes (or at a change of dtype). 0: one
  /// bucket per gradient. Buckets fill in reverse param order, the order in which the backward
  /// pass produces gradients (last layer first), so each bucket's
  /// all-reduce starts as soon as its gradients exist and runs while the
  /// backward pass computes the rest.
  int64_t bucket_bytes = 32 << 20;
  /// The first bucket's size (at most bucket_bytes): small, so that the
  /// first all-reduce starts early in the backward pass, as PyTorch DDP's
  /// first bucket of 1 MiB does.
  int64_t first_bucket_bytes = 1 << 20;
  /// The replicas. Null: the MPI world when the process runs under mpirun
  /// (OMPI_COMM_WORLD_SIZE or PMI_SIZE set), else a single replica.
  std::shared_ptr<runtime::Communicator> communicator;
};

/// A compiled training step and its state.
class TrainStep {
public:
  /// Made by make_train_step: `trained` names the params the step updates,
  /// `state` the optimizer state it keeps.
  TrainStep(Func loss, Func step, std::vector<std::string> trained,
            std::vector<optim::StateSpec> state, Schedule schedule,
            std::optional<DataParallel> parallel = std::nullopt);

  /// The traced step (export_mlir gives what rlxc compiles).
  const Func &func() const { return step_; }
  /// Compiles (cached) and initializes the optimizer state. With
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
  /// Steps applied (a step skipped by loss scaling does not count: the
  /// schedule and Adam's bias correction see only the applied ones).
  int64_t steps_done() const { return stepCount; }
  /// Loss scaling (Precision::f16): whether the last step was skipped (a
  /// gradient was Inf or NaN; its `skipped` output is 1), how many steps
  /// were, and the scale the next step multiplies the loss by (1 without
  /// loss scaling).
  bool skipped() const { return lastSkipped; }
  int64_t skipped_steps() const { return skippedCount; }
  double loss_scale() const;
  /// Every output of the last step: `loss`, `aux.<output>` for the loss's
  /// further outputs (not differentiated), `new.<param>`, new state.
  const Outputs &last_outputs() const { return last_; }
  Array param(const std::string &name) const;
  /// Every param of the loss, trained or not.
  std::vector<std::string> param_names() const { return loss_.param_names(); }
  /// The params the step updates (all unless TrainOptions::wrt chose).
  const std::vector<std::string> &trained_param_names() const {
    return trained_;
  }
  /// The optimizer state's names, in the step's input order.
  std::vector<std::string> state_names() const;
  /// Every param by name, then the state by its name (`m.<param>` ...) and
  /// `step`.
  void save(const std::string &path) const;
  /// Binds the params and restores the state and step count. A checkpoint
  /// of a step with other state (another optimizer) is an error.
  void load(const std::string &path);
  /// Only the params, as an inference model binds them.
  void save_params(const std::string &path) const;
  /// Seeds the PRNG key a step threads (see make_train_step) as
  /// `random::key(seed)` would; the default is key(0). After jit.
  TrainStep &seed(uint64_t seed);
  /// Data parallel: this replica's index and the number of replicas (0 and
  /// 1 otherwise). After jit.
  int replica() const;
  int replicas() const;

private:
  /// Data parallel: replica 0's params to every replica, once.
  void syncParams();

  Func loss_, step_;
  std::vector<std::string> trained_;
  /// State inputs in the step's input order.
  std::vector<optim::StateSpec> stateSpecs;
  Schedule schedule_;
  std::unique_ptr<Compiled> compiled_;
  std::map<std::string, Array> state;
  int64_t stepCount = 0;
  /// Loss scaling: whether the step has a `skipped` output, and its record.
  bool scalesLoss = false, lastSkipped = false;
  int64_t skippedCount = 0;
  Outputs last_;
  std::optional<DataParallel> parallel_;
  /// Data parallel: the replicas (set by jit) and whether the params were
  /// broadcast since they were last bound.
  std::shared_ptr<runtime::Communicator> communicator_;
  bool synced_ = false;
};

/// Quantization-aware training: the step's forward pass reads each trained
/// param of rank 2 or more (f32/f64 matrices, kernels) through
/// fake_quant(format), so the loss is the model's with its weights stored
/// in `format`, while the params (master weights) and the optimizer stay in
/// full precision. fake_quant's straight-through derivative makes each
/// gradient the loss's gradient at the quantized weights.
struct Qat {
  FloatFormat format;
  /// Also round the other operands of every matmul and conv2d (the
  /// activations) to `format`, as kernels computing in it would read them.
  bool activations = false;
};

/// Dynamic loss scaling (PyTorch's GradScaler, jmp's DynamicLossScale):
/// f16 keeps 5 exponent bits, so small gradients flush to zero unless the
/// loss is multiplied by a scale before differentiation (the gradients are
/// divided by it after). A step whose gradients are not all finite is
/// skipped inside the compiled step (params, optimizer state and the step
/// count unchanged) and halves the scale; `growth_interval` good steps in a
/// row double it. The scale and the count of good steps are step state
/// (`loss_scale`, `loss_scale.good_steps`), saved and loaded with the rest.
struct LossScaling {
  /// 2^15: the backward pass starts from the scale in the 16-bit type
  /// (the cotangent of the loss), and 2^16 is above f16's largest finite
  /// value (65504).
  double initial = 32768;
  /// Good steps in a row before the scale doubles.
  int64_t growth_interval = 2000;
  /// The scale never grows above `maximum` (2^15 for the reason above) nor
  /// falls below `minimum`.
  double maximum = 32768;
  double minimum = 1;
};

/// Mixed precision: the loss's forward and backward passes compute in
/// `compute` (bf16 or f16; see compute_in) while the params (master
/// weights) and the optimizer state stay f32, as do the reported loss and
/// the gradients the optimizer sees (the casts' derivatives bring them back
/// to f32).
struct Precision {
  DType compute = DType::f32;
  std::optional<LossScaling> loss_scaling = std::nullopt;

  /// Everything in f32 (the default).
  static Precision f32() { return {}; }
  /// bf16 compute: f32's exponent range, so no loss scaling.
  static Precision bf16() { return {DType::bf16, std::nullopt}; }
  /// f16 compute with dynamic loss scaling.
  static Precision f16(LossScaling scaling = {}) {
    return {DType::f16, scaling};
  }
};

/// What make_train_step trains.
struct TrainOptions {
  /// The params to train, by name; the others stay as bound and get no
  /// optimizer state. Empty: every param.
  std::vector<std::string> wrt;
  /// Quantization-aware training (see Qat); evaluate the result with
  /// fake_quant_params(model, qat->format).
  std::optional<Qat> qat = std::nullopt;
  /// Mixed-precision compute (see Precision): the trained params must be
  /// f32.
  Precision precision = Precision::f32();
};

/// Traces the step of `loss` (first output, one element): the gradients of
/// the trained params go through `optimizer`, whose updates are added to
/// them. A loss input named `key` of type i32[2] is a PRNG key (dropout,
/// noise): the step keeps it as state, splits it once per step and hands
/// the loss one half (TrainStep::seed chooses the first key). Clipping is a transformation of the chain
/// (`optim::chain(optim::clip_by_global_norm(1.0), Optimizer::adam())`).
TrainStep make_train_step(const Func &loss,
                          const optim::GradientTransformation &optimizer,
                          const Schedule &schedule,
                          const TrainOptions &options = {},
                          SourceLoc loc = SourceLoc::current());
/// The data-parallel step (see DataParallel).
TrainStep make_train_step(const Func &loss,
                          const optim::GradientTransformation &optimizer,
                          const Schedule &schedule,
                          const DataParallel &parallel,
                          const TrainOptions &options = {},
                          SourceLoc loc = SourceLoc::current());

} // namespace rlx

#endif // RLX_FRONTEND_TRAIN_H
