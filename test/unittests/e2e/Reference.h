//===- Reference.h - Double-precision references of the rlx ops -*- C++ -*-===//
//
/// \file
/// Plain loops over Arr, in double precision, written from the op
/// descriptions in dialects/RLX/IR/RLXOps.td and nothing of the compiler.
/// Every function takes the result dtype where the result is not the
/// operand's.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TEST_UNITTESTS_E2E_REFERENCE_H
#define RLX_TEST_UNITTESTS_E2E_REFERENCE_H

#include "Harness.h"

#include <functional>

namespace rlx::e2e::ref {

/// Calls `fn(index, flat)` for every index of `shape` in row-major order.
void forEachIndex(const std::vector<int64_t> &shape,
                  const std::function<void(const std::vector<int64_t> &,
                                           int64_t)> &fn);
/// The flat position of `index` in `shape`.
int64_t flatten(const std::vector<int64_t> &shape,
                const std::vector<int64_t> &index);

/// NumPy broadcasting of shapes (the test aborts on incompatible ones).
std::vector<int64_t> broadcastShape(const std::vector<std::vector<int64_t>> &);
/// The element of `a` read at `index` of a broadcast result (dims aligned
/// from the right, size-1 dims stretched).
double broadcastRead(const Arr &a, const std::vector<int64_t> &index);

/// Elementwise op over broadcast operands.
Arr map(rlx_dtype_t dtype, const std::vector<const Arr *> &operands,
        const std::function<double(const std::vector<double> &)> &fn);
Arr unary(rlx_dtype_t dtype, const Arr &x,
          const std::function<double(double)> &fn);
Arr binary(rlx_dtype_t dtype, const Arr &a, const Arr &b,
           const std::function<double(double, double)> &fn);

double geluTanh(double x);
double geluErf(double x);
double sigmoid(double x);

Arr matmul(const Arr &a, const Arr &b);
/// NHWC input, HWIO filter; padding {top, bottom, left, right}.
Arr conv2d(const Arr &x, const Arr &w, std::vector<int64_t> strides,
           std::vector<int64_t> padding, std::vector<int64_t> dilations,
           int64_t groups);
Arr maxPool2d(const Arr &x, std::vector<int64_t> window,
              std::vector<int64_t> strides, std::vector<int64_t> padding);
/// Padding counts in the divisor: always window[0] * window[1].
Arr avgPool2d(const Arr &x, std::vector<int64_t> window,
              std::vector<int64_t> strides, std::vector<int64_t> padding);

enum class Reduce { Sum, Mean, Max };
Arr reduce(const Arr &x, std::vector<int64_t> axes, bool keepdims,
           Reduce kind);
Arr softmax(const Arr &x, int64_t axis, bool log);

Arr reshape(const Arr &x, std::vector<int64_t> shape);
Arr transpose(const Arr &x, std::vector<int64_t> permutation);
Arr broadcastInDim(const Arr &x, std::vector<int64_t> shape,
                   std::vector<int64_t> dims);
/// A limit of -1 is the whole dim.
Arr slice(const Arr &x, std::vector<int64_t> start, std::vector<int64_t> limit,
          std::vector<int64_t> strides);
/// `value` (a rank-0 array) before (low), after (high) and between
/// (interior) the elements of each dim.
Arr pad(const Arr &x, const Arr &value, std::vector<int64_t> low,
        std::vector<int64_t> high, std::vector<int64_t> interior);
Arr concat(const std::vector<const Arr *> &xs, int64_t axis);
/// numpy.take with indices clamped into range.
Arr gather(const Arr &x, const Arr &indices, int64_t axis);
/// Elementwise conversion (rounding to f32, truncation, != 0 for i1).
Arr cast(const Arr &x, rlx_dtype_t to);
/// `x` rounded to the binary float format with `mantissaBits` and normal
/// exponents from `minExponent` up, ties to even; beyond `maxFinite` it is
/// ±max (`saturate`), else ±inf or NaN as `infinity` says. By frexp and
/// nearbyint, independently of the compiler's bit manipulation.
double roundToFormat(double x, int mantissaBits, int minExponent,
                     double maxFinite, bool saturate, bool infinity);

} // namespace rlx::e2e::ref

#endif // RLX_TEST_UNITTESTS_E2E_REFERENCE_H
