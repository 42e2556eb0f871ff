//===- GradCheckTest.cpp - Every rlx op's derivatives against FD ----------===//
//
/// \file
/// For every float case of the e2e suite (and the composites below) in the
/// F64 variants, static and dynamic batch: one module of all cases compiled
/// by the real rlxc with `--check-grads=<case>` for each, then
/// rlx::runtime::check_grads on every case and call batch: FN_jvp against
/// central differences (forward) and FN_vjp by the dot-product identity
/// (reverse), in f64. A case that does not compile names rlxc's error (a
/// missing or failing derivative rule). Test names:
/// F64Static/GradCheck.FD/<case>.
///
/// Known gaps: kKnownMissingRules below.
//
//===----------------------------------------------------------------------===//

#include "AutodiffUtil.h"
#include "GradCases.h"
#include "OpList.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

using namespace rlx::e2e;
using namespace rlx::autodiff;

namespace {

//===----------------------------------------------------------------------===//
// Known gaps
//===----------------------------------------------------------------------===//

/// KNOWN MISSING DERIVATIVE RULES. A case that uses one of these ops is
/// expected NOT to compile with --check-grads (rlxc's error must name the op
/// and say VJP or JVP); it is reported loudly on stderr and passes. Should
/// it compile, the test FAILS: the rule has landed, remove the op from this
/// list so that its derivatives are checked. The list may only shrink.
///
/// conv2d (VJP), max_pool2d (VJP and JVP) and avg_pool2d (VJP) were listed
/// here until their rules landed in f148447.
struct KnownMissingRule {
  std::string op;   // without `rlx.`
  std::string what; // for the report
  /// Missing only when every dim is dynamic (F64AllDynamic): the rule needs
  /// a size that only a static dim gives. rlxc's error must name the op.
  bool allDimsOnly = false;
};
const std::vector<KnownMissingRule> kKnownMissingRules = {
    {"max_pool2d", "no rule for dynamic H, W or C", true},
    {"avg_pool2d", "no rule for dynamic H, W or C", true},
    {"concat", "no VJP for several inputs of dynamic size along the axis",
     true},
    {"gather", "no VJP when gathering along a dynamic dim", true},
};

/// Cases whose derivative is not the derivative of their values, checked in
/// closed form instead of against finite differences (see the tests named
/// here).
const std::map<std::string, std::string> kClosedFormInsteadOfFd = {
    {"stop_gradient", "StopGradient.ClosedFormOnE2eCase"},
};

/// Cases that cannot get both FN_jvp and FN_vjp by design (a custom rule for
/// one mode only makes the other an error; a while loop has no reverse
/// mode); their rules are checked by the identity tests named here.
const std::map<std::string, std::string> kOneModeByDesign = {
    {"custom_vjp", "Identity.CustomVjpRuleIsUsed"},
    {"custom_jvp", "Identity.CustomJvpRuleIsUsed"},
    {"while", "Identity.ControlFlowDerivativesHaveClosedForms"},
    // Rounding to f8 is piecewise constant: its rules are the
    // straight-through estimator by design, not the derivative central
    // differences see (ad_fake_quant_fine checks the rules where the two
    // agree).
    {"cast_narrow_float", "JitFakeQuant.GradientIsStraightThrough"},
    // Stochastic rounding is piecewise constant for a given key too:
    // ad_fake_quant_stochastic_fine checks its rules at 40 mantissa bits.
    {"fake_quant_stochastic", "ad_fake_quant_stochastic_fine"},
    // A cast with a key rounds as that fake_quant does, into the narrow
    // type itself; its straight-through rules are checked by the test
    // named here.
    {"cast_stochastic",
     "JitStochasticCast.Bf16IsUnbiasedBatchedAndStraightThrough"},
    {"cast_stochastic_bf16",
     "JitStochasticCast.Bf16IsUnbiasedBatchedAndStraightThrough"},
};

/// Ops whose rules the mpi.* tests check against central differences on
/// replicas (a collective needs a communicator the FD harness lacks).
const std::set<std::string> kCheckedOnReplicas = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "axis_index"};

//===----------------------------------------------------------------------===//
// Composites of the autodiff suite
//===----------------------------------------------------------------------===//

Case makeCase(std::string name, std::string mlir, std::vector<InSpec> inputs,
              std::vector<InSpec> params = {}) {
  Case c;
  c.name = std::move(name);
  c.mlir = std::move(mlir);
  c.inputs = std::move(inputs);
  c.params = std::move(params);
  c.variants = kF64 | kStatic | kDynamic | kAllDynamic;
  return c;
}

} // namespace

namespace rlx::autodiff {

const std::vector<Case> &extraCases() {
  static const std::vector<Case> cases = [] {
    const Gen any = uniform(-2, 2);
    std::vector<Case> list;
    // Broadcast operands: the adjoints reduce back to each operand's shape.
    list.push_back(makeCase("ad_pow_broadcast", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<3x{F}>, %s: tensor<{F}>)
    -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %r = rlx.pow %a, %b : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  %t = rlx.pow %s, %a : (tensor<{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r, %t : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
)",
                            {{"a", El::F, {kB, 3}, uniform(0.5, 2)},
                             {"b", El::F, {3}, any},
                             {"s", El::F, {}, uniform(0.5, 2)}}));
    // fake_quant to a format of 40 mantissa bits: rounding moves values by
    // 2^-41 relative, far below the difference step, so the straight-
    // through rules equal the derivative central differences measure.
    list.push_back(makeCase("ad_fake_quant_fine", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}> {
  %q = rlx.fake_quant %x {exponent_bits = 10, mantissa_bits = 40, exponent_bias = 511} : tensor<{B}x3x{F}>
  %r = rlx.mul %q, %q : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
                            {{"x", El::F, {kB, 3}, any}}));
    // The same with stochastic rounding under a key: the key gets no
    // derivative and x's rules are still the straight-through estimator.
    list.push_back(makeCase(
        "ad_fake_quant_stochastic_fine", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>, %keys: tensor<{B}x{K}xi32>) -> tensor<{B}x3x{F}> {
  %q = rlx.fake_quant %x key %keys {exponent_bits = 10, mantissa_bits = 40, exponent_bias = 511} : tensor<{B}x3x{F}>, tensor<{B}x{K}xi32>
  %r = rlx.mul %q, %x : (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r : tensor<{B}x3x{F}>
}
)",
        {{"x", El::F, {kB, 3}, any},
         {"keys", El::I32, {kB, 2}, ints(-2147483648.0, 2147483647.0)}}));
    // bitcast carries no derivative: x's gradient is the reinterpreted
    // constant, the codes' none.
    list.push_back(makeCase("ad_bitcast", R"(
func.func @{N}(%x: tensor<{B}x4x{F}>, %i: tensor<{B}x4xi32>) -> tensor<{B}x4x{F}> {
  %f = rlx.bitcast %i : tensor<{B}x4xi32> -> tensor<{B}x4xf32>
  %c = rlx.cast %f : tensor<{B}x4xf32> -> tensor<{B}x4x{F}>
  %r = rlx.mul %x, %c : (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}>
  return %r : tensor<{B}x4x{F}>
}
)",
                            {{"x", El::F, {kB, 4}, any},
                             {"i", El::I32, {kB, 4}, ints(0x3f800000, 0x3fffffff)}}));
    list.push_back(makeCase("ad_div_broadcast", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<1x3x{F}>, %s: tensor<{F}>)
    -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %r = rlx.div %a, %b : (tensor<{B}x3x{F}>, tensor<1x3x{F}>) -> tensor<{B}x3x{F}>
  %t = rlx.div %s, %a : (tensor<{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r, %t : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
)",
                            {{"a", El::F, {kB, 3}, signedMagnitude(0.5, 2)},
                             {"b", El::F, {1, 3}, signedMagnitude(0.5, 2)},
                             {"s", El::F, {}, any}}));
    list.push_back(makeCase("ad_minmax_broadcast", R"(
func.func @{N}(%a: tensor<{B}x3x{F}>, %b: tensor<3x{F}>, %s: tensor<{F}>)
    -> (tensor<{B}x3x{F}>, tensor<{B}x3x{F}>) {
  %r = rlx.minimum %a, %b : (tensor<{B}x3x{F}>, tensor<3x{F}>) -> tensor<{B}x3x{F}>
  %t = rlx.maximum %s, %a : (tensor<{F}>, tensor<{B}x3x{F}>) -> tensor<{B}x3x{F}>
  return %r, %t : tensor<{B}x3x{F}>, tensor<{B}x3x{F}>
}
)",
                            {{"a", El::F, {kB, 3}, any},
                             {"b", El::F, {3}, any},
                             {"s", El::F, {}, any}}));
    list.push_back(makeCase("ad_layernorm", R"(
func.func @{N}(%x: tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}> {
  %g = rlx.param "ad.layernorm.gamma" : tensor<4x{F}>
  %m = rlx.mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<{B}x4x{F}>) -> tensor<{B}x1x{F}>
  %d = rlx.sub %x, %m : (tensor<{B}x4x{F}>, tensor<{B}x1x{F}>) -> tensor<{B}x4x{F}>
  %d2 = rlx.mul %d, %d : (tensor<{B}x4x{F}>, tensor<{B}x4x{F}>) -> tensor<{B}x4x{F}>
  %v = rlx.mean %d2 {axes = array<i64: 1>, keepdims = true} : (tensor<{B}x4x{F}>) -> tensor<{B}x1x{F}>
  %e = rlx.constant dense<1.0e-5> : tensor<{F}>
  %ve = rlx.add %v, %e : (tensor<{B}x1x{F}>, tensor<{F}>) -> tensor<{B}x1x{F}>
  %r = rlx.rsqrt %ve : tensor<{B}x1x{F}>
  %n = rlx.mul %d, %r : (tensor<{B}x4x{F}>, tensor<{B}x1x{F}>) -> tensor<{B}x4x{F}>
  %y = rlx.mul %n, %g : (tensor<{B}x4x{F}>, tensor<4x{F}>) -> tensor<{B}x4x{F}>
  return %y : tensor<{B}x4x{F}>
}
)",
                            {{"x", El::F, {kB, 4}, any}},
                            {{"ad.layernorm.gamma", El::F, {4}, any}}));
    list.push_back(makeCase("ad_cross_entropy", R"(
func.func @{N}(%logits: tensor<{B}x5x{F}>, %onehot: tensor<{B}x5x{F}>) -> tensor<{F}> {
  %l = rlx.log_softmax %logits {axis = 1 : i64} : tensor<{B}x5x{F}>
  %p = rlx.mul %l, %onehot : (tensor<{B}x5x{F}>, tensor<{B}x5x{F}>) -> tensor<{B}x5x{F}>
  %s = rlx.sum %p {axes = array<i64: 0, 1>} : (tensor<{B}x5x{F}>) -> tensor<{F}>
  %n = rlx.neg %s : tensor<{F}>
  return %n : tensor<{F}>
}
)",
                            {{"logits", El::F, {kB, 5}, uniform(-3, 3)},
                             {"onehot", El::F, {kB, 5},
                              cycle({1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1})}}));
    list.push_back(makeCase("ad_attention", R"(
func.func @{N}(%q: tensor<{B}x3x4x{F}>, %k: tensor<{B}x3x4x{F}>, %v: tensor<{B}x3x4x{F}>) -> tensor<{B}x3x4x{F}> {
  %kt = rlx.transpose %k {permutation = array<i64: 0, 2, 1>} : (tensor<{B}x3x4x{F}>) -> tensor<{B}x4x3x{F}>
  %s = rlx.matmul %q, %kt : (tensor<{B}x3x4x{F}>, tensor<{B}x4x3x{F}>) -> tensor<{B}x3x3x{F}>
  %c = rlx.constant dense<0.5> : tensor<{F}>
  %ss = rlx.mul %s, %c : (tensor<{B}x3x3x{F}>, tensor<{F}>) -> tensor<{B}x3x3x{F}>
  %p = rlx.softmax %ss {axis = 2 : i64} : tensor<{B}x3x3x{F}>
  %o = rlx.matmul %p, %v : (tensor<{B}x3x3x{F}>, tensor<{B}x3x4x{F}>) -> tensor<{B}x3x4x{F}>
  return %o : tensor<{B}x3x4x{F}>
}
)",
                            {{"q", El::F, {kB, 3, 4}, any},
                             {"k", El::F, {kB, 3, 4}, any},
                             {"v", El::F, {kB, 3, 4}, any}}));
    list.push_back(makeCase("ad_cnn", R"(
func.func @{N}(%x: tensor<{B}x6x6x2x{F}>) -> tensor<{B}x3x{F}> {
  %w = rlx.param "ad.cnn.conv" : tensor<3x3x2x4x{F}>
  %c = rlx.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<{B}x6x6x2x{F}>, tensor<3x3x2x4x{F}>) -> tensor<{B}x6x6x4x{F}>
  %t = rlx.tanh %c : tensor<{B}x6x6x4x{F}>
  %p = rlx.max_pool2d %t {window = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<{B}x6x6x4x{F}>) -> tensor<{B}x3x3x4x{F}>
  %a = rlx.avg_pool2d %p {window = array<i64: 3, 3>}
      : (tensor<{B}x3x3x4x{F}>) -> tensor<{B}x1x1x4x{F}>
  %r = rlx.reshape %a : (tensor<{B}x1x1x4x{F}>) -> tensor<{B}x4x{F}>
  %h = rlx.param "ad.cnn.head" : tensor<4x3x{F}>
  %y = rlx.matmul %r, %h : (tensor<{B}x4x{F}>, tensor<4x3x{F}>) -> tensor<{B}x3x{F}>
  return %y : tensor<{B}x3x{F}>
}
)",
                            {{"x", El::F, {kB, 6, 6, 2}, any}},
                            {{"ad.cnn.conv", El::F, {3, 3, 2, 4}, uniform(-0.5, 0.5)},
                             {"ad.cnn.head", El::F, {4, 3}, any}}));
    list.push_back(makeCase("ad_broadcast_chain", R"(
func.func @{N}(%x: tensor<{B}x3x{F}>, %y: tensor<2x1x{F}>) -> (tensor<3x{F}>, tensor<3x{2B}x{F}>) {
  %b = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 2>} : (tensor<{B}x3x{F}>) -> tensor<{B}x2x3x{F}>
  %w = rlx.broadcast_in_dim %y {broadcast_dimensions = array<i64: 1, 2>} : (tensor<2x1x{F}>) -> tensor<1x2x3x{F}>
  %p = rlx.mul %b, %w : (tensor<{B}x2x3x{F}>, tensor<1x2x3x{F}>) -> tensor<{B}x2x3x{F}>
  %s = rlx.sum %p {axes = array<i64: 0, 1>} : (tensor<{B}x2x3x{F}>) -> tensor<3x{F}>
  %t = rlx.transpose %p {permutation = array<i64: 2, 0, 1>} : (tensor<{B}x2x3x{F}>) -> tensor<3x{B}x2x{F}>
  %r = rlx.reshape %t : (tensor<3x{B}x2x{F}>) -> tensor<3x{2B}x{F}>
  return %s, %r : tensor<3x{F}>, tensor<3x{2B}x{F}>
}
)",
                            {{"x", El::F, {kB, 3}, any}, {"y", El::F, {2, 1}, any}}));
    // Left out of F64AllDynamic: their params are static by definition
    // (the all-dims rewrite of their uses would not type-check), or a new
    // dim takes its size from the result type.
    for (Case &c : list)
      if (c.name == "ad_layernorm" || c.name == "ad_cnn" ||
          c.name == "ad_broadcast_chain")
        c.variants &= ~unsigned(kAllDynamic);
    return list;
  }();
  return cases;
}

bool hasFloatLeaf(const Case &c) {
  for (const InSpec &in : c.inputs)
    if (in.el == El::F || in.el == El::O)
      return true;
  for (const InSpec &p : c.params)
    if (p.el == El::F || p.el == El::O)
      return true;
  return false;
}

std::vector<const Case *> gradCases(const Variant &v) {
  std::vector<const Case *> result;
  for (const Case &c : allCases())
    if (c.runsIn(v) && hasFloatLeaf(c) && !kOneModeByDesign.count(c.name))
      result.push_back(&c);
  for (const Case &c : extraCases())
    if (c.runsIn(v))
      result.push_back(&c);
  return result;
}

} // namespace rlx::autodiff

namespace {

//===----------------------------------------------------------------------===//
// Compilation, one module per variant
//===----------------------------------------------------------------------===//

std::string gradModuleText(const Variant &v,
                           const std::vector<const Case *> &cases) {
  std::string text = "// rlx autodiff FD checks, variant " + v.name() + "\n";
  for (const Case *c : cases)
    text += instantiate(*c, v);
  return text;
}

std::vector<std::string> checkGradFlags(const Variant &v,
                                        const std::vector<const Case *> &cases) {
  std::vector<std::string> flags = {"--target=" + v.target};
  for (const Case *c : cases)
    flags.push_back("--check-grads=" + c->name);
  return flags;
}

void bindParams(Compiled &module, const Variant &v,
                const std::vector<const Case *> &cases) {
  for (const Case *c : cases)
    for (const InSpec &p : c->params)
      module.session->bind_tensor(
          p.name, toTensor(generate(resolve(p.el, v), p.shape, p.gen,
                                    c->name + "/" + p.name)));
}

/// The module of every grad case of a variant; when it does not compile,
/// each case alone, and the ones that compile alone in one module again.
struct VariantBuild {
  std::unique_ptr<Compiled> all;
  std::unique_ptr<Compiled> good;
  std::map<std::string, std::unique_ptr<Compiled>> alone;
  double seconds = 0;
};

VariantBuild &variantBuild(const Variant &v) {
  static std::map<std::string, std::unique_ptr<VariantBuild>> builds;
  std::unique_ptr<VariantBuild> &slot = builds[v.name()];
  if (slot)
    return *slot;
  slot = std::make_unique<VariantBuild>();
  auto start = std::chrono::steady_clock::now();
  std::vector<const Case *> cases = gradCases(v);
  slot->all = compile("grad_" + v.name(), gradModuleText(v, cases),
                      checkGradFlags(v, cases), 300);
  if (slot->all->ok) {
    bindParams(*slot->all, v, cases);
  } else {
    std::fprintf(stderr,
                 "rlx-autodiff: the %s module did not compile; compiling "
                 "each case alone.\n%s\n",
                 v.name().c_str(), slot->all->error.c_str());
    std::vector<const Case *> good;
    for (const Case *c : cases) {
      auto single = compile(c->name + "_" + v.name(),
                            gradModuleText(v, {c}), checkGradFlags(v, {c}));
      if (single->ok) {
        bindParams(*single, v, {c});
        good.push_back(c);
      } else {
        std::fprintf(stderr, "rlx-autodiff: %s/%s does not compile alone.\n",
                     v.name().c_str(), c->name.c_str());
      }
      slot->alone[c->name] = std::move(single);
    }
    slot->good = compile("grad_good_" + v.name(), gradModuleText(v, good),
                         checkGradFlags(v, good), 300);
    if (slot->good->ok)
      bindParams(*slot->good, v, good);
  }
  slot->seconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  std::fprintf(stderr, "rlx-autodiff: compiled %s (%zu cases) in %.1f s\n",
               v.name().c_str(), cases.size(), slot->seconds);
  return *slot;
}

/// The module that holds case `c` in `v`, or null with `error` set.
Compiled *moduleFor(const Variant &v, const Case &c, std::string &error) {
  VariantBuild &build = variantBuild(v);
  if (build.all->ok)
    return build.all.get();
  Compiled &alone = *build.alone.at(c.name);
  if (!alone.ok) {
    error = alone.error;
    return nullptr;
  }
  if (build.good->ok)
    return build.good.get();
  ADD_FAILURE() << "this case compiles alone, but not in one module with the "
                   "other cases that do:\n"
                << build.good->error;
  return &alone;
}

/// The ops of the dialect that `text` uses.
std::set<std::string> opsIn(const std::string &text) {
  std::set<std::string> used;
  for (const DialectOp &op : dialectOps())
    if (text.find("rlx." + op.name + " ") != std::string::npos)
      used.insert(op.name);
  return used;
}

const KnownMissingRule *knownMissing(const Case &c, const Variant &v) {
  std::set<std::string> used = opsIn(instantiate(c, v));
  for (const KnownMissingRule &rule : kKnownMissingRules)
    if (used.count(rule.op) && (v.allDims || !rule.allDimsOnly))
      return &rule;
  return nullptr;
}

/// The inputs of one call, drawn as the e2e suite draws them.
std::vector<rlx::runtime::HostTensor>
drawInputs(const Case &c, const Variant &v, int64_t batch) {
  std::vector<rlx::runtime::HostTensor> tensors;
  for (const InSpec &in : c.inputs) {
    std::vector<int64_t> shape = in.shape;
    for (int64_t &d : shape)
      if (d == kB)
        d = batch;
    tensors.push_back(toTensor(generate(resolve(in.el, v), shape, in.gen,
                                        c.name + "/" + in.name + "/" +
                                            std::to_string(batch))));
  }
  return tensors;
}

//===----------------------------------------------------------------------===//
// The checks
//===----------------------------------------------------------------------===//

struct Param {
  Variant variant;
  const Case *c;
};

void PrintTo(const Param &p, std::ostream *os) {
  *os << p.variant.name() << "/" << p.c->name;
}

class GradCheck : public ::testing::TestWithParam<Param> {};

TEST_P(GradCheck, FD) {
  const Variant &v = GetParam().variant;
  const Case &c = *GetParam().c;
  std::string error;
  const KnownMissingRule *missing = knownMissing(c, v);
  Compiled *module = nullptr;
  if (missing) {
    VariantBuild &build = variantBuild(v);
    bool compiles = build.all->ok || build.alone.at(c.name)->ok;
    if (!compiles) {
      const std::string &why = build.alone.at(c.name)->error;
      bool named = why.find("rlx." + missing->op) != std::string::npos &&
                   (why.find("VJP") != std::string::npos ||
                    why.find("JVP") != std::string::npos ||
                    why.find("derivative rule") != std::string::npos);
      ASSERT_TRUE(named)
          << "kKnownMissingRules lists rlx." << missing->op
          << ", but rlxc failed for another reason:\n"
          << why;
      std::fprintf(stderr,
                   "\n*** KNOWN MISSING DERIVATIVE RULE (kKnownMissingRules): "
                   "%s/%s uses rlx.%s (%s); its derivatives are NOT "
                   "checked ***\n\n",
                   v.name().c_str(), c.name.c_str(), missing->op.c_str(),
                   missing->what.c_str());
      return;
    }
    ADD_FAILURE() << "kKnownMissingRules lists rlx." << missing->op << " ("
                  << missing->what << "), but " << c.name
                  << " now compiles with --check-grads: the rule has landed, "
                     "remove rlx."
                  << missing->op << " from kKnownMissingRules.";
  }
  module = moduleFor(v, c, error);
  ASSERT_NE(module, nullptr) << error;
  SCOPED_TRACE("module " + module->mlirPath + ", function '" + c.name +
               "' (RLX_E2E_KEEP=1 keeps the scratch files)");

  auto closedForm = kClosedFormInsteadOfFd.find(c.name);
  if (closedForm != kClosedFormInsteadOfFd.end()) {
    std::fprintf(stderr, "rlx-autodiff: %s is checked in closed form by %s\n",
                 c.name.c_str(), closedForm->second.c_str());
    return;
  }

  rlx::runtime::GradCheckOptions options;
  options.directions = 2;
  options.seed = 7;
  for (int64_t batch : v.callBatches()) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    IsolatedCheck check = checkGradsIsolated(
        *module->session, c.name, drawInputs(c, v, batch), options);
    ASSERT_TRUE(check.ran) << check.error;
    EXPECT_TRUE(check.passed) << check.summary;
    if (std::getenv("RLX_AUTODIFF_VERBOSE"))
      std::fprintf(stderr, "%s", check.summary.c_str());
  }
}

std::vector<Param> paramsFor(bool dynamic, const char *target = "cpu",
                             bool allDims = false) {
  Variant v{true, dynamic, target, allDims};
  std::vector<Param> params;
  for (const Case *c : gradCases(v))
    params.push_back({v, c});
  return params;
}

std::string caseName(const ::testing::TestParamInfo<Param> &info) {
  return info.param.c->name;
}

INSTANTIATE_TEST_SUITE_P(F64Static, GradCheck,
                         ::testing::ValuesIn(paramsFor(false)), caseName);
INSTANTIATE_TEST_SUITE_P(F64Dynamic, GradCheck,
                         ::testing::ValuesIn(paramsFor(true)), caseName);
// Every non-unit dim dynamic: the gradients of keepdims reductions, softmax
// and layer norm over [?, ?, D] inputs.
INSTANTIATE_TEST_SUITE_P(F64AllDynamic, GradCheck,
                         ::testing::ValuesIn(paramsFor(true, "cpu",
                                                       /*allDims=*/true)),
                         caseName);
// The derivatives compiled for Vulkan and run on its device (lavapipe here),
// against the same f64 central differences; cases with f64 exp/log/tanh/pow
// are left out (SPIR-V has none, rlxc refuses them).
INSTANTIATE_TEST_SUITE_P(VulkanF64Static, GradCheck,
                         ::testing::ValuesIn(paramsFor(false, "vulkan")),
                         caseName);
INSTANTIATE_TEST_SUITE_P(VulkanF64Dynamic, GradCheck,
                         ::testing::ValuesIn(paramsFor(true, "vulkan")),
                         caseName);

/// The e2e case `stop_gradient` returns s = stop_gradient(x) and r = s * x:
/// tangents 0 and x v, and the gradient against (c0, c1) is c1 x (not
/// c0 + 2 c1 x, as finite differences would say).
TEST(StopGradient, ClosedFormOnE2eCase) {
  for (bool dynamic : {false, true}) {
    Variant v{true, dynamic};
    SCOPED_TRACE(v.name());
    const Case *c = findCase("stop_gradient");
    ASSERT_NE(c, nullptr);
    std::string error;
    Compiled *module = moduleFor(v, *c, error);
    ASSERT_NE(module, nullptr) << error;
    for (int64_t batch : v.callBatches()) {
      Arr x = generate(RLX_DTYPE_F64, {batch, 3}, uniform(-2, 2), "sg/x");
      Arr t = generate(RLX_DTYPE_F64, {batch, 3}, uniform(-1, 1), "sg/t");
      Arr c0 = generate(RLX_DTYPE_F64, {batch, 3}, uniform(-1, 1), "sg/c0");
      Arr c1 = generate(RLX_DTYPE_F64, {batch, 3}, uniform(-1, 1), "sg/c1");
      std::vector<Arr> jvp = call(*module->session, "stop_gradient_jvp", {x, t});
      ASSERT_EQ(jvp.size(), 4u);
      Arr zero(RLX_DTYPE_F64, {batch, 3});
      Arr xt = x;
      for (size_t i = 0; i < xt.v.size(); ++i)
        xt.v[i] = x.v[i] * t.v[i];
      EXPECT_TRUE(matches(zero, jvp[2], Tol::Exact)) << "tangent of s";
      EXPECT_TRUE(matches(xt, jvp[3], Tol::Arith)) << "tangent of r";
      std::vector<Arr> vjp =
          call(*module->session, "stop_gradient_vjp", {x, c0, c1});
      ASSERT_EQ(vjp.size(), 3u);
      Arr want = x;
      for (size_t i = 0; i < want.v.size(); ++i)
        want.v[i] = c1.v[i] * x.v[i];
      EXPECT_TRUE(matches(want, vjp[2], Tol::Arith)) << "grad.x";
    }
  }
}

//===----------------------------------------------------------------------===//
// Coverage
//===----------------------------------------------------------------------===//

/// Every op with derivative rules (DifferentiableOpInterface in ODS) is in a
/// gradient case of both F64 variants; every marker, and every call with
/// user rules (custom_vjp, custom_jvp, remat), is in an identity test; no op
/// of the dialect is neither differentiable nor a marker.
TEST(AutodiffCoverage, EveryOpAndMarker) {
  const std::vector<DialectOp> &ops = dialectOps();
  ASSERT_GT(ops.size(), 30u) << "the op list of rlx-dialect-ops";
  std::string identities;
  for (const std::string &text : identityModuleTexts())
    identities += text;
  for (bool dynamic : {false, true}) {
    Variant v{true, dynamic};
    std::set<std::string> used;
    for (const Case *c : gradCases(v))
      for (const std::string &op : opsIn(instantiate(*c, v)))
        used.insert(op);
    for (const DialectOp &op : ops) {
      if (op.symbolUser || !op.differentiable ||
          kCheckedOnReplicas.count(op.name))
        continue;
      EXPECT_TRUE(used.count(op.name))
          << "no gradient case of " << v.name() << " uses rlx." << op.name
          << ": add an e2e case (test/unittests/e2e/Cases.cpp) or a "
             "composite in extraCases()";
    }
  }
  for (const DialectOp &op : ops) {
    if (op.symbolUser)
      EXPECT_NE(identities.find("rlx." + op.name + " "), std::string::npos)
          << "no identity test (IdentityTest.cpp) uses rlx." << op.name;
    // The layout ops appear only from the lower phase on, after every
    // transform (test/e2e/pack-dot-operands.mlir checks their values).
    bool layout =
        op.name == "pack_dot_operand" || op.name == "unpack_dot_operand";
    EXPECT_TRUE(op.marker() || op.differentiable || layout)
        << "rlx." << op.name << " has no derivative rules and is not a marker: decide how the "
           "autodiff tests should cover it";
  }
  for (const KnownMissingRule &rule : kKnownMissingRules)
    EXPECT_TRUE(std::any_of(ops.begin(), ops.end(),
                            [&](const DialectOp &op) { return op.name == rule.op; }))
        << "kKnownMissingRules names rlx." << rule.op
        << ", which is not an op of the dialect";
}

} // namespace
