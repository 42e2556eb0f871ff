//===- ControlFlow.h - Loops and branches in traced code -------*- C++ -*-===//
///
/// \file
/// JAX's `lax.scan`, `while_loop`, `fori_loop`, `cond` and `switch` over
/// traced tensors. Each body is a lambda traced once into its own function
/// (rlx.scan, rlx.while, rlx.switch name it); tensors of the enclosing trace
/// that a body uses are captured, so bodies read like closures. Every
/// transform goes through them: grad and vjp through scan, fori_loop and
/// the branches, jvp and vmap through all of them (reverse mode through
/// while_loop is an error: write the loop as a scan or a fori_loop).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_CONTROLFLOW_H
#define RLX_FRONTEND_CONTROLFLOW_H

#include "rlx/frontend/Tensor.h"

#include <functional>
#include <vector>

namespace rlx {

/// What one scan step returns: the next carry (the types of the init) and
/// the step's outputs, which the scan stacks.
struct ScanStep {
  std::vector<Tensor> carry;
  std::vector<Tensor> ys;
};

/// `body(scope, carry, x)`: `x` holds one slice (leading dim dropped) of
/// each stacked input.
using ScanBody = std::function<ScanStep(Scope &, const std::vector<Tensor> &,
                                        const std::vector<Tensor> &)>;

struct ScanOptions {
  /// The number of steps; -1 takes the leading dim of the xs (required
  /// without xs).
  int64_t length = -1;
  /// Steps from the last slice to the first (outputs stay in slice order).
  bool reverse = false;
  /// Steps inlined per iteration of the generated loop (the remainder runs
  /// one by one).
  int64_t unroll = 1;
  /// Reverse mode keeps every k-th carry instead of every one and
  /// recomputes the chunks between them: O(length / k + k) carries of
  /// memory for one more forward pass (needs a static length).
  int64_t checkpoint_every = 1;
};

/// The final carry and the step outputs stacked along a new leading dim.
struct ScanResult {
  std::vector<Tensor> carry;
  std::vector<Tensor> ys;
};

ScanResult scan(const ScanBody &body, const std::vector<Tensor> &init,
                const std::vector<Tensor> &xs, const ScanOptions &options = {},
                SourceLoc loc = SourceLoc::current());

/// `cond(scope, carry)` returns a rank-0 i1; `body(scope, carry)` the next
/// carry (the types of the init).
using LoopCond = std::function<Tensor(Scope &, const std::vector<Tensor> &)>;
using LoopBody =
    std::function<std::vector<Tensor>(Scope &, const std::vector<Tensor> &)>;

/// While `cond(carry)`: `carry = body(carry)`. Differentiable in forward
/// mode only (the trip count is known only when it runs).
std::vector<Tensor> while_loop(const LoopCond &cond, const LoopBody &body,
                               const std::vector<Tensor> &init,
                               SourceLoc loc = SourceLoc::current());

/// `body(scope, i, carry)` for i in [lower, upper) (i is a rank-0 i32): a
/// scan with a static trip count, so reverse mode goes through it.
using ForiBody = std::function<std::vector<Tensor>(
    Scope &, const Tensor &, const std::vector<Tensor> &)>;
std::vector<Tensor> fori_loop(int64_t lower, int64_t upper,
                              const ForiBody &body,
                              const std::vector<Tensor> &init,
                              SourceLoc loc = SourceLoc::current());

/// A branch: `branch(scope, operands)`; every branch of one cond or switch
/// returns the same types.
using Branch =
    std::function<std::vector<Tensor>(Scope &, const std::vector<Tensor> &)>;

/// `pred ? on_true(operands) : on_false(operands)`, `pred` a rank-0 i1.
/// Only the taken branch runs; under vmap with a batched predicate both
/// run and each example selects.
std::vector<Tensor> cond(const Tensor &pred, const Branch &on_true,
                         const Branch &on_false,
                         const std::vector<Tensor> &operands,
                         SourceLoc loc = SourceLoc::current());

/// `branches[index](operands)`, `index` a rank-0 i32 clamped into range.
std::vector<Tensor> switch_(const Tensor &index,
                            const std::vector<Branch> &branches,
                            const std::vector<Tensor> &operands,
                            SourceLoc loc = SourceLoc::current());

} // namespace rlx

#endif // RLX_FRONTEND_CONTROLFLOW_H
