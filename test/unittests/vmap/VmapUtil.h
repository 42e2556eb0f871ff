//===- VmapUtil.h - Plumbing of the rlx vmap tests --------------*- C++ -*-===//
//
/// \file
/// Compiling a module with the real rlxc, the signature of a function read
/// from its MLIR text, the text of a `FN__vmap` wrapper entry point (one
/// rlx.vmap of FN with chosen in_axes and out_axes), and slicing and
/// comparing e2e::Arr values along an axis.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_VMAP_VMAPUTIL_H
#define RLX_TEST_UNITTESTS_VMAP_VMAPUTIL_H

#include "Harness.h"

#include <memory>
#include <optional>

namespace rlx::vmap {

using e2e::Arr;

/// A module compiled by rlxc and loaded (the e2e harness's).
using Compiled = e2e::CompiledModule;

/// rlxc on `text`, loaded; a compile is killed after `timeoutSeconds`.
inline std::unique_ptr<Compiled> compile(const std::string &stem,
                                         const std::string &text,
                                         unsigned timeoutSeconds = 120) {
  return e2e::compileAndLoad(stem, text, {}, timeoutSeconds);
}

/// A static ranked tensor type: `tensor<2x3xf64>`.
struct TensorType {
  std::vector<int64_t> shape;
  std::string element; // f32, f64, i1, i32, i64
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// A negative dim prints as `?`.
  std::string str() const;
  /// This type with a dim of `size` inserted at `axis` (in [0, rank]).
  TensorType withDim(int64_t axis, int64_t size) const;
};

/// The argument and result types of `func.func @name(...)` in `text`.
struct Signature {
  std::vector<TensorType> args, results;
};
/// Throws std::runtime_error when the function is missing, or a type is not
/// a static ranked tensor.
Signature parseSignature(const std::string &text, const std::string &name);

/// in_axes: an axis (negative from the end) or nullopt for `unit`.
struct Axes {
  std::vector<std::optional<int64_t>> in;
  std::vector<int64_t> out;
  std::string str() const; // `in_axes = [0, unit], out_axes = [-1]`
};

/// `axis` in [0, rank) (or [0, rank] with `inclusive`): negatives count
/// from the end.
int64_t normalize(int64_t axis, int64_t rank);

/// The batched types of a vmap of `sig` with `axes` and batch `n`.
std::vector<TensorType> batchedArgs(const Signature &sig, const Axes &axes,
                                    int64_t n);
std::vector<TensorType> batchedResults(const Signature &sig, const Axes &axes,
                                       int64_t n);

/// `func.func @<wrapper>(batched args) -> (batched results)` holding one
/// `rlx.vmap @<callee>` with `axes`; a negative `n` is a dynamic batch (`?`).
std::string vmapWrapper(const std::string &wrapper, const std::string &callee,
                        const Signature &sig, const Axes &axes, int64_t n);

/// Element `k` of `a` along `axis` (that axis removed).
Arr takeAlong(const Arr &a, int64_t axis, int64_t k);

/// Equal shapes and dtypes; floats within `relTol * max(|expected|, 1)`
/// (NaN matches NaN), integers and i1 exactly.
::testing::AssertionResult close(const Arr &expected, const Arr &got,
                                 double relTol);

/// The tolerance of a dtype: 1e-12 for f64, 1e-5 for f32, 0 otherwise.
double tightTolerance(rlx_dtype_t dtype);

} // namespace rlx::vmap

#endif // RLX_TEST_UNITTESTS_VMAP_VMAPUTIL_H
