//===- CheckGradsApiTest.cpp - check_grads and rlx-run --check-grads ------===//
//
/// \file
/// The checker itself: it passes right derivatives, catches a wrong JVP and
/// a wrong VJP (hand-written FN_jvp / FN_vjp entry points), restores the
/// bound weights, refuses artifacts without the entry points; and
/// rlx-run --check-grads prints the errors and exits 1 on FAIL.
//
//===----------------------------------------------------------------------===//

#include "AutodiffUtil.h"

using namespace rlx::e2e;
using namespace rlx::autodiff;

namespace {

/// f(x, w) = x * w with w a param; good_* are right, bad_jvp forgets the
/// tangent of w, bad_vjp doubles the adjoint of x.
const char *kHandWritten = R"(
func.func @good(%x: tensor<?x3xf64> {rlx.name = "x"}, %k: tensor<?xi32> {rlx.name = "k"})
    -> (tensor<?x3xf64> {rlx.name = "y"}, tensor<?xi32> {rlx.name = "k2"}) {
  %w = rlx.param "api.w" : tensor<3xf64>
  %y = rlx.mul %x, %w : (tensor<?x3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
  %t = rlx.tanh %y : tensor<?x3xf64>
  return %t, %k : tensor<?x3xf64>, tensor<?xi32>
}
func.func @bad_jvp(%x: tensor<2x3xf64> {rlx.name = "x"}) -> (tensor<2x3xf64> {rlx.name = "y"}) {
  %w = rlx.param "api.w" : tensor<3xf64>
  %y = rlx.mul %x, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}
func.func @bad_jvp_jvp(%x: tensor<2x3xf64> {rlx.name = "x"}, %tx: tensor<2x3xf64> {rlx.name = "tangent.x"},
                       %tw: tensor<3xf64> {rlx.name = "tangent.api.w"})
    -> (tensor<2x3xf64> {rlx.name = "y"}, tensor<2x3xf64> {rlx.name = "tangent.y"}) {
  %w = rlx.param "api.w" : tensor<3xf64>
  %y = rlx.mul %x, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %ty = rlx.mul %tx, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  return %y, %ty : tensor<2x3xf64>, tensor<2x3xf64>
}
func.func @bad_jvp_vjp(%x: tensor<2x3xf64> {rlx.name = "x"}, %ct: tensor<2x3xf64> {rlx.name = "cotangent.y"})
    -> (tensor<2x3xf64> {rlx.name = "y"}, tensor<2x3xf64> {rlx.name = "grad.x"}, tensor<3xf64> {rlx.name = "grad.api.w"}) {
  %w = rlx.param "api.w" : tensor<3xf64>
  %y = rlx.mul %x, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %gx = rlx.mul %ct, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %p = rlx.mul %ct, %x : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %gw = rlx.sum %p {axes = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<3xf64>
  return %y, %gx, %gw : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>
}
func.func @bad_vjp(%x: tensor<2x3xf64> {rlx.name = "x"}) -> (tensor<2x3xf64> {rlx.name = "y"}) {
  %w = rlx.param "api.w" : tensor<3xf64>
  %y = rlx.mul %x, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}
func.func @bad_vjp_jvp(%x: tensor<2x3xf64> {rlx.name = "x"}, %tx: tensor<2x3xf64> {rlx.name = "tangent.x"},
                       %tw: tensor<3xf64> {rlx.name = "tangent.api.w"})
    -> (tensor<2x3xf64> {rlx.name = "y"}, tensor<2x3xf64> {rlx.name = "tangent.y"}) {
  %w = rlx.param "api.w" : tensor<3xf64>
  %y = rlx.mul %x, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %a = rlx.mul %tx, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %b = rlx.mul %x, %tw : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %ty = rlx.add %a, %b : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %y, %ty : tensor<2x3xf64>, tensor<2x3xf64>
}
func.func @bad_vjp_vjp(%x: tensor<2x3xf64> {rlx.name = "x"}, %ct: tensor<2x3xf64> {rlx.name = "cotangent.y"})
    -> (tensor<2x3xf64> {rlx.name = "y"}, tensor<2x3xf64> {rlx.name = "grad.x"}, tensor<3xf64> {rlx.name = "grad.api.w"}) {
  %w = rlx.param "api.w" : tensor<3xf64>
  %y = rlx.mul %x, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %g1 = rlx.mul %ct, %w : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %gx = rlx.add %g1, %g1 : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %p = rlx.mul %ct, %x : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %gw = rlx.sum %p {axes = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<3xf64>
  return %y, %gx, %gw : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>
}
func.func @single(%x: tensor<2xf32> {rlx.name = "x"}) -> (tensor<2xf32> {rlx.name = "y"}) {
  %y = rlx.exp %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
)";

Arr weight() { return f64({3}, {0.5, -1.25, 2.0}); }

Compiled &handWritten() {
  static std::unique_ptr<Compiled> module = [] {
    auto m = compile("api", kHandWritten,
                     {"--check-grads=good", "--check-grads=single"});
    if (m->ok)
      m->session->bind_tensor("api.w", toTensor(weight()));
    return m;
  }();
  return *module;
}

std::vector<rlx::runtime::HostTensor> tensors(const std::vector<Arr> &arrs) {
  std::vector<rlx::runtime::HostTensor> result;
  for (const Arr &a : arrs)
    result.push_back(toTensor(a));
  return result;
}

Arr ints(std::vector<int64_t> shape, std::vector<double> values) {
  Arr a(RLX_DTYPE_I32, std::move(shape));
  a.v = std::move(values);
  return a;
}

TEST(CheckGradsApi, PassesGeneratedEntries) {
  Compiled &m = handWritten();
  ASSERT_TRUE(m.ok) << m.error;
  for (int64_t batch : {3, 1}) {
    Arr x = generate(RLX_DTYPE_F64, {batch, 3}, uniform(-1, 1), "api/x");
    rlx::runtime::GradCheckResult r = rlx::runtime::check_grads(
        *m.session, "good",
        tensors({x, ints({batch}, std::vector<double>(batch, 4))}));
    EXPECT_TRUE(r.passed()) << r.summary();
    ASSERT_EQ(r.leaves.size(), 2u);
    EXPECT_EQ(r.leaves[0], "x: f64[" + std::to_string(batch) + ",3]");
    EXPECT_EQ(r.leaves[1], "api.w: f64[3]");
    EXPECT_EQ(r.eps, 1e-6);
    EXPECT_EQ(r.forward_elements, static_cast<size_t>(batch * 3));
    EXPECT_LT(r.forward_max_abs_error, 1e-8);
    EXPECT_LT(r.reverse_abs_error, 1e-8);
  }
}

TEST(CheckGradsApi, F32DefaultsAreLooser) {
  Compiled &m = handWritten();
  ASSERT_TRUE(m.ok) << m.error;
  Arr x(RLX_DTYPE_F32, {2});
  x.v = {0.5, -1.5};
  rlx::runtime::GradCheckResult r =
      rlx::runtime::check_grads(*m.session, "single", tensors({x}));
  EXPECT_TRUE(r.passed()) << r.summary();
  EXPECT_EQ(r.eps, 1e-3);
  EXPECT_GT(r.rtol, 1e-5);
}

TEST(CheckGradsApi, CatchesAWrongJvp) {
  Compiled &m = handWritten();
  ASSERT_TRUE(m.ok) << m.error;
  Arr x = generate(RLX_DTYPE_F64, {2, 3}, uniform(-1, 1), "api/x");
  rlx::runtime::GradCheckResult r =
      rlx::runtime::check_grads(*m.session, "bad_jvp", tensors({x}));
  EXPECT_FALSE(r.passed()) << r.summary();
  EXPECT_FALSE(r.forward_passed) << r.summary();
  EXPECT_TRUE(r.reverse_passed) << r.summary();
  EXPECT_NE(r.summary().find("FAIL"), std::string::npos);
  EXPECT_NE(r.forward_worst.find("tangent.y["), std::string::npos)
      << r.forward_worst;
}

TEST(CheckGradsApi, CatchesAWrongVjp) {
  Compiled &m = handWritten();
  ASSERT_TRUE(m.ok) << m.error;
  Arr x = generate(RLX_DTYPE_F64, {2, 3}, uniform(-1, 1), "api/x");
  rlx::runtime::GradCheckOptions options;
  options.directions = 3;
  rlx::runtime::GradCheckResult r =
      rlx::runtime::check_grads(*m.session, "bad_vjp", tensors({x}), options);
  EXPECT_FALSE(r.passed()) << r.summary();
  EXPECT_TRUE(r.forward_passed) << r.summary();
  EXPECT_FALSE(r.reverse_passed) << r.summary();
  EXPECT_GT(r.mode_mismatch, 1e-6) << r.summary();
}

TEST(CheckGradsApi, RestoresTheBoundWeights) {
  Compiled &m = handWritten();
  ASSERT_TRUE(m.ok) << m.error;
  rlx::runtime::HostTensor before = m.session->lookup_weight("api.w");
  Arr x = generate(RLX_DTYPE_F64, {2, 3}, uniform(-1, 1), "api/x");
  for (const char *fn : {"good", "bad_jvp"}) {
    std::vector<Arr> in = {x};
    if (std::string(fn) == "good")
      in = {x, ints({2}, {1, 2})};
    rlx::runtime::check_grads(*m.session, fn, tensors(in));
    rlx::runtime::HostTensor after = m.session->lookup_weight("api.w");
    EXPECT_EQ(after.get(), before.get()) << fn << ": not the same tensor";
    EXPECT_TRUE(matches(weight(), fromTensor(after), Tol::Exact)) << fn;
  }
  // A call that throws (a wrong input count) leaves the weights alone. The
  // restore-on-exception path itself (detail::WeightRestorer) has no
  // artifact-level trigger: perturbations cannot make a call fail.
  EXPECT_THROW(rlx::runtime::check_grads(*m.session, "good", tensors({x})),
               rlx::runtime::RuntimeError);
  EXPECT_EQ(m.session->lookup_weight("api.w").get(), before.get());
}

TEST(CheckGradsApi, RefusesAnArtifactWithoutTheEntries) {
  Compiled &m = handWritten();
  ASSERT_TRUE(m.ok) << m.error;
  Arr x = generate(RLX_DTYPE_F64, {2, 3}, uniform(-1, 1), "api/x");
  try {
    rlx::runtime::check_grads(*m.session, "bad_jvp_jvp",
                              tensors({x, x, weight()}));
    ADD_FAILURE() << "no error";
  } catch (const rlx::runtime::RuntimeError &e) {
    EXPECT_EQ(e.code(), RLX_STATUS_NOT_FOUND);
    std::string what = e.what();
    EXPECT_NE(what.find("'bad_jvp_jvp_jvp', 'bad_jvp_jvp_vjp'"), std::string::npos)
        << what;
    EXPECT_NE(what.find("rlxc --check-grads=bad_jvp_jvp"), std::string::npos)
        << what;
  }
}

TEST(CheckGradsApi, UnboundParamIsAClearError) {
  Compiled &m = handWritten();
  ASSERT_TRUE(m.ok) << m.error;
  rlx::runtime::Session fresh(*m.artifact);
  Arr x = generate(RLX_DTYPE_F64, {2, 3}, uniform(-1, 1), "api/x");
  try {
    rlx::runtime::check_grads(fresh, "bad_vjp", tensors({x}));
    ADD_FAILURE() << "no error";
  } catch (const rlx::runtime::RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("api.w"), std::string::npos) << e.what();
  }
}

//===----------------------------------------------------------------------===//
// rlx-run --check-grads
//===----------------------------------------------------------------------===//

class RlxRunCheckGrads : public ::testing::Test {
protected:
  void SetUp() override {
    Compiled &m = handWritten();
    ASSERT_TRUE(m.ok) << m.error;
    model = m.mlirPath.substr(0, m.mlirPath.size() - 5) + ".so";
    dir = makeScratchSubdir("rlx-run");
    rlx::runtime::TensorList weights;
    weights.append("api.w", toTensor(weight()));
    weights.write_safetensors(dir + "/w.safetensors");
    toTensor(generate(RLX_DTYPE_F64, {2, 3}, uniform(-1, 1), "api/x"))
        .write_npy(dir + "/x.npy");
    toTensor(ints({2}, {0, 1})).write_npy(dir + "/k.npy");
  }
  ProcessResult run(std::vector<std::string> args) {
    args.insert(args.begin(), {RLX_RUN_PATH, model});
    return runProcess(args);
  }
  std::string model, dir;
};

TEST_F(RlxRunCheckGrads, PassExitsZero) {
  ProcessResult p = run({"--fn", "good", "--check-grads", "--weights",
                         dir + "/w.safetensors", "--input", dir + "/x.npy",
                         "--input", "k=" + dir + "/k.npy"});
  EXPECT_EQ(p.exitCode, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("forward (jvp vs central differences"), std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("reverse ("), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("\nPASS\n"), std::string::npos) << p.out;
  EXPECT_EQ(p.err, "");
}

TEST_F(RlxRunCheckGrads, FailExitsOne) {
  ProcessResult p = run({"--fn", "bad_vjp", "--check-grads", "--weights",
                         dir + "/w.safetensors", "--input", dir + "/x.npy",
                         "--directions", "2", "--seed", "3"});
  EXPECT_EQ(p.exitCode, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("\nFAIL\n"), std::string::npos) << p.out;
}

TEST_F(RlxRunCheckGrads, ToleranceFlags) {
  // With a huge step, tanh's differences are far off: FAIL; loose
  // tolerances make it PASS again.
  std::vector<std::string> common = {"--fn", "good", "--check-grads",
                                     "--weights", dir + "/w.safetensors",
                                     "--input", dir + "/x.npy", "--input",
                                     dir + "/k.npy", "--eps", "0.5"};
  ProcessResult fail = run(common);
  EXPECT_EQ(fail.exitCode, 1) << fail.out << fail.err;
  common.insert(common.end(), {"--rtol", "10", "--atol", "10"});
  ProcessResult pass = run(common);
  EXPECT_EQ(pass.exitCode, 0) << pass.out << pass.err;
  EXPECT_NE(pass.out.find("eps 0.5, rtol 10, atol 10"), std::string::npos)
      << pass.out;
}

TEST_F(RlxRunCheckGrads, MissingEntriesAndBadUsage) {
  ProcessResult p = run({"--fn", "bad_jvp_vjp", "--check-grads", "--weights",
                         dir + "/w.safetensors", "--input", dir + "/x.npy",
                         "--input", dir + "/x.npy"});
  EXPECT_EQ(p.exitCode, 1);
  EXPECT_NE(p.err.find("rlx-run: error: check_grads: artifact"),
            std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("lacks entry points 'bad_jvp_vjp_jvp', 'bad_jvp_vjp_vjp'"),
            std::string::npos)
      << p.err;
  // Several checkable functions: --fn is needed.
  ProcessResult q = run({"--check-grads", "--input", dir + "/x.npy"});
  EXPECT_EQ(q.exitCode, 1);
  EXPECT_NE(q.err.find("choose one with --fn"), std::string::npos) << q.err;
  // --eps without --check-grads is bad usage.
  ProcessResult r = run({"--fn", "good", "--eps", "0.1"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  ProcessResult s = run({"--fn", "good", "--check-grads", "--output",
                         dir + "/y.npy"});
  EXPECT_EQ(s.exitCode, 2) << s.err;
}

} // namespace
