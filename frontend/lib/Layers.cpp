//===- Layers.cpp - Common layers and losses ------------------------------===//

#include "rlx/frontend/Layers.h"
#include "rlx/frontend/Random.h"

#include <cmath>

namespace rlx {

Tensor linear(Scope &s, const std::string &name, const Tensor &x, int64_t out,
              bool bias, SourceLoc loc) {
  if (x.rank() < 1 || x.dim(-1) == dyn)
    throw Error("rlx::linear '" + name + "': the last dim of " +
                x.type().str() + " must be static" + loc.suffix());
  Tensor w = s.param(name + ".weight", {x.dim(-1), out}, x.dtype(), loc);
  Tensor y =
      x.rank() == 1
          ? reshape(matmul(reshape(x, {1, x.dim(0)}, loc), w, loc), {out}, loc)
          : matmul(x, w, loc);
  if (!bias)
    return y;
  return add(y, s.param(name + ".bias", {out}, x.dtype(), loc), loc);
}

Tensor layer_norm(Scope &s, const std::string &name, const Tensor &x,
                  double eps, SourceLoc loc) {
  int64_t features = x.dim(-1);
  if (features == dyn)
    throw Error("rlx::layer_norm '" + name + "': the last dim of " +
                x.type().str() + " must be static" + loc.suffix());
  Tensor mu = mean(x, {-1}, true, loc);
  Tensor centered = sub(x, mu, loc);
  Tensor var = mean(square(centered, loc), {-1}, true, loc);
  Tensor normed = mul(centered, rsqrt(var + eps, loc), loc);
  Tensor gamma = s.param(name + ".weight", {features}, x.dtype(), loc);
  Tensor beta = s.param(name + ".bias", {features}, x.dtype(), loc);
  return add(mul(normed, gamma, loc), beta, loc);
}

Tensor cross_entropy(const Tensor &logits, const Tensor &targets,
                     SourceLoc loc) {
  Tensor probs = targets;
  if (targets.dtype() == DType::i32 || targets.dtype() == DType::i64) {
    if (logits.dim(-1) == dyn)
      throw Error("rlx::cross_entropy: the class dim of " +
                  logits.type().str() + " must be static" + loc.suffix());
    probs = one_hot(targets, logits.dim(-1), logits.dtype(), loc);
  }
  Tensor picked =
      sum(mul(probs, log_softmax(logits, -1, loc), loc), {-1}, false, loc);
  return neg(mean(picked, {}, false, loc), loc);
}

Tensor mse(const Tensor &prediction, const Tensor &target, SourceLoc loc) {
  return mean(square(sub(prediction, target, loc), loc), {}, false, loc);
}

Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v,
                 const Tensor &mask, SourceLoc loc) {
  if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2)
    throw Error("rlx::attention: q, k, v need rank 2 or more, got " +
                q.type().str() + ", " + k.type().str() + ", " + v.type().str() +
                loc.suffix());
  int64_t d = q.dim(-1);
  if (d == dyn)
    throw Error("rlx::attention: the head dim of " + q.type().str() +
                " must be static" + loc.suffix());
  Axes perm;
  for (int64_t i = 0; i < k.rank() - 2; ++i)
    perm.push_back(i);
  perm.push_back(k.rank() - 1);
  perm.push_back(k.rank() - 2);
  Tensor scores =
      matmul(q, transpose(k, perm, loc), loc) * (1.0 / std::sqrt(double(d)));
  if (mask.valid())
    scores = add(scores, mask, loc);
  return matmul(softmax(scores, -1, loc), v, loc);
}

Tensor dropout(const Tensor &key, const Tensor &x, double rate, bool train,
               SourceLoc loc) {
  if (!(rate >= 0.0 && rate < 1.0))
    throw Error("rlx::dropout: expects a rate in [0, 1), got " +
                std::to_string(rate) + loc.suffix());
  if (!train || rate == 0.0)
    return x;
  if (!x.type().is_static())
    throw Error("rlx::dropout: needs a static shape, got " + x.type().str() +
                loc.suffix());
  Tensor keep = random::bernoulli(key, 1.0 - rate, x.shape(), x.dtype(), loc);
  Tensor scaled = mul(x, x.scope().scalar(1.0 / (1.0 - rate), x.dtype(), loc),
                      loc);
  return where(keep, scaled, x.scope().scalar(0.0, x.dtype(), loc), loc);
}

Tensor accuracy(const Tensor &logits, const Tensor &labels, SourceLoc loc) {
  Tensor hot = one_hot(labels, logits.dim(-1), logits.dtype(), loc);
  Tensor atLabel = sum(mul(hot, logits, loc), {-1}, false, loc);
  Tensor best = max(logits, {-1}, false, loc);
  return mean(cast(ge(atLabel, best, loc), logits.dtype(), loc), {}, false,
              loc);
}

LSTMResult lstm(Scope &s, const std::string &name, const Tensor &xs,
                const Tensor &h0, const Tensor &c0, const ScanOptions &options,
                SourceLoc loc) {
  if (xs.rank() != 3 || h0.rank() != 2 || c0.type() != h0.type())
    throw Error("rlx::lstm: expects xs [T, B, in] and h0, c0 [B, H] of one "
                "type, got " + xs.type().str() + ", " + h0.type().str() +
                " and " + c0.type().str() + loc.suffix());
  int64_t in = xs.dim(2), hidden = h0.dim(1);
  if (in == dyn || hidden == dyn)
    throw Error("rlx::lstm: the input and hidden sizes must be static" +
                loc.suffix());
  DType dtype = xs.dtype();
  Tensor wih = s.param(name + ".w_ih", {in, 4 * hidden}, dtype, loc);
  Tensor whh = s.param(name + ".w_hh", {hidden, 4 * hidden}, dtype, loc);
  Tensor bias = s.param(name + ".bias", {4 * hidden}, dtype, loc);
  // Every step's input projection at once: one [T*B, in] x [in, 4H] matmul.
  Tensor projected = add(matmul(xs, wih, loc), bias, loc);
  auto gate = [&](const Tensor &gates, int64_t k) {
    return slice(gates, {{}, {k * hidden, (k + 1) * hidden}}, loc);
  };
  ScanResult r = scan(
      [&](Scope &, const std::vector<Tensor> &carry,
          const std::vector<Tensor> &x) {
        Tensor gates = add(x[0], matmul(carry[0], whh, loc), loc);
        Tensor i = sigmoid(gate(gates, 0), loc);
        Tensor f = sigmoid(gate(gates, 1), loc);
        Tensor g = tanh(gate(gates, 2), loc);
        Tensor o = sigmoid(gate(gates, 3), loc);
        Tensor c = add(mul(f, carry[1], loc), mul(i, g, loc), loc);
        Tensor h = mul(o, tanh(c, loc), loc);
        return ScanStep{{h, c}, {h}};
      },
      {h0, c0}, {projected}, options, loc);
  return {r.ys[0], r.carry[0], r.carry[1]};
}

} // namespace rlx
