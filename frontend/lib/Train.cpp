//===- Train.cpp - Optimizers, schedules and the compiled train step ------===//
///
/// \file
/// The step is traced like any model: a call of `loss.value_and_grad_all()`
/// (a `rlx.value_and_grad` marker the compiler expands), then global-norm
/// clipping and the optimizer's update written with the frontend's own ops.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Train.h"
#include "rlx/frontend/Ops.h"

#include <cmath>

namespace rlx {

//===----------------------------------------------------------------------===//
// Optimizers and schedules
//===----------------------------------------------------------------------===//

Optimizer Optimizer::sgd(double momentum, bool nesterov, double weightDecay) {
  Optimizer o;
  o.kind = Kind::SGD;
  o.momentum = momentum;
  o.nesterov = nesterov;
  o.weight_decay = weightDecay;
  if (nesterov && momentum == 0)
    throw Error("rlx::Optimizer::sgd: Nesterov needs momentum > 0");
  return o;
}

Optimizer Optimizer::adam(double beta1, double beta2, double eps,
                          double weightDecay) {
  Optimizer o;
  o.kind = Kind::Adam;
  o.beta1 = beta1;
  o.beta2 = beta2;
  o.eps = eps;
  o.weight_decay = weightDecay;
  return o;
}

Optimizer Optimizer::adamw(double weightDecay, double beta1, double beta2,
                           double eps) {
  Optimizer o = adam(beta1, beta2, eps, weightDecay);
  o.kind = Kind::AdamW;
  return o;
}

Optimizer Optimizer::lion(double beta1, double beta2, double weightDecay) {
  Optimizer o;
  o.kind = Kind::Lion;
  o.beta1 = beta1;
  o.beta2 = beta2;
  o.weight_decay = weightDecay;
  return o;
}

Optimizer &Optimizer::decay_group(const std::vector<std::string> &names,
                                  double decay) {
  for (const std::string &n : names)
    decay_groups[n] = decay;
  return *this;
}

double Optimizer::decay_for(const std::string &param) const {
  auto it = decay_groups.find(param);
  return it == decay_groups.end() ? weight_decay : it->second;
}

std::vector<std::string> Optimizer::state_prefixes() const {
  switch (kind) {
  case Kind::SGD:
    return momentum != 0 ? std::vector<std::string>{"momentum."}
                         : std::vector<std::string>{};
  case Kind::Adam:
  case Kind::AdamW:
    return {"m.", "v."};
  case Kind::Lion:
    return {"m."};
  }
  return {};
}

Schedule Schedule::constant(double lr) {
  return {[lr](int64_t) { return lr; }};
}

Schedule Schedule::step(double lr, int64_t every, double gamma) {
  if (every < 1)
    throw Error("rlx::Schedule::step: `every` must be positive");
  return {[=](int64_t step) {
    return lr * std::pow(gamma, double((step - 1) / every));
  }};
}

Schedule Schedule::cosine(double lr, int64_t totalSteps, double minLr) {
  if (totalSteps < 1)
    throw Error("rlx::Schedule::cosine: total_steps must be positive");
  return {[=](int64_t step) {
    double t = std::min<double>(double(step - 1) / totalSteps, 1.0);
    return minLr + 0.5 * (lr - minLr) * (1 + std::cos(M_PI * t));
  }};
}

Schedule Schedule::warmup(int64_t warmupSteps, Schedule then) {
  return {[=](int64_t step) {
    if (step <= warmupSteps)
      return then.at(step) * double(step) / double(warmupSteps);
    return then.at(step);
  }};
}

//===----------------------------------------------------------------------===//
// Tracing the step
//===----------------------------------------------------------------------===//

TrainStep make_train_step(const Func &loss, const Optimizer &opt,
                          const Schedule &schedule, double clip,
                          SourceLoc loc) {
  if (loss.params().empty())
    throw Error("rlx::make_train_step: '" + loss.name() +
                "' has no params to train" + loc.suffix());
  for (const auto &[name, decay] : opt.decay_groups) {
    bool known = false;
    for (const std::string &p : loss.param_names())
      known |= p == name;
    if (!known)
      throw Error("rlx::make_train_step: weight-decay group names '" + name +
                  "', not a param of '" + loss.name() + "'" + loc.suffix());
  }
  bool hasAux = loss.outputs().size() > 1;
  Func valueAndGrad = loss.value_and_grad_all(hasAux, loc);

  Scope s(loss.name() + "_train_step");
  std::vector<Tensor> args;
  for (const detail::Arg &in : loss.inputs())
    args.push_back(s.input(in.name, in.type.shape, in.type.dtype, loc));
  Tensor lr = s.input("lr", {}, DType::f32, loc);
  Tensor t = s.input("step", {}, DType::f32, loc);
  std::map<std::string, Tensor> state;
  for (const std::string &prefix : opt.state_prefixes())
    for (const detail::Arg &p : loss.params())
      state[prefix + p.name] =
          s.input(prefix + p.name, p.type.shape, p.type.dtype, loc);

  std::vector<Tensor> results = valueAndGrad(s, args, loc);
  size_t values = loss.outputs().size();
  std::vector<Tensor> grads(results.begin() + values, results.end());

  if (clip > 0) {
    Tensor total = s.scalar(0, DType::f32);
    for (const Tensor &g : grads)
      total = total + cast(sum(square(g)), DType::f32);
    Tensor norm = sqrt(total);
    Tensor scale = minimum(s.scalar(clip) / (norm + 1e-6), 1.0);
    for (Tensor &g : grads)
      g = g * cast(scale, g.dtype());
  }

  std::vector<Tensor> outputs{results[0].named("loss")};
  for (size_t i = 1; i < values; ++i)
    outputs.push_back(results[i].named("aux." + loss.outputs()[i].name));
  std::vector<Tensor> newState;
  for (size_t i = 0; i < grads.size(); ++i) {
    const detail::Arg &p = loss.params()[i];
    Tensor w = s.param(p.name, p.type.shape, p.type.dtype, loc);
    Tensor g = grads[i];
    DType dt = p.type.dtype;
    Tensor rate = cast(lr, dt);
    double wd = opt.decay_for(p.name);
    auto c = [&](double v) { return s.scalar(v, dt); };
    Tensor updated;
    switch (opt.kind) {
    case Optimizer::Kind::SGD: {
      if (wd != 0)
        g = g + c(wd) * w;
      Tensor direction = g;
      if (opt.momentum != 0) {
        Tensor buf = c(opt.momentum) * state["momentum." + p.name] + g;
        newState.push_back(buf.named("new.momentum." + p.name));
        direction = opt.nesterov ? g + c(opt.momentum) * buf : buf;
      }
      updated = w - rate * direction;
      break;
    }
    case Optimizer::Kind::Adam:
    case Optimizer::Kind::AdamW: {
      if (wd != 0 && opt.kind == Optimizer::Kind::Adam)
        g = g + c(wd) * w;
      Tensor m = c(opt.beta1) * state["m." + p.name] + c(1 - opt.beta1) * g;
      Tensor v =
          c(opt.beta2) * state["v." + p.name] + c(1 - opt.beta2) * square(g);
      newState.push_back(m.named("new.m." + p.name));
      newState.push_back(v.named("new.v." + p.name));
      Tensor tt = cast(t, dt);
      Tensor mHat = m / (c(1) - pow(c(opt.beta1), tt));
      Tensor vHat = v / (c(1) - pow(c(opt.beta2), tt));
      Tensor direction = mHat / (sqrt(vHat) + c(opt.eps));
      if (wd != 0 && opt.kind == Optimizer::Kind::AdamW)
        direction = direction + c(wd) * w;
      updated = w - rate * direction;
      break;
    }
    case Optimizer::Kind::Lion: {
      Tensor m = state["m." + p.name];
      Tensor direction = sign(c(opt.beta1) * m + c(1 - opt.beta1) * g);
      if (wd != 0)
        direction = direction + c(wd) * w;
      updated = w - rate * direction;
      newState.push_back(
          (c(opt.beta2) * m + c(1 - opt.beta2) * g).named("new.m." + p.name));
      break;
    }
    }
    outputs.push_back(updated.named("new." + p.name));
  }
  // State outputs follow the params, in the order of the state inputs.
  for (const std::string &prefix : opt.state_prefixes())
    for (const detail::Arg &p : loss.params())
      for (const Tensor &n : newState)
        if (n.name() == "new." + prefix + p.name)
          outputs.push_back(n);
  std::shared_ptr<detail::FuncDef> def = s.finish(outputs);
  // Specializable when the loss is: the step is traced again around the
  // specialized loss (the state and the scalars have static shapes).
  if (loss.def().specialize) {
    std::shared_ptr<const detail::FuncDef> lossDef = loss.shared();
    def->specialize = [lossDef, opt, schedule, clip,
                       loc](const detail::InputShapes &shapes) {
      detail::InputShapes mine;
      for (const detail::Arg &in : lossDef->inputs)
        if (auto it = shapes.find(in.name); it != shapes.end())
          mine[in.name] = it->second;
      Func special(lossDef->specialize(mine));
      return make_train_step(special, opt, schedule, clip, loc).func().shared();
    };
  }
  return TrainStep(loss, Func(def), opt, schedule);
}

//===----------------------------------------------------------------------===//
// Running the step
//===----------------------------------------------------------------------===//

TrainStep::TrainStep(Func loss, Func step, Optimizer optimizer,
                     Schedule schedule)
    : loss_(std::move(loss)), step_(std::move(step)),
      optimizer_(std::move(optimizer)), schedule_(std::move(schedule)) {
  for (const std::string &prefix : optimizer_.state_prefixes())
    for (const detail::Arg &p : loss_.params())
      stateNames.push_back(prefix + p.name);
}

TrainStep &TrainStep::jit(const Device &device, const JitOptions &options) {
  compiled_ = std::make_unique<Compiled>(step_.jit(device, options));
  state.clear();
  for (const std::string &prefix : optimizer_.state_prefixes())
    for (const detail::Arg &p : loss_.params())
      state[prefix + p.name] = Array::zeros(p.type.shape, p.type.dtype);
  stepCount = 0;
  return *this;
}

static void requireCompiled(const std::unique_ptr<Compiled> &c) {
  if (!c)
    throw Error("rlx::TrainStep: call jit() first");
}

TrainStep &TrainStep::with_param(const std::string &name, const Array &value) {
  requireCompiled(compiled_);
  compiled_->with_param(name, value);
  return *this;
}

TrainStep &TrainStep::init_randn(uint64_t seed, double stddev) {
  requireCompiled(compiled_);
  compiled_->init_randn(seed, stddev);
  return *this;
}

TrainStep &TrainStep::init_params(
    const std::function<Array(const std::string &, const Shape &)> &init) {
  requireCompiled(compiled_);
  compiled_->init_params(init);
  return *this;
}

double TrainStep::step(const std::map<std::string, Array> &inputs) {
  requireCompiled(compiled_);
  std::map<std::string, Array> all = inputs;
  for (const char *reserved : {"lr", "step"})
    if (inputs.count(reserved))
      throw Error(std::string("rlx::TrainStep::step: input '") + reserved +
                  "' is set by the train step itself");
  int64_t next = stepCount + 1;
  all["lr"] = Array::scalar(schedule_.at(next));
  all["step"] = Array::scalar(static_cast<double>(next));
  for (const auto &[name, value] : state) {
    if (inputs.count(name))
      throw Error("rlx::TrainStep::step: input '" + name +
                  "' is optimizer state");
    all[name] = value;
  }
  Outputs out = compiled_->run(all);
  // The new weights are rebound and the new state kept: both stay runtime
  // tensors, nothing is copied.
  for (const detail::Arg &p : loss_.params())
    compiled_->with_param(p.name, out["new." + p.name]);
  for (const std::string &name : stateNames)
    state[name] = out["new." + name];
  stepCount = next;
  last_ = out;
  return out["loss"].item();
}

Array TrainStep::param(const std::string &name) const {
  requireCompiled(compiled_);
  return compiled_->param(name);
}

void TrainStep::save_params(const std::string &path) const {
  requireCompiled(compiled_);
  TensorList list;
  for (const detail::Arg &p : loss_.params())
    list.append(p.name, compiled_->param(p.name).host());
  list.writeSafetensors(path);
}

void TrainStep::save(const std::string &path) const {
  requireCompiled(compiled_);
  TensorList list;
  for (const detail::Arg &p : loss_.params())
    list.append(p.name, compiled_->param(p.name).host());
  for (const std::string &name : stateNames)
    list.append(name, state.at(name).host());
  list.append("step", Array::from(std::vector<double>{double(stepCount)}, {},
                                  DType::i64)
                          .host());
  list.writeSafetensors(path);
}

void TrainStep::load(const std::string &path) {
  requireCompiled(compiled_);
  try {
    TensorList list = TensorList::readSafetensors(path);
    for (size_t i = 0; i < list.size(); ++i) {
      std::string name = list.name(i);
      Array value(list.at(i));
      if (name == "step") {
        stepCount = static_cast<int64_t>(value.item());
      } else if (state.count(name)) {
        if (value.shape() != state[name].shape() ||
            value.dtype() != state[name].dtype())
          throw Error("rlx::TrainStep::load: state '" + name + "' is " +
                      value.type_string() + ", expected " +
                      state[name].type_string());
        state[name] = value;
      } else {
        compiled_->with_param(name, value);
      }
    }
  } catch (const RuntimeError &e) {
    throw Error("rlx::TrainStep::load: " + std::string(e.what()));
  }
}

} // namespace rlx
