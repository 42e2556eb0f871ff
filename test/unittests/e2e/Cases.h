//===- Cases.h - The op cases of the rlx end-to-end tests -------*- C++ -*-===//
//
/// \file
/// One Case is one entry point: its MLIR text with placeholders, how its
/// inputs and params are drawn, and a reference over them. The placeholders:
/// {N} function name, {F} the variant's float type (f32 or f64), {O} the
/// other float type, {B} the batch dim (2, or ? when dynamic), {B+2} and {2B}
/// (static sums, ? when dynamic), {K} a random key's last dim (2, static in
/// every variant).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_E2E_CASES_H
#define RLX_TEST_UNITTESTS_E2E_CASES_H

#include "Harness.h"

#include <functional>

namespace rlx::e2e {

/// Element type of an input: the variant's float, the other float, or fixed.
enum class El { F, O, I1, I8, I32, I64 };

/// The batch dim in an input shape.
constexpr int64_t kB = -1;

struct InSpec {
  std::string name; // the param name for params; for inputs, only a label
  El el;
  std::vector<int64_t> shape; // kB for the batch
  Gen gen;
};

struct Ctx {
  int64_t batch;
  rlx_dtype_t F, O;
};

/// inputs ++ params -> expected outputs.
using RefFn =
    std::function<std::vector<Arr>(const std::vector<Arr> &, const Ctx &)>;

enum VariantMask : unsigned {
  kF32 = 1,
  kF64 = 2,
  kStatic = 4,
  kDynamic = 8,
  /// Every non-unit dim dynamic (Variant::allDims).
  kAllDynamic = 16,
  /// The 16-bit float variants ({F} bf16 or f16, {O} f32).
  kBF16 = 32,
  kF16 = 64,
  kAllVariants =
      kF32 | kF64 | kBF16 | kF16 | kStatic | kDynamic | kAllDynamic,
  /// Cases without floats: one float variant is enough.
  kIntVariants = kF32 | kStatic | kDynamic | kAllDynamic,
  /// Ops defined on f32 and f64 only (random samplers, fake_quant).
  kWideFloatVariants = kAllVariants & ~(kBF16 | kF16),
};

struct Case {
  std::string name;
  std::string mlir;
  std::vector<InSpec> inputs;
  std::vector<InSpec> params;
  RefFn ref;
  Tol tol = Tol::Arith;
  unsigned variants = kAllVariants;
  /// When non-empty, the output names the manifest must give, in order.
  std::vector<std::string> outputNames;
  /// The case holds bf16 values, which Vulkan refuses (SPIR-V has no bf16).
  bool holdsBF16 = false;

  bool runsIn(const Variant &v) const {
    unsigned floatBit = v.f64                                ? kF64
                        : v.narrowFloat == RLX_DTYPE_BF16 ? kBF16
                        : v.narrowFloat == RLX_DTYPE_F16  ? kF16
                                                          : kF32;
    return (variants & floatBit) &&
           (variants &
            (v.allDims ? kAllDynamic : v.dynamic ? kDynamic : kStatic)) &&
           !(v.target == "vulkan" &&
             (holdsBF16 || (v.f64 && needsF64Transcendentals())));
  }
  /// Whether the case computes exp, log, tanh, pow, erf or trigonometry in
  /// f64 (through the op or its lowering), which SPIR-V cannot: Vulkan
  /// refuses such modules at compile time (test RlxcCli.VulkanRefusesF64Exp).
  bool needsF64Transcendentals() const;
};

const std::vector<Case> &allCases();
const Case *findCase(const std::string &name);

rlx_dtype_t resolve(El el, const Variant &v);
/// `text` with every dim of every tensor type made dynamic, but size-1 dims
/// and the types of `dense<...>` constants.
std::string allDimsDynamic(const std::string &text);
/// The case's function with its placeholders filled in for `v`.
std::string instantiate(const Case &c, const Variant &v);
/// A module of every case that runs in `v`.
std::string moduleText(const Variant &v);
std::string moduleText(const Variant &v, const Case &only);

} // namespace rlx::e2e

#endif // RLX_TEST_UNITTESTS_E2E_CASES_H
