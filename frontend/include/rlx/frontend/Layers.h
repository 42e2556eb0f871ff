//===- Layers.h - Common layers and losses as plain functions --*- C++ -*-===//
///
/// \file
/// Layers declare their weights as params named `<name>.weight` and
/// `<name>.bias`, so the artifact binds them by those names.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_LAYERS_H
#define RLX_FRONTEND_LAYERS_H

#include "rlx/frontend/ControlFlow.h"
#include "rlx/frontend/Ops.h"

namespace rlx {

/// `x @ W + b` with W `[in, out]` (`<name>.weight`), b `[out]` (`<name>.bias`).
Tensor linear(Scope &s, const std::string &name, const Tensor &x, int64_t out,
              bool bias = true, SourceLoc loc = SourceLoc::current());
/// Normalizes over the last axis, then scales and shifts (`<name>.weight`,
/// `<name>.bias`, both `[features]`).
Tensor layer_norm(Scope &s, const std::string &name, const Tensor &x,
                  double eps = 1e-5, SourceLoc loc = SourceLoc::current());
/// Mean over the batch of `-sum(target * log_softmax(logits))`; `targets` are
/// probabilities (e.g. one-hot) of the logits' shape, or integer labels.
Tensor cross_entropy(const Tensor &logits, const Tensor &targets,
                     SourceLoc loc = SourceLoc::current());
/// Mean of squared differences.
Tensor mse(const Tensor &prediction, const Tensor &target,
           SourceLoc loc = SourceLoc::current());
/// `softmax(q k^T / sqrt(d) + mask) v` over the last two axes; `mask`
/// (optional, additive) broadcasts to the scores.
Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v,
                 const Tensor &mask = Tensor(),
                 SourceLoc loc = SourceLoc::current());
/// Inverted dropout: in training, each element of `x` is kept with
/// probability `1 - rate` (a Bernoulli draw from `key`, see Random.h) and
/// scaled by `1 / (1 - rate)`, else zeroed; outside training, `x`. `x`
/// has a static shape (jit specializes shapes).
Tensor dropout(const Tensor &key, const Tensor &x, double rate, bool train,
               SourceLoc loc = SourceLoc::current());
/// What an LSTM returns: every step's hidden state [T, B, H] and the final
/// hidden and cell states [B, H].
struct LSTMResult {
  Tensor ys, h, c;
};
/// A one-layer LSTM over `xs` [T, B, in] from `h0`, `c0` [B, H], with
/// PyTorch's gate order (input, forget, cell, output): weights
/// `<name>.w_ih` [in, 4H], `<name>.w_hh` [H, 4H], `<name>.bias` [4H]. The
/// input projections of every step are one matmul before the rlx.scan over
/// the steps; `options` passes reverse and checkpoint_every to the scan.
LSTMResult lstm(Scope &s, const std::string &name, const Tensor &xs,
                const Tensor &h0, const Tensor &c0,
                const ScanOptions &options = {},
                SourceLoc loc = SourceLoc::current());
/// Fraction of rows whose largest logit is at the integer label.
Tensor accuracy(const Tensor &logits, const Tensor &labels,
                SourceLoc loc = SourceLoc::current());

} // namespace rlx

#endif // RLX_FRONTEND_LAYERS_H
