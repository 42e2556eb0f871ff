//===- Optim.cpp - Composable gradient transformations --------------------===//
///
/// \file
/// Each built-in transformation writes its update rule with the frontend's
/// ops on the step being traced; the usual optimizers are chains of them.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Optim.h"
#include "rlx/frontend/Ops.h"

#include <algorithm>
#include <cmath>

namespace rlx {
namespace optim {

std::vector<detail::Arg> StepContext::param_args() const {
  std::vector<detail::Arg> args;
  for (const std::string &name : order)
    args.push_back({name, params.at(name).type()});
  return args;
}

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//

ParamMask ParamMask::only(std::vector<std::string> names) {
  ParamMask m;
  m.kind = Kind::Only;
  m.names = std::move(names);
  return m;
}

ParamMask ParamMask::all_but(std::vector<std::string> names) {
  ParamMask m;
  m.kind = Kind::AllBut;
  m.names = std::move(names);
  return m;
}

ParamMask ParamMask::where(std::function<bool(const std::string &)> predicate) {
  if (!predicate)
    throw Error("rlx::optim::ParamMask::where: empty predicate");
  ParamMask m;
  m.kind = Kind::Where;
  m.predicate = std::move(predicate);
  return m;
}

bool ParamMask::contains(const std::string &param) const {
  bool listed = std::find(names.begin(), names.end(), param) != names.end();
  switch (kind) {
  case Kind::All:
    return true;
  case Kind::Only:
    return listed;
  case Kind::AllBut:
    return !listed;
  case Kind::Where:
    return predicate(param);
  }
  return true;
}

void ParamMask::check(const std::vector<detail::Arg> &params,
                      const std::string &who) const {
  for (const std::string &name : names) {
    bool known = false;
    for (const detail::Arg &p : params)
      known |= p.name == name;
    if (!known)
      throw Error(who + ": the mask names '" + name +
                  "', not a param being trained");
  }
}

//===----------------------------------------------------------------------===//
// Composition
//===----------------------------------------------------------------------===//

GradientTransformation
chain(std::vector<GradientTransformation> transformations) {
  for (const GradientTransformation &t : transformations)
    if (!t.update)
      throw Error("rlx::optim::chain: a transformation has no update");
  GradientTransformation c;
  c.init = [transformations](const std::vector<detail::Arg> &params) {
    std::vector<StateSpec> all;
    for (const GradientTransformation &t : transformations)
      if (t.init)
        for (StateSpec &spec : t.init(params))
          all.push_back(std::move(spec));
    return all;
  };
  c.update = [transformations](const Tree &updates, Tree &state,
                               const StepContext &ctx) {
    Tree u = updates;
    for (const GradientTransformation &t : transformations)
      u = t.update(u, state, ctx);
    return u;
  };
  return c;
}

GradientTransformation masked(GradientTransformation inner, ParamMask mask) {
  if (!inner.update)
    throw Error("rlx::optim::masked: the transformation has no update");
  auto select = [mask](const std::vector<detail::Arg> &params) {
    mask.check(params, "rlx::optim::masked");
    std::vector<detail::Arg> chosen;
    for (const detail::Arg &p : params)
      if (mask.contains(p.name))
        chosen.push_back(p);
    return chosen;
  };
  GradientTransformation m;
  if (inner.init)
    m.init = [inner, select](const std::vector<detail::Arg> &params) {
      return inner.init(select(params));
    };
  m.update = [inner, mask](const Tree &updates, Tree &state,
                           const StepContext &ctx) {
    StepContext sub{ctx.scope, {}, {}, ctx.lr, ctx.step};
    Tree chosen;
    for (const std::string &name : ctx.order)
      if (mask.contains(name)) {
        sub.order.push_back(name);
        sub.params.emplace(name, ctx.params.at(name));
        chosen.emplace(name, updates.at(name));
      }
    Tree out = updates;
    if (chosen.empty())
      return out;
    for (auto &[name, u] : inner.update(chosen, state, sub))
      out[name] = u;
    return out;
  };
  return m;
}

//===----------------------------------------------------------------------===//
// Scaling and clipping
//===----------------------------------------------------------------------===//

/// A transformation applying `fn` to each update alone, without state.
static GradientTransformation
elementwise(std::function<Tensor(const Tensor &u, const std::string &param,
                                 const StepContext &ctx)>
                fn) {
  GradientTransformation t;
  t.update = [fn](const Tree &updates, Tree &, const StepContext &ctx) {
    Tree out;
    for (const auto &[name, u] : updates)
      out.emplace(name, fn(u, name, ctx));
    return out;
  };
  return t;
}

GradientTransformation scale(double factor) {
  return elementwise(
      [factor](const Tensor &u, const std::string &, const StepContext &ctx) {
        return ctx.scope.scalar(factor, u.dtype()) * u;
      });
}

GradientTransformation scale_by_learning_rate() {
  // -(lr * u), not u * -lr: the step computes p + (-(lr * u)), which is
  // p - lr * u to the bit.
  return elementwise(
      [](const Tensor &u, const std::string &, const StepContext &ctx) {
        return -(cast(ctx.lr, u.dtype()) * u);
      });
}

GradientTransformation
scale_by_schedule(std::function<Tensor(const Tensor &step)> schedule) {
  if (!schedule)
    throw Error("rlx::optim::scale_by_schedule: empty schedule");
  GradientTransformation t;
  t.update = [schedule](const Tree &updates, Tree &, const StepContext &ctx) {
    Tensor rate = schedule(ctx.step);
    if (rate.rank() != 0)
      throw Error("rlx::optim::scale_by_schedule: the schedule gives " +
                  rate.type().str() + ", expected a scalar");
    Tree out;
    for (const auto &[name, u] : updates)
      out.emplace(name, cast(rate, u.dtype()) * u);
    return out;
  };
  return t;
}

GradientTransformation clip_by_global_norm(double maxNorm) {
  if (!(maxNorm > 0))
    throw Error("rlx::optim::clip_by_global_norm: max_norm must be positive");
  GradientTransformation t;
  t.update = [maxNorm](const Tree &updates, Tree &, const StepContext &ctx) {
    Scope &s = ctx.scope;
    Tensor total = s.scalar(0, DType::f32);
    for (const std::string &name : ctx.order)
      total = total + cast(sum(square(updates.at(name))), DType::f32);
    Tensor norm = sqrt(total);
    Tensor factor = minimum(s.scalar(maxNorm) / (norm + 1e-6), 1.0);
    Tree out;
    for (const auto &[name, u] : updates)
      out.emplace(name, u * cast(factor, u.dtype()));
    return out;
  };
  return t;
}

GradientTransformation add_decayed_weights(double weightDecay, ParamMask mask) {
  GradientTransformation t;
  t.init = [mask](const std::vector<detail::Arg> &params) {
    mask.check(params, "rlx::optim::add_decayed_weights");
    return std::vector<StateSpec>{};
  };
  t.update = [weightDecay, mask](const Tree &updates, Tree &,
                                 const StepContext &ctx) {
    Tree out = updates;
    if (weightDecay == 0)
      return out;
    for (auto &[name, u] : out)
      if (mask.contains(name))
        u = u + ctx.scope.scalar(weightDecay, u.dtype()) * ctx.params.at(name);
    return out;
  };
  return t;
}

//===----------------------------------------------------------------------===//
// Stateful directions
//===----------------------------------------------------------------------===//

/// One zero-initialized state tensor per param, named `<prefix><param>`.
static std::vector<StateSpec> perParam(const std::vector<std::string> &prefixes,
                                       const std::vector<detail::Arg> &params) {
  std::vector<StateSpec> specs;
  for (const std::string &prefix : prefixes)
    for (const detail::Arg &p : params)
      specs.push_back({prefix + p.name, p.type, 0});
  return specs;
}

GradientTransformation trace(double decay, bool nesterov) {
  if (nesterov && decay == 0)
    throw Error("rlx::optim::trace: Nesterov needs decay > 0");
  GradientTransformation t;
  t.init = [](const std::vector<detail::Arg> &params) {
    return perParam({"momentum."}, params);
  };
  t.update = [decay, nesterov](const Tree &updates, Tree &state,
                               const StepContext &ctx) {
    Tree out;
    for (const auto &[name, u] : updates) {
      Tensor d = ctx.scope.scalar(decay, u.dtype());
      Tensor &buf = state.at("momentum." + name);
      buf = d * buf + u;
      out.emplace(name, nesterov ? u + d * buf : buf);
    }
    return out;
  };
  return t;
}

GradientTransformation scale_by_adam(double beta1, double beta2, double eps,
                                     bool nesterov) {
  GradientTransformation t;
  t.init = [](const std::vector<detail::Arg> &params) {
    return perParam({"m.", "v."}, params);
  };
  t.update = [=](const Tree &updates, Tree &state, const StepContext &ctx) {
    Tree out;
    for (const auto &[name, g] : updates) {
      DType dt = g.dtype();
      auto c = [&](double v) { return ctx.scope.scalar(v, dt); };
      Tensor &m = state.at("m." + name), &v = state.at("v." + name);
      m = c(beta1) * m + c(1 - beta1) * g;
      v = c(beta2) * v + c(1 - beta2) * square(g);
      Tensor step = cast(ctx.step, g.dtype());
      Tensor mHat = nesterov ? c(beta1) * m / (c(1) - pow(c(beta1), step + 1)) +
                                   c(1 - beta1) * g /
                                       (c(1) - pow(c(beta1), step))
                             : m / (c(1) - pow(c(beta1), step));
      Tensor vHat = v / (c(1) - pow(c(beta2), step));
      out.emplace(name, mHat / (sqrt(vHat) + c(eps)));
    }
    return out;
  };
  return t;
}

GradientTransformation scale_by_lion(double beta1, double beta2) {
  GradientTransformation t;
  t.init = [](const std::vector<detail::Arg> &params) {
    return perParam({"m."}, params);
  };
  t.update = [=](const Tree &updates, Tree &state, const StepContext &ctx) {
    Tree out;
    for (const auto &[name, g] : updates) {
      DType dt = g.dtype();
      auto c = [&](double v) { return ctx.scope.scalar(v, dt); };
      Tensor &m = state.at("m." + name);
      out.emplace(name, sign(c(beta1) * m + c(1 - beta1) * g));
      m = c(beta2) * m + c(1 - beta2) * g;
    }
    return out;
  };
  return t;
}

//===----------------------------------------------------------------------===//
// Muon
//===----------------------------------------------------------------------===//

/// Throws unless `type` (of param `name`) is a matrix with static dims: the
/// orientation and the width scale are decided while tracing.
static void requireMatrix(const std::string &who, const std::string &name,
                          const TensorType &type) {
  if (type.rank() != 2 || type.shape[0] == dyn || type.shape[1] == dyn)
    throw Error(who + ": '" + name + "' is " + type.str() +
                ", expected a matrix with static dims (Optimizer::muon "
                "gives other params to AdamW)");
}

/// Newton-Schulz orthogonalization of the matrix `x`: the wide orientation
/// keeps X X^T the smaller Gram matrix, and f(X^T) = f(X)^T makes
/// transposing exact.
static Tensor orthogonalize(Scope &s, const Tensor &x, int64_t steps,
                            const std::array<double, 3> &coeffs, double eps) {
  DType dt = x.dtype();
  auto c = [&](double v) { return s.scalar(v, dt); };
  bool tall = x.dim(0) > x.dim(1);
  Tensor X = tall ? transpose(x) : x;
  X = X / (sqrt(sum(square(X))) + c(eps));
  for (int64_t i = 0; i < steps; ++i) {
    Tensor A = matmul(X, transpose(X));
    Tensor B = c(coeffs[1]) * A + c(coeffs[2]) * matmul(A, A);
    X = c(coeffs[0]) * X + matmul(B, X);
  }
  return tall ? transpose(X) : X;
}

GradientTransformation scale_by_muon(double beta, bool nesterov,
                                     int64_t nsSteps,
                                     std::array<double, 3> nsCoeffs,
                                     double eps) {
  const std::string who = "rlx::optim::scale_by_muon";
  if (!(beta >= 0 && beta < 1))
    throw Error(who + ": beta must be in [0, 1), got " + std::to_string(beta));
  if (nsSteps < 0)
    throw Error(who + ": ns_steps must not be negative");
  GradientTransformation t;
  t.init = [who](const std::vector<detail::Arg> &params) {
    for (const detail::Arg &p : params)
      requireMatrix(who, p.name, p.type);
    return perParam({"mu."}, params);
  };
  t.update = [=](const Tree &updates, Tree &state, const StepContext &ctx) {
    Tree out;
    for (const auto &[name, g] : updates) {
      requireMatrix(who, name, g.type());
      DType dt = g.dtype();
      auto c = [&](double v) { return ctx.scope.scalar(v, dt); };
      Tensor &mu = state.at("mu." + name);
      mu = c(beta) * mu + c(1 - beta) * g;
      Tensor step = cast(ctx.step, dt);
      // Bias correction at `power` steps: x / (1 - beta^power).
      auto corrected = [&](const Tensor &x, const Tensor &power) {
        return x / (c(1) - pow(c(beta), power));
      };
      Tensor muHat = nesterov ? c(beta) * corrected(mu, step + 1) +
                                    c(1 - beta) * corrected(g, step)
                              : corrected(mu, step);
      out.emplace(name,
                  orthogonalize(ctx.scope, muHat, nsSteps, nsCoeffs, eps));
    }
    return out;
  };
  return t;
}

GradientTransformation scale_by_shape() {
  const std::string who = "rlx::optim::scale_by_shape";
  GradientTransformation t;
  t.init = [who](const std::vector<detail::Arg> &params) {
    for (const detail::Arg &p : params)
      requireMatrix(who, p.name, p.type);
    return std::vector<StateSpec>{};
  };
  t.update = [who](const Tree &updates, Tree &, const StepContext &ctx) {
    Tree out;
    for (const auto &[name, u] : updates) {
      requireMatrix(who, name, u.type());
      double fanIn = double(u.dim(0)), fanOut = double(u.dim(1));
      double factor = std::sqrt(std::max(1.0, fanOut / fanIn));
      out.emplace(name, ctx.scope.scalar(factor, u.dtype()) * u);
    }
    return out;
  };
  return t;
}

} // namespace optim

//===----------------------------------------------------------------------===//
// The usual optimizers
//===----------------------------------------------------------------------===//

using namespace optim;

GradientTransformation Optimizer::sgd(double momentum, bool nesterov,
                                      double weightDecay, ParamMask decayMask) {
  if (nesterov && momentum == 0)
    throw Error("rlx::Optimizer::sgd: Nesterov needs momentum > 0");
  std::vector<GradientTransformation> steps{
      add_decayed_weights(weightDecay, std::move(decayMask))};
  if (momentum != 0)
    steps.push_back(trace(momentum, nesterov));
  steps.push_back(scale_by_learning_rate());
  return chain(std::move(steps));
}

GradientTransformation Optimizer::adam(double beta1, double beta2, double eps,
                                       double weightDecay,
                                       ParamMask decayMask) {
  return chain(add_decayed_weights(weightDecay, std::move(decayMask)),
               scale_by_adam(beta1, beta2, eps), scale_by_learning_rate());
}

GradientTransformation Optimizer::adamw(double weightDecay, double beta1,
                                        double beta2, double eps,
                                        ParamMask decayMask) {
  return chain(scale_by_adam(beta1, beta2, eps),
               add_decayed_weights(weightDecay, std::move(decayMask)),
               scale_by_learning_rate());
}

GradientTransformation Optimizer::lion(double beta1, double beta2,
                                       double weightDecay,
                                       ParamMask decayMask) {
  return chain(scale_by_lion(beta1, beta2),
               add_decayed_weights(weightDecay, std::move(decayMask)),
               scale_by_learning_rate());
}

/// `inner` on the params whose type satisfies `select` (Optax's partition
/// by label, one label at a time); the others pass through.
static GradientTransformation
onParamsOfType(GradientTransformation inner,
               std::function<bool(const TensorType &)> select) {
  GradientTransformation t;
  t.init = [inner, select](const std::vector<detail::Arg> &params) {
    std::vector<detail::Arg> chosen;
    for (const detail::Arg &p : params)
      if (select(p.type))
        chosen.push_back(p);
    return inner.init ? inner.init(chosen) : std::vector<StateSpec>{};
  };
  t.update = [inner, select](const Tree &updates, Tree &state,
                             const StepContext &ctx) {
    std::vector<std::string> names;
    for (const std::string &name : ctx.order)
      if (select(ctx.params.at(name).type()))
        names.push_back(name);
    return masked(inner, ParamMask::only(names)).update(updates, state, ctx);
  };
  return t;
}

GradientTransformation Optimizer::muon(const MuonOptions &o) {
  auto isMatrix = [](const TensorType &type) { return type.rank() == 2; };
  std::vector<GradientTransformation> adam{
      scale_by_adam(o.adam_beta1, o.adam_beta2, o.eps, o.nesterov),
      add_decayed_weights(o.adam_weight_decay)};
  if (o.adam_lr_scale != 1)
    adam.push_back(scale(o.adam_lr_scale));
  adam.push_back(scale_by_learning_rate());
  return chain(
      onParamsOfType(chain(scale_by_muon(o.beta, o.nesterov, o.ns_steps,
                                         o.ns_coeffs, o.eps),
                           scale_by_shape(),
                           add_decayed_weights(o.weight_decay, o.decay_mask),
                           scale_by_learning_rate()),
                     isMatrix),
      onParamsOfType(chain(std::move(adam)),
                     [isMatrix](const TensorType &type) {
                       return !isMatrix(type);
                     }));
}

} // namespace rlx
