//===- Cases.cpp - The op cases of the rlx end-to-end tests ---------------===//

#include "Cases.h"
#include "ControlFlowCases.h"
#include "RandomCases.h"
#include "Reference.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>

namespace rlx::e2e {

namespace {

using In = std::vector<Arr>;
using Outs = std::vector<Arr>;

const Gen kAny = uniform(-2, 2);
const Gen kPositive = uniform(0.1, 3);
/// Small integers as floats: compares see ties.
const Gen kTies = ints(-2, 2);

struct Builder {
  std::vector<Case> cases;

  Case &add(std::string name, std::string mlir, std::vector<InSpec> inputs,
            RefFn ref, Tol tol = Tol::Arith, unsigned variants = kAllVariants) {
    Case c;
    c.name = std::move(name);
    c.mlir = std::move(mlir);
    c.inputs = std::move(inputs);
    c.ref = std::move(ref);
    c.tol = tol;
    c.variants = variants;
    cases.push_back(std::move(c));
    return cases.back();
  }

  /// `%r = rlx.<op> %x [attrs] : tensor<{B}x4x{F}>`.
  void unaryCase(std::string name, std::string op, std::string attrs, Gen gen,
                 std::function<double(double)> fn, Tol tol) {
    add(name,
        "func.func @{N}(%x: tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}> {\n"
        "  %r = rlx." + op + " %x " + attrs + (attrs.empty() ? "" : " ") +
            ": tensor<{B}x4x{F}>\n"
            "  return %r : tensor<{B}x4x{F}>\n"
            "}\n",
        {{"x", El::F, {kB, 4}, gen}},
        [fn](const In &in, const Ctx &c) -> Outs {
          return {ref::unary(c.F, in[0], fn)};
        },
        tol);
  }
};

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

void elementwiseCases(Builder &b) {
  b.add("add", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.add %a, %b : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kAny}, {"b", El::F, {3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1], std::plus<>())};
        });

  b.add("sub", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<{B}x1x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.sub %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x1x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kAny}, {"b", El::F, {kB, 1}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1], std::minus<>())};
        });

  // Same shapes, and a rank-0 operand.
  b.add("mul", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<{B}x3x{F}>, %s: tensor<{F}>)
    -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %r = rlx.mul %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %t = rlx.mul %s, %a : (tensor<{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r, %t : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kAny},
         {"b", El::F, {kB, 3}, kAny},
         {"s", El::F, {}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1], std::multiplies<>()),
                  ref::binary(c.F, in[2], in[0], std::multiplies<>())};
        });

  b.add("div", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.div %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kAny},
         {"b", El::F, {kB, 3}, signedMagnitude(0.5, 2)}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1], std::divides<>())};
        });

  // Quotients several units wide, of both signs: the remainder's sign is
  // the dividend's.
  b.add("rem", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.rem %a, %b : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, uniform(-6, 6)},
         {"b", El::F, {3}, signedMagnitude(0.5, 2)}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1],
                              [](double x, double y) { return std::fmod(x, y); })};
        });

  b.add("pow", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.pow %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kPositive}, {"b", El::F, {kB, 3}, uniform(-2, 2)}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1],
                              [](double x, double y) { return std::pow(x, y); })};
        },
        Tol::Trans);

  b.add("maximum", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<1x3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.maximum %a, %b : (tensor<{B}x3x{F}>, tensor<1x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kAny}, {"b", El::F, {1, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1],
                              [](double x, double y) { return std::max(x, y); })};
        });

  b.add("minimum", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.minimum %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kAny}, {"b", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1],
                              [](double x, double y) { return std::min(x, y); })};
        });

  b.unaryCase("neg", "neg", "", kAny, [](double x) { return -x; }, Tol::Arith);
  b.unaryCase("abs", "abs", "", kAny, [](double x) { return std::fabs(x); },
              Tol::Arith);
  b.unaryCase("exp", "exp", "", uniform(-3, 3),
              [](double x) { return std::exp(x); }, Tol::Trans);
  b.unaryCase("log", "log", "", uniform(0.05, 10),
              [](double x) { return std::log(x); }, Tol::Trans);
  b.unaryCase("sqrt", "sqrt", "", uniform(0.01, 10),
              [](double x) { return std::sqrt(x); }, Tol::Trans);
  b.unaryCase("rsqrt", "rsqrt", "", uniform(0.01, 10),
              [](double x) { return 1.0 / std::sqrt(x); }, Tol::Trans);
  b.unaryCase("tanh", "tanh", "", uniform(-4, 4),
              [](double x) { return std::tanh(x); }, Tol::Trans);
  b.unaryCase("sigmoid", "sigmoid", "", uniform(-6, 6), ref::sigmoid,
              Tol::Trans);
  // Several periods, so the lowering's range reduction is exercised.
  b.unaryCase("sin", "sin", "", uniform(-10, 10),
              [](double x) { return std::sin(x); }, Tol::Trans);
  b.unaryCase("cos", "cos", "", uniform(-10, 10),
              [](double x) { return std::cos(x); }, Tol::Trans);
  b.unaryCase("atan", "atan", "", uniform(-20, 20),
              [](double x) { return std::atan(x); }, Tol::Trans);
  // The function is named @erf like libm's erf, which rlx.erf lowers to.
  b.unaryCase("erf", "erf", "", uniform(-3, 3),
              [](double x) { return std::erf(x); }, Tol::Trans);
  b.unaryCase("erf_tails", "erf", "", signedMagnitude(1.5, 6),
              [](double x) { return std::erf(x); }, Tol::Trans);
  b.unaryCase("relu", "relu", "", kAny,
              [](double x) { return x > 0 ? x : 0.0; }, Tol::Arith);
  b.unaryCase("gelu_tanh", "gelu", "{approximate = \"tanh\"}", uniform(-4, 4),
              ref::geluTanh, Tol::Trans);
  b.unaryCase("gelu_default", "gelu", "", uniform(-4, 4), ref::geluTanh,
              Tol::Trans);
  b.unaryCase("gelu_erf", "gelu", "{approximate = \"erf\"}", uniform(-4, 4),
              ref::geluErf, Tol::Trans);

  b.add("compare", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<{B}x3x{F}>)
    -> (tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>) {
  %eq = rlx.compare "eq", %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3xi1>
  %ne = rlx.compare "ne", %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3xi1>
  %lt = rlx.compare "lt", %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3xi1>
  %le = rlx.compare "le", %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3xi1>
  %gt = rlx.compare "gt", %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3xi1>
  %ge = rlx.compare "ge", %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3xi1>
  return %eq, %ne, %lt, %le, %gt, %ge : tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>
}
)",
        {{"a", El::F, {kB, 3}, kTies}, {"b", El::F, {kB, 3}, kTies}},
        [](const In &in, const Ctx &) -> Outs {
          auto cmp = [&](std::function<bool(double, double)> f) {
            return ref::binary(RLX_DTYPE_I1, in[0], in[1],
                               [f](double x, double y) { return f(x, y) ? 1.0 : 0.0; });
          };
          return {cmp(std::equal_to<>()), cmp(std::not_equal_to<>()),
                  cmp(std::less<>()),     cmp(std::less_equal<>()),
                  cmp(std::greater<>()),  cmp(std::greater_equal<>())};
        },
        Tol::Exact);

  b.add("compare_broadcast", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<3x{F}>) -> (tensor<{B}x3xi1>, tensor<{B}x3xi1>) {
  %lt = rlx.compare "lt", %a, %b : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3xi1>
  %ge = rlx.compare "ge", %b, %a : (tensor<3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3xi1>
  return %lt, %ge : tensor<{B}x3xi1>, tensor<{B}x3xi1>
}
)",
        {{"a", El::F, {kB, 3}, kTies}, {"b", El::F, {3}, kTies}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::binary(RLX_DTYPE_I1, in[0], in[1],
                              [](double x, double y) { return x < y ? 1.0 : 0.0; }),
                  ref::binary(RLX_DTYPE_I1, in[1], in[0],
                              [](double x, double y) { return x >= y ? 1.0 : 0.0; })};
        },
        Tol::Exact);

  b.add("select", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %c = rlx.compare "gt", %a, %b : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3xi1>
  %r = rlx.select %c, %a, %b : (tensor<{B}x3xi1>, tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kAny}, {"b", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[1],
                              [](double x, double y) { return x > y ? x : y; })};
        },
        Tol::Exact);

  // The condition [B,1], on_true [B,3], on_false [3] and a rank-0 constant.
  b.add("select_broadcast", R"(
func.func @{N}(%u: tensor<{B}x1x{F}>, %v: tensor<{B}x1x{F}>, %x: tensor<{B}x3x{F}>, %y: tensor<3x{F}>)
    -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %c = rlx.compare "lt", %u, %v : (tensor<{B}x1x{F}>, tensor<{B}x1x{F}>) -> tensor<{B}x1xi1>
  %r = rlx.select %c, %x, %y : (tensor<{B}x1xi1>, tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  %z = rlx.constant dense<-7.5> : tensor<{F}>
  %s = rlx.select %c, %z, %x : (tensor<{B}x1xi1>, tensor<{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r, %s : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
)",
        {{"u", El::F, {kB, 1}, kAny},
         {"v", El::F, {kB, 1}, kAny},
         {"x", El::F, {kB, 3}, kAny},
         {"y", El::F, {3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          Arr z(c.F, {});
          z.v[0] = -7.5;
          auto pick = [](const std::vector<double> &a) {
            return a[0] < a[1] ? a[2] : a[3];
          };
          return {ref::map(c.F, {&in[0], &in[1], &in[2], &in[3]}, pick),
                  ref::map(c.F, {&in[0], &in[1], &z, &in[2]}, pick)};
        },
        Tol::Exact);

  b.add("select_i1_input", R"(
func.func @{N}(%c: tensor<{B}x3xi1>, %x: tensor<{B}x3x{F}>, %y: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.select %c, %x, %y : (tensor<{B}x3xi1>, tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"c", El::I1, {kB, 3}, cycle({1, 0, 0, 1, 1})},
         {"x", El::F, {kB, 3}, kAny},
         {"y", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::map(c.F, {&in[0], &in[1], &in[2]},
                           [](const std::vector<double> &a) {
                             return a[0] != 0 ? a[1] : a[2];
                           })};
        },
        Tol::Exact);

  // f32 -> f64 in the f32 modules, f64 -> f32 (round to nearest) in the f64
  // ones.
  b.add("cast_float", R"(
func.func @{N}(%x: tensor<{B}x4x{F}>) -> tensor<{B}x4x{O}> {
  %r = rlx.cast %x : tensor<{B}x4x{F}> -> tensor<{B}x4x{O}>
  return %r : tensor<{B}x4x{O}>
}
)",
        {{"x", El::F, {kB, 4}, uniform(-100, 100)}},
        [](const In &in, const Ctx &c) -> Outs { return {ref::cast(in[0], c.O)}; },
        Tol::Exact);

  b.add("cast_to_i32", R"(
func.func @{N}(%x: tensor<{B}x6x{F}>) -> tensor<{B}x6xi32> {
  %r = rlx.cast %x : tensor<{B}x6x{F}> -> tensor<{B}x6xi32>
  return %r : tensor<{B}x6xi32>
}
)",
        {{"x", El::F, {kB, 6},
          cycle({-2.5, 2.5, -0.75, 0.75, 3.96875, -3.96875, 0, 7, -7, 1.5,
                 100.25, -100.75, 123456.5, -0.25})}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::cast(in[0], RLX_DTYPE_I32)};
        },
        // 123456.5 is inf in f16, which no integer holds.
        Tol::Exact, kAllVariants & ~kF16);

  b.add("cast_from_i32", R"(
func.func @{N}(%x: tensor<{B}x4xi32>) -> tensor<{B}x4x{F}> {
  %r = rlx.cast %x : tensor<{B}x4xi32> -> tensor<{B}x4x{F}>
  return %r : tensor<{B}x4x{F}>
}
)",
        {{"x", El::I32, {kB, 4}, ints(-100000, 100000)}},
        [](const In &in, const Ctx &c) -> Outs { return {ref::cast(in[0], c.F)}; },
        Tol::Exact);

  // Floats to i1 are `x != 0`; i1 to floats 0 or 1.
  b.add("cast_i1", R"(
func.func @{N}(%x: tensor<{B}x6x{F}>, %c: tensor<{B}x3xi1>) -> (tensor<{B}x6xi1>, tensor<{B}x3x{F}>) {
  %r = rlx.cast %x : tensor<{B}x6x{F}> -> tensor<{B}x6xi1>
  %s = rlx.cast %c : tensor<{B}x3xi1> -> tensor<{B}x3x{F}>
  return %r, %s : tensor<{B}x6xi1>, tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 6}, cycle({0, 0.5, -0.5, 2, -0.0, 1e-30, -3, 0, 0.25})},
         {"c", El::I1, {kB, 3}, cycle({1, 1, 0, 1, 0})}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::cast(in[0], RLX_DTYPE_I1), ref::cast(in[1], c.F)};
        },
        Tol::Exact);

  // A reduction whose combiner ignores its input (a count: the sum of a
  // select whose other side is a constant) counts every element, not one
  // per vector of them (the CPU vectorizer once added 1 per 16 elements).
  b.add("sum_of_ones", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>) -> tensor<{F}> {
  %s = rlx.sum %x {axes = array<i64: 1>} : (tensor<{B}x3x{F}>) -> tensor<{B}x{F}>
  %t = rlx.constant dense<true> : tensor<i1>
  %one = rlx.constant dense<1.0> : tensor<{F}>
  %o = rlx.select %t, %one, %s : (tensor<i1>, tensor<{F}>, tensor<{B}x{F}>) -> tensor<{B}x{F}>
  %n = rlx.sum %o {axes = array<i64: 0>} : (tensor<{B}x{F}>) -> tensor<{F}>
  return %n : tensor<{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          Arr n(c.F, {});
          n.v[0] = static_cast<double>(in[0].shape[0]);
          return {n};
        },
        Tol::Exact);

  // Bits reinterpreted both ways: i32 codes of floats in [1, 2) read as
  // f32, doubled (the exponent field plus one), read back as i32.
  b.add("bitcast", R"(
func.func @{N}(%x: tensor<{B}x4xi32>) -> (tensor<{B}x4xf32>, tensor<{B}x4xi32>) {
  %f = rlx.bitcast %x : tensor<{B}x4xi32> -> tensor<{B}x4xf32>
  %d = rlx.add %f, %f : (tensor<{B}x4xf32>, tensor<{B}x4xf32>) -> tensor<{B}x4xf32>
  %b = rlx.bitcast %d : tensor<{B}x4xf32> -> tensor<{B}x4xi32>
  return %f, %b : tensor<{B}x4xf32>, tensor<{B}x4xi32>
}
)",
        {{"x", El::I32, {kB, 4}, ints(0x3f800000, 0x3fffffff)}},
        [](const In &in, const Ctx &) -> Outs {
          Arr asFloat = ref::unary(RLX_DTYPE_F32, in[0], [](double v) {
            int32_t bits = static_cast<int32_t>(v);
            float f;
            std::memcpy(&f, &bits, sizeof(f));
            return static_cast<double>(f);
          });
          Arr doubled = ref::unary(RLX_DTYPE_I32, in[0],
                                   [](double v) { return v + 0x800000; });
          return {asFloat, doubled};
        },
        Tol::Exact, kWideFloatVariants);

  // Narrow floats, end to end in every variant: a round trip through
  // f8E5M2 (values beyond 57344 become inf) and fake_quant to e4m3fn
  // saturating. numerics.narrow-floats checks every code against ml_dtypes.
  b.add("cast_narrow_float", R"(
func.func @{N}(%x: tensor<{B}x5x{F}>) -> (tensor<{B}x5x{F}>, tensor<{B}x5x{F}>) {
  %q = rlx.cast %x : tensor<{B}x5x{F}> -> tensor<{B}x5xf8E5M2>
  %r = rlx.cast %q : tensor<{B}x5xf8E5M2> -> tensor<{B}x5x{F}>
  %f = rlx.fake_quant %x {exponent_bits = 4, mantissa_bits = 3, exponent_bias = 7, specials = "fn", saturate} : tensor<{B}x5x{F}>
  return %r, %f : tensor<{B}x5x{F}>, tensor<{B}x5x{F}>
}
)",
        {{"x", El::F, {kB, 5},
          cycle({0.3, -1.0e-5, 70000, -61440, 61439, 500, -449, 0.0625,
                 3.0e-3, -2.5, 1.125, 7.0e-6, -0.0})}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::unary(c.F, in[0],
                             [](double v) {
                               return ref::roundToFormat(v, 2, -14, 57344,
                                                         false, true);
                             }),
                  ref::unary(c.F, in[0], [](double v) {
                    return ref::roundToFormat(v, 3, -6, 448, true, false);
                  })};
        },
        Tol::Exact, kWideFloatVariants);

  // Block-scaled values, MX style: f8E4M3FN codes (subnormals, 448, signs)
  // with one f8E8M0FNU scale per 32 along dim 1 (40 = 32 + 8: a short last
  // block; code 0 is 2^-127), every f4E2M1FN code with f32 scales per 2 along
  // dim 1 of a 3-D tensor, and x itself with f16 scales per 24 (whole
  // blocks that vector tiles of 16 straddle; its derivative is the
  // cotangent scaled the same way). Decoded here from the formats'
  // definitions.
  b.add(
      "block_dequantize", R"(
func.func @{N}(%q: tensor<{B}x40xi8>, %e: tensor<{B}x2xi8>, %g: tensor<{B}x5x3xi8>, %gs: tensor<{B}x3x3xi32>, %x: tensor<{B}x48x{F}>, %s: tensor<{B}x2xi32>)
    -> (tensor<{B}x40x{F}>, tensor<{B}x5x3x{F}>, tensor<{B}x48x{F}>) {
  %c = rlx.bitcast %q : tensor<{B}x40xi8> -> tensor<{B}x40xf8E4M3FN>
  %k = rlx.bitcast %e : tensor<{B}x2xi8> -> tensor<{B}x2xf8E8M0FNU>
  %w = rlx.block_dequantize %c, %k {axis = 1, block_size = 32} : tensor<{B}x40xf8E4M3FN>, tensor<{B}x2xf8E8M0FNU> -> tensor<{B}x40x{F}>
  %g4 = rlx.cast %g : tensor<{B}x5x3xi8> -> tensor<{B}x5x3xi4>
  %f4 = rlx.bitcast %g4 : tensor<{B}x5x3xi4> -> tensor<{B}x5x3xf4E2M1FN>
  %f4s = rlx.cast %gs : tensor<{B}x3x3xi32> -> tensor<{B}x3x3xf32>
  %v = rlx.block_dequantize %f4, %f4s {axis = 1, block_size = 2} : tensor<{B}x5x3xf4E2M1FN>, tensor<{B}x3x3xf32> -> tensor<{B}x5x3x{F}>
  %sb = rlx.cast %s : tensor<{B}x2xi32> -> tensor<{B}x2xf16>
  %y = rlx.block_dequantize %x, %sb {axis = 1, block_size = 24} : tensor<{B}x48x{F}>, tensor<{B}x2xf16> -> tensor<{B}x48x{F}>
  return %w, %v, %y : tensor<{B}x40x{F}>, tensor<{B}x5x3x{F}>, tensor<{B}x48x{F}>
}
)",
      {{"q",
        El::I8,
        {kB, 40},
        cycle({0, 1, 7, 8, 0x38, 0x3c, 0x7e, -128, -127, -2, 0x41, 0x55, -0x30,
               0x6a, 0x1f, -0x7e, 0x2d})},
       {"e", El::I8, {kB, 2}, cycle({127, 120, -126, 0, 100, -116, 64})},
       {"g", El::I8, {kB, 5, 3}, ints(-8, 7)},
       {"gs", El::I32, {kB, 3, 3}, ints(-9, 9)},
       {"x", El::F, {kB, 48}, kAny},
       {"s", El::I32, {kB, 2}, ints(-7, 7)}},
      [](const In &in, const Ctx &c) -> Outs {
        auto e4m3fn = [](double v) {
          auto code = static_cast<uint8_t>(static_cast<int8_t>(v));
          int e = (code >> 3) & 15, m = code & 7;
          double magnitude =
              e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
          return code & 0x80 ? -magnitude : magnitude;
        };
        auto e2m1fn = [](double v) {
          auto code = static_cast<uint8_t>(static_cast<int8_t>(v)) & 15;
          int e = (code >> 1) & 3, m = code & 1;
          double magnitude = e == 0 ? 0.5 * m : std::ldexp(2 + m, e - 2);
          return code & 8 ? -magnitude : magnitude;
        };
        auto e8m0 = [](double v) {
          auto code = static_cast<uint8_t>(static_cast<int8_t>(v));
          return std::ldexp(1.0, code - 127);
        };
        int64_t rows = in[0].shape[0];
        Arr w(c.F, in[0].shape), v(c.F, in[2].shape), y(c.F, in[4].shape);
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < 40; ++j)
            w.v[i * 40 + j] = roundTo(c.F, e4m3fn(in[0].v[i * 40 + j]) *
                                               e8m0(in[1].v[i * 2 + j / 32]));
          for (int64_t j = 0; j < 5; ++j)
            for (int64_t k = 0; k < 3; ++k)
              v.v[(i * 5 + j) * 3 + k] = e2m1fn(in[2].v[(i * 5 + j) * 3 + k]) *
                                         in[3].v[(i * 3 + j / 2) * 3 + k];
          for (int64_t j = 0; j < 48; ++j)
            y.v[i * 48 + j] =
                roundTo(c.F, in[4].v[i * 48 + j] * in[5].v[i * 2 + j / 24]);
        }
        return {w, v, y};
      },
      Tol::Exact, kWideFloatVariants);
}

//===----------------------------------------------------------------------===//
// Contractions, convolution, pooling
//===----------------------------------------------------------------------===//

void structuredCases(Builder &b) {
  auto matmulRef = [](const In &in, const Ctx &) -> Outs {
    return {ref::matmul(in[0], in[1])};
  };
  b.add("matmul", R"(
func.func @{N}(%a: tensor<{B}x4x{F}>, %b: tensor<4x5x{F}>) -> tensor<{B}x5x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x4x{F}>, tensor<4x5x{F}>) -> tensor<{B}x5x{F}>
  return %r : tensor<{B}x5x{F}>
}
)",
        {{"a", El::F, {kB, 4}, kAny}, {"b", El::F, {4, 5}, kAny}}, matmulRef);

  b.add("matmul_3d_2d", R"(
func.func @{N}(%a: tensor<{B}x2x3x{F}>, %b: tensor<3x4x{F}>) -> tensor<{B}x2x4x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x2x3x{F}>, tensor<3x4x{F}>) -> tensor<{B}x2x4x{F}>
  return %r : tensor<{B}x2x4x{F}>
}
)",
        {{"a", El::F, {kB, 2, 3}, kAny}, {"b", El::F, {3, 4}, kAny}}, matmulRef);

  b.add("matmul_batched", R"(
func.func @{N}(%a: tensor<{B}x2x3x{F}>, %b: tensor<{B}x3x4x{F}>) -> tensor<{B}x2x4x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x2x3x{F}>, tensor<{B}x3x4x{F}>) -> tensor<{B}x2x4x{F}>
  return %r : tensor<{B}x2x4x{F}>
}
)",
        {{"a", El::F, {kB, 2, 3}, kAny}, {"b", El::F, {kB, 3, 4}, kAny}},
        matmulRef);

  // Two batch dims alike (attention's batch and heads): collapsed into one
  // batch_matmul.
  b.add("matmul_batched_4d", R"(
func.func @{N}(%a: tensor<{B}x3x2x5x{F}>, %b: tensor<{B}x3x5x4x{F}>) -> tensor<{B}x3x2x4x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x3x2x5x{F}>, tensor<{B}x3x5x4x{F}>) -> tensor<{B}x3x2x4x{F}>
  return %r : tensor<{B}x3x2x4x{F}>
}
)",
        {{"a", El::F, {kB, 3, 2, 5}, kAny}, {"b", El::F, {kB, 3, 5, 4}, kAny}},
        matmulRef);

  b.add("matmul_broadcast_batch", R"(
func.func @{N}(%a: tensor<{B}x2x3x{F}>, %b: tensor<1x3x4x{F}>) -> tensor<{B}x2x4x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x2x3x{F}>, tensor<1x3x4x{F}>) -> tensor<{B}x2x4x{F}>
  return %r : tensor<{B}x2x4x{F}>
}
)",
        {{"a", El::F, {kB, 2, 3}, kAny}, {"b", El::F, {1, 3, 4}, kAny}},
        matmulRef);

  // A 2-D lhs against a batched rhs.
  b.add("matmul_2d_3d", R"(
func.func @{N}(%a: tensor<3x4x{F}>, %b: tensor<{B}x4x2x{F}>) -> tensor<{B}x3x2x{F}> {
  %r = rlx.matmul %a, %b : (tensor<3x4x{F}>, tensor<{B}x4x2x{F}>) -> tensor<{B}x3x2x{F}>
  return %r : tensor<{B}x3x2x{F}>
}
)",
        {{"a", El::F, {3, 4}, kAny}, {"b", El::F, {kB, 4, 2}, kAny}}, matmulRef);

  // Sizes off every vector width: the remainders of the tiled matmul.
  b.add("matmul_odd_sizes", R"(
func.func @{N}(%a: tensor<{B}x13x37x{F}>, %b: tensor<37x19x{F}>) -> tensor<{B}x13x19x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x13x37x{F}>, tensor<37x19x{F}>) -> tensor<{B}x13x19x{F}>
  return %r : tensor<{B}x13x19x{F}>
}
)",
        {{"a", El::F, {kB, 13, 37}, kAny}, {"b", El::F, {37, 19}, kAny}},
        matmulRef);

  // A long k: the bf16 variants' dot-product kernel walks it in blocks of
  // 128 pairs (601 = 2 full blocks, a short one and an odd last k).
  // Positive operands: sums of 601 terms of either sign cancel to results
  // near 0, whose f32 rounding is beyond the relative tolerance.
  b.add("matmul_long_k", R"(
func.func @{N}(%a: tensor<{B}x601x{F}>, %b: tensor<601x35x{F}>) -> tensor<{B}x35x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x601x{F}>, tensor<601x35x{F}>) -> tensor<{B}x35x{F}>
  return %r : tensor<{B}x35x{F}>
}
)",
        {{"a", El::F, {kB, 601}, kPositive}, {"b", El::F, {601, 35}, kPositive}},
        matmulRef);

  // A product of 512 KiB or more without an epilogue: with static shapes
  // the CPU zero-fills and multiplies it per 8-row tile (3 x 530 rows: no
  // multiple of 8; 130 columns: no multiple of the kernel's 32).
  b.add("matmul_large_product", R"(
func.func @{N}(%a: tensor<{B}x530x40x{F}>, %b: tensor<40x130x{F}>) -> tensor<{B}x530x130x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x530x40x{F}>, tensor<40x130x{F}>) -> tensor<{B}x530x130x{F}>
  return %r : tensor<{B}x530x130x{F}>
}
)",
        {{"a", El::F, {kB, 530, 40}, kAny}, {"b", El::F, {40, 130}, kAny}},
        matmulRef);

  // Products of 512 KiB or more by operands transposed for them alone (a
  // conv's gradients): the CPU reads each transpose's source where it packs
  // the operand. 483 rows: several M blocks of whole row tiles and 3 rows
  // past them; 49 rows per image (98 at the static batch of 2): one M
  // block and 2 rows past it (a dynamic batch: every row read in place,
  // B copied block by block). Positive operands, as for
  // matmul_long_k, and small: the gradient check's central differences of
  // sums of 600 products in the hundreds lost 1e-6 to rounding.
  b.add("matmul_large_transposed_operands", R"(
func.func @{N}(%x: tensor<600x483x{F}>, %w: tensor<256x600x{F}>, %y: tensor<{B}x49x160x{F}>, %v: tensor<1024x160x{F}>) -> (tensor<483x256x{F}>, tensor<{B}x49x1024x{F}>) {
  %xt = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<600x483x{F}>) -> tensor<483x600x{F}>
  %wt = rlx.transpose %w {permutation = array<i64: 1, 0>} : (tensor<256x600x{F}>) -> tensor<600x256x{F}>
  %r = rlx.matmul %xt, %wt : (tensor<483x600x{F}>, tensor<600x256x{F}>) -> tensor<483x256x{F}>
  %vt = rlx.transpose %v {permutation = array<i64: 1, 0>} : (tensor<1024x160x{F}>) -> tensor<160x1024x{F}>
  %s = rlx.matmul %y, %vt : (tensor<{B}x49x160x{F}>, tensor<160x1024x{F}>) -> tensor<{B}x49x1024x{F}>
  return %r, %s : tensor<483x256x{F}>, tensor<{B}x49x1024x{F}>
}
)",
        {{"x", El::F, {600, 483}, uniform(0.01, 0.2)},
         {"w", El::F, {256, 600}, uniform(0.01, 0.2)},
         {"y", El::F, {kB, 49, 160}, uniform(0.01, 0.2)},
         {"v", El::F, {1024, 160}, uniform(0.01, 0.2)}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::matmul(ref::transpose(in[0], {1, 0}),
                              ref::transpose(in[1], {1, 0})),
                  ref::matmul(in[2], ref::transpose(in[3], {1, 0}))};
        });

  // A B under 512 KiB whose rows lie 4 KiB apart (a filter gradient's
  // output gradient): every row of a register tile's columns in one L1
  // set, so the CPU packs it at each call as it does larger ones.
  b.add("matmul_same_set_rows", R"(
func.func @{N}(%a: tensor<{B}x9x18x{F}>, %b: tensor<18x1024x{F}>) -> tensor<{B}x9x1024x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x9x18x{F}>, tensor<18x1024x{F}>) -> tensor<{B}x9x1024x{F}>
  return %r : tensor<{B}x9x1024x{F}>
}
)",
        {{"a", El::F, {kB, 9, 18}, uniform(0.01, 0.2)},
         {"b", El::F, {18, 1024}, uniform(0.01, 0.2)}},
        matmulRef);

  // A product of 512 KiB or more over three K blocks of 128 (K 384): its
  // register tiles start from zeros in the first block and from C's sums
  // after (the CPU's zero accumulators). 14 rows per image: with the static
  // batch, whole row tiles and rows past them; with a dynamic one, every
  // row read in place. Small positive operands, as above.
  b.add("matmul_k_blocks", R"(
func.func @{N}(%a: tensor<{B}x14x384x{F}>, %b: tensor<384x352x{F}>) -> tensor<{B}x14x352x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x14x384x{F}>, tensor<384x352x{F}>) -> tensor<{B}x14x352x{F}>
  return %r : tensor<{B}x14x352x{F}>
}
)",
        {{"a", El::F, {kB, 14, 384}, uniform(0.01, 0.2)},
         {"b", El::F, {384, 352}, uniform(0.01, 0.2)}},
        matmulRef);

  // A product of 512 KiB or more whose whole row tiles form several M
  // blocks (701 rows per image: 1400 of 1402 with the static batch, in
  // blocks of 280) and whose rows are 2 KiB apart, spread over L1 sets:
  // the CPU reads A in place rather than packing it K-major; the 2 rows
  // past the tiles run with interleaved sums. Small positive operands, as
  // above.
  b.add("matmul_m_blocks_in_place", R"(
func.func @{N}(%a: tensor<{B}x701x512x{F}>, %b: tensor<512x288x{F}>) -> tensor<{B}x701x288x{F}> {
  %r = rlx.matmul %a, %b : (tensor<{B}x701x512x{F}>, tensor<512x288x{F}>) -> tensor<{B}x701x288x{F}>
  return %r : tensor<{B}x701x288x{F}>
}
)",
        {{"a", El::F, {kB, 701, 512}, uniform(0.01, 0.2)},
         {"b", El::F, {512, 288}, uniform(0.01, 0.2)}},
        matmulRef);

  b.add("conv2d", R"(
func.func @{N}(%x: tensor<{B}x5x5x2x{F}>, %w: tensor<3x3x2x4x{F}>) -> tensor<{B}x5x5x4x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<{B}x5x5x2x{F}>, tensor<3x3x2x4x{F}>) -> tensor<{B}x5x5x4x{F}>
  return %r : tensor<{B}x5x5x4x{F}>
}
)",
        {{"x", El::F, {kB, 5, 5, 2}, kAny}, {"w", El::F, {3, 3, 2, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 1}, {1, 1, 1, 1}, {1, 1}, 1)};
        });

  // OH = (7 + 1 + 0 - 2*2 - 1) / 2 + 1 = 2, OW = (7 + 2 + 1 - 2*2 - 1) / 2 + 1 = 3.
  b.add("conv2d_strided_dilated", R"(
func.func @{N}(%x: tensor<{B}x7x7x2x{F}>, %w: tensor<3x3x2x3x{F}>) -> tensor<{B}x2x3x3x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 2, 1>, dilations = array<i64: 2, 2>}
      : (tensor<{B}x7x7x2x{F}>, tensor<3x3x2x3x{F}>) -> tensor<{B}x2x3x3x{F}>
  return %r : tensor<{B}x2x3x3x{F}>
}
)",
        {{"x", El::F, {kB, 7, 7, 2}, kAny}, {"w", El::F, {3, 3, 2, 3}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {2, 2}, {1, 0, 2, 1}, {2, 2}, 1)};
        });

  b.add("conv2d_groups", R"(
func.func @{N}(%x: tensor<{B}x6x6x4x{F}>, %w: tensor<2x2x2x4x{F}>) -> tensor<{B}x5x5x4x{F}> {
  %r = rlx.conv2d %x, %w {groups = 2 : i64}
      : (tensor<{B}x6x6x4x{F}>, tensor<2x2x2x4x{F}>) -> tensor<{B}x5x5x4x{F}>
  return %r : tensor<{B}x5x5x4x{F}>
}
)",
        {{"x", El::F, {kB, 6, 6, 4}, kAny}, {"w", El::F, {2, 2, 2, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 1}, {0, 0, 0, 0}, {1, 1}, 2)};
        });

  // Strides of 2 and 3 over a 3x3 window in two groups, padded unevenly:
  // the input gradient's stride phases hold 2 or 1 taps per dim.
  // OH = (8 + 2 + 1 - 3) / 2 + 1 = 5, OW = (9 + 0 + 1 - 3) / 3 + 1 = 3.
  b.add("conv2d_strided_groups", R"(
func.func @{N}(%x: tensor<{B}x8x9x4x{F}>, %w: tensor<3x3x2x6x{F}>) -> tensor<{B}x5x3x6x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 2, 3>, padding = array<i64: 2, 1, 0, 1>, groups = 2 : i64}
      : (tensor<{B}x8x9x4x{F}>, tensor<3x3x2x6x{F}>) -> tensor<{B}x5x3x6x{F}>
  return %r : tensor<{B}x5x3x6x{F}>
}
)",
        {{"x", El::F, {kB, 8, 9, 4}, kAny}, {"w", El::F, {3, 3, 2, 6}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {2, 3}, {2, 1, 0, 1}, {1, 1}, 2)};
        });

  // Dilated along H only, a stride wider than the window along W (one
  // stride phase without taps), and more right padding than the window
  // spans. OH = (7 + 1 + 0 - 2 - 1) / 1 + 1 = 6,
  // OW = (8 + 1 + 2 - 1 - 1) / 3 + 1 = 4.
  b.add("conv2d_dilated_wide_stride", R"(
func.func @{N}(%x: tensor<{B}x7x8x3x{F}>, %w: tensor<2x2x3x2x{F}>) -> tensor<{B}x6x4x2x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 1, 3>, padding = array<i64: 1, 0, 1, 2>, dilations = array<i64: 2, 1>}
      : (tensor<{B}x7x8x3x{F}>, tensor<2x2x3x2x{F}>) -> tensor<{B}x6x4x2x{F}>
  return %r : tensor<{B}x6x4x2x{F}>
}
)",
        {{"x", El::F, {kB, 7, 8, 3}, kAny}, {"w", El::F, {2, 2, 3, 2}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 3}, {1, 0, 1, 2}, {2, 1}, 1)};
        });

  // Fewer pixels than channels (ResNet's last stage): the input gradient
  // is taken per window offset rather than by reversed-filter convs.
  // OH = (2 + 1 + 0 - 2) / 1 + 1 = 2, OW = (3 + 0 + 1 - 2) / 2 + 1 = 2.
  b.add("conv2d_few_pixels", R"(
func.func @{N}(%x: tensor<{B}x2x3x3x{F}>, %w: tensor<2x2x3x9x{F}>) -> tensor<{B}x2x2x9x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 1, 2>, padding = array<i64: 1, 0, 0, 1>}
      : (tensor<{B}x2x3x3x{F}>, tensor<2x2x3x9x{F}>) -> tensor<{B}x2x2x9x{F}>
  return %r : tensor<{B}x2x2x9x{F}>
}
)",
        {{"x", El::F, {kB, 2, 3, 3}, kAny}, {"w", El::F, {2, 2, 3, 9}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 2}, {1, 0, 0, 1}, {1, 1}, 1)};
        });

  // 64 input channels or more: the CPU runs a padded conv as products per
  // filter tap over the output pixels that tap reads inside the image
  // (rlx-cpu-conv-tap-products). Small integers in, so the f32 sums of
  // 576 products are exact whatever their order and a tap read from the
  // wrong pixel cannot hide in the tolerance. Same padding, 40 output
  // channels (one column group).
  b.add("conv2d_taps", R"(
func.func @{N}(%x: tensor<{B}x6x7x64x{F}>, %w: tensor<3x3x64x40x{F}>) -> tensor<{B}x6x7x40x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<{B}x6x7x64x{F}>, tensor<3x3x64x40x{F}>) -> tensor<{B}x6x7x40x{F}>
  return %r : tensor<{B}x6x7x40x{F}>
}
)",
        {{"x", El::F, {kB, 6, 7, 64}, kTies}, {"w", El::F, {3, 3, 64, 40}, kTies}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 1}, {1, 1, 1, 1}, {1, 1}, 1)};
        });

  // Strided, dilated along H, padded unevenly, 96 output channels (three
  // column groups of 32). OH = (9 + 2 + 0 - 2*2 - 1) / 2 + 1 = 4,
  // OW = (8 + 1 + 2 - 3) / 2 + 1 = 5.
  b.add("conv2d_taps_strided", R"(
func.func @{N}(%x: tensor<{B}x9x8x64x{F}>, %w: tensor<3x3x64x96x{F}>) -> tensor<{B}x4x5x96x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 2, 0, 1, 2>, dilations = array<i64: 2, 1>}
      : (tensor<{B}x9x8x64x{F}>, tensor<3x3x64x96x{F}>) -> tensor<{B}x4x5x96x{F}>
  return %r : tensor<{B}x4x5x96x{F}>
}
)",
        {{"x", El::F, {kB, 9, 8, 64}, kTies}, {"w", El::F, {3, 3, 64, 96}, kTies}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {2, 2}, {2, 0, 1, 2}, {2, 1}, 1)};
        });

  // Padding wider than the image on every side: taps that read no input
  // pixel for some rows, and columns, at all; 128 output channels (two
  // groups of 64). OH = (3 + 3 + 3 - 3) + 1 = 7, OW = (2 + 3 + 3 - 3) + 1 = 6.
  b.add("conv2d_taps_wide_padding", R"(
func.func @{N}(%x: tensor<{B}x3x2x64x{F}>, %w: tensor<3x3x64x128x{F}>) -> tensor<{B}x7x6x128x{F}> {
  %r = rlx.conv2d %x, %w {padding = array<i64: 3, 3, 3, 3>}
      : (tensor<{B}x3x2x64x{F}>, tensor<3x3x64x128x{F}>) -> tensor<{B}x7x6x128x{F}>
  return %r : tensor<{B}x7x6x128x{F}>
}
)",
        {{"x", El::F, {kB, 3, 2, 64}, kTies}, {"w", El::F, {3, 3, 64, 128}, kTies}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 1}, {3, 3, 3, 3}, {1, 1}, 1)};
        });

  // 384 input channels: a column group's filter for every tap (3 * 3 *
  // 384 * 32 floats, 432 KiB) is past the row-outer bound, so the filter
  // rows are the outer loop, the output rows valid for each inside.
  b.add("conv2d_taps_deep", R"(
func.func @{N}(%x: tensor<{B}x5x4x384x{F}>, %w: tensor<3x3x384x64x{F}>) -> tensor<{B}x5x4x64x{F}> {
  %r = rlx.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<{B}x5x4x384x{F}>, tensor<3x3x384x64x{F}>) -> tensor<{B}x5x4x64x{F}>
  return %r : tensor<{B}x5x4x64x{F}>
}
)",
        {{"x", El::F, {kB, 5, 4, 384}, kTies}, {"w", El::F, {3, 3, 384, 64}, kTies}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 1}, {1, 1, 1, 1}, {1, 1}, 1)};
        });

  // Rows of 16 output pixels or more, 16 input channels, and stride 2
  // (OW = (33 + 2 - 3) / 2 + 1 = 17): the shapes at which the CPU takes an
  // f32 filter gradient with a static batch over output rows
  // (rlx-cpu-filter-gradient-rows; its f32 values are checked exactly in
  // test/e2e/conv-filter-gradient-rows.mlir). The gradient checks here run
  // in f64, where the per-tap products still take it.
  b.add("conv2d_filter_gradient_rows", R"(
func.func @{N}(%x: tensor<{B}x18x18x16x{F}>, %w: tensor<3x3x16x24x{F}>) -> tensor<{B}x18x18x24x{F}> {
  %r = rlx.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<{B}x18x18x16x{F}>, tensor<3x3x16x24x{F}>) -> tensor<{B}x18x18x24x{F}>
  return %r : tensor<{B}x18x18x24x{F}>
}
)",
        {{"x", El::F, {kB, 18, 18, 16}, kAny}, {"w", El::F, {3, 3, 16, 24}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 1}, {1, 1, 1, 1}, {1, 1}, 1)};
        });
  b.add("conv2d_filter_gradient_rows_strided", R"(
func.func @{N}(%x: tensor<{B}x33x33x16x{F}>, %w: tensor<3x3x16x8x{F}>) -> tensor<{B}x17x17x8x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<{B}x33x33x16x{F}>, tensor<3x3x16x8x{F}>) -> tensor<{B}x17x17x8x{F}>
  return %r : tensor<{B}x17x17x8x{F}>
}
)",
        {{"x", El::F, {kB, 33, 33, 16}, kAny}, {"w", El::F, {3, 3, 16, 8}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {2, 2}, {1, 1, 1, 1}, {1, 1}, 1)};
        });

  // A 1x1 conv is one matmul over the pixels; a strided one copies the
  // pixels it reads first (ResNet's downsample).
  b.add("conv2d_1x1", R"(
func.func @{N}(%x: tensor<{B}x3x5x6x{F}>, %w: tensor<1x1x6x5x{F}>) -> tensor<{B}x3x5x5x{F}> {
  %r = rlx.conv2d %x, %w : (tensor<{B}x3x5x6x{F}>, tensor<1x1x6x5x{F}>) -> tensor<{B}x3x5x5x{F}>
  return %r : tensor<{B}x3x5x5x{F}>
}
)",
        {{"x", El::F, {kB, 3, 5, 6}, kAny}, {"w", El::F, {1, 1, 6, 5}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {1, 1}, {0, 0, 0, 0}, {1, 1}, 1)};
        });

  b.add("conv2d_1x1_strided", R"(
func.func @{N}(%x: tensor<{B}x5x6x3x{F}>, %w: tensor<1x1x3x4x{F}>) -> tensor<{B}x3x3x4x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 2, 2>}
      : (tensor<{B}x5x6x3x{F}>, tensor<1x1x3x4x{F}>) -> tensor<{B}x3x3x4x{F}>
  return %r : tensor<{B}x3x3x4x{F}>
}
)",
        {{"x", El::F, {kB, 5, 6, 3}, kAny}, {"w", El::F, {1, 1, 3, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {2, 2}, {0, 0, 0, 0}, {1, 1}, 1)};
        });

  // An RGB-stem-like window over 3 input channels: the input gradient is
  // one product by every tap, each stride phase a sum of its columns
  // shifted per tap. Stride 3 under a 4-wide window along W: phases of two
  // taps and of one. OH = (13 + 2 + 1 - 5) / 2 + 1 = 6,
  // OW = (12 + 0 + 2 - 4) / 3 + 1 = 4.
  b.add("conv2d_stem", R"(
func.func @{N}(%x: tensor<{B}x13x12x3x{F}>, %w: tensor<5x4x3x4x{F}>) -> tensor<{B}x6x4x4x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 2, 3>, padding = array<i64: 2, 1, 0, 2>}
      : (tensor<{B}x13x12x3x{F}>, tensor<5x4x3x4x{F}>) -> tensor<{B}x6x4x4x{F}>
  return %r : tensor<{B}x6x4x4x{F}>
}
)",
        {{"x", El::F, {kB, 13, 12, 3}, kAny}, {"w", El::F, {5, 4, 3, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {2, 3}, {2, 1, 0, 2}, {1, 1}, 1)};
        });

  // 16 input channels with a stride: the input gradient is convs of the
  // output gradient by the reversed taps, one per stride phase.
  // OH = (7 + 1 + 0 - 3) / 2 + 1 = 3, OW = (6 + 1 + 1 - 3) / 2 + 1 = 3.
  b.add("conv2d_strided_wide", R"(
func.func @{N}(%x: tensor<{B}x7x6x16x{F}>, %w: tensor<3x3x16x3x{F}>) -> tensor<{B}x3x3x3x{F}> {
  %r = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>}
      : (tensor<{B}x7x6x16x{F}>, tensor<3x3x16x3x{F}>) -> tensor<{B}x3x3x3x{F}>
  return %r : tensor<{B}x3x3x3x{F}>
}
)",
        {{"x", El::F, {kB, 7, 6, 16}, kAny}, {"w", El::F, {3, 3, 16, 3}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::conv2d(in[0], in[1], {2, 2}, {1, 0, 1, 1}, {1, 1}, 1)};
        });

  b.add("max_pool2d", R"(
func.func @{N}(%x: tensor<{B}x4x5x3x{F}>) -> tensor<{B}x2x2x3x{F}> {
  %r = rlx.max_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<{B}x4x5x3x{F}>) -> tensor<{B}x2x2x3x{F}>
  return %r : tensor<{B}x2x2x3x{F}>
}
)",
        {{"x", El::F, {kB, 4, 5, 3}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::maxPool2d(in[0], {2, 2}, {2, 2}, {0, 0, 0, 0})};
        },
        Tol::Exact);

  // All inputs negative: a padded zero must never win.
  b.add("max_pool2d_padded", R"(
func.func @{N}(%x: tensor<{B}x3x3x2x{F}>) -> tensor<{B}x3x3x2x{F}> {
  %r = rlx.max_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 1, 0, 1, 0>}
      : (tensor<{B}x3x3x2x{F}>) -> tensor<{B}x3x3x2x{F}>
  return %r : tensor<{B}x3x3x2x{F}>
}
)",
        {{"x", El::F, {kB, 3, 3, 2}, uniform(-5, -0.5)}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::maxPool2d(in[0], {2, 2}, {1, 1}, {1, 0, 1, 0})};
        },
        Tol::Exact);

  b.add("avg_pool2d", R"(
func.func @{N}(%x: tensor<{B}x4x4x2x{F}>) -> tensor<{B}x4x4x2x{F}> {
  %r = rlx.avg_pool2d %x {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<{B}x4x4x2x{F}>) -> tensor<{B}x4x4x2x{F}>
  return %r : tensor<{B}x4x4x2x{F}>
}
)",
        {{"x", El::F, {kB, 4, 4, 2}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::avgPool2d(in[0], {3, 3}, {1, 1}, {1, 1, 1, 1})};
        });

  b.add("avg_pool2d_strided", R"(
func.func @{N}(%x: tensor<{B}x5x5x1x{F}>) -> tensor<{B}x2x2x1x{F}> {
  %r = rlx.avg_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<{B}x5x5x1x{F}>) -> tensor<{B}x2x2x1x{F}>
  return %r : tensor<{B}x2x2x1x{F}>
}
)",
        {{"x", El::F, {kB, 5, 5, 1}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::avgPool2d(in[0], {2, 2}, {2, 2}, {0, 0, 0, 0})};
        });
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

void reductionCases(Builder &b) {
  using ref::Reduce;
  b.add("sum", R"(
func.func @{N}(%x: tensor<{B}x4x{F}>) -> tensor<{B}x{F}> {
  %r = rlx.sum %x {axes = array<i64: 1>} : (tensor<{B}x4x{F}>) -> tensor<{B}x{F}>
  return %r : tensor<{B}x{F}>
}
)",
        {{"x", El::F, {kB, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::reduce(in[0], {1}, false, Reduce::Sum)};
        });

  b.add("sum_two_axes_keepdims", R"(
func.func @{N}(%x: tensor<{B}x3x4x{F}>) -> (tensor<{B}x1x1x{F}>, tensor<1x3x1x{F}>) {
  %r = rlx.sum %x {axes = array<i64: 1, 2>, keepdims = true} : (tensor<{B}x3x4x{F}>) -> tensor<{B}x1x1x{F}>
  %s = rlx.sum %x {axes = array<i64: 2, 0>, keepdims = true} : (tensor<{B}x3x4x{F}>) -> tensor<1x3x1x{F}>
  return %r, %s : tensor<{B}x1x1x{F}>, tensor<1x3x1x{F}>
}
)",
        {{"x", El::F, {kB, 3, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::reduce(in[0], {1, 2}, true, Reduce::Sum),
                  ref::reduce(in[0], {0, 2}, true, Reduce::Sum)};
        });

  // Over the batch dim, keepdims false.
  b.add("sum_batch_axis", R"(
func.func @{N}(%x: tensor<{B}x3x4x{F}>) -> tensor<3x{F}> {
  %r = rlx.sum %x {axes = array<i64: 0, 2>} : (tensor<{B}x3x4x{F}>) -> tensor<3x{F}>
  return %r : tensor<3x{F}>
}
)",
        {{"x", El::F, {kB, 3, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::reduce(in[0], {0, 2}, false, Reduce::Sum)};
        });

  b.add("mean", R"(
func.func @{N}(%x: tensor<{B}x3x4x{F}>) -> (tensor<{B}x4x{F}>, tensor<3x4x{F}>, tensor<{B}x1x1x{F}>) {
  %r = rlx.mean %x {axes = array<i64: 1>} : (tensor<{B}x3x4x{F}>) -> tensor<{B}x4x{F}>
  %s = rlx.mean %x {axes = array<i64: 0>} : (tensor<{B}x3x4x{F}>) -> tensor<3x4x{F}>
  %t = rlx.mean %x {axes = array<i64: 1, 2>, keepdims = true} : (tensor<{B}x3x4x{F}>) -> tensor<{B}x1x1x{F}>
  return %r, %s, %t : tensor<{B}x4x{F}>, tensor<3x4x{F}>, tensor<{B}x1x1x{F}>
}
)",
        {{"x", El::F, {kB, 3, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::reduce(in[0], {1}, false, Reduce::Mean),
                  ref::reduce(in[0], {0}, false, Reduce::Mean),
                  ref::reduce(in[0], {1, 2}, true, Reduce::Mean)};
        });

  b.add("max", R"(
func.func @{N}(%x: tensor<{B}x3x4x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3x1x{F}>, tensor<3x4x{F}>) {
  %r = rlx.max %x {axes = array<i64: 2>} : (tensor<{B}x3x4x{F}>) -> tensor<{B}x3x{F}>
  %s = rlx.max %x {axes = array<i64: 2>, keepdims = true} : (tensor<{B}x3x4x{F}>) -> tensor<{B}x3x1x{F}>
  %t = rlx.max %x {axes = array<i64: 0>, keepdims = false} : (tensor<{B}x3x4x{F}>) -> tensor<3x4x{F}>
  return %r, %s, %t : tensor<{B}x3x{F}>, tensor<{B}x3x1x{F}>, tensor<3x4x{F}>
}
)",
        {{"x", El::F, {kB, 3, 4}, uniform(-5, -1)}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::reduce(in[0], {2}, false, Reduce::Max),
                  ref::reduce(in[0], {2}, true, Reduce::Max),
                  ref::reduce(in[0], {0}, false, Reduce::Max)};
        },
        Tol::Exact);

  for (bool log : {false, true}) {
    std::string op = log ? "log_softmax" : "softmax";
    b.add(op, "\nfunc.func @{N}(%x: tensor<{B}x5x{F}>) -> tensor<{B}x5x{F}> {\n"
              "  %r = rlx." + op + " %x {axis = 1 : i64} : tensor<{B}x5x{F}>\n"
              "  return %r : tensor<{B}x5x{F}>\n}\n",
          {{"x", El::F, {kB, 5}, uniform(-3, 3)}},
          [log](const In &in, const Ctx &) -> Outs {
            return {ref::softmax(in[0], 1, log)};
          },
          Tol::Trans);
    // Along a static axis 0 with the batch as the other dim.
    b.add(op + "_axis0",
          "\nfunc.func @{N}(%x: tensor<4x{B}x{F}>) -> tensor<4x{B}x{F}> {\n"
          "  %r = rlx." + op + " %x {axis = 0 : i64} : tensor<4x{B}x{F}>\n"
          "  return %r : tensor<4x{B}x{F}>\n}\n",
          {{"x", El::F, {4, kB}, uniform(-3, 3)}},
          [log](const In &in, const Ctx &) -> Outs {
            return {ref::softmax(in[0], 0, log)};
          },
          Tol::Trans);
    // e^800 overflows f64: only a stable softmax gets these right.
    b.add(op + "_large",
          "\nfunc.func @{N}(%x: tensor<{B}x5x{F}>) -> tensor<{B}x5x{F}> {\n"
          "  %r = rlx." + op + " %x {axis = 1 : i64} : tensor<{B}x5x{F}>\n"
          "  return %r : tensor<{B}x5x{F}>\n}\n",
          {{"x", El::F, {kB, 5}, uniform(800, 805)}},
          [log](const In &in, const Ctx &) -> Outs {
            return {ref::softmax(in[0], 1, log)};
          },
          Tol::Trans);
  }
}

//===----------------------------------------------------------------------===//
// Shape ops, leaves
//===----------------------------------------------------------------------===//

void shapeCases(Builder &b) {
  b.add("reshape", R"(
func.func @{N}(%x: tensor<{B}x2x3x{F}>, %y: tensor<{B}x6x{F}>) -> (tensor<{B}x6x{F}>, tensor<{B}x3x2x{F}>) {
  %r = rlx.reshape %x : (tensor<{B}x2x3x{F}>) -> tensor<{B}x6x{F}>
  %s = rlx.reshape %y : (tensor<{B}x6x{F}>) -> tensor<{B}x3x2x{F}>
  return %r, %s : tensor<{B}x6x{F}>, tensor<{B}x3x2x{F}>
}
)",
        {{"x", El::F, {kB, 2, 3}, kAny}, {"y", El::F, {kB, 6}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::reshape(in[0], {c.batch, 6}),
                  ref::reshape(in[1], {c.batch, 3, 2})};
        },
        Tol::Exact);

  // Unit dims in and out around an op: with every dim dynamic the reshapes
  // have two dynamic dims, each paired with the operand's.
  b.add("reshape_unit_dims", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>, %y: tensor<{B}x1x4x{F}>) -> (tensor<{B}x1x3x{F}>, tensor<{B}x4x{F}>) {
  %r = rlx.reshape %x : (tensor<{B}x3x{F}>) -> tensor<{B}x1x3x{F}>
  %e = rlx.mul %y, %y : (tensor<{B}x1x4x{F}>, tensor<{B}x1x4x{F}>) -> tensor<{B}x1x4x{F}>
  %s = rlx.reshape %e : (tensor<{B}x1x4x{F}>) -> tensor<{B}x4x{F}>
  return %r, %s : tensor<{B}x1x3x{F}>, tensor<{B}x4x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}, {"y", El::F, {kB, 1, 4}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          Arr squared = ref::binary(c.F, in[1], in[1], std::multiplies<>());
          return {ref::reshape(in[0], {c.batch, 1, 3}),
                  ref::reshape(squared, {c.batch, 4})};
        });

  b.add("transpose", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>, %y: tensor<{B}x2x4x{F}>) -> (tensor<3x{B}x{F}>, tensor<4x{B}x2x{F}>) {
  %r = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<{B}x3x{F}>) -> tensor<3x{B}x{F}>
  %s = rlx.transpose %y {permutation = array<i64: 2, 0, 1>} : (tensor<{B}x2x4x{F}>) -> tensor<4x{B}x2x{F}>
  return %r, %s : tensor<3x{B}x{F}>, tensor<4x{B}x2x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}, {"y", El::F, {kB, 2, 4}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::transpose(in[0], {1, 0}), ref::transpose(in[1], {2, 0, 1})};
        },
        Tol::Exact);

  b.add("broadcast_in_dim", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>, %y: tensor<{B}x1x{F}>) -> (tensor<{B}x2x3x{F}>, tensor<{B}x4x{F}>) {
  %r = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 2>} : (tensor<{B}x3x{F}>) -> tensor<{B}x2x3x{F}>
  %s = rlx.broadcast_in_dim %y {broadcast_dimensions = array<i64: 0, 1>} : (tensor<{B}x1x{F}>) -> tensor<{B}x4x{F}>
  return %r, %s : tensor<{B}x2x3x{F}>, tensor<{B}x4x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}, {"y", El::F, {kB, 1}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::broadcastInDim(in[0], {c.batch, 2, 3}, {0, 2}),
                  ref::broadcastInDim(in[1], {c.batch, 4}, {0, 1})};
        },
        Tol::Exact);

  b.add("slice", R"(
func.func @{N}(%x: tensor<{B}x5x{F}>, %y: tensor<{B}x4x6x{F}>) -> (tensor<{B}x2x{F}>, tensor<{B}x2x2x{F}>) {
  %r = rlx.slice %x {start = array<i64: 0, 1>, limit = array<i64: -1, 5>, strides = array<i64: 1, 2>}
      : (tensor<{B}x5x{F}>) -> tensor<{B}x2x{F}>
  %s = rlx.slice %y {start = array<i64: 0, 1, 0>, limit = array<i64: -1, 4, -1>, strides = array<i64: 1, 2, 4>}
      : (tensor<{B}x4x6x{F}>) -> tensor<{B}x2x2x{F}>
  return %r, %s : tensor<{B}x2x{F}>, tensor<{B}x2x2x{F}>
}
)",
        {{"x", El::F, {kB, 5}, kAny}, {"y", El::F, {kB, 4, 6}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::slice(in[0], {0, 1}, {-1, 5}, {1, 2}),
                  ref::slice(in[1], {0, 1, 0}, {-1, 4, -1}, {1, 2, 4})};
        },
        Tol::Exact);

  b.add("concat", R"(
func.func @{N}(%a: tensor<{B}x2x{F}>, %b: tensor<{B}x3x{F}>, %c: tensor<{B}x1x{F}>)
    -> (tensor<{B}x5x{F}>, tensor<{B}x4x{F}>) {
  %r = rlx.concat %a, %b {axis = 1 : i64} : (tensor<{B}x2x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x5x{F}>
  %s = rlx.concat %c, %a, %c {axis = 1 : i64} : (tensor<{B}x1x{F}>, tensor<{B}x2x{F}>, tensor<{B}x1x{F}>) -> tensor<{B}x4x{F}>
  return %r, %s : tensor<{B}x5x{F}>, tensor<{B}x4x{F}>
}
)",
        {{"a", El::F, {kB, 2}, kAny},
         {"b", El::F, {kB, 3}, kAny},
         {"c", El::F, {kB, 1}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::concat({&in[0], &in[1]}, 1),
                  ref::concat({&in[2], &in[0], &in[2]}, 1)};
        },
        Tol::Exact);

  // Along the batch axis: static B + 2, or dynamic.
  b.add("concat_axis0", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<2x3x{F}>) -> tensor<{B+2}x3x{F}> {
  %r = rlx.concat %a, %b {axis = 0 : i64} : (tensor<{B}x3x{F}>, tensor<2x3x{F}>) -> tensor<{B+2}x3x{F}>
  return %r : tensor<{B+2}x3x{F}>
}
)",
        {{"a", El::F, {kB, 3}, kAny}, {"b", El::F, {2, 3}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::concat({&in[0], &in[1]}, 0)};
        },
        Tol::Exact);

  // Low, high and interior padding with a padding value that is an input,
  // and on three dims with a constant one.
  b.add("pad", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>, %p: tensor<{F}>, %y: tensor<{B}x2x3x{F}>)
    -> (tensor<{B}x8x{F}>, tensor<{B}x5x8x{F}>) {
  %r = rlx.pad %x, %p {low = array<i64: 0, 1>, high = array<i64: 0, 2>, interior = array<i64: 0, 1>}
      : (tensor<{B}x3x{F}>, tensor<{F}>) -> tensor<{B}x8x{F}>
  %c = rlx.constant dense<-1.5> : tensor<{F}>
  %s = rlx.pad %y, %c {low = array<i64: 0, 2, 0>, high = array<i64: 0, 1, 1>, interior = array<i64: 0, 0, 2>}
      : (tensor<{B}x2x3x{F}>, tensor<{F}>) -> tensor<{B}x5x8x{F}>
  return %r, %s : tensor<{B}x8x{F}>, tensor<{B}x5x8x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny},
         {"p", El::F, {}, kAny},
         {"y", El::F, {kB, 2, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          Arr k(c.F, {});
          k.v[0] = -1.5;
          return {ref::pad(in[0], in[1], {0, 1}, {0, 2}, {0, 1}),
                  ref::pad(in[2], k, {0, 2, 0}, {0, 1, 1}, {0, 0, 2})};
        },
        Tol::Exact);

  // Padding the batch dim, which must be static: 1 + 2 + 1 + 2 = 6 rows.
  b.add("pad_batch", R"(
func.func @{N}(%x: tensor<{B}x2x{F}>, %p: tensor<{F}>) -> tensor<6x3x{F}> {
  %r = rlx.pad %x, %p {low = array<i64: 1, 0>, high = array<i64: 2, 1>, interior = array<i64: 1, 0>}
      : (tensor<{B}x2x{F}>, tensor<{F}>) -> tensor<6x3x{F}>
  return %r : tensor<6x3x{F}>
}
)",
        {{"x", El::F, {kB, 2}, kAny}, {"p", El::F, {}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::pad(in[0], in[1], {1, 0}, {2, 1}, {1, 0})};
        },
        Tol::Exact, kF32 | kF64 | kStatic);

  // The identity on values (its derivative is zero: see the autodiff tests).
  b.add("stop_gradient", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %s = rlx.stop_gradient %x : tensor<{B}x3x{F}>
  %r = rlx.mul %s, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %s, %r : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {in[0], ref::binary(c.F, in[0], in[0], std::multiplies<>())};
        });

  // Embedding lookup; -1, -5 clamp to 0 and 99, 5 to 4.
  b.add("gather", R"(
func.func @{N}(%t: tensor<5x3x{F}>, %i: tensor<{B}x2xi32>) -> tensor<{B}x2x3x{F}> {
  %r = rlx.gather %t, %i {axis = 0 : i64} : (tensor<5x3x{F}>, tensor<{B}x2xi32>) -> tensor<{B}x2x3x{F}>
  return %r : tensor<{B}x2x3x{F}>
}
)",
        {{"t", El::F, {5, 3}, kAny},
         {"i", El::I32, {kB, 2}, cycle({-1, 99, 2, 0, 4, -5, 5, 1, 3, 2})}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::gather(in[0], in[1], 0)};
        },
        Tol::Exact);

  b.add("gather_axis1", R"(
func.func @{N}(%x: tensor<{B}x4x2x{F}>, %i: tensor<2x3xi64>) -> tensor<{B}x2x3x2x{F}> {
  %r = rlx.gather %x, %i {axis = 1 : i64} : (tensor<{B}x4x2x{F}>, tensor<2x3xi64>) -> tensor<{B}x2x3x2x{F}>
  return %r : tensor<{B}x2x3x2x{F}>
}
)",
        {{"x", El::F, {kB, 4, 2}, kAny},
         {"i", El::I64, {2, 3}, cycle({3, 0, -2, 1, 7, 2})}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::gather(in[0], in[1], 1)};
        },
        Tol::Exact);

  b.add("constant", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %c = rlx.constant dense<[0.5, -1.25, 2.0]> : tensor<3x{F}>
  %r = rlx.add %x, %c : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  %k = rlx.constant dense<[[1.5, -2.0, 0.25], [3.0, 0.0, -1.0]]> : tensor<2x3x{F}>
  %l = rlx.slice %k {start = array<i64: 1, 0>, limit = array<i64: 2, 3>, strides = array<i64: 1, 1>}
      : (tensor<2x3x{F}>) -> tensor<1x3x{F}>
  %s = rlx.mul %x, %l : (tensor<{B}x3x{F}>, tensor<1x3x{F}>) -> tensor<{B}x3x{F}>
  return %r, %s : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          Arr k(c.F, {3});
          k.v = {0.5, -1.25, 2.0};
          Arr l(c.F, {1, 3});
          l.v = {3.0, 0.0, -1.0};
          return {ref::binary(c.F, in[0], k, std::plus<>()),
                  ref::binary(c.F, in[0], l, std::multiplies<>())};
        });

  Case &param = b.add("param", R"(
func.func @{N}(%x: tensor<{B}x3x{F}> {rlx.name = "x"}) -> (tensor<{B}x4x{F}> {rlx.name = "y"}) {
  %w = rlx.param "e2e.param.weight" : tensor<3x4x{F}>
  %b = rlx.param "e2e.param.bias" : tensor<4x{F}>
  %h = rlx.matmul %x, %w : (tensor<{B}x3x{F}>, tensor<3x4x{F}>) -> tensor<{B}x4x{F}>
  %y = rlx.add %h, %b : (tensor<{B}x4x{F}>, tensor<4x{F}>) -> tensor<{B}x4x{F}>
  return %y : tensor<{B}x4x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, ref::matmul(in[0], in[1]), in[2],
                              std::plus<>())};
        });
  param.params = {{"e2e.param.weight", El::F, {3, 4}, kAny},
                  {"e2e.param.bias", El::F, {4}, kAny}};
  param.outputNames = {"y"};
}

//===----------------------------------------------------------------------===//
// Integer element types
//===----------------------------------------------------------------------===//

void integerCases(Builder &b) {
  const Gen big = ints(-1000, 1000);
  auto binaryI32 = [&](std::string name, std::string op, std::string rhsShape,
                       std::vector<int64_t> rhsDims, Gen rhsGen,
                       std::function<double(double, double)> fn) {
    std::string rhs = "tensor<" + rhsShape + "xi32>";
    b.add(name,
          "\nfunc.func @{N}(%a: tensor<{B}x3xi32>, %b: " + rhs +
              ") -> tensor<{B}x3xi32> {\n"
              "  %r = rlx." + op + " %a, %b : (tensor<{B}x3xi32>, " + rhs +
              ") -> tensor<{B}x3xi32>\n"
              "  return %r : tensor<{B}x3xi32>\n}\n",
          {{"a", El::I32, {kB, 3}, big}, {"b", El::I32, rhsDims, rhsGen}},
          [fn](const In &in, const Ctx &) -> Outs {
            return {ref::binary(RLX_DTYPE_I32, in[0], in[1], fn)};
          },
          Tol::Exact, kIntVariants);
  };
  binaryI32("add_i32", "add", "3", {3}, big, std::plus<>());
  binaryI32("sub_i32", "sub", "{B}x1", {kB, 1}, big, std::minus<>());
  binaryI32("mul_i32", "mul", "{B}x3", {kB, 3}, big, std::multiplies<>());
  // Integer division truncates toward zero: -7 / 2 = -3.
  binaryI32("div_i32", "div", "{B}x3", {kB, 3}, cycle({2, -2, 3, -3, 7, 1, -1, 5}),
            [](double x, double y) { return std::trunc(x / y); });
  // The remainder has the dividend's sign: -7 rem 2 = -1, 7 rem -2 = 1.
  binaryI32("rem_i32", "rem", "{B}x3", {kB, 3}, cycle({2, -2, 3, -3, 7, 1, -1, 5}),
            [](double x, double y) { return std::fmod(x, y); });
  binaryI32("maximum_i32", "maximum", "1x3", {1, 3}, big,
            [](double x, double y) { return std::max(x, y); });
  binaryI32("minimum_i32", "minimum", "3", {3}, big,
            [](double x, double y) { return std::min(x, y); });

  b.add("unary_i32", R"(
func.func @{N}(%x: tensor<{B}x4xi32>) -> (tensor<{B}x4xi32>, tensor<{B}x4xi32>, tensor<{B}x4xi32>) {
  %n = rlx.neg %x : tensor<{B}x4xi32>
  %a = rlx.abs %x : tensor<{B}x4xi32>
  %r = rlx.relu %x : tensor<{B}x4xi32>
  return %n, %a, %r : tensor<{B}x4xi32>, tensor<{B}x4xi32>, tensor<{B}x4xi32>
}
)",
        {{"x", El::I32, {kB, 4}, big}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::unary(RLX_DTYPE_I32, in[0], [](double x) { return -x; }),
                  ref::unary(RLX_DTYPE_I32, in[0], [](double x) { return std::fabs(x); }),
                  ref::unary(RLX_DTYPE_I32, in[0], [](double x) { return std::max(x, 0.0); })};
        },
        Tol::Exact, kIntVariants);

  b.add("pad_i32", R"(
func.func @{N}(%x: tensor<{B}x3xi32>) -> (tensor<{B}x11xi32>, tensor<{B}x3xi32>) {
  %p = rlx.constant dense<-7> : tensor<i32>
  %r = rlx.pad %x, %p {low = array<i64: 0, 2>, high = array<i64: 0, 0>, interior = array<i64: 0, 3>}
      : (tensor<{B}x3xi32>, tensor<i32>) -> tensor<{B}x11xi32>
  %s = rlx.stop_gradient %x : tensor<{B}x3xi32>
  return %r, %s : tensor<{B}x11xi32>, tensor<{B}x3xi32>
}
)",
        {{"x", El::I32, {kB, 3}, big}},
        [](const In &in, const Ctx &) -> Outs {
          Arr p(RLX_DTYPE_I32, {});
          p.v[0] = -7;
          return {ref::pad(in[0], p, {0, 2}, {0, 0}, {0, 3}), in[0]};
        },
        Tol::Exact, kIntVariants);

  b.add("compare_i32", R"(
func.func @{N}(%a: tensor<{B}x3xi32>, %b: tensor<{B}x3xi32>) -> (tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>) {
  %eq = rlx.compare "eq", %a, %b : (tensor<{B}x3xi32>, tensor<{B}x3xi32>) -> tensor<{B}x3xi1>
  %lt = rlx.compare "lt", %a, %b : (tensor<{B}x3xi32>, tensor<{B}x3xi32>) -> tensor<{B}x3xi1>
  %ge = rlx.compare "ge", %a, %b : (tensor<{B}x3xi32>, tensor<{B}x3xi32>) -> tensor<{B}x3xi1>
  return %eq, %lt, %ge : tensor<{B}x3xi1>, tensor<{B}x3xi1>, tensor<{B}x3xi1>
}
)",
        {{"a", El::I32, {kB, 3}, ints(-2, 2)}, {"b", El::I32, {kB, 3}, ints(-2, 2)}},
        [](const In &in, const Ctx &) -> Outs {
          auto cmp = [&](std::function<bool(double, double)> f) {
            return ref::binary(RLX_DTYPE_I1, in[0], in[1],
                               [f](double x, double y) { return f(x, y) ? 1.0 : 0.0; });
          };
          return {cmp(std::equal_to<>()), cmp(std::less<>()),
                  cmp(std::greater_equal<>())};
        },
        Tol::Exact, kIntVariants);

  b.add("sum_i32", R"(
func.func @{N}(%x: tensor<{B}x4xi32>) -> (tensor<{B}xi32>, tensor<4xi32>) {
  %r = rlx.sum %x {axes = array<i64: 1>} : (tensor<{B}x4xi32>) -> tensor<{B}xi32>
  %s = rlx.sum %x {axes = array<i64: 0>} : (tensor<{B}x4xi32>) -> tensor<4xi32>
  return %r, %s : tensor<{B}xi32>, tensor<4xi32>
}
)",
        {{"x", El::I32, {kB, 4}, big}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::reduce(in[0], {1}, false, ref::Reduce::Sum),
                  ref::reduce(in[0], {0}, false, ref::Reduce::Sum)};
        },
        Tol::Exact, kIntVariants);

  b.add("max_i32", R"(
func.func @{N}(%x: tensor<{B}x3x4xi32>) -> tensor<{B}x3xi32> {
  %r = rlx.max %x {axes = array<i64: 2>} : (tensor<{B}x3x4xi32>) -> tensor<{B}x3xi32>
  return %r : tensor<{B}x3xi32>
}
)",
        {{"x", El::I32, {kB, 3, 4}, ints(-1000, -1)}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::reduce(in[0], {2}, false, ref::Reduce::Max)};
        },
        Tol::Exact, kIntVariants);

  b.add("matmul_i32", R"(
func.func @{N}(%a: tensor<{B}x4xi32>, %b: tensor<4x5xi32>, %c: tensor<{B}x2x3xi32>, %d: tensor<{B}x3x4xi32>)
    -> (tensor<{B}x5xi32>, tensor<{B}x2x4xi32>) {
  %r = rlx.matmul %a, %b : (tensor<{B}x4xi32>, tensor<4x5xi32>) -> tensor<{B}x5xi32>
  %s = rlx.matmul %c, %d : (tensor<{B}x2x3xi32>, tensor<{B}x3x4xi32>) -> tensor<{B}x2x4xi32>
  return %r, %s : tensor<{B}x5xi32>, tensor<{B}x2x4xi32>
}
)",
        {{"a", El::I32, {kB, 4}, ints(-20, 20)},
         {"b", El::I32, {4, 5}, ints(-20, 20)},
         {"c", El::I32, {kB, 2, 3}, ints(-20, 20)},
         {"d", El::I32, {kB, 3, 4}, ints(-20, 20)}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::matmul(in[0], in[1]), ref::matmul(in[2], in[3])};
        },
        Tol::Exact, kIntVariants);

  // int8 inference's product: i8 operands, i32 sums (odd sizes: the CPU
  // kernel's k groups and column panels have remainders; k = 1031 is two
  // full blocks of 128 groups of 4, a block of one and a partial group).
  b.add("matmul_i8", R"(
func.func @{N}(%a: tensor<{B}x37xi8>, %b: tensor<37x19xi8>, %c: tensor<{B}x2x5xi8>, %d: tensor<{B}x5x3xi8>,
               %e: tensor<{B}x1031xi8>, %f: tensor<1031x35xi8>)
    -> (tensor<{B}x19xi32>, tensor<{B}x2x3xi32>, tensor<{B}x35xi32>) {
  %r = rlx.matmul %a, %b : (tensor<{B}x37xi8>, tensor<37x19xi8>) -> tensor<{B}x19xi32>
  %s = rlx.matmul %c, %d : (tensor<{B}x2x5xi8>, tensor<{B}x5x3xi8>) -> tensor<{B}x2x3xi32>
  %t = rlx.matmul %e, %f : (tensor<{B}x1031xi8>, tensor<1031x35xi8>) -> tensor<{B}x35xi32>
  return %r, %s, %t : tensor<{B}x19xi32>, tensor<{B}x2x3xi32>, tensor<{B}x35xi32>
}
)",
        {{"a", El::I8, {kB, 37}, ints(-128, 127)},
         {"b", El::I8, {37, 19}, ints(-128, 127)},
         {"c", El::I8, {kB, 2, 5}, ints(-128, 127)},
         {"d", El::I8, {kB, 5, 3}, ints(-128, 127)},
         {"e", El::I8, {kB, 1031}, ints(-128, 127)},
         {"f", El::I8, {1031, 35}, ints(-128, 127)}},
        [](const In &in, const Ctx &) -> Outs {
          Arr r = ref::matmul(in[0], in[1]), s = ref::matmul(in[2], in[3]),
              t = ref::matmul(in[4], in[5]);
          // Exact sums, |sum| < 2^25.
          r.dtype = s.dtype = t.dtype = RLX_DTYPE_I32;
          return {r, s, t};
        },
        Tol::Exact, kIntVariants);

  b.add("cast_int", R"(
func.func @{N}(%x: tensor<{B}x4xi32>, %y: tensor<{B}x4xi64>) -> (tensor<{B}x4xi64>, tensor<{B}x4xi1>, tensor<{B}x4xi32>) {
  %r = rlx.cast %x : tensor<{B}x4xi32> -> tensor<{B}x4xi64>
  %c = rlx.cast %x : tensor<{B}x4xi32> -> tensor<{B}x4xi1>
  %s = rlx.cast %y : tensor<{B}x4xi64> -> tensor<{B}x4xi32>
  return %r, %c, %s : tensor<{B}x4xi64>, tensor<{B}x4xi1>, tensor<{B}x4xi32>
}
)",
        {{"x", El::I32, {kB, 4}, cycle({0, 1, -1, 2, -100000, 0, 7})},
         {"y", El::I64, {kB, 4}, ints(-100000, 100000)}},
        [](const In &in, const Ctx &) -> Outs {
          return {ref::cast(in[0], RLX_DTYPE_I64), ref::cast(in[0], RLX_DTYPE_I1),
                  ref::cast(in[1], RLX_DTYPE_I32)};
        },
        Tol::Exact, kIntVariants);

  b.add("shape_i32", R"(
func.func @{N}(%x: tensor<{B}x2x3xi32>, %t: tensor<4x2xi32>, %i: tensor<{B}xi32>)
    -> (tensor<3x{B}x2xi32>, tensor<{B}x6xi32>, tensor<{B}x2xi32>) {
  %r = rlx.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<{B}x2x3xi32>) -> tensor<3x{B}x2xi32>
  %s = rlx.reshape %x : (tensor<{B}x2x3xi32>) -> tensor<{B}x6xi32>
  %g = rlx.gather %t, %i {axis = 0 : i64} : (tensor<4x2xi32>, tensor<{B}xi32>) -> tensor<{B}x2xi32>
  return %r, %s, %g : tensor<3x{B}x2xi32>, tensor<{B}x6xi32>, tensor<{B}x2xi32>
}
)",
        {{"x", El::I32, {kB, 2, 3}, big},
         {"t", El::I32, {4, 2}, big},
         {"i", El::I32, {kB}, cycle({3, -1, 1, 9})}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::transpose(in[0], {2, 0, 1}),
                  ref::reshape(in[0], {c.batch, 6}), ref::gather(in[1], in[2], 0)};
        },
        Tol::Exact, kIntVariants);
}

//===----------------------------------------------------------------------===//
// runtime::Artifact edge cases and whole models
//===----------------------------------------------------------------------===//

void edgeCases(Builder &b) {
  // Outputs that are an input, one value twice, a constant twice: each must
  // come back as its own fresh buffer (docs/abi.md).
  b.add("return_aliases", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>)
    -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>, tensor<{B}x3x{F}>, tensor<2x2x{F}>, tensor<2x2x{F}>) {
  %n = rlx.neg %x : tensor<{B}x3x{F}>
  %c = rlx.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2x{F}>
  return %x, %n, %n, %c, %c : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>, tensor<{B}x3x{F}>, tensor<2x2x{F}>, tensor<2x2x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          Arr n = ref::unary(c.F, in[0], [](double x) { return -x; });
          Arr k(c.F, {2, 2});
          k.v = {1, 2, 3, 4};
          return {in[0], n, n, k, k};
        },
        Tol::Exact);

  Case &rp = b.add("return_param", R"(
func.func @{N}(%x: tensor<{B}x2x{F}>) -> (tensor<2x2x{F}>, tensor<{B}x2x{F}>) {
  %w = rlx.param "e2e.return_param.w" : tensor<2x2x{F}>
  %y = rlx.matmul %x, %w : (tensor<{B}x2x{F}>, tensor<2x2x{F}>) -> tensor<{B}x2x{F}>
  return %w, %y : tensor<2x2x{F}>, tensor<{B}x2x{F}>
}
)",
        {{"x", El::F, {kB, 2}, kAny}},
        [](const In &in, const Ctx &) -> Outs {
          return {in[1], ref::matmul(in[0], in[1])};
        });
  rp.params = {{"e2e.return_param.w", El::F, {2, 2}, kAny}};

  // Patterns the folders rewrite: x + 0 and x * 1 through a broadcast,
  // constant arithmetic, neg(neg x), transpose and reshape chains, identity
  // cast, transpose and broadcast_in_dim.
  b.add("folds", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>, %y: tensor<{B}x2x4x{F}>)
    -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>, tensor<2x4x{B}x{F}>, tensor<{B}x4x2x{F}>, tensor<{B}x3x{F}>) {
  %zero = rlx.constant dense<0.0> : tensor<3x{F}>
  %one = rlx.constant dense<1.0> : tensor<3x{F}>
  %c1 = rlx.constant dense<[1.0, 2.0, 3.0]> : tensor<3x{F}>
  %c2 = rlx.constant dense<[0.5, 0.25, -4.0]> : tensor<3x{F}>
  %c3 = rlx.add %c1, %c2 : (tensor<3x{F}>, tensor<3x{F}>) -> tensor<3x{F}>
  %c4 = rlx.mul %c3, %c1 : (tensor<3x{F}>, tensor<3x{F}>) -> tensor<3x{F}>
  %a0 = rlx.add %x, %zero : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  %a1 = rlx.mul %one, %a0 : (tensor<3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %a2 = rlx.sub %a1, %c4 : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  %n1 = rlx.neg %x : tensor<{B}x3x{F}>
  %n2 = rlx.neg %n1 : tensor<{B}x3x{F}>
  %n3 = rlx.cast %n2 : tensor<{B}x3x{F}> -> tensor<{B}x3x{F}>
  %t1 = rlx.transpose %y {permutation = array<i64: 2, 0, 1>} : (tensor<{B}x2x4x{F}>) -> tensor<4x{B}x2x{F}>
  %t2 = rlx.transpose %t1 {permutation = array<i64: 2, 0, 1>} : (tensor<4x{B}x2x{F}>) -> tensor<2x4x{B}x{F}>
  %r1 = rlx.reshape %y : (tensor<{B}x2x4x{F}>) -> tensor<{B}x8x{F}>
  %r2 = rlx.reshape %r1 : (tensor<{B}x8x{F}>) -> tensor<{B}x4x2x{F}>
  %i1 = rlx.transpose %x {permutation = array<i64: 0, 1>} : (tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %i2 = rlx.broadcast_in_dim %i1 {broadcast_dimensions = array<i64: 0, 1>} : (tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %i3 = rlx.div %i2, %one : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  return %a2, %n3, %t2, %r2, %i3 : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>, tensor<2x4x{B}x{F}>, tensor<{B}x4x2x{F}>, tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}, {"y", El::F, {kB, 2, 4}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          Arr c4(c.F, {3});
          c4.v = {1.5, 4.5, -3.0};
          return {ref::binary(c.F, in[0], c4, std::minus<>()), in[0],
                  ref::transpose(ref::transpose(in[1], {2, 0, 1}), {2, 0, 1}),
                  ref::reshape(in[1], {c.batch, 4, 2}), in[0]};
        });

  // examples/mlp/model.mlir with F and B.
  Case &mlp = b.add("mlp", R"(
func.func @{N}(%x: tensor<{B}x4x{F}> {rlx.name = "x"})
    -> (tensor<{B}x3x{F}> {rlx.name = "logits"}, tensor<{B}x3x{F}> {rlx.name = "probs"}) {
  %w1 = rlx.param "mlp.fc1.weight" : tensor<4x8x{F}>
  %b1 = rlx.param "mlp.fc1.bias" : tensor<8x{F}>
  %w2 = rlx.param "mlp.head.weight" : tensor<8x3x{F}>
  %b2 = rlx.param "mlp.head.bias" : tensor<3x{F}>
  %h0 = rlx.matmul %x, %w1 : (tensor<{B}x4x{F}>, tensor<4x8x{F}>) -> tensor<{B}x8x{F}>
  %h1 = rlx.add %h0, %b1 : (tensor<{B}x8x{F}>, tensor<8x{F}>) -> tensor<{B}x8x{F}>
  %h2 = rlx.gelu %h1 : tensor<{B}x8x{F}>
  %l0 = rlx.matmul %h2, %w2 : (tensor<{B}x8x{F}>, tensor<8x3x{F}>) -> tensor<{B}x3x{F}>
  %l1 = rlx.add %l0, %b2 : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  %p = rlx.softmax %l1 {axis = 1 : i64} : tensor<{B}x3x{F}>
  return %l1, %p : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 4}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          Arr h = ref::binary(c.F, ref::matmul(in[0], in[1]), in[2], std::plus<>());
          h = ref::unary(c.F, h, ref::geluTanh);
          Arr l = ref::binary(c.F, ref::matmul(h, in[3]), in[4], std::plus<>());
          return {l, ref::softmax(l, 1, false)};
        },
        Tol::Trans);
  mlp.params = {{"mlp.fc1.weight", El::F, {4, 8}, kAny},
                {"mlp.fc1.bias", El::F, {8}, kAny},
                {"mlp.head.weight", El::F, {8, 3}, kAny},
                {"mlp.head.bias", El::F, {3}, kAny}};
  mlp.outputNames = {"logits", "probs"};
}

//===----------------------------------------------------------------------===//
// Calls with user derivative rules, and the optimization barrier
//===----------------------------------------------------------------------===//

void customRuleCases(Builder &b) {
  b.add("optimization_barrier", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %b = rlx.optimization_barrier %x : tensor<{B}x3x{F}>
  %r = rlx.mul %b, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::binary(c.F, in[0], in[0], std::multiplies<>())};
        });

  b.add("remat", R"(
func.func private @{N}_block(%x: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %a = rlx.tanh %x : tensor<{B}x3x{F}>
  %b = rlx.mul %a, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %b : tensor<{B}x3x{F}>
}
func.func @{N}(%x: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %h = rlx.remat @{N}_block(%x) : (tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %r = rlx.exp %h : tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::unary(c.F, in[0], [](double x) {
            return std::exp(std::tanh(x) * x);
          })};
        },
        Tol::Trans);

  // Values only; the rules are checked by the autodiff tests.
  b.add("custom_vjp", R"(
func.func private @{N}_f(%x: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %y = rlx.mul %x, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %y : tensor<{B}x3x{F}>
}
func.func private @{N}_fwd(%x: tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %y = rlx.mul %x, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %y, %x : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
func.func private @{N}_bwd(%x: tensor<{B}x3x{F}>, %g: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %r = rlx.mul %g, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
func.func @{N}(%x: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %y = rlx.custom_vjp @{N}_f(%x) {fwd = @{N}_fwd, bwd = @{N}_bwd} : (tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %r = rlx.neg %y : tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::unary(c.F, in[0], [](double x) { return -(x * x); })};
        });

  b.add("custom_jvp", R"(
func.func private @{N}_f(%x: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %y = rlx.exp %x : tensor<{B}x3x{F}>
  return %y : tensor<{B}x3x{F}>
}
func.func private @{N}_jvp(%x: tensor<{B}x3x{F}>, %t: tensor<{B}x3x{F}>) -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %y = rlx.exp %x : tensor<{B}x3x{F}>
  %ty = rlx.mul %y, %t : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %y, %ty : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
func.func @{N}(%x: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %y = rlx.custom_jvp @{N}_f(%x) {jvp = @{N}_jvp} : (tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  %r = rlx.add %y, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 3}, kAny}},
        [](const In &in, const Ctx &c) -> Outs {
          return {ref::unary(c.F, in[0], [](double x) { return std::exp(x) + x; })};
        },
        Tol::Trans);
}

std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

} // namespace

namespace {
/// Cases left out of the all-dims-dynamic variant, and why: what they test
/// needs static sizes by the op's definition, or their params and constants
/// have static types that allDimsDynamic would make disagree with their
/// uses. The list may only shrink.
const std::map<std::string, std::string> kStaticByDesign = {
    {"conv2d", "a conv2d filter is static"},
    {"conv2d_strided_dilated", "a conv2d filter is static"},
    {"conv2d_groups", "a conv2d filter is static"},
    {"conv2d_strided_groups", "a conv2d filter is static"},
    {"conv2d_dilated_wide_stride", "a conv2d filter is static"},
    {"conv2d_few_pixels", "a conv2d filter is static"},
    {"conv2d_1x1", "a conv2d filter is static"},
    {"conv2d_1x1_strided", "a conv2d filter is static"},
    {"conv2d_stem", "a conv2d filter is static"},
    {"conv2d_strided_wide", "a conv2d filter is static"},
    {"conv2d_taps", "a conv2d filter is static"},
    {"conv2d_taps_strided", "a conv2d filter is static"},
    {"conv2d_taps_wide_padding", "a conv2d filter is static"},
    {"conv2d_taps_deep", "a conv2d filter is static"},
    {"conv2d_filter_gradient_rows", "a conv2d filter is static"},
    {"conv2d_filter_gradient_rows_strided", "a conv2d filter is static"},
    {"reshape", "two dynamic dims flattened into two: no pairing"},
    {"shape_i32", "two dynamic dims flattened into two: no pairing"},
    {"broadcast_in_dim", "a new dim's size comes from the result type"},
    {"slice", "strides and limits on a dim need its size"},
    {"pad", "padding a dim needs its size"},
    {"pad_i32", "padding a dim needs its size"},
    {"param", "params are static"},
    {"return_param", "params are static"},
    {"mlp", "params are static"},
    {"constant", "constants are static and used by ops"},
    {"return_aliases", "constants are static and used by ops"},
    {"folds", "constants are static and used by ops"},
    {"random_keys", "a key's last dim (2) and a sample's dims are static"},
    {"random_samplers", "a key's last dim (2) and a sample's dims are static"},
    {"random_truncated_normal",
     "a key's last dim (2) and a sample's dims are static"},
};
} // namespace

const std::vector<Case> &allCases() {
  static const std::vector<Case> cases = [] {
    Builder b;
    elementwiseCases(b);
    structuredCases(b);
    reductionCases(b);
    shapeCases(b);
    integerCases(b);
    edgeCases(b);
    customRuleCases(b);
    appendControlFlowCases(b.cases);
    appendRandomCases(b.cases);
    for (Case &c : b.cases)
      if (kStaticByDesign.count(c.name))
        c.variants &= ~unsigned(kAllDynamic);
    return std::move(b.cases);
  }();
  return cases;
}

const Case *findCase(const std::string &name) {
  for (const Case &c : allCases())
    if (c.name == name)
      return &c;
  return nullptr;
}

rlx_dtype_t resolve(El el, const Variant &v) {
  switch (el) {
  case El::F:
    return v.floatType();
  case El::O:
    return v.otherFloatType();
  case El::I1:
    return RLX_DTYPE_I1;
  case El::I8:
    return RLX_DTYPE_I8;
  case El::I32:
    return RLX_DTYPE_I32;
  case El::I64:
    return RLX_DTYPE_I64;
  }
  return RLX_DTYPE_F32;
}

std::string allDimsDynamic(const std::string &text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t start = text.find("tensor<", pos);
    if (start == std::string::npos)
      break;
    size_t end = text.find('>', start);
    // `dense<...> : tensor<...>` is a constant's own type: it stays static.
    static const std::string kDenseType = "> : ";
    bool constant = start >= kDenseType.size() &&
                    text.compare(start - kDenseType.size(), kDenseType.size(),
                                 kDenseType) == 0;
    out += text.substr(pos, start + 7 - pos);
    std::string body = text.substr(start + 7, end - start - 7);
    if (!constant) {
      // Dims are the 'x'-separated parts before the element type.
      std::string rewritten, part;
      size_t from = 0;
      while (true) {
        size_t x = body.find('x', from);
        part = body.substr(from, x == std::string::npos ? x : x - from);
        bool isDim = x != std::string::npos && !part.empty() &&
                     (part == "?" || part.find_first_not_of("0123456789") ==
                                         std::string::npos);
        if (!isDim) {
          rewritten += body.substr(from);
          break;
        }
        rewritten += (part == "1" ? part : "?") + "x";
        from = x + 1;
      }
      body = rewritten;
    }
    out += body + ">";
    pos = end + 1;
  }
  out += text.substr(pos);
  return out;
}

std::string instantiate(const Case &c, const Variant &v) {
  int64_t b = Variant::kStaticBatch;
  auto dim = [&](int64_t n) {
    return v.dynamic || v.allDims ? std::string("?") : std::to_string(n);
  };
  std::string text = c.mlir;
  text = replaceAll(text, "{N}", c.name);
  text = replaceAll(text, "{F}", mlirTypeName(v.floatType()));
  text = replaceAll(text, "{O}", mlirTypeName(v.otherFloatType()));
  text = replaceAll(text, "{B+2}", dim(b + 2));
  text = replaceAll(text, "{2B}", dim(2 * b));
  text = replaceAll(text, "{B}", dim(b));
  if (v.allDims)
    text = allDimsDynamic(text);
  // A key's last dim: 2 by definition, static in every variant (written
  // after allDimsDynamic, which stops at a dim that is not a number).
  return replaceAll(text, "{K}", "2");
}

bool Case::needsF64Transcendentals() const {
  for (const char *op :
       {"rlx.exp ", "rlx.log ", "rlx.tanh ", "rlx.pow ", "rlx.erf ",
        "rlx.sin ", "rlx.cos ", "rlx.atan ",
        "rlx.gelu ", "rlx.sigmoid ", "rlx.softmax ", "rlx.log_softmax ",
        "rlx.random_normal ", "rlx.random_truncated_normal ",
        // rounding to a narrow float is a roundeven
        "rlx.fake_quant ", "xf8E"})
    if (mlir.find(op) != std::string::npos)
      return true;
  return false;
}

std::string moduleText(const Variant &v) {
  std::string text = "// rlx end-to-end tests, variant " + v.name() + "\n";
  for (const Case &c : allCases())
    if (c.runsIn(v))
      text += instantiate(c, v);
  return text;
}

std::string moduleText(const Variant &v, const Case &only) {
  return "// rlx end-to-end test " + only.name + ", variant " + v.name() +
         "\n" + instantiate(only, v);
}

} // namespace rlx::e2e
