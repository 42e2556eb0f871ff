//===- VmapCaseTest.cpp - vmap of every e2e case against a loop -----------===//
//
/// \file
/// For every case of the e2e suite (test/unittests/e2e/Cases.cpp), in its
/// F64 static variant (F32 static for the integer-only cases, which have no
/// F64 variant): the case function f, with its batch placeholder fixed (so
/// every per-example shape is static), gets a wrapper entry point
/// `f__vmap` = `rlx.vmap @f` over a batch of kN = 3 examples. One module per
/// plan (a choice of in_axes and out_axes, see kPlans) holds every case and
/// its wrapper, compiled once by the real rlxc. Each test calls f__vmap once
/// and f kN times on the slices of the same inputs through the runtime, and
/// checks that the slice k of each result of f__vmap (along its out_axis)
/// equals the k-th call: the loop of unbatched calls is the reference.
/// Tolerance: 1e-12 relative in f64, 1e-5 in f32, exact for integers/i1.
///
/// Test names: <Plan>/VmapCase.MatchesLoop/<case>. Known gaps:
/// kKnownUnbatchable below (printed loudly; a listed gap that starts to
/// compile fails the test, so the list can only shrink).
//
//===----------------------------------------------------------------------===//

#include "Cases.h"
#include "OpList.h"
#include "VmapUtil.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <regex>
#include <set>

using namespace rlx::e2e;
using namespace rlx::vmap;

namespace {

constexpr int64_t kN = 3;

//===----------------------------------------------------------------------===//
// Known gaps
//===----------------------------------------------------------------------===//

/// KNOWN UNBATCHABLE OPS. A (case, plan) where one of these ops gets
/// operands that the vmap batches as `when` says is expected NOT to compile,
/// with rlxc naming the op (`'rlx.<op>' op <message>`); it is reported loudly
/// on stderr and passes. Should it compile, the test FAILS: remove the entry
/// (or narrow `when`) so that the batching is checked against the loop.
/// Any other failure to compile is a compiler bug.
struct KnownUnbatchable {
  std::string op;      // without `rlx.`
  std::string what;    // for the report
  std::string message; // what rlxc says after `'rlx.<op>' op `
  /// Which operands of the op are batched -> expected to fail.
  std::function<bool(const std::vector<bool> &)> when;
  /// Only in the plans whose case has every dim dynamic (Plan::allDims).
  bool allDimsOnly = false;
};

bool anyBatched(const std::vector<bool> &b) {
  return std::find(b.begin(), b.end(), true) != b.end();
}

const std::vector<KnownUnbatchable> kKnownUnbatchable = {
    {"conv2d", "a batched filter (batching the input works)",
     "cannot be batched over its filter yet",
     [](const std::vector<bool> &b) { return b.size() > 1 && b[1]; }},
    {"gather", "table and indices both batched (either alone works)",
     "cannot be batched over both the table and the indices yet",
     [](const std::vector<bool> &b) { return b.size() > 1 && b[0] && b[1]; }},
    {"pad", "a batched padding value (a batched operand works)",
     "cannot be batched over its padding value yet",
     [](const std::vector<bool> &b) { return b.size() > 1 && b[1]; }},
    // The batch folds into N ([B, N, ...] -> [B*N, ...]); with both dynamic
    // the result cannot be unfolded into two dynamic dims.
    {"max_pool2d", "a dynamic batch over a dynamic N",
     "cannot be batched with a dynamic batch and N",
     [](const std::vector<bool> &b) { return !b.empty() && b[0]; }, true},
    {"avg_pool2d", "a dynamic batch over a dynamic N",
     "cannot be batched with a dynamic batch and N",
     [](const std::vector<bool> &b) { return !b.empty() && b[0]; }, true},
};

//===----------------------------------------------------------------------===//
// Plans: the in_axes and out_axes of the wrappers
//===----------------------------------------------------------------------===//

enum class PlanKind { Front, Last, Middle, UnitRest, UnitFirst };
struct Plan {
  std::string name;
  PlanKind kind;
  bool dynamic = false; // the wrapper's batch dims are `?` (called with kN)
  /// The case compiled with every non-unit dim dynamic (Variant::allDims),
  /// the batch dims `?` too.
  bool allDims = false;
};
const std::vector<Plan> kPlans = {
    {"Front", PlanKind::Front},         // every input at 0, every result at 0
    {"Last", PlanKind::Last},           // every input at -1, results at -1
    {"Middle", PlanKind::Middle},       // inputs at (rank+1)/2, results at 1
    {"UnitRest", PlanKind::UnitRest},   // input 0 at -1, others unit; out 0
    {"UnitFirst", PlanKind::UnitFirst}, // input 0 unit, others at 0; out -1
    {"FrontDynamic", PlanKind::Front, true}, // as Front, batch dims `?`
    {"UnitFirstDynamic", PlanKind::UnitFirst, true}, // as UnitFirst, `?`
    {"FrontAllDynamic", PlanKind::Front, true, true}, // as Front, all dims `?`
};

std::optional<Axes> axesFor(PlanKind kind, const Signature &sig) {
  Axes axes;
  size_t n = sig.args.size();
  if ((kind == PlanKind::UnitRest || kind == PlanKind::UnitFirst) && n < 2)
    return std::nullopt;
  for (size_t i = 0; i < n; ++i) {
    int64_t rank = sig.args[i].rank();
    switch (kind) {
    case PlanKind::Front:
      axes.in.push_back(0);
      break;
    case PlanKind::Last:
      axes.in.push_back(-1);
      break;
    case PlanKind::Middle:
      axes.in.push_back((rank + 1) / 2);
      break;
    case PlanKind::UnitRest:
      axes.in.push_back(i == 0 ? std::optional<int64_t>(-1) : std::nullopt);
      break;
    case PlanKind::UnitFirst:
      axes.in.push_back(i == 0 ? std::nullopt : std::optional<int64_t>(0));
      break;
    }
  }
  for (const TensorType &r : sig.results) {
    switch (kind) {
    case PlanKind::Front:
    case PlanKind::UnitRest:
      axes.out.push_back(0);
      break;
    case PlanKind::Last:
    case PlanKind::UnitFirst:
      axes.out.push_back(-1);
      break;
    case PlanKind::Middle:
      axes.out.push_back(std::min<int64_t>(1, r.rank()));
      break;
    }
  }
  return axes;
}

//===----------------------------------------------------------------------===//
// The cases, prepared
//===----------------------------------------------------------------------===//

struct Prepared {
  const Case *c = nullptr;
  Variant v;
  std::string text; // the case's functions, placeholders filled in
  Signature sig;
  /// The same with every non-unit dim dynamic (for allDims plans).
  std::string allDimsText;
  Signature allDimsSig;
  std::string parseError;
  std::set<std::string> ops;
  std::vector<std::optional<Axes>> axes; // per plan
};

/// The ops of the dialect that `text` uses.
std::set<std::string> opsIn(const std::string &text) {
  std::set<std::string> used;
  for (const DialectOp &op : dialectOps())
    if (!op.marker() && text.find("rlx." + op.name + " ") != std::string::npos)
      used.insert(op.name);
  return used;
}

const std::vector<Prepared> &prepared() {
  static const std::vector<Prepared> list = [] {
    std::vector<Prepared> result;
    for (const Case &c : allCases()) {
      Prepared p;
      p.c = &c;
      if (c.runsIn(Variant{true, false}))
        p.v = Variant{true, false};
      else if (c.runsIn(Variant{false, false}))
        p.v = Variant{false, false};
      else
        continue; // no static variant: nothing to vmap with static shapes
      p.text = instantiate(c, p.v);
      p.ops = opsIn(p.text);
      try {
        p.sig = parseSignature(p.text, c.name);
        if (p.sig.args.size() != c.inputs.size())
          throw std::runtime_error(std::to_string(p.sig.args.size()) +
                                   " arguments in the text, " +
                                   std::to_string(c.inputs.size()) +
                                   " inputs in the case");
        for (size_t i = 0; i < c.inputs.size(); ++i)
          if (p.sig.args[i].element !=
              mlirTypeName(resolve(c.inputs[i].el, p.v)))
            throw std::runtime_error("argument " + std::to_string(i) +
                                     " element type mismatch");
        Variant all{p.v.f64, true, "cpu", /*allDims=*/true};
        bool hasAllDims = c.runsIn(all);
        if (hasAllDims) {
          p.allDimsText = instantiate(c, all);
          p.allDimsSig = parseSignature(p.allDimsText, c.name);
        }
        for (const Plan &plan : kPlans)
          p.axes.push_back(plan.allDims && !hasAllDims
                               ? std::nullopt
                               : axesFor(plan.kind, p.sig));
      } catch (const std::exception &e) {
        p.parseError = e.what();
        p.axes.assign(kPlans.size(), std::nullopt);
      }
      result.push_back(std::move(p));
    }
    return result;
  }();
  return list;
}

/// The known gaps that the vmap of `p` with `axes` runs into: a data flow
/// over the case function's lines (`%r = rlx.op %a, %b ...`), where a value
/// is batched when any operand of its op is.
std::vector<const KnownUnbatchable *> predictedGaps(const Prepared &p,
                                                    const Axes &axes,
                                                    const Plan &plan) {
  std::vector<const KnownUnbatchable *> gaps;
  size_t start = p.text.find("func.func @" + p.c->name + "(");
  if (start == std::string::npos)
    return gaps;
  size_t end = p.text.find("\n}", start);
  std::string fn = p.text.substr(start, end - start);
  std::set<std::string> batched;
  // The argument names, in order.
  std::string header = fn.substr(0, fn.find("->"));
  std::regex argName(R"((%\w+):)");
  size_t i = 0;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), argName);
       it != std::sregex_iterator(); ++it, ++i)
    if (i < axes.in.size() && axes.in[i])
      batched.insert((*it)[1]);
  std::regex opLine(R"(^\s*(%[\w:]+(?:,\s*%\w+)*)\s*=\s*rlx\.(\w+)(.*)$)");
  std::regex value(R"(%\w+)");
  std::stringstream lines(fn);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, opLine))
      continue;
    std::string op = m[2], rest = m[3];
    rest = rest.substr(0, rest.find(" : "));
    std::vector<bool> operands;
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), value);
         it != std::sregex_iterator(); ++it)
      operands.push_back(batched.count(it->str()) > 0);
    bool any = anyBatched(operands);
    std::string lhs = m[1];
    for (auto it = std::sregex_iterator(lhs.begin(), lhs.end(), value);
         it != std::sregex_iterator(); ++it)
      if (any)
        batched.insert(it->str());
    for (const KnownUnbatchable &gap : kKnownUnbatchable)
      if (gap.op == op && (plan.allDims || !gap.allDimsOnly) &&
          gap.when(operands) &&
          std::find(gaps.begin(), gaps.end(), &gap) == gaps.end())
        gaps.push_back(&gap);
  }
  return gaps;
}

std::string caseModuleText(const Prepared &p, const Axes &axes,
                           const Plan &plan) {
  if (plan.allDims)
    return p.allDimsText + vmapWrapper(p.c->name + "__vmap", p.c->name,
                                       p.allDimsSig, axes, -1);
  return p.text + vmapWrapper(p.c->name + "__vmap", p.c->name, p.sig, axes,
                              plan.dynamic ? -1 : kN);
}

void bindParams(Compiled &module, const Prepared &p) {
  for (const InSpec &in : p.c->params)
    module.session->bind_tensor(
        in.name, toTensor(generate(resolve(in.el, p.v), in.shape, in.gen,
                                   p.c->name + "/" + in.name)));
}

//===----------------------------------------------------------------------===//
// One module per plan
//===----------------------------------------------------------------------===//

struct PlanBuild {
  /// Every case of the plan but the predicted gaps.
  std::unique_ptr<Compiled> shared;
  /// The predicted gaps, and every case when `shared` does not compile.
  std::map<std::string, std::unique_ptr<Compiled>> alone;
  double seconds = 0;
};

PlanBuild &planBuild(size_t planIndex) {
  static std::map<size_t, std::unique_ptr<PlanBuild>> builds;
  std::unique_ptr<PlanBuild> &slot = builds[planIndex];
  if (slot)
    return *slot;
  slot = std::make_unique<PlanBuild>();
  const Plan &plan = kPlans[planIndex];
  auto start = std::chrono::steady_clock::now();
  std::string text = "// rlx vmap tests, plan " + plan.name + "\n";
  std::vector<const Prepared *> members;
  for (const Prepared &p : prepared()) {
    const std::optional<Axes> &axes = p.axes[planIndex];
    if (!axes)
      continue;
    std::string stem = p.c->name + "_" + plan.name;
    if (!predictedGaps(p, *axes, plan).empty()) {
      slot->alone[p.c->name] = compile(stem, caseModuleText(p, *axes, plan));
      continue;
    }
    members.push_back(&p);
    text += caseModuleText(p, *axes, plan);
  }
  slot->shared = compile("vmap_" + plan.name, text, 600);
  if (slot->shared->ok) {
    for (const Prepared *p : members)
      bindParams(*slot->shared, *p);
  } else {
    std::fprintf(stderr,
                 "rlx-vmap: the %s module did not compile; compiling each "
                 "case alone.\n%s\n",
                 plan.name.c_str(), slot->shared->error.c_str());
    for (const Prepared *p : members) {
      auto single = compile(p->c->name + "_" + plan.name,
                            caseModuleText(*p, *p->axes[planIndex], plan));
      if (single->ok)
        bindParams(*single, *p);
      slot->alone[p->c->name] = std::move(single);
    }
  }
  slot->seconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  std::fprintf(stderr, "rlx-vmap: compiled plan %s (%zu cases shared) in %.1f s\n",
               plan.name.c_str(), members.size(), slot->seconds);
  return *slot;
}

//===----------------------------------------------------------------------===//
// One case of one plan
//===----------------------------------------------------------------------===//

enum class Status { Passed, KnownGap, Failed };

struct Outcome {
  Status status = Status::Failed;
  std::vector<std::string> failures; // for gtest
  std::string note;                  // for stderr
};

std::string keptNote(const std::string &path) {
  return "module " + path + " (RLX_E2E_KEEP=1 keeps the scratch files)";
}

Outcome evaluateUncached(size_t planIndex, const Prepared &p) {
  Outcome out;
  const Plan &plan = kPlans[planIndex];
  const Axes &axes = *p.axes[planIndex];
  PlanBuild &build = planBuild(planIndex);
  std::vector<const KnownUnbatchable *> gaps = predictedGaps(p, axes, plan);
  std::string where = plan.name + "/" + p.c->name + " (" + axes.str() + ")";
  if (!gaps.empty()) {
    Compiled &alone = *build.alone.at(p.c->name);
    if (alone.ok) {
      for (const KnownUnbatchable *gap : gaps)
        out.failures.push_back(
            "kKnownUnbatchable lists rlx." + gap->op + " with " + gap->what +
            ", but " + where +
            " now compiles: the batching rule has landed, remove or narrow "
            "the entry so that it is checked against the loop");
      return out;
    }
    for (const KnownUnbatchable *gap : gaps) {
      std::string needle = "'rlx." + gap->op + "' op " + gap->message;
      if (alone.error.find(needle) == std::string::npos)
        out.failures.push_back("kKnownUnbatchable predicts \"" + needle +
                               "\" for " + where +
                               ", but rlxc failed otherwise:\n" + alone.error);
    }
    if (!out.failures.empty())
      return out;
    out.status = Status::KnownGap;
    for (const KnownUnbatchable *gap : gaps)
      out.note += "\n*** KNOWN UNBATCHABLE (kKnownUnbatchable): " + where +
                  " hits rlx." + gap->op + " with " + gap->what +
                  "; NOT checked ***\n";
    return out;
  }
  Compiled *module = build.shared.get();
  if (!module->ok)
    module = build.alone.at(p.c->name).get();
  if (!module->ok) {
    out.failures.push_back("COMPILER BUG: the vmap of " + where +
                           " does not compile:\n" + module->error);
    return out;
  }
  std::string trace = " [" + where + ", " + keptNote(module->mlirPath) + "]";

  // Inputs: batched ones along their in_axis, unit ones per example.
  std::vector<TensorType> batchedTypes = batchedArgs(p.sig, axes, kN);
  std::vector<Arr> inputs;
  std::vector<rlx::runtime::HostTensor> tensors;
  for (size_t i = 0; i < p.c->inputs.size(); ++i) {
    const InSpec &in = p.c->inputs[i];
    inputs.push_back(generate(resolve(in.el, p.v), batchedTypes[i].shape,
                              in.gen,
                              "vmap/" + plan.name + "/" + p.c->name + "/" +
                                  in.name));
    tensors.push_back(toTensor(inputs.back()));
  }
  CallResult batched =
      callIsolated(*module->session, p.c->name + "__vmap", tensors);
  if (!batched.ok) {
    out.failures.push_back("COMPILER BUG: calling " + p.c->name +
                           "__vmap failed: " + batched.error + trace);
    return out;
  }
  std::vector<TensorType> resultTypes = batchedResults(p.sig, axes, kN);
  if (batched.outputs.size() != resultTypes.size()) {
    out.failures.push_back("__vmap returned " +
                           std::to_string(batched.outputs.size()) +
                           " outputs, expected " +
                           std::to_string(resultTypes.size()) + trace);
    return out;
  }
  for (size_t j = 0; j < resultTypes.size(); ++j)
    if (batched.outputs[j].shape != resultTypes[j].shape)
      out.failures.push_back("result " + std::to_string(j) + " has shape " +
                             shapeString(batched.outputs[j].shape) +
                             ", expected " + shapeString(resultTypes[j].shape) +
                             trace);
  if (!out.failures.empty())
    return out;

  for (int64_t k = 0; k < kN; ++k) {
    std::vector<rlx::runtime::HostTensor> example;
    for (size_t i = 0; i < inputs.size(); ++i)
      example.push_back(toTensor(
          axes.in[i] ? takeAlong(inputs[i],
                                 normalize(*axes.in[i], inputs[i].shape.size()),
                                 k)
                     : inputs[i]));
    CallResult one = callIsolated(*module->session, p.c->name, example);
    if (!one.ok) {
      out.failures.push_back("calling " + p.c->name + " on example " +
                             std::to_string(k) + " failed: " + one.error +
                             trace);
      return out;
    }
    for (size_t j = 0; j < one.outputs.size(); ++j) {
      const Arr &got = batched.outputs[j];
      ::testing::AssertionResult same =
          close(one.outputs[j],
                takeAlong(got, normalize(axes.out[j], got.shape.size()), k),
                tightTolerance(one.outputs[j].dtype));
      if (!same)
        out.failures.push_back("COMPILER BUG: result " + std::to_string(j) +
                               ", example " + std::to_string(k) +
                               " of the vmap differs from the unbatched "
                               "call: " +
                               same.message() + trace);
    }
  }
  out.status = out.failures.empty() ? Status::Passed : Status::Failed;
  return out;
}

const Outcome &evaluate(size_t planIndex, const Prepared &p) {
  static std::map<std::pair<size_t, std::string>, Outcome> cache;
  auto key = std::make_pair(planIndex, p.c->name);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, evaluateUncached(planIndex, p)).first;
  return it->second;
}

//===----------------------------------------------------------------------===//
// The tests
//===----------------------------------------------------------------------===//

struct Param {
  size_t plan;
  const Prepared *p;
};

void PrintTo(const Param &param, std::ostream *os) {
  *os << kPlans[param.plan].name << "/" << param.p->c->name;
}

class VmapCase : public ::testing::TestWithParam<Param> {};

TEST_P(VmapCase, MatchesLoop) {
  const Outcome &out = evaluate(GetParam().plan, *GetParam().p);
  if (!out.note.empty())
    std::fprintf(stderr, "%s\n", out.note.c_str());
  for (const std::string &f : out.failures)
    ADD_FAILURE() << f;
}

std::vector<Param> paramsFor(size_t plan) {
  std::vector<Param> params;
  for (const Prepared &p : prepared())
    if (p.axes[plan] || !p.parseError.empty())
      params.push_back({plan, &p});
  return params;
}

std::string caseName(const ::testing::TestParamInfo<Param> &info) {
  return info.param.p->c->name;
}

INSTANTIATE_TEST_SUITE_P(Front, VmapCase, ::testing::ValuesIn(paramsFor(0)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Last, VmapCase, ::testing::ValuesIn(paramsFor(1)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Middle, VmapCase, ::testing::ValuesIn(paramsFor(2)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(UnitRest, VmapCase, ::testing::ValuesIn(paramsFor(3)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(UnitFirst, VmapCase, ::testing::ValuesIn(paramsFor(4)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(FrontDynamic, VmapCase,
                         ::testing::ValuesIn(paramsFor(5)), caseName);
INSTANTIATE_TEST_SUITE_P(UnitFirstDynamic, VmapCase,
                         ::testing::ValuesIn(paramsFor(6)), caseName);
INSTANTIATE_TEST_SUITE_P(FrontAllDynamic, VmapCase,
                         ::testing::ValuesIn(paramsFor(7)), caseName);

/// The signatures of every case parse (so that no case drops out of the
/// vmap tests silently), every op that the e2e cases use is in a vmap case
/// of some plan that compiles and matches the loop, or is in
/// kKnownUnbatchable for every use; every kKnownUnbatchable entry is still
/// hit somewhere (else it is stale and must go).
TEST(VmapCoverage, EveryE2eOp) {
  std::set<std::string> e2eOps, passed;
  std::map<std::string, std::vector<std::string>> failedPairs; // op -> pairs
  std::map<std::string, int> gapHits;
  size_t checked = 0, known = 0, failed = 0;
  for (const Prepared &p : prepared()) {
    EXPECT_TRUE(p.parseError.empty())
        << "case " << p.c->name << ": " << p.parseError;
    e2eOps.insert(p.ops.begin(), p.ops.end());
    for (size_t plan = 0; plan < kPlans.size(); ++plan) {
      if (!p.axes[plan])
        continue;
      const Outcome &out = evaluate(plan, p);
      if (out.status == Status::Passed) {
        ++checked;
        passed.insert(p.ops.begin(), p.ops.end());
      } else if (out.status == Status::KnownGap) {
        ++known;
        for (const KnownUnbatchable *gap :
             predictedGaps(p, *p.axes[plan], kPlans[plan]))
          ++gapHits[gap->op + ": " + gap->what];
      } else {
        ++failed;
        for (const std::string &op : p.ops)
          failedPairs[op].push_back(kPlans[plan].name + "/" + p.c->name);
      }
    }
  }
  for (const Case &c : allCases())
    EXPECT_TRUE(std::any_of(prepared().begin(), prepared().end(),
                            [&](const Prepared &p) { return p.c == &c; }))
        << "e2e case " << c.name << " has no static variant to vmap";
  std::fprintf(stderr,
               "rlx-vmap: %zu (case, plan) pairs match the loop, %zu are known "
               "gaps, %zu fail; %zu of %zu e2e ops checked\n",
               checked, known, failed, passed.size(), e2eOps.size());
  // An op in no passing pair is fine only when every pair that uses it is a
  // known gap (custom_vjp, custom_jvp); a failing pair is a compiler bug.
  for (const std::string &op : e2eOps) {
    if (passed.count(op))
      continue;
    auto bad = failedPairs.find(op);
    if (bad == failedPairs.end()) {
      std::fprintf(stderr,
                   "\n*** KNOWN UNBATCHABLE: rlx.%s is in no vmap case that "
                   "compiles: every use is in kKnownUnbatchable ***\n\n",
                   op.c_str());
      continue;
    }
    std::string pairs;
    for (const std::string &pair : bad->second)
      pairs += " " + pair;
    ADD_FAILURE() << "rlx." << op
                  << " is used by the e2e cases but in no vmap case that "
                     "compiles and matches the loop; these fail:"
                  << pairs;
  }
  for (const KnownUnbatchable &gap : kKnownUnbatchable) {
    std::string key = gap.op + ": " + gap.what;
    EXPECT_GT(gapHits[key], 0)
        << "kKnownUnbatchable lists rlx." << key
        << ", but no (case, plan) hits it any more: remove the entry";
    if (gapHits[key])
      std::fprintf(stderr, "*** KNOWN UNBATCHABLE: rlx.%s (%d case/plan pairs) ***\n",
                   key.c_str(), gapHits[key]);
  }
}

} // namespace
