//===- Train.cpp - Schedules and the compiled train step ------------------===//
///
/// \file
/// The step is traced like any model: a call of `loss.value_and_grad(...)`
/// (a `rlx.value_and_grad` marker the compiler expands) over the trained
/// params, then the optimizer's gradient transformation, whose built-ins
/// (Optim.cpp) write their rules with the frontend's own ops.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Train.h"
#include "rlx/frontend/Collectives.h"
#include "rlx/frontend/Ops.h"
#include "rlx/frontend/Random.h"

#include "TraceIR.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace rlx {

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

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

/// The params `options.wrt` names, in declaration order (all when empty).
static std::vector<detail::Arg>
trainedParams(const Func &loss, const TrainOptions &options, SourceLoc loc) {
  if (options.wrt.empty())
    return loss.params();
  std::vector<detail::Arg> trained;
  for (const std::string &name : options.wrt) {
    bool known = false;
    for (const detail::Arg &p : loss.params())
      known |= p.name == name;
    if (!known)
      throw Error("rlx::make_train_step: wrt names '" + name +
                  "', not a param of '" + loss.name() + "'" + loc.suffix());
    if (std::count(options.wrt.begin(), options.wrt.end(), name) > 1)
      throw Error("rlx::make_train_step: wrt names '" + name + "' twice" +
                  loc.suffix());
  }
  for (const detail::Arg &p : loss.params())
    if (std::count(options.wrt.begin(), options.wrt.end(), p.name))
      trained.push_back(p);
  return trained;
}

/// Bytes per element of a gradient's dtype.
static int64_t elementBytes(DType dtype) {
  return static_cast<int64_t>(
      rlx_dtype_size(static_cast<rlx_dtype_t>(dtype)));
}

/// The gradients averaged over the replicas: flattened, concatenated into
/// buckets (one dtype each; filled in reverse param order, the first one
/// closed once it holds `first_bucket_bytes`, the others `bucket_bytes`),
/// one pmean per bucket, then sliced and reshaped back. The concatenation
/// costs one copy of the gradients; a collective per tensor would cost a
/// latency per tensor instead, which dominates for the many small ones
/// (biases).
static optim::Tree averageOverReplicas(const optim::Tree &grads,
                                       const std::vector<detail::Arg> &order,
                                       const DataParallel &parallel,
                                       SourceLoc loc) {
  optim::Tree averaged;
  std::vector<std::string> bucket;
  int64_t bytes = 0;
  int64_t limit = std::min(parallel.first_bucket_bytes, parallel.bucket_bytes);
  auto flush = [&] {
    if (bucket.size() == 1) {
      averaged[bucket[0]] = pmean(grads.at(bucket[0]), parallel.axis, loc);
    } else if (!bucket.empty()) {
      std::vector<Tensor> flat;
      for (const std::string &name : bucket) {
        const Tensor &g = grads.at(name);
        flat.push_back(reshape(g, {dyn}, loc));
      }
      Tensor mean = pmean(concat(flat, 0, loc), parallel.axis, loc);
      int64_t at = 0;
      for (size_t i = 0; i < bucket.size(); ++i) {
        int64_t n = flat[i].dim(0);
        averaged[bucket[i]] = reshape(slice(mean, {{at, at + n}}, loc),
                                      grads.at(bucket[i]).shape(), loc);
        at += n;
      }
    }
    if (!bucket.empty())
      limit = parallel.bucket_bytes;
    bucket.clear();
    bytes = 0;
  };
  for (auto p = order.rbegin(); p != order.rend(); ++p) {
    const Tensor &g = grads.at(p->name);
    int64_t count = 1;
    for (int64_t d : g.shape())
      count *= d;
    int64_t size = count * elementBytes(g.dtype());
    if (!bucket.empty() && g.dtype() != grads.at(bucket[0]).dtype())
      flush();
    bucket.push_back(p->name);
    bytes += size;
    if (bytes >= limit)
      flush();
  }
  flush();
  return averaged;
}

/// `loss` with its first output multiplied by a last input `loss_scale`
/// (an f32 scalar): differentiating it starts the backward pass from the
/// scale, so the gradients come out multiplied by it (loss scaling).
static Func scaledLoss(const Func &loss, SourceLoc loc) {
  return Func(loss.name() + "_scaled", [loss, loc](Scope &s) {
    std::vector<Tensor> args;
    for (const detail::Arg &in : loss.inputs())
      args.push_back(s.input(in.name, in.type.shape, in.type.dtype, loc));
    Tensor scale = s.input("loss_scale", {}, DType::f32, loc);
    std::vector<Tensor> outs = s.call(loss, args, loc);
    outs[0] = outs[0] * cast(scale, outs[0].dtype(), loc);
    for (size_t i = 0; i < outs.size(); ++i)
      outs[i] = outs[i].named(loss.outputs()[i].name);
    return outs;
  });
}

/// The number of elements of the gradients that are Inf or NaN (an f32
/// scalar): `|g| < inf` is false for both.
static Tensor nonFiniteCount(Scope &s, const optim::Tree &grads,
                             SourceLoc loc) {
  Tensor count = s.scalar(0, DType::f32, loc);
  Tensor zero = s.scalar(0, DType::f32, loc), one = s.scalar(1, DType::f32, loc);
  for (const auto &[name, g] : grads) {
    Tensor inf = s.full({}, HUGE_VAL, g.dtype(), loc);
    count = count + sum(where(lt(abs(g, loc), inf, loc), zero, one, loc), {},
                        false, loc);
  }
  return count;
}

static TrainStep traceTrainStep(const Func &loss,
                                const optim::GradientTransformation &optimizer,
                                const Schedule &schedule,
                                const TrainOptions &options,
                                const std::optional<DataParallel> &parallel,
                                SourceLoc loc) {
  std::string who = "rlx::make_train_step: ";
  if (parallel && parallel->axis.empty())
    throw Error(who + "DataParallel::axis is empty" + loc.suffix());
  if (loss.params().empty())
    throw Error(who + "'" + loss.name() + "' has no params to train" +
                loc.suffix());
  if (!optimizer.update)
    throw Error(who + "the optimizer has no update" + loc.suffix());
  std::vector<detail::Arg> trained = trainedParams(loss, options, loc);
  std::vector<optim::StateSpec> specs;
  if (optimizer.init)
    specs = optimizer.init(trained);
  // A loss input `key` (i32[2]) is threaded through the steps as state.
  const TensorType keyType{DType::i32, {2}};
  bool threadsKey = false;
  for (const detail::Arg &in : loss.inputs())
    threadsKey |= in.name == "key" && in.type == keyType;
  std::set<std::string> taken{"lr", "step"};
  for (const detail::Arg &in : loss.inputs())
    taken.insert(in.name);
  for (const optim::StateSpec &spec : specs)
    if (!taken.insert(spec.name).second)
      throw Error(who + "optimizer state '" + spec.name +
                  "' is declared twice or clashes with an input of the step "
                  "(two transformations of a chain keeping the same state?)" +
                  loc.suffix());

  bool hasAux = loss.outputs().size() > 1;
  std::vector<std::string> trainedNames;
  for (const detail::Arg &p : trained)
    trainedNames.push_back(p.name);
  // QAT differentiates the loss reading the trained matrices (and, with
  // activations, the matmuls' other operands) quantized.
  Func differentiated = loss;
  if (options.qat) {
    std::set<std::string> matrices;
    for (const detail::Arg &p : trained)
      if (p.type.rank() >= 2)
        matrices.insert(p.name);
    differentiated = detail::quantizedReads(
        loss, matrices, options.qat->format, options.qat->activations, loc);
  }
  // Mixed precision differentiates the loss computing in 16 bits; loss
  // scaling multiplies it by the `loss_scale` input first.
  const Precision &precision = options.precision;
  const std::optional<LossScaling> &scaling = precision.loss_scaling;
  if (precision.compute != DType::f32) {
    for (const detail::Arg &p : trained)
      if (p.type.dtype != DType::f32)
        throw Error(who + "Precision::" + dtype_name(precision.compute) +
                    " keeps f32 master weights, but param '" + p.name +
                    "' is " + p.type.str() + loc.suffix());
    differentiated = compute_in(differentiated, precision.compute, loc);
  }
  if (scaling) {
    if (!(scaling->minimum > 0 && scaling->minimum <= scaling->initial &&
          scaling->initial <= scaling->maximum) ||
        scaling->growth_interval < 1)
      throw Error(who + "LossScaling needs 0 < minimum <= initial <= "
                        "maximum and growth_interval >= 1" +
                  loc.suffix());
    for (const char *name : {"loss_scale", "loss_scale.good_steps"})
      if (!taken.insert(name).second)
        throw Error(who + "'" + name +
                    "' (loss scaling's state) clashes with an input or "
                    "optimizer state of the step" +
                    loc.suffix());
    differentiated = scaledLoss(differentiated, loc);
  }
  Func valueAndGrad =
      trained.size() == loss.params().size()
          ? differentiated.value_and_grad_all(hasAux, loc)
          : differentiated.value_and_grad(trainedNames, hasAux, loc);

  Scope s(loss.name() + "_train_step");
  std::vector<Tensor> args;
  for (const detail::Arg &in : loss.inputs())
    args.push_back(s.input(in.name, in.type.shape, in.type.dtype, loc));
  optim::Tree state;
  optim::StepContext ctx{s,
                         {},
                         trainedNames,
                         s.input("lr", {}, DType::f32, loc),
                         s.input("step", {}, DType::f32, loc)};
  for (const optim::StateSpec &spec : specs)
    state[spec.name] =
        s.input(spec.name, spec.type.shape, spec.type.dtype, loc);
  Tensor lossScale, goodSteps;
  if (scaling) {
    lossScale = s.input("loss_scale", {}, DType::f32, loc);
    goodSteps = s.input("loss_scale.good_steps", {}, DType::f32, loc);
  }
  Tensor nextKey;
  if (threadsKey) {
    // The step's "key" input is the state; the loss gets a fresh half of
    // it and the other half is the next step's.
    for (size_t i = 0; i < args.size(); ++i)
      if (loss.inputs()[i].name == "key") {
        std::vector<Tensor> halves = random::split_keys(args[i], 2, loc);
        nextKey = halves[0];
        args[i] = halves[1];
      }
  }

  if (scaling)
    args.push_back(lossScale);
  std::vector<Tensor> results = valueAndGrad(s, args, loc);
  size_t values = loss.outputs().size();
  optim::Tree grads;
  for (size_t i = 0; i < trained.size(); ++i) {
    const detail::Arg &p = trained[i];
    ctx.params[p.name] = s.param(p.name, p.type.shape, p.type.dtype, loc);
    grads[p.name] = results[values + i];
  }
  Tensor lossValue = results[0];
  if (parallel) {
    for (const detail::Arg &p : trained)
      if (!p.type.is_static())
        throw Error(who + "data parallel training needs static param "
                          "shapes; '" + p.name + "' is " + p.type.str() +
                    loc.suffix());
    grads = averageOverReplicas(grads, trained, *parallel, loc);
    lossValue = pmean(lossValue, parallel->axis, loc);
  }
  // Loss scaling: the gradients and the loss divided by the scale (a power
  // of two: exact); `finite` says whether the step applies.
  Tensor finite;
  optim::Tree stateBefore = state;
  if (scaling) {
    finite = lt(nonFiniteCount(s, grads, loc), s.scalar(0.5, DType::f32, loc),
                loc);
    Tensor inverse = 1.0 / lossScale;
    for (auto &[name, g] : grads)
      g = g * cast(inverse, g.dtype(), loc);
    lossValue = lossValue * cast(inverse, lossValue.dtype(), loc);
  }
  // A skipped step's outputs are its inputs (params and state).
  auto applied = [&](const Tensor &next, const Tensor &before) {
    return scaling ? where(finite, next, before, loc) : next;
  };
  optim::Tree updates = optimizer.update(grads, state, ctx);

  std::vector<Tensor> outputs{lossValue.named("loss")};
  for (size_t i = 1; i < values; ++i)
    outputs.push_back(results[i].named("aux." + loss.outputs()[i].name));
  for (const detail::Arg &p : trained) {
    auto it = updates.find(p.name);
    if (it == updates.end())
      throw Error(who + "the optimizer gives no update for '" + p.name + "'" +
                  loc.suffix());
    if (it->second.type() != p.type)
      throw Error(who + "the optimizer's update of '" + p.name + "' is " +
                  it->second.type().str() + ", expected " + p.type.str() +
                  loc.suffix());
    outputs.push_back(
        applied(ctx.params[p.name] + it->second, ctx.params[p.name])
            .named("new." + p.name));
  }
  if (updates.size() != trained.size())
    for (const auto &[name, u] : updates)
      if (!ctx.params.count(name))
        throw Error(who + "the optimizer gives an update for '" + name +
                    "', not a param being trained" + loc.suffix());
  // State outputs follow the params, in the order of the state inputs.
  for (const optim::StateSpec &spec : specs) {
    const Tensor &next = state.at(spec.name);
    if (next.type() != spec.type)
      throw Error(who + "the optimizer's new state '" + spec.name + "' is " +
                  next.type().str() + ", declared " + spec.type.str() +
                  loc.suffix());
    outputs.push_back(
        applied(next, stateBefore.at(spec.name)).named("new." + spec.name));
  }
  if (threadsKey) {
    outputs.push_back(nextKey.named("new.key"));
    specs.push_back({"key", keyType, 0});
  }
  if (scaling) {
    // Halved after a skipped step; doubled after growth_interval good
    // steps in a row (the count then restarts).
    Tensor zero = s.scalar(0, DType::f32, loc);
    Tensor counted = goodSteps + 1.0;
    Tensor grows = counted > double(scaling->growth_interval) - 0.5;
    Tensor up = minimum(lossScale * 2.0, scaling->maximum, loc);
    Tensor down = maximum(lossScale * 0.5, scaling->minimum, loc);
    outputs.push_back(
        where(finite, where(grows, up, lossScale, loc), down, loc)
            .named("new.loss_scale"));
    outputs.push_back(
        where(finite, where(grows, zero, counted, loc), zero, loc)
            .named("new.loss_scale.good_steps"));
    outputs.push_back(
        where(finite, zero, s.scalar(1, DType::f32, loc), loc).named("skipped"));
    specs.push_back({"loss_scale", {DType::f32, {}}, scaling->initial});
    specs.push_back({"loss_scale.good_steps", {DType::f32, {}}, 0});
  }
  std::shared_ptr<detail::FuncDef> def = s.finish(outputs);
  // Specializable when the loss is: the step is traced again around the
  // specialized loss (the state and the scalars have static shapes).
  if (loss.def().specialize) {
    std::shared_ptr<const detail::FuncDef> lossDef = loss.shared();
    def->specialize = [lossDef, optimizer, schedule, options, parallel,
                       loc](const detail::InputShapes &shapes) {
      detail::InputShapes mine;
      for (const detail::Arg &in : lossDef->inputs)
        if (auto it = shapes.find(in.name); it != shapes.end())
          mine[in.name] = it->second;
      Func special(lossDef->specialize(mine));
      return traceTrainStep(special, optimizer, schedule, options, parallel,
                            loc)
          .func()
          .shared();
    };
  }
  return TrainStep(loss, Func(def), trainedNames, specs, schedule, parallel);
}

TrainStep make_train_step(const Func &loss,
                          const optim::GradientTransformation &optimizer,
                          const Schedule &schedule, const TrainOptions &options,
                          SourceLoc loc) {
  return traceTrainStep(loss, optimizer, schedule, options, std::nullopt, loc);
}

TrainStep make_train_step(const Func &loss,
                          const optim::GradientTransformation &optimizer,
                          const Schedule &schedule,
                          const DataParallel &parallel,
                          const TrainOptions &options, SourceLoc loc) {
  return traceTrainStep(loss, optimizer, schedule, options, parallel, loc);
}

//===----------------------------------------------------------------------===//
// Running the step
//===----------------------------------------------------------------------===//

TrainStep::TrainStep(Func loss, Func step, std::vector<std::string> trained,
                     std::vector<optim::StateSpec> state, Schedule schedule,
                     std::optional<DataParallel> parallel)
    : loss_(std::move(loss)), step_(std::move(step)),
      trained_(std::move(trained)), stateSpecs(std::move(state)),
      schedule_(std::move(schedule)), parallel_(std::move(parallel)) {
  for (const detail::Arg &out : step_.outputs())
    scalesLoss |= out.name == "skipped";
}

double TrainStep::loss_scale() const {
  auto it = state.find("loss_scale");
  return scalesLoss && it != state.end() ? it->second.item() : 1.0;
}

/// The replicas of DataParallel{} without a communicator: MPI's world when
/// mpirun started this process, else one.
static runtime::Communicator defaultReplicas() {
  for (const char *var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char *size = std::getenv(var); size && std::atoi(size) > 1)
      return runtime::Communicator::mpi();
  return runtime::Communicator::single();
}

int TrainStep::replica() const {
  return communicator_ ? communicator_->rank() : 0;
}

int TrainStep::replicas() const {
  return communicator_ ? communicator_->size() : 1;
}

void TrainStep::syncParams() {
  if (!communicator_ || synced_)
    return;
  try {
    for (const detail::Arg &p : loss_.params()) {
      // A copy: the bound tensor may be a read-only file mapping.
      Array value = compiled_->param(p.name);
      const runtime::HostTensor &bound = value.host();
      runtime::HostTensor copy =
          runtime::HostTensor::allocate(bound.dtype(), bound.dims());
      std::memcpy(copy.data(), bound.data(), bound.byte_size());
      communicator_->broadcast(copy, 0, "param '" + p.name + "'");
      compiled_->with_param(p.name, Array(std::move(copy)));
    }
  } catch (const runtime::RuntimeError &e) {
    throw Error("rlx::TrainStep: broadcasting the initial params of '" +
                loss_.name() + "' from replica 0: " + e.what());
  }
  synced_ = true;
}

std::vector<std::string> TrainStep::state_names() const {
  std::vector<std::string> names;
  for (const optim::StateSpec &spec : stateSpecs)
    names.push_back(spec.name);
  return names;
}

TrainStep &TrainStep::jit(const Device &device, const JitOptions &options) {
  compiled_ = std::make_unique<Compiled>(step_.jit(device, options));
  if (parallel_) {
    try {
      communicator_ = std::make_shared<runtime::Communicator>(
          parallel_->communicator ? parallel_->communicator->share()
                                  : defaultReplicas());
    } catch (const runtime::RuntimeError &e) {
      throw Error("rlx::TrainStep::jit: '" + step_.name() + "': " + e.what());
    }
    compiled_->with_communicator(*communicator_);
  }
  synced_ = false;
  state.clear();
  for (const optim::StateSpec &spec : stateSpecs) {
    int64_t count = 1;
    for (int64_t d : spec.type.shape)
      count *= d;
    state[spec.name] = spec.init == 0
                           ? Array::zeros(spec.type.shape, spec.type.dtype)
                           : Array::from(std::vector<double>(count, spec.init),
                                         spec.type.shape, spec.type.dtype);
  }
  stepCount = 0;
  lastSkipped = false;
  skippedCount = 0;
  return *this;
}

static void requireCompiled(const std::unique_ptr<Compiled> &c) {
  if (!c)
    throw Error("rlx::TrainStep: call jit() first");
}

TrainStep &TrainStep::with_param(const std::string &name, const Array &value) {
  requireCompiled(compiled_);
  compiled_->with_param(name, value);
  synced_ = false; // broadcast again before the next step
  return *this;
}

TrainStep &TrainStep::init_randn(uint64_t seed, double stddev) {
  requireCompiled(compiled_);
  compiled_->init_randn(seed, stddev);
  synced_ = false; // broadcast again before the next step
  return *this;
}

TrainStep &TrainStep::init_params(
    const std::function<Array(const std::string &, const Shape &)> &init) {
  requireCompiled(compiled_);
  compiled_->init_params(init);
  synced_ = false; // broadcast again before the next step
  return *this;
}

double TrainStep::step(const std::map<std::string, Array> &inputs) {
  requireCompiled(compiled_);
  std::map<std::string, Array> all = inputs;
  for (const char *reserved : {"lr", "step"})
    if (inputs.count(reserved))
      throw Error(std::string("rlx::TrainStep::step: input '") + reserved +
                  "' is set by the train step itself");
  syncParams();
  int64_t next = stepCount + 1;
  all["lr"] = Array::scalar(schedule_.at(next));
  all["step"] = Array::scalar(static_cast<double>(next));
  for (const auto &[name, value] : state) {
    if (inputs.count(name))
      throw Error("rlx::TrainStep::step: input '" + name + "' is " +
                  (name == "key" ? "the PRNG key the step threads (seed it "
                                   "with TrainStep::seed)"
                                 : "optimizer state"));
    all[name] = value;
  }
  Outputs out = compiled_->run(all);
  // The new weights are rebound and the new state kept: both stay runtime
  // tensors, nothing is copied.
  for (const std::string &name : trained_)
    compiled_->with_param(name, out["new." + name]);
  for (const optim::StateSpec &spec : stateSpecs)
    state[spec.name] = out["new." + spec.name];
  // A skipped step (loss scaling) changed nothing but the scale: the next
  // call is the same step again.
  lastSkipped = scalesLoss && out["skipped"].item() != 0;
  if (lastSkipped)
    ++skippedCount;
  else
    stepCount = next;
  last_ = out;
  return out["loss"].item();
}

TrainStep &TrainStep::seed(uint64_t seed) {
  requireCompiled(compiled_);
  if (!state.count("key"))
    throw Error("rlx::TrainStep::seed: the loss of '" + loss_.name() +
                "' takes no PRNG key (an input named 'key', i32[2])");
  // random::key's layout: the seed's high and low 32 bits.
  auto word = [](uint64_t w) {
    return static_cast<int32_t>(static_cast<uint32_t>(w));
  };
  state["key"] = Array::from(std::vector<int32_t>{word(seed >> 32), word(seed)},
                             {2});
  return *this;
}

Array TrainStep::param(const std::string &name) const {
  requireCompiled(compiled_);
  return compiled_->param(name);
}

void TrainStep::save_params(const std::string &path) const {
  requireCompiled(compiled_);
  if (replica() != 0)
    return; // replica 0 writes for all: they hold the same params
  runtime::TensorList list;
  for (const detail::Arg &p : loss_.params())
    list.append(p.name, compiled_->param(p.name).host());
  list.write_safetensors(path);
}

void TrainStep::save(const std::string &path) const {
  requireCompiled(compiled_);
  if (replica() != 0)
    return; // replica 0 writes for all: they hold the same params
  runtime::TensorList list;
  for (const detail::Arg &p : loss_.params())
    list.append(p.name, compiled_->param(p.name).host());
  for (const optim::StateSpec &spec : stateSpecs)
    list.append(spec.name, state.at(spec.name).host());
  list.append("step", Array::from(std::vector<double>{double(stepCount)}, {},
                                  DType::i64)
                          .host());
  list.write_safetensors(path);
}

void TrainStep::load(const std::string &path) {
  requireCompiled(compiled_);
  std::string who = "rlx::TrainStep::load: '" + path + "' ";
  try {
    runtime::TensorList list = runtime::TensorList::read_safetensors(path);
    // Everything is checked before anything is bound.
    std::vector<std::string> params = loss_.param_names();
    std::map<std::string, Array> loaded;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string name = list.name(i);
      Array value(list.at(i));
      if (state.count(name) && (value.shape() != state[name].shape() ||
                                value.dtype() != state[name].dtype()))
        throw Error(who + "holds state '" + name + "' as " +
                    value.type_string() + ", expected " +
                    state[name].type_string());
      if (name != "step" && !state.count(name) &&
          std::find(params.begin(), params.end(), name) == params.end())
        throw Error(who + "holds '" + name +
                    "', neither a param nor optimizer state of '" +
                    step_.name() +
                    "' (saved by a step with another optimizer?)");
      loaded[name] = value;
    }
    // A full checkpoint (save() writes `step`) carries all of the state.
    if (loaded.count("step"))
      for (const optim::StateSpec &spec : stateSpecs)
        if (!loaded.count(spec.name))
          throw Error(who + "holds no optimizer state '" + spec.name +
                      "' (saved by a step with another optimizer?)");
    for (const auto &[name, value] : loaded) {
      if (name == "step")
        stepCount = static_cast<int64_t>(value.item());
      else if (state.count(name))
        state[name] = value;
      else
        compiled_->with_param(name, value);
    }
    synced_ = false;
  } catch (const runtime::RuntimeError &e) {
    throw Error("rlx::TrainStep::load: " + std::string(e.what()));
  }
}

} // namespace rlx
