//===- Optim.h - Composable gradient transformations -----------*- C++ -*-===//
///
/// \file
/// Optimizers as Optax builds them: a `GradientTransformation` is an `init`
/// (the state it keeps per trained param) and an `update` (traced rlx ops
/// from this step's updates, its state and the params to new updates and
/// new state). `chain` composes them left to right; the train step adds the
/// last updates to the params. SGD, Adam, AdamW, Lion and Muon are chains:
///
/// \code
///   using namespace rlx::optim;
///   GradientTransformation adamw = chain(
///       clip_by_global_norm(1.0), scale_by_adam(0.9, 0.999, 1e-8),
///       add_decayed_weights(0.01, ParamMask::all_but({"ln.weight"})),
///       scale_by_learning_rate());
/// \endcode
///
/// A user's transformation is two lambdas over the same types.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_OPTIM_H
#define RLX_FRONTEND_OPTIM_H

#include "rlx/frontend/Func.h"

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace rlx {
namespace optim {

/// Traced tensors by name: updates and params by param name, state by state
/// name.
using Tree = std::map<std::string, Tensor>;

/// One tensor a transformation keeps between steps: an input of the step
/// and a `new.<name>` output, saved in checkpoints under `name`.
struct StateSpec {
  /// Unique in the step. The built-ins use `<prefix><param>`: `m.`, `v.`
  /// (Adam), `m.` (Lion), `momentum.` (trace).
  std::string name;
  TensorType type;
  /// Every element's value before the first step.
  double init = 0;
};

/// What an update sees besides the updates and its state.
struct StepContext {
  Scope &scope;
  /// The trained params' current values.
  Tree params;
  /// Their names in declaration order (Tree is sorted by name).
  std::vector<std::string> order;
  /// The host schedule's rate and the step number (from 1): f32 scalars.
  Tensor lr, step;

  /// The trained params' names and types, in declaration order (what init
  /// was given).
  std::vector<detail::Arg> param_args() const;
};

/// Optax's GradientTransformation.
struct GradientTransformation {
  /// The state kept for `params` (the trained ones, in declaration order).
  /// Empty: no state.
  std::function<std::vector<StateSpec>(const std::vector<detail::Arg> &params)>
      init;
  /// New updates (one per trained param, of its type) from `updates` (the
  /// gradients, for the first transformation of a chain). `state` holds the
  /// previous step's value of every state tensor by name; the update assigns
  /// the new values of its own.
  std::function<Tree(const Tree &updates, Tree &state, const StepContext &ctx)>
      update;
};

/// Which params a transformation applies to (Optax's masks). Default: all.
class ParamMask {
public:
  ParamMask() = default;
  static ParamMask only(std::vector<std::string> names);
  static ParamMask all_but(std::vector<std::string> names);
  static ParamMask where(std::function<bool(const std::string &)> predicate);

  bool contains(const std::string &param) const;
  /// Throws when a listed name is not among `params`: a typo would
  /// otherwise silently select nothing.
  void check(const std::vector<detail::Arg> &params,
             const std::string &who) const;

private:
  enum class Kind { All, Only, AllBut, Where } kind = Kind::All;
  std::vector<std::string> names;
  std::function<bool(const std::string &)> predicate;
};

/// Applies `transformations` in order; the state is theirs, concatenated.
GradientTransformation
chain(std::vector<GradientTransformation> transformations);
template <typename... Rest>
GradientTransformation chain(GradientTransformation first,
                             GradientTransformation second, Rest... rest) {
  return chain(std::vector<GradientTransformation>{
      std::move(first), std::move(second), std::move(rest)...});
}

/// `inner` on the params in `mask` only (state only for them); the other
/// updates pass through unchanged.
GradientTransformation masked(GradientTransformation inner, ParamMask mask);

/// updates * factor.
GradientTransformation scale(double factor);
/// updates * -lr: the step's `lr` input, which the host schedule sets.
GradientTransformation scale_by_learning_rate();
/// updates * schedule(step), the schedule traced from the f32 scalar `step`
/// (counts from 1). No sign flip: give a negative rate, e.g.
/// `[](const Tensor &t) { return -0.1 * exp(-0.01 * t); }`.
GradientTransformation
scale_by_schedule(std::function<Tensor(const Tensor &step)> schedule);
/// Scales every update by min(1, max_norm / (|updates| + 1e-6)), |.| the
/// global L2 norm over all trained params.
GradientTransformation clip_by_global_norm(double max_norm);
/// updates + weight_decay * param for the params in `mask`.
GradientTransformation add_decayed_weights(double weight_decay,
                                           ParamMask mask = {});
/// Momentum: state `momentum.<p>` = decay * momentum + u; the update is the
/// new momentum, or u + decay * momentum with Nesterov.
GradientTransformation trace(double decay, bool nesterov = false);
/// Adam's direction m^ / (sqrt(v^) + eps), bias-corrected by `step`; state
/// `m.<p>`, `v.<p>`. With `nesterov` (NAdam, as Optax's), m^ is
/// beta1 m / (1 - beta1^(step+1)) + (1 - beta1) u / (1 - beta1^step).
GradientTransformation scale_by_adam(double beta1 = 0.9, double beta2 = 0.999,
                                     double eps = 1e-8, bool nesterov = false);
/// Lion's direction sign(beta1 m + (1 - beta1) u); state `m.<p>` =
/// beta2 m + (1 - beta2) u.
GradientTransformation scale_by_lion(double beta1 = 0.9, double beta2 = 0.99);

/// Muon's direction for matrices (Keller Jordan's Muon, Optax's
/// `contrib.scale_by_muon`): state `mu.<p>` = beta mu + (1 - beta) u; the
/// bias-corrected momentum m^ (Nesterov: beta mu / (1 - beta^(step+1)) +
/// (1 - beta) u / (1 - beta^step)) is orthogonalized by `ns_steps` quintic
/// Newton-Schulz iterations X <- a X + (b A + c A A) X, A = X X^T, started
/// from m^ / (|m^|_F + eps) and run on the wide orientation (a tall matrix
/// is transposed, and the result back). The default coefficients maximize
/// the slope at zero: 5 steps bring the singular values into roughly
/// [0.5, 1.5], not to 1, which trains as well. Params of rank other
/// than 2 are rejected by name: Optimizer::muon gives those to AdamW.
GradientTransformation
scale_by_muon(double beta = 0.95, bool nesterov = true, int64_t ns_steps = 5,
              std::array<double, 3> ns_coeffs = {3.4445, -4.7750, 2.0315},
              double eps = 1e-8);
/// Muon's width scaling: each [fan_in, fan_out] matrix update (rlx weights
/// are [in, out], Optax's default dimension numbers) times
/// sqrt(max(1, fan_out / fan_in)), so the update's RMS per output follows
/// the layer's shape. Matrices only.
GradientTransformation scale_by_shape();

} // namespace optim

/// Optimizer::muon's settings; the defaults are Optax's `contrib.muon`.
struct MuonOptions {
  /// Momentum of the matrices' updates and Nesterov's look-ahead.
  double beta = 0.95;
  bool nesterov = true;
  /// Newton-Schulz iterations and their quintic's coefficients (a, b, c).
  int64_t ns_steps = 5;
  std::array<double, 3> ns_coeffs = {3.4445, -4.7750, 2.0315};
  /// Added to the Frobenius norm before dividing, and Adam's epsilon.
  double eps = 1e-8;
  /// Decoupled weight decay of the matrices in `decay_mask` (names
  /// matrices only), times the rate.
  double weight_decay = 0;
  optim::ParamMask decay_mask;
  /// The other params' AdamW (with Nesterov when `nesterov`, as Optax's).
  double adam_beta1 = 0.9, adam_beta2 = 0.999, adam_weight_decay = 0;
  /// The schedule's rate times this for the AdamW params (Optax's
  /// `adam_learning_rate` as a ratio, since one Schedule sets the rate).
  double adam_lr_scale = 1;
};

/// The usual optimizers as chains ending in scale_by_learning_rate (the
/// rate comes from a Schedule). `decay_mask` selects the params that get
/// weight decay.
struct Optimizer {
  /// add_decayed_weights (L2), trace when momentum != 0, the rate.
  static optim::GradientTransformation sgd(double momentum = 0,
                                           bool nesterov = false,
                                           double weight_decay = 0,
                                           optim::ParamMask decay_mask = {});
  /// add_decayed_weights (L2), scale_by_adam, the rate.
  static optim::GradientTransformation
  adam(double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8,
       double weight_decay = 0, optim::ParamMask decay_mask = {});
  /// scale_by_adam, add_decayed_weights (decoupled), the rate.
  static optim::GradientTransformation
  adamw(double weight_decay = 0.01, double beta1 = 0.9, double beta2 = 0.999,
        double eps = 1e-8, optim::ParamMask decay_mask = {});
  /// scale_by_lion, add_decayed_weights (decoupled), the rate.
  static optim::GradientTransformation lion(double beta1 = 0.9,
                                            double beta2 = 0.99,
                                            double weight_decay = 0,
                                            optim::ParamMask decay_mask = {});
  /// Muon on the rank-2 params (scale_by_muon, scale_by_shape, decoupled
  /// weight decay, the rate); AdamW on the others (biases, norms' scales).
  /// State `mu.<matrix>`, `m.<other>`, `v.<other>`.
  static optim::GradientTransformation muon(const MuonOptions &options = {});
};

} // namespace rlx

#endif // RLX_FRONTEND_OPTIM_H
