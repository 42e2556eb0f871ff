//===- ControlFlowCases.cpp - The e2e cases of loops and branches ---------===//

#include "ControlFlowCases.h"

#include <algorithm>
#include <cmath>

namespace rlx::e2e {

namespace {

using In = std::vector<Arr>;
using Outs = std::vector<Arr>;

/// Every loop and branch runs on every target (on GPUs the host downloads
/// a while condition or a switch index).
Case make(std::string name, std::string mlir, std::vector<InSpec> inputs,
          RefFn ref, Tol tol) {
  Case c;
  c.name = std::move(name);
  c.mlir = std::move(mlir);
  c.inputs = std::move(inputs);
  c.ref = std::move(ref);
  c.tol = tol;
  return c;
}

} // namespace

void appendControlFlowCases(std::vector<Case> &cases) {
  const Gen any = uniform(-1.5, 1.5);

  // h <- tanh(h * w + x_t), y_t = h * x_t over four steps: consts, a carry,
  // stacked inputs and outputs.
  cases.push_back(make("scan", R"(
func.func private @{N}_step(%w: tensor<3x{F}>, %h: tensor<{B}x3x{F}>, %x: tensor<{B}x3x{F}>)
    -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %a = rlx.mul %h, %w : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  %b = rlx.add %a, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %c = rlx.tanh %b : tensor<{B}x3x{F}>
  %y = rlx.mul %c, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %c, %y : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
func.func @{N}(%h: tensor<{B}x3x{F}>, %xs: tensor<4x{B}x3x{F}>, %w: tensor<3x{F}>)
    -> (tensor<{B}x3x{F}>, tensor<4x{B}x3x{F}>) {
  %hn, %ys = rlx.scan @{N}_step consts(%w) init(%h) xs(%xs)
      : (tensor<3x{F}>, tensor<{B}x3x{F}>, tensor<4x{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<4x{B}x3x{F}>)
  return %hn, %ys : tensor<{B}x3x{F}>, tensor<4x{B}x3x{F}>
}
)",
      {{"h", El::F, {kB, 3}, any},
       {"xs", El::F, {4, kB, 3}, any},
       {"w", El::F, {3}, any}},
      [](const In &in, const Ctx &c) -> Outs {
        int64_t B = in[0].shape[0];
        Arr h(c.F, {B, 3}), ys(c.F, {4, B, 3});
        h.v = in[0].v;
        for (int64_t t = 0; t < 4; ++t)
          for (int64_t i = 0; i < B * 3; ++i) {
            double x = in[1].v[t * B * 3 + i];
            h.v[i] = std::tanh(h.v[i] * in[2].v[i % 3] + x);
            ys.v[t * B * 3 + i] = h.v[i] * x;
          }
        return {h, ys};
      },
      Tol::Trans));

  // A reverse scan over a length, with no xs: h <- h * h * 0.5 + s_i where
  // the step's output is the carry it starts from.
  cases.push_back(make("scan_reverse", R"(
func.func private @{N}_step(%s: tensor<{F}>, %h: tensor<{B}x2x{F}>)
    -> (tensor<{B}x2x{F}>, tensor<{B}x2x{F}>) {
  %a = rlx.mul %h, %h : (tensor<{B}x2x{F}>, tensor<{B}x2x{F}>) -> tensor<{B}x2x{F}>
  %half = rlx.constant dense<0.5> : tensor<{F}>
  %b = rlx.mul %a, %half : (tensor<{B}x2x{F}>, tensor<{F}>) -> tensor<{B}x2x{F}>
  %c = rlx.add %b, %s : (tensor<{B}x2x{F}>, tensor<{F}>) -> tensor<{B}x2x{F}>
  return %c, %h : tensor<{B}x2x{F}>, tensor<{B}x2x{F}>
}
func.func @{N}(%s: tensor<{F}>, %h: tensor<{B}x2x{F}>) -> (tensor<{B}x2x{F}>, tensor<3x{B}x2x{F}>) {
  %hn, %ys = rlx.scan @{N}_step consts(%s) init(%h) {length = 3 : i64, reverse = true}
      : (tensor<{F}>, tensor<{B}x2x{F}>) -> (tensor<{B}x2x{F}>, tensor<3x{B}x2x{F}>)
  return %hn, %ys : tensor<{B}x2x{F}>, tensor<3x{B}x2x{F}>
}
)",
      {{"s", El::F, {}, uniform(-0.5, 0.5)}, {"h", El::F, {kB, 2}, any}},
      [](const In &in, const Ctx &c) -> Outs {
        int64_t B = in[1].shape[0];
        Arr h(c.F, {B, 2}), ys(c.F, {3, B, 2});
        h.v = in[1].v;
        for (int64_t t = 2; t >= 0; --t)
          for (int64_t i = 0; i < B * 2; ++i) {
            ys.v[t * B * 2 + i] = h.v[i];
            h.v[i] = h.v[i] * h.v[i] * 0.5 + in[0].v[0];
          }
        return {h, ys};
      },
      Tol::Arith));

  // x <- x * 1.5 while sum(x * x) < 20 (at most a few steps; none when the
  // start is already large); the step count comes back too.
  cases.push_back(make("while", R"(
func.func private @{N}_cond(%limit: tensor<{F}>, %x: tensor<{B}x3x{F}>, %n: tensor<i32>) -> tensor<i1> {
  %sq = rlx.mul %x, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %s = rlx.sum %sq {axes = array<i64: 0, 1>} : (tensor<{B}x3x{F}>) -> tensor<{F}>
  %c = rlx.compare "lt", %s, %limit : (tensor<{F}>, tensor<{F}>) -> tensor<i1>
  return %c : tensor<i1>
}
func.func private @{N}_body(%limit: tensor<{F}>, %x: tensor<{B}x3x{F}>, %n: tensor<i32>) -> (tensor<{B}x3x{F}>, tensor<i32>) {
  %k = rlx.constant dense<1.5> : tensor<{F}>
  %y = rlx.mul %x, %k : (tensor<{B}x3x{F}>, tensor<{F}>) -> tensor<{B}x3x{F}>
  %one = rlx.constant dense<1> : tensor<i32>
  %m = rlx.add %n, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %y, %m : tensor<{B}x3x{F}>, tensor<i32>
}
func.func @{N}(%x: tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<i32>) {
  %limit = rlx.constant dense<20.0> : tensor<{F}>
  %zero = rlx.constant dense<0> : tensor<i32>
  %r, %n = rlx.while @{N}_cond, @{N}_body consts(%limit) init(%x, %zero)
      : (tensor<{F}>, tensor<{B}x3x{F}>, tensor<i32>) -> (tensor<{B}x3x{F}>, tensor<i32>)
  return %r, %n : tensor<{B}x3x{F}>, tensor<i32>
}
)",
      {{"x", El::F, {kB, 3}, any}},
      [](const In &in, const Ctx &c) -> Outs {
        Arr x(c.F, in[0].shape), n(RLX_DTYPE_I32, {});
        x.v = in[0].v;
        n.v = {0};
        auto norm = [&] {
          double s = 0;
          for (double v : x.v)
            s += v * v;
          return s;
        };
        while (norm() < 20) {
          for (double &v : x.v)
            v = roundTo(c.F, v * 1.5);
          n.v[0] += 1;
        }
        return {x, n};
      },
      Tol::Arith));

  // An i32 index (clamped into [0, 2]) picks x + 1, x * x or tanh(x) * w.
  cases.push_back(make("switch", R"(
func.func private @{N}_inc(%x: tensor<{B}x3x{F}>, %w: tensor<3x{F}>) -> tensor<{B}x3x{F}> {
  %one = rlx.constant dense<1.0> : tensor<{F}>
  %y = rlx.add %x, %one : (tensor<{B}x3x{F}>, tensor<{F}>) -> tensor<{B}x3x{F}>
  return %y : tensor<{B}x3x{F}>
}
func.func private @{N}_sq(%x: tensor<{B}x3x{F}>, %w: tensor<3x{F}>) -> tensor<{B}x3x{F}> {
  %y = rlx.mul %x, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %y : tensor<{B}x3x{F}>
}
func.func private @{N}_tanh(%x: tensor<{B}x3x{F}>, %w: tensor<3x{F}>) -> tensor<{B}x3x{F}> {
  %t = rlx.tanh %x : tensor<{B}x3x{F}>
  %y = rlx.mul %t, %w : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  return %y : tensor<{B}x3x{F}>
}
func.func @{N}(%i: tensor<i32>, %x: tensor<{B}x3x{F}>, %w: tensor<3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.switch %i [@{N}_inc, @{N}_sq, @{N}_tanh](%x, %w)
      : (tensor<i32>, tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
      {{"i", El::I32, {}, ints(-1, 3)},
       {"x", El::F, {kB, 3}, any},
       {"w", El::F, {3}, any}},
      [](const In &in, const Ctx &c) -> Outs {
        int64_t k = std::clamp<int64_t>(static_cast<int64_t>(in[0].v[0]), 0, 2);
        Arr y(c.F, in[1].shape);
        for (size_t j = 0; j < y.v.size(); ++j) {
          double x = in[1].v[j];
          y.v[j] = k == 0   ? x + 1
                   : k == 1 ? x * x
                            : std::tanh(x) * in[2].v[j % 3];
        }
        return {y};
      },
      Tol::Trans));

  // An i1 predicate: false picks the first branch.
  cases.push_back(make("switch_i1", R"(
func.func private @{N}_neg(%x: tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3xi1>) {
  %y = rlx.neg %x : tensor<{B}x3x{F}>
  %z = rlx.constant dense<0.0> : tensor<{F}>
  %p = rlx.compare "gt", %x, %z : (tensor<{B}x3x{F}>, tensor<{F}>) -> tensor<{B}x3xi1>
  return %y, %p : tensor<{B}x3x{F}>, tensor<{B}x3xi1>
}
func.func private @{N}_abs(%x: tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3xi1>) {
  %y = rlx.abs %x : tensor<{B}x3x{F}>
  %z = rlx.constant dense<0.0> : tensor<{F}>
  %p = rlx.compare "lt", %x, %z : (tensor<{B}x3x{F}>, tensor<{F}>) -> tensor<{B}x3xi1>
  return %y, %p : tensor<{B}x3x{F}>, tensor<{B}x3xi1>
}
func.func @{N}(%p: tensor<i1>, %x: tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3xi1>) {
  %r, %q = rlx.switch %p [@{N}_neg, @{N}_abs](%x)
      : (tensor<i1>, tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3xi1>)
  return %r, %q : tensor<{B}x3x{F}>, tensor<{B}x3xi1>
}
)",
      {{"p", El::I1, {}, cycle({1, 0})}, {"x", El::F, {kB, 3}, any}},
      [](const In &in, const Ctx &c) -> Outs {
        bool p = in[0].v[0] != 0;
        Arr y(c.F, in[1].shape), q(RLX_DTYPE_I1, in[1].shape);
        for (size_t j = 0; j < y.v.size(); ++j) {
          double x = in[1].v[j];
          y.v[j] = p ? std::abs(x) : -x;
          q.v[j] = p ? x < 0 : x > 0;
        }
        return {y, q};
      },
      Tol::Exact));
}

} // namespace rlx::e2e
