//===- rlx/check_grads.hpp - Derivatives of an artifact checked -*- C++ -*-===//
///
/// \file
/// JAX's check_grads for a compiled artifact: FN_jvp and FN_vjp (from
/// `rlxc --check-grads=FN`) against central differences of FN, in f64.
/// Link `rlx::check_grads`.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CHECK_GRADS_HPP
#define RLX_CHECK_GRADS_HPP

#include "rlx/runtime.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rlx::runtime {

/// Options of check_grads. Unset values follow the precision of the check:
/// f64 when every leaf and every float output of FN is f64, else f32.
struct GradCheckOptions {
  /// Step of the central differences: f64 1e-6, f32 1e-3.
  std::optional<double> eps;
  /// An element passes when |ad - fd| <= atol + rtol |fd| + roundoff, where
  /// roundoff = 4 u max(|f(x+eps v)|, |f(x-eps v)|) / eps is the rounding
  /// noise of the difference quotient (u: unit roundoff of the output dtype).
  /// f64: rtol 1e-5, atol 1e-7; f32: rtol 1e-2, atol 1e-3.
  std::optional<double> rtol;
  std::optional<double> atol;
  /// Seeds the random directions and cotangents (deterministic).
  uint64_t seed = 0;
  /// How many random (direction, cotangent) pairs to check.
  unsigned directions = 1;
};

/// What check_grads found. Errors are the worst over all directions.
struct GradCheckResult {
  std::string function;
  /// Every leaf as `name: f64[3,4]`, inputs first, then params.
  std::vector<std::string> leaves;
  double eps = 0, rtol = 0, atol = 0;
  unsigned directions = 0;

  /// FN_jvp's output tangents against the central differences of FN,
  /// elementwise. The relative error is |jvp - fd| / max(|fd|, atol / rtol).
  bool forward_passed = true;
  double forward_max_abs_error = 0, forward_max_rel_error = 0;
  /// `tangent.y[1,2]: jvp 0.5, fd 0.49`, the worst element (empty if none).
  std::string forward_worst;
  size_t forward_elements = 0;

  /// The dot-product identity <ct, J v> = <vjp(ct), v>, J v by central
  /// differences. Tolerance: sum_i |ct_i| (atol + rtol |fd_i| + roundoff_i);
  /// the relative error is against max(|<ct, fd>|, sum_i |ct_i| atol / rtol).
  bool reverse_passed = true;
  double reverse_abs_error = 0, reverse_rel_error = 0;
  /// The two sides in the worst direction.
  double reverse_fd = 0, reverse_vjp = 0;
  /// |<ct, jvp(v)> - <vjp(ct), v>|: the two AD modes against each other,
  /// informative only (FD noise does not enter).
  double mode_mismatch = 0;

  /// The primal outputs of FN_jvp and FN_vjp against FN's, elementwise with
  /// the tolerances above (they should agree to rounding).
  bool primal_passed = true;
  double primal_max_abs_error = 0;

  bool passed() const {
    return forward_passed && reverse_passed && primal_passed;
  }

  /// A few lines for people; the last is PASS or FAIL.
  std::string summary() const {
    char line[512];
    std::string text;
    std::string leaf_list;
    for (const std::string &leaf : leaves)
      leaf_list += (leaf_list.empty() ? "" : ", ") + leaf;
    std::snprintf(line, sizeof line,
                  "check-grads '%s': eps %g, rtol %g, atol %g, %u "
                  "direction%s\n",
                  function.c_str(), eps, rtol, atol, directions,
                  directions == 1 ? "" : "s");
    text += line;
    text += "  leaves: " + leaf_list + "\n";
    std::snprintf(line, sizeof line,
                  "  forward (jvp vs central differences, %zu elements): max "
                  "abs error %.3g, max rel error %.3g%s%s: %s\n",
                  forward_elements, forward_max_abs_error,
                  forward_max_rel_error,
                  forward_worst.empty() ? "" : ", worst ",
                  forward_worst.c_str(), forward_passed ? "PASS" : "FAIL");
    text += line;
    std::snprintf(line, sizeof line,
                  "  reverse (<ct, fd> = %.17g vs <vjp(ct), v> = %.17g): abs "
                  "error %.3g, rel error %.3g (jvp/vjp mismatch %.3g): %s\n",
                  reverse_fd, reverse_vjp, reverse_abs_error, reverse_rel_error,
                  mode_mismatch, reverse_passed ? "PASS" : "FAIL");
    text += line;
    if (!primal_passed) {
      std::snprintf(line, sizeof line,
                    "  primal outputs of the jvp/vjp entries differ from "
                    "the function's by up to %.3g: FAIL\n",
                    primal_max_abs_error);
      text += line;
    }
    text += passed() ? "PASS\n" : "FAIL\n";
    return text;
  }
};

/// Checks FN's derivatives as compiled by `rlxc --check-grads=FN`, like
/// JAX's check_grads: the artifact must hold FN, FN_jvp and FN_vjp. Leaves
/// are FN's float inputs (perturbed in `inputs`) and every param FN reads
/// (perturbed by rebinding it; the bound weights are restored afterwards,
/// also on an exception). Integer inputs are passed unchanged. For each
/// seeded random direction v over the leaves:
///  - forward: FN_jvp(x, v)'s output tangents against the central
///    differences (FN(x + eps v) - FN(x - eps v)) / (2 eps), elementwise;
///  - reverse: for a random cotangent ct of FN's float outputs,
///    <ct, fd> against <FN_vjp(x, ct), v>.
/// All arithmetic is in f64. Leaves must be f32 or f64. Not safe while other
/// threads call into the same session (it rebinds weights).
GradCheckResult check_grads(const Session &session, const std::string &fn,
                            const std::vector<HostTensor> &inputs,
                            GradCheckOptions options = {});

} // namespace rlx::runtime

#endif // RLX_CHECK_GRADS_HPP
