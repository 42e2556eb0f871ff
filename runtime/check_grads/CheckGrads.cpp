//===- CheckGrads.cpp - Derivatives of an artifact checked ----------------===//

#include "rlx/check_grads.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

namespace rlx::runtime {

namespace {

bool isFloatDtype(rlx_dtype_t dtype) {
  return dtype == RLX_DTYPE_F16 || dtype == RLX_DTYPE_BF16 ||
         dtype == RLX_DTYPE_F32 || dtype == RLX_DTYPE_F64;
}

/// A tensor of `dtype` (f32 or f64) holding `values`, rounded.
HostTensor floatTensor(rlx_dtype_t dtype, const std::vector<int64_t> &dims,
                          const std::vector<double> &values) {
  HostTensor tensor = HostTensor::allocate(dtype, dims);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == RLX_DTYPE_F64)
      tensor.data<double>()[i] = values[i];
    else
      tensor.data<float>()[i] = static_cast<float>(values[i]);
  }
  return tensor;
}

std::vector<double> readF64(const HostTensor &tensor) {
  std::vector<double> values(tensor.element_count());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = tensor.get_f64(i);
  return values;
}

double roundToDtype(rlx_dtype_t dtype, double value) {
  return dtype == RLX_DTYPE_F64 ? value
                                : static_cast<double>(static_cast<float>(value));
}

/// `[1,2]`: the row-major index of `flat` in `dims`.
std::string formatIndex(const std::vector<int64_t> &dims, size_t flat) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    int64_t size = dims[d] > 0 ? dims[d] : 1;
    index[d] = static_cast<int64_t>(flat) % size;
    flat /= static_cast<size_t>(size);
  }
  return format_shape(index);
}

/// Rebinds the weights it saved when it goes away, whatever happened.
class WeightRestorer {
public:
  explicit WeightRestorer(rlx_session_t *session) : session(session) {}
  WeightRestorer(const WeightRestorer &) = delete;
  WeightRestorer &operator=(const WeightRestorer &) = delete;
  void save(const std::string &name, HostTensor original) {
    saved.emplace_back(name, std::move(original));
  }
  ~WeightRestorer() {
    for (auto &[name, tensor] : saved)
      rlx_status_free(
          rlx_session_bind_tensor(session, name.c_str(), tensor.get()));
  }

private:
  rlx_session_t *session;
  std::vector<std::pair<std::string, HostTensor>> saved;
};

} // namespace

GradCheckResult check_grads(const Session &session, const std::string &fn,
                            const std::vector<HostTensor> &inputs,
                            GradCheckOptions options) {
  const std::string jvpName = fn + "_jvp", vjpName = fn + "_vjp";
  Artifact artifact(rlx_session_artifact(session.get()));
  rlx_artifact_retain(artifact.get());

  // The three entry points, or a clear error.
  std::string missing;
  int missingCount = 0;
  for (const std::string &name : {fn, jvpName, vjpName}) {
    const rlx_entry_point_t *entry = nullptr;
    rlx_status_t status = rlx_artifact_find_entry_point(
        artifact.get(), name.c_str(), &entry);
    if (status) {
      rlx_status_free(status);
      missing += (missing.empty() ? "'" : ", '") + name + "'";
      ++missingCount;
    }
  }
  if (!missing.empty())
    throw RuntimeError(RLX_STATUS_NOT_FOUND,
                       "check_grads: artifact '" + artifact.path() +
                           "' lacks entry point" +
                           (missingCount > 1 ? "s " : " ") + missing +
                           "; compile it with rlxc --check-grads=" + fn);
  EntryPoint fnEntry = artifact.entry_point(fn);
  EntryPoint jvpEntry = artifact.entry_point(jvpName);
  EntryPoint vjpEntry = artifact.entry_point(vjpName);
  std::vector<TensorSpec> inSpecs = fnEntry.inputs();
  std::vector<TensorSpec> outSpecs = fnEntry.outputs();
  std::vector<TensorSpec> paramSpecs = fnEntry.params();
  const size_t nIn = inSpecs.size(), nOut = outSpecs.size();
  if (inputs.size() != nIn)
    throw RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                       "check_grads: '" + fn + "' takes " +
                           std::to_string(nIn) + " inputs, got " +
                           std::to_string(inputs.size()));
  for (size_t i = 0; i < nIn; ++i)
    if (!inputs[i])
      throw RuntimeError(RLX_STATUS_INVALID_ARGUMENT, "check_grads: input '" +
                                                          inSpecs[i].name +
                                                          "' is null");

  // The leaves, as FN_jvp's tangent inputs name them.
  struct Leaf {
    std::string name;
    bool isParam = false;
    size_t input = 0;      // when an input
    HostTensor original;       // the bound weight, when a param
    rlx_dtype_t dtype = RLX_DTYPE_F64;
    std::vector<int64_t> dims;
    std::vector<double> base;
  };
  std::vector<Leaf> leaves;
  auto layoutError = [&](const std::string &what) {
    return RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                        "check_grads: entry points '" + jvpName + "' and '" +
                            vjpName +
                            "' do not have the layout of rlxc "
                            "--check-grads=" +
                            fn + ": " + what);
  };
  std::vector<TensorSpec> jvpIn = jvpEntry.inputs();
  std::vector<TensorSpec> jvpOut = jvpEntry.outputs();
  std::vector<TensorSpec> vjpIn = vjpEntry.inputs();
  std::vector<TensorSpec> vjpOut = vjpEntry.outputs();
  if (jvpIn.size() < nIn || jvpOut.size() != 2 * nOut ||
      vjpIn.size() != nIn + nOut || vjpOut.size() < nOut ||
      vjpOut.size() - nOut != jvpIn.size() - nIn)
    throw layoutError("unexpected number of inputs or outputs");
  {
    size_t k = nIn;
    for (size_t i = 0; i < nIn; ++i) {
      if (!isFloatDtype(inSpecs[i].dtype))
        continue;
      if (k == jvpIn.size() || jvpIn[k].name != "tangent." + inSpecs[i].name)
        throw layoutError("no tangent for float input '" + inSpecs[i].name +
                          "'");
      Leaf leaf;
      leaf.name = inSpecs[i].name;
      leaf.input = i;
      leaves.push_back(std::move(leaf));
      ++k;
    }
    for (; k < jvpIn.size(); ++k) {
      const std::string prefix = "tangent.";
      if (jvpIn[k].name.compare(0, prefix.size(), prefix) != 0)
        throw layoutError("unexpected input '" + jvpIn[k].name + "'");
      Leaf leaf;
      leaf.name = jvpIn[k].name.substr(prefix.size());
      leaf.isParam = true;
      bool known = false;
      for (const TensorSpec &param : paramSpecs)
        known |= param.name == leaf.name;
      if (!known)
        throw layoutError("'" + leaf.name + "' is not a param of '" + fn +
                          "'");
      leaves.push_back(std::move(leaf));
    }
    for (size_t j = 0; j < leaves.size(); ++j)
      if (vjpOut[nOut + j].name != "grad." + leaves[j].name)
        throw layoutError("output '" + vjpOut[nOut + j].name +
                          "' where 'grad." + leaves[j].name +
                          "' was expected");
  }
  if (leaves.empty())
    throw RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                       "check_grads: '" + fn +
                           "' has no float input and reads no param");

  WeightRestorer restorer(session.get());
  for (Leaf &leaf : leaves) {
    HostTensor value;
    if (leaf.isParam) {
      rlx_tensor_t *raw = nullptr;
      rlx_status_t status =
          rlx_session_lookup_weight(session.get(), leaf.name.c_str(), &raw);
      if (status) {
        std::string message = rlx_status_message(status);
        rlx_status_free(status);
        throw RuntimeError(RLX_STATUS_FAILED_PRECONDITION,
                           "check_grads: param '" + leaf.name + "' of '" + fn +
                               "' is not bound (" + message + ")");
      }
      leaf.original = HostTensor(raw);
      value = leaf.original.share();
    } else {
      value = inputs[leaf.input].share();
    }
    leaf.dtype = value.dtype();
    if (leaf.dtype != RLX_DTYPE_F32 && leaf.dtype != RLX_DTYPE_F64)
      throw RuntimeError(RLX_STATUS_UNIMPLEMENTED,
                         "check_grads: leaf '" + leaf.name + "' is " +
                             value.type_string() +
                             "; only f32 and f64 leaves "
                             "are supported");
    leaf.dims = value.dims();
    leaf.base = readF64(value);
    if (leaf.isParam)
      restorer.save(leaf.name, leaf.original.share());
  }

  // Precision of the check.
  bool low = false;
  for (const Leaf &leaf : leaves)
    low |= leaf.dtype != RLX_DTYPE_F64;
  for (const TensorSpec &out : outSpecs)
    low |= isFloatDtype(out.dtype) && out.dtype != RLX_DTYPE_F64;
  GradCheckResult result;
  result.function = fn;
  result.eps = options.eps.value_or(low ? 1e-3 : 1e-6);
  result.rtol = options.rtol.value_or(low ? 1e-2 : 1e-5);
  result.atol = options.atol.value_or(low ? 1e-3 : 1e-7);
  result.directions = options.directions;
  for (const Leaf &leaf : leaves)
    result.leaves.push_back(leaf.name + ": " +
                            format_type(leaf.dtype, leaf.dims));
  if (!(result.eps > 0) || !(result.rtol >= 0) || !(result.atol >= 0))
    throw RuntimeError(RLX_STATUS_INVALID_ARGUMENT,
                       "check_grads: eps must be positive, rtol and atol "
                       "non-negative");
  const double eps = result.eps, rtol = result.rtol, atol = result.atol;
  const double relFloor = rtol > 0 ? atol / rtol : 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Keeps the larger; a NaN sticks.
  auto worse = [](double &slot, double value) {
    if (!std::isnan(slot) && (std::isnan(value) || value > slot))
      slot = value;
  };
  auto bind = [&](const std::string &name, const HostTensor &tensor) {
    check(rlx_session_bind_tensor(session.get(), name.c_str(), tensor.get()));
  };

  // FN at the unperturbed point: the reference primal outputs.
  std::vector<const HostTensor *> baseArgs;
  for (const HostTensor &input : inputs)
    baseArgs.push_back(&input);
  std::vector<HostTensor> primal;
  {
    TensorList outputs = session.call(fn, baseArgs);
    for (size_t i = 0; i < nOut; ++i)
      primal.push_back(outputs.at(i));
  }
  auto checkPrimal = [&](const TensorList &outputs) {
    for (size_t i = 0; i < nOut; ++i) {
      HostTensor got = outputs.at(i);
      if (got.dims() != primal[i].dims()) {
        result.primal_passed = false;
        result.primal_max_abs_error = nan;
        continue;
      }
      for (size_t e = 0; e < got.element_count(); ++e) {
        double want = primal[i].get_f64(e), have = got.get_f64(e);
        if (std::isnan(want) && std::isnan(have))
          continue;
        double error = std::fabs(have - want);
        worse(result.primal_max_abs_error, error);
        if (!(error <= atol + rtol * std::fabs(want)))
          result.primal_passed = false;
      }
    }
  };

  std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ull + 0x5EED);
  auto uniform = [&] {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  };
  double worstReverseRatio = -1;
  for (unsigned d = 0; d < options.directions; ++d) {
    // x +- eps v, rounded to each leaf's dtype; the direction actually
    // taken is (x+ - x-) / (2 eps), which is what the jvp gets too.
    std::vector<std::vector<double>> plus(leaves.size()),
        minus(leaves.size()), dir(leaves.size());
    std::vector<HostTensor> tangents;
    for (size_t j = 0; j < leaves.size(); ++j) {
      const Leaf &leaf = leaves[j];
      for (double x : leaf.base) {
        double v = uniform();
        double xp = roundToDtype(leaf.dtype, x + eps * v);
        double xm = roundToDtype(leaf.dtype, x - eps * v);
        double taken = roundToDtype(leaf.dtype, (xp - xm) / (2 * eps));
        plus[j].push_back(xp);
        minus[j].push_back(xm);
        dir[j].push_back(taken);
      }
      tangents.push_back(floatTensor(leaf.dtype, leaf.dims, dir[j]));
    }

    // FN at x + eps v and x - eps v.
    auto evaluate = [&](const std::vector<std::vector<double>> &at) {
      std::vector<HostTensor> perturbed(nIn);
      std::vector<const HostTensor *> args = baseArgs;
      for (size_t j = 0; j < leaves.size(); ++j) {
        HostTensor tensor =
            floatTensor(leaves[j].dtype, leaves[j].dims, at[j]);
        if (leaves[j].isParam) {
          bind(leaves[j].name, tensor);
        } else {
          perturbed[leaves[j].input] = std::move(tensor);
          args[leaves[j].input] = &perturbed[leaves[j].input];
        }
      }
      TensorList outputs = session.call(fn, args);
      std::vector<std::vector<double>> values;
      for (size_t i = 0; i < nOut; ++i)
        values.push_back(readF64(outputs.at(i)));
      return values;
    };
    std::vector<std::vector<double>> yPlus = evaluate(plus);
    std::vector<std::vector<double>> yMinus = evaluate(minus);
    for (const Leaf &leaf : leaves)
      if (leaf.isParam)
        bind(leaf.name, leaf.original);

    // Forward: FN_jvp(x, v).
    std::vector<const HostTensor *> jvpArgs = baseArgs;
    for (const HostTensor &tangent : tangents)
      jvpArgs.push_back(&tangent);
    TensorList jvpOutputs = session.call(jvpName, jvpArgs);
    checkPrimal(jvpOutputs);
    std::vector<std::vector<double>> fd(nOut), tol(nOut), jv(nOut);
    for (size_t i = 0; i < nOut; ++i) {
      if (!isFloatDtype(outSpecs[i].dtype))
        continue;
      HostTensor tangent = jvpOutputs.at(nOut + i);
      std::vector<int64_t> dims = primal[i].dims();
      if (tangent.dims() != dims ||
          yPlus[i].size() != primal[i].element_count() ||
          yMinus[i].size() != primal[i].element_count())
        throw RuntimeError(
            RLX_STATUS_INTERNAL,
            "check_grads: output '" + outSpecs[i].name +
                "' and its tangent differ in shape: " + format_shape(dims) +
                " vs " + format_shape(tangent.dims()));
      double unit = outSpecs[i].dtype == RLX_DTYPE_F64 ? 0x1.0p-53
                    : outSpecs[i].dtype == RLX_DTYPE_F32 ? 0x1.0p-24
                                                         : 0x1.0p-8;
      jv[i] = readF64(tangent);
      for (size_t e = 0; e < jv[i].size(); ++e) {
        double f = (yPlus[i][e] - yMinus[i][e]) / (2 * eps);
        double roundoff = 4 * unit *
                          std::max(std::fabs(yPlus[i][e]),
                                   std::fabs(yMinus[i][e])) /
                          eps;
        double t = atol + rtol * std::fabs(f) + roundoff;
        fd[i].push_back(f);
        tol[i].push_back(t);
        double error = std::fabs(jv[i][e] - f);
        double rel =
            error == 0 ? 0 : error / std::max(std::fabs(f), relFloor);
        ++result.forward_elements;
        bool worst = std::isnan(error)
                         ? !std::isnan(result.forward_max_abs_error)
                         : error > result.forward_max_abs_error;
        worse(result.forward_max_abs_error, error);
        worse(result.forward_max_rel_error, rel);
        if (worst) {
          char text[256];
          std::snprintf(text, sizeof text, "%s%s: jvp %.17g, fd %.17g",
                        jvpOut[nOut + i].name.c_str(),
                        formatIndex(dims, e).c_str(), jv[i][e], f);
          result.forward_worst = text;
        }
        if (!(error <= t))
          result.forward_passed = false;
      }
    }

    // Reverse: FN_vjp(x, ct) against <ct, fd>.
    std::vector<HostTensor> cotangents;
    double lhs = 0, lhsJvp = 0, budget = 0, scale = 0;
    for (size_t i = 0; i < nOut; ++i) {
      std::vector<int64_t> dims = primal[i].dims();
      if (!isFloatDtype(outSpecs[i].dtype) ||
          (outSpecs[i].dtype != RLX_DTYPE_F32 &&
           outSpecs[i].dtype != RLX_DTYPE_F64)) {
        cotangents.push_back(HostTensor::allocate(outSpecs[i].dtype, dims));
        continue;
      }
      std::vector<double> ct;
      for (size_t e = 0; e < fd[i].size(); ++e) {
        double c = roundToDtype(outSpecs[i].dtype, uniform());
        ct.push_back(c);
        lhs += c * fd[i][e];
        lhsJvp += c * jv[i][e];
        budget += std::fabs(c) * tol[i][e];
        scale += std::fabs(c) * relFloor;
      }
      cotangents.push_back(floatTensor(outSpecs[i].dtype, dims, ct));
    }
    std::vector<const HostTensor *> vjpArgs = baseArgs;
    for (const HostTensor &ct : cotangents)
      vjpArgs.push_back(&ct);
    TensorList vjpOutputs = session.call(vjpName, vjpArgs);
    checkPrimal(vjpOutputs);
    double rhs = 0;
    for (size_t j = 0; j < leaves.size(); ++j) {
      HostTensor grad = vjpOutputs.at(nOut + j);
      if (grad.dims() != leaves[j].dims)
        throw RuntimeError(RLX_STATUS_INTERNAL,
                           "check_grads: gradient '" + vjpOut[nOut + j].name +
                               "' is " + grad.type_string() + ", its leaf " +
                               format_type(leaves[j].dtype, leaves[j].dims));
      for (size_t e = 0; e < dir[j].size(); ++e)
        rhs += grad.get_f64(e) * dir[j][e];
    }
    double error = std::fabs(lhs - rhs);
    double rel = error == 0 ? 0 : error / std::max(std::fabs(lhs), scale);
    double ratio = error == 0 ? 0 : budget > 0 ? error / budget : inf;
    if (std::isnan(error) || ratio > worstReverseRatio) {
      worstReverseRatio = std::isnan(error) ? inf : ratio;
      result.reverse_fd = lhs;
      result.reverse_vjp = rhs;
    }
    worse(result.reverse_abs_error, error);
    worse(result.reverse_rel_error, rel);
    worse(result.mode_mismatch, std::fabs(lhsJvp - rhs));
    if (!(error <= budget))
      result.reverse_passed = false;
  }
  return result;
}

} // namespace rlx::runtime
