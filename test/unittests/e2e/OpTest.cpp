//===- OpTest.cpp - Every rlx op compiled by rlxc and run -----------------===//
//
/// \file
/// One test per case and variant, named Variant/OpTest.Run/case. All cases of
/// a variant are functions of one module, compiled once by the real rlxc
/// (RLXC_PATH) on first use; should that module fail to compile, each case
/// compiles alone so that the failure names the case at fault (a module
/// that compiles but does not load, e.g. for a GPU that is not there, fails
/// every case with the load error instead). Outputs are
/// compared with the double-precision references of Cases.cpp.
//
//===----------------------------------------------------------------------===//

#include "Cases.h"
#include "OpList.h"

#include <algorithm>
#include <cstdlib>

#include <map>
#include <memory>

using namespace rlx::e2e;

namespace {

using Compiled = CompiledModule;

std::unique_ptr<Compiled>
compile_module(const std::string &stem, const std::string &text,
               const Variant &v, const std::vector<const Case *> &cases) {
  std::unique_ptr<Compiled> result =
      compileAndLoad(stem, text, {"--target=" + v.target});
  if (!result->ok)
    return result;
  try {
    for (const Case *c : cases)
      for (const InSpec &p : c->params)
        result->session->bind_tensor(
            p.name, toTensor(generate(resolve(p.el, v), p.shape, p.gen,
                                      c->name + "/" + p.name)));
  } catch (const rlx::runtime::RuntimeError &e) {
    result->ok = false;
    result->error = "binding params of " + result->mlirPath + ": " + e.what();
  }
  return result;
}

/// The compiled code of one variant. Normally one module of all its cases;
/// when that fails, each case is compiled alone to find the ones at fault,
/// and the others share one module again.
struct VariantBuild {
  std::unique_ptr<Compiled> all;   // the module of every case
  std::unique_ptr<Compiled> good;  // of the cases that compile alone
  std::map<std::string, std::unique_ptr<Compiled>> alone;
};

VariantBuild &variantBuild(const Variant &v) {
  static std::map<std::string, std::unique_ptr<VariantBuild>> builds;
  std::unique_ptr<VariantBuild> &slot = builds[v.name()];
  if (slot)
    return *slot;
  slot = std::make_unique<VariantBuild>();
  std::vector<const Case *> cases;
  for (const Case &c : allCases())
    if (c.runsIn(v))
      cases.push_back(&c);
  slot->all = compile_module("module_" + v.name(), moduleText(v), v, cases);
  if (slot->all->ok || slot->all->compiled)
    return *slot;
  std::fprintf(stderr,
               "rlx-e2e: the %s module did not compile; compiling each case "
               "alone.\n%s\n",
               v.name().c_str(), slot->all->error.c_str());
  std::vector<const Case *> good;
  std::string text = "// rlx end-to-end tests, variant " + v.name() +
                     ", the cases that compile alone\n";
  for (const Case *c : cases) {
    auto single =
        compile_module(c->name + "_" + v.name(), moduleText(v, *c), v, {c});
    if (single->ok) {
      good.push_back(c);
      text += instantiate(*c, v);
    } else {
      std::fprintf(stderr, "rlx-e2e: %s/%s does not compile or load alone.\n",
                   v.name().c_str(), c->name.c_str());
    }
    slot->alone[c->name] = std::move(single);
  }
  slot->good = compile_module("module_good_" + v.name(), text, v, good);
  return *slot;
}

struct Param {
  Variant variant;
  const Case *c;
};

void PrintTo(const Param &p, std::ostream *os) {
  *os << p.variant.name() << "/" << p.c->name;
}

class OpTest : public ::testing::TestWithParam<Param> {};

TEST_P(OpTest, Run) {
  const Variant &v = GetParam().variant;
  const Case &c = *GetParam().c;
  if (v.target == "cuda" && !std::getenv("RLX_E2E_CUDA"))
    GTEST_SKIP() << "CUDA variants run with RLX_E2E_CUDA=1 on a GPU "
                    "(bench/gpu_check.sh)";
  VariantBuild &build = variantBuild(v);
  Compiled *module = build.all.get();
  ASSERT_TRUE(module->ok || !module->compiled) << module->error;
  if (!module->ok) {
    Compiled &alone = *build.alone.at(c.name);
    ASSERT_TRUE(alone.ok) << alone.error;
    module = build.good.get();
    if (!module->ok) {
      ADD_FAILURE() << "this case compiles alone, but not in one module with "
                       "the other cases that do:\n"
                    << module->error;
      module = &alone;
    }
  }
  SCOPED_TRACE("module " + module->mlirPath + ", entry point '" + c.name +
               "' (RLX_E2E_KEEP=1 keeps the scratch files)");

  for (int64_t batch : v.callBatches()) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Ctx ctx{batch, v.floatType(), v.otherFloatType()};
    std::vector<Arr> values;
    std::vector<rlx::runtime::HostTensor> tensors;
    for (const InSpec &in : c.inputs) {
      std::vector<int64_t> shape = in.shape;
      for (int64_t &d : shape)
        if (d == kB)
          d = batch;
      values.push_back(generate(resolve(in.el, v), shape, in.gen,
                                c.name + "/" + in.name + "/" +
                                    std::to_string(batch)));
      tensors.push_back(toTensor(values.back()));
    }
    for (const InSpec &p : c.params)
      values.push_back(generate(resolve(p.el, v), p.shape, p.gen,
                                c.name + "/" + p.name));
    std::vector<Arr> expected = c.ref(values, ctx);

    CallResult got = callIsolated(*module->session, c.name, tensors);
    ASSERT_TRUE(got.ok) << got.error;
    ASSERT_EQ(got.outputs.size(), expected.size()) << "number of outputs";
    if (!c.outputNames.empty())
      EXPECT_EQ(got.names, c.outputNames) << "output names";
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_TRUE(matches(expected[i], got.outputs[i], c.tol))
          << "output " << i << " ('" << got.names[i] << "')";
  }
}

std::vector<Param> paramsFor(bool f64, bool dynamic,
                             const char *target = "cpu", bool allDims = false,
                             rlx_dtype_t narrowFloat = RLX_DTYPE_F32) {
  Variant v{f64, dynamic, target, allDims, narrowFloat};
  std::vector<Param> params;
  for (const Case &c : allCases())
    if (c.runsIn(v))
      params.push_back({v, &c});
  return params;
}

std::string caseName(const ::testing::TestParamInfo<Param> &info) {
  return info.param.c->name;
}

INSTANTIATE_TEST_SUITE_P(F32Static, OpTest,
                         ::testing::ValuesIn(paramsFor(false, false)), caseName);
INSTANTIATE_TEST_SUITE_P(F32Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true)), caseName);
INSTANTIATE_TEST_SUITE_P(F64Static, OpTest,
                         ::testing::ValuesIn(paramsFor(true, false)), caseName);
INSTANTIATE_TEST_SUITE_P(F64Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(true, true)), caseName);
// bf16 and f16 as compute types: every float case with {F} 16-bit, its
// other float f32, against the double references under the 16-bit error
// model (matches()).
INSTANTIATE_TEST_SUITE_P(BF16Static, OpTest,
                         ::testing::ValuesIn(paramsFor(false, false, "cpu",
                                                       false, RLX_DTYPE_BF16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(BF16Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true, "cpu",
                                                       false, RLX_DTYPE_BF16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(F16Static, OpTest,
                         ::testing::ValuesIn(paramsFor(false, false, "cpu",
                                                       false, RLX_DTYPE_F16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(F16Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true, "cpu",
                                                       false, RLX_DTYPE_F16)),
                         caseName);
// Every non-unit dim dynamic ([?,?,3] reductions, keepdims, reshapes with
// several dynamic dims): what a dynamic batch and sequence length give.
INSTANTIATE_TEST_SUITE_P(F32AllDynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true, "cpu",
                                                       /*allDims=*/true)),
                         caseName);
// The same cases compiled for Vulkan and run on its device (Mesa's lavapipe
// here), against the same double-precision references.
INSTANTIATE_TEST_SUITE_P(VulkanF32Static, OpTest,
                         ::testing::ValuesIn(paramsFor(false, false, "vulkan")),
                         caseName);
INSTANTIATE_TEST_SUITE_P(VulkanF32Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true, "vulkan")),
                         caseName);
// f16 on the Vulkan device (shaderFloat16 and 16-bit storage; bf16 has no
// SPIR-V type and is refused).
INSTANTIATE_TEST_SUITE_P(VulkanF16Static, OpTest,
                         ::testing::ValuesIn(paramsFor(false, false, "vulkan",
                                                       false, RLX_DTYPE_F16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(VulkanF16Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true, "vulkan",
                                                       false, RLX_DTYPE_F16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(VulkanF64Static, OpTest,
                         ::testing::ValuesIn(paramsFor(true, false, "vulkan")),
                         caseName);
INSTANTIATE_TEST_SUITE_P(VulkanF64Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(true, true, "vulkan")),
                         caseName);
// CUDA runs only where bench/gpu_check.sh asks for it (RLX_E2E_CUDA=1, on a
// machine with an NVIDIA GPU); without it these are skipped, not compiled.
INSTANTIATE_TEST_SUITE_P(CudaF32Static, OpTest,
                         ::testing::ValuesIn(paramsFor(false, false, "cuda")),
                         caseName);
INSTANTIATE_TEST_SUITE_P(CudaF32Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true, "cuda")),
                         caseName);
// bf16 and f16 on the GPU: the 16-bit matmuls on its tensor cores
// (rlx-gpu-tensor-core-matmul), the rest in the 16-bit types.
INSTANTIATE_TEST_SUITE_P(CudaBF16Static, OpTest,
                         ::testing::ValuesIn(paramsFor(false, false, "cuda",
                                                       false, RLX_DTYPE_BF16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(CudaBF16Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true, "cuda",
                                                       false, RLX_DTYPE_BF16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(CudaF16Static, OpTest,
                         ::testing::ValuesIn(paramsFor(false, false, "cuda",
                                                       false, RLX_DTYPE_F16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(CudaF16Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(false, true, "cuda",
                                                       false, RLX_DTYPE_F16)),
                         caseName);
INSTANTIATE_TEST_SUITE_P(CudaF64Static, OpTest,
                         ::testing::ValuesIn(paramsFor(true, false, "cuda")),
                         caseName);
INSTANTIATE_TEST_SUITE_P(CudaF64Dynamic, OpTest,
                         ::testing::ValuesIn(paramsFor(true, true, "cuda")),
                         caseName);

/// Dynamic batch dims that the compiled code assumes equal (a ? against a
/// ?): a call that breaks one is refused by the runtime, naming the dims,
/// instead of reading out of bounds. The last batch-sized input of each of
/// these cases gets batch 2 while the others get 3.
TEST(DynamicDims, MismatchedBatchesRefused) {
  Variant v{false, true};
  VariantBuild &build = variantBuild(v);
  for (const char *name :
       {"sub", "mul", "div", "minimum", "compare", "select",
        "select_broadcast", "select_i1_input", "concat", "matmul_batched",
        "mul_i32", "matmul_i32"}) {
    SCOPED_TRACE(name);
    const Case *c = findCase(name);
    ASSERT_NE(c, nullptr);
    Compiled *module = build.all.get();
    if (!module->ok)
      module = build.alone.at(name).get();
    ASSERT_TRUE(module->ok) << module->error;
    size_t last = 0;
    for (size_t i = 0; i < c->inputs.size(); ++i)
      for (int64_t d : c->inputs[i].shape)
        if (d == kB)
          last = i;
    std::vector<rlx::runtime::HostTensor> tensors;
    for (size_t i = 0; i < c->inputs.size(); ++i) {
      std::vector<int64_t> shape = c->inputs[i].shape;
      for (int64_t &d : shape)
        if (d == kB)
          d = i == last ? 2 : 3;
      tensors.push_back(toTensor(generate(resolve(c->inputs[i].el, v), shape,
                                          c->inputs[i].gen, "mismatch")));
    }
    CallResult got = callIsolated(*module->session, name, tensors);
    EXPECT_FALSE(got.ok) << "a call with batches 3 and 2 was accepted";
    EXPECT_NE(got.error.find("must equal"), std::string::npos) << got.error;
  }
}

/// Every op of the dialect (as ODS declares it, see OpList.h) appears in the
/// cases of every variant where it applies (a guard against a case list that
/// silently shrinks, or a new op without a case). Markers (rlx.grad, ...)
/// are transforms, not runtime ops: the autodiff tests cover them; calls
/// with user rules (custom_vjp, custom_jvp, remat) compute, and need a case.
TEST(OpCoverage, EveryOpInEveryVariant) {
  const std::vector<DialectOp> &ops = dialectOps();
  // A sanity check of the parse: these must be there.
  for (const char *known : {"add", "param", "conv2d", "gather", "grad"})
    EXPECT_TRUE(std::any_of(ops.begin(), ops.end(),
                            [&](const DialectOp &op) { return op.name == known; }))
        << "the op list of rlx-dialect-ops lacks rlx." << known;
  for (bool f64 : {false, true})
    for (bool dynamic : {false, true}) {
      Variant v{f64, dynamic};
      std::string text = moduleText(v);
      for (const DialectOp &op : ops) {
        if (op.marker())
          continue;
        // Collectives need replicas: the mpi.* tests run each of them
        // under mpirun -np 2 and 4 against plain loops.
        if (op.name == "all_reduce" || op.name == "all_gather" ||
            op.name == "reduce_scatter" || op.name == "broadcast" ||
            op.name == "axis_index")
          continue;
        // The layout ops are the lower phase's (rlx-pack-dot-operands), on
        // i8, bf16 and f32 weights: test/e2e/pack-dot-operands.mlir runs
        // them, static, with one dynamic dim and with every dim dynamic.
        if (op.name == "pack_dot_operand" || op.name == "unpack_dot_operand")
          continue;
        std::string needle = "rlx." + op.name + " ";
        EXPECT_NE(text.find(needle), std::string::npos)
            << v.name() << " lacks " << needle;
      }
    }
}

} // namespace
