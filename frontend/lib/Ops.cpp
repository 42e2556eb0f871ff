//===- Ops.cpp - Shape checking and emission of every rlx op --------------===//
///
/// \file
/// Each function infers its result type the way the op's verifier does, so
/// that mistakes surface while tracing, with the user's line, rather than as
/// a verifier error when the module is compiled.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend/Ops.h"

#include <algorithm>
#include <numeric>

namespace rlx {

namespace {

[[noreturn]] void fail(const std::string &op, const std::string &message,
                       SourceLoc loc) {
  throw Error("rlx::" + op + ": " + message + loc.suffix());
}

std::string arr(const Axes &axes) {
  std::string text = "array<i64";
  for (size_t i = 0; i < axes.size(); ++i)
    text += (i ? ", " : ": ") + std::to_string(axes[i]);
  return text + ">";
}

std::string sig(const std::vector<Tensor> &operands, const TensorType &result) {
  std::string text = "(";
  for (size_t i = 0; i < operands.size(); ++i)
    text += (i ? ", " : "") + operands[i].type().mlir();
  return text + ") -> " + result.mlir();
}

Scope &commonScope(const std::string &op, const std::vector<Tensor> &xs,
                   SourceLoc loc) {
  Scope *scope = nullptr;
  for (const Tensor &x : xs) {
    if (!x.valid())
      fail(op, "an operand is an empty Tensor", loc);
    if (scope && &x.scope() != scope)
      fail(op, "operands come from different traces", loc);
    scope = &x.scope();
  }
  return *scope;
}

std::string types(const std::vector<Tensor> &xs, const char *sep = ", ") {
  std::string text;
  for (size_t i = 0; i < xs.size(); ++i)
    text += (i ? sep : "") + xs[i].type().str();
  return text;
}

Shape broadcastShapes(const std::string &op, const std::vector<Tensor> &xs,
                      SourceLoc loc) {
  size_t rank = 0;
  for (const Tensor &x : xs)
    rank = std::max(rank, x.shape().size());
  Shape result(rank, 1);
  std::vector<bool> set(rank, false);
  for (const Tensor &x : xs) {
    size_t offset = rank - x.shape().size();
    for (size_t i = 0; i < x.shape().size(); ++i) {
      int64_t d = x.shape()[i];
      int64_t &r = result[offset + i];
      if (!set[offset + i]) {
        r = d;
        set[offset + i] = true;
      } else if (d == 1 || d == r) {
      } else if (r == 1) {
        r = d;
      } else if (d == dyn) {
      } else if (r == dyn) {
        r = d;
      } else {
        fail(op, "shapes do not broadcast: " + types(xs), loc);
      }
    }
  }
  return result;
}

void requireFloat(const std::string &op, const Tensor &x, SourceLoc loc) {
  if (!isFloat(x.dtype()))
    fail(op, "expects a float tensor, got " + x.type().str(), loc);
}

void requireNotBool(const std::string &op, const Tensor &x, SourceLoc loc) {
  if (x.dtype() == DType::i1)
    fail(op, "expects a numeric tensor, got " + x.type().str(), loc);
}

Tensor binary(const std::string &op, const Tensor &a, const Tensor &b,
              SourceLoc loc, bool floatOnly = false) {
  Scope &s = commonScope(op, {a, b}, loc);
  if (a.dtype() != b.dtype())
    fail(op, "element types differ: " + types({a, b}) + " (use rlx::cast)",
         loc);
  requireNotBool(op, a, loc);
  if (floatOnly)
    requireFloat(op, a, loc);
  TensorType type{a.dtype(), broadcastShapes(op, {a, b}, loc)};
  return s.emit("rlx." + op + " " + a.ssa() + ", " + b.ssa() + " : " +
                    sig({a, b}, type),
                type);
}

Tensor unary(const std::string &op, const Tensor &x, SourceLoc loc,
             bool floatOnly = true, const std::string &attrs = "") {
  Scope &s = commonScope(op, {x}, loc);
  requireNotBool(op, x, loc);
  if (floatOnly)
    requireFloat(op, x, loc);
  return s.emit("rlx." + op + " " + x.ssa() + attrs + " : " + x.type().mlir(),
                x.type());
}

Tensor scalarLike(const Tensor &t, double value) {
  return t.scope().scalar(value, t.dtype());
}

int64_t normAxis(const std::string &op, int64_t axis, int64_t rank,
                 SourceLoc loc) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    fail(op,
         "axis " + std::to_string(axis) + " out of range for rank " +
             std::to_string(rank),
         loc);
  return a;
}

Axes normAxes(const std::string &op, const Axes &axes, int64_t rank,
              SourceLoc loc) {
  Axes result;
  if (axes.empty()) {
    result.resize(rank);
    std::iota(result.begin(), result.end(), 0);
    return result;
  }
  for (int64_t axis : axes)
    result.push_back(normAxis(op, axis, rank, loc));
  std::sort(result.begin(), result.end());
  if (std::adjacent_find(result.begin(), result.end()) != result.end())
    fail(op, "repeated axis in " + formatShape(axes), loc);
  return result;
}

Tensor compare(const std::string &direction, const Tensor &a, const Tensor &b,
               SourceLoc loc) {
  const std::string op = "compare";
  Scope &s = commonScope(op, {a, b}, loc);
  if (a.dtype() != b.dtype())
    fail(op, "element types differ: " + types({a, b}), loc);
  requireNotBool(op, a, loc);
  TensorType type{DType::i1, broadcastShapes(op, {a, b}, loc)};
  return s.emit("rlx.compare \"" + direction + "\", " + a.ssa() + ", " +
                    b.ssa() + " : " + sig({a, b}, type),
                type);
}

Tensor reduce(const std::string &op, const Tensor &x, const Axes &axes,
              bool keepdims, SourceLoc loc) {
  Scope &s = commonScope(op, {x}, loc);
  requireNotBool(op, x, loc);
  Axes norm = normAxes(op, axes, x.rank(), loc);
  Shape shape;
  for (int64_t i = 0; i < x.rank(); ++i) {
    bool reduced = std::find(norm.begin(), norm.end(), i) != norm.end();
    if (!reduced)
      shape.push_back(x.shape()[i]);
    else if (keepdims)
      shape.push_back(1);
  }
  TensorType type{x.dtype(), shape};
  std::string attrs =
      "{axes = " + arr(norm) + (keepdims ? ", keepdims = true" : "") + "}";
  return s.emit(
      "rlx." + op + " " + x.ssa() + " " + attrs + " : " + sig({x}, type), type);
}

/// x with a new size-1 axis at `axis` (broadcast_in_dim, which allows any
/// number of dynamic dims, unlike reshape).
Tensor expandDims(const Tensor &x, int64_t axis) {
  Shape shape = x.shape();
  shape.insert(shape.begin() + axis, 1);
  Axes dims;
  for (int64_t i = 0; i < x.rank(); ++i)
    dims.push_back(i < axis ? i : i + 1);
  TensorType type{x.dtype(), shape};
  return x.scope().emit("rlx.broadcast_in_dim " + x.ssa() +
                            " {broadcast_dimensions = " + arr(dims) +
                            "} : " + sig({x}, type),
                        type);
}

int64_t poolDim(int64_t size, int64_t lo, int64_t hi, int64_t k, int64_t stride,
                int64_t dilation) {
  if (size < 0)
    return dyn;
  return (size + lo + hi - dilation * (k - 1) - 1) / stride + 1;
}

Tensor pool(const std::string &op, const Tensor &input, const Axes &window,
            const Axes &strides, const Axes &padding, SourceLoc loc) {
  Scope &s = commonScope(op, {input}, loc);
  requireFloat(op, input, loc);
  if (input.rank() != 4 || window.size() != 2 || strides.size() != 2 ||
      padding.size() != 4)
    fail(op,
         "expects an NHWC input, a 2-element window and strides and 4 "
         "paddings; got " +
             input.type().str(),
         loc);
  Shape shape = input.shape();
  shape[1] =
      poolDim(shape[1], padding[0], padding[1], window[0], strides[0], 1);
  shape[2] =
      poolDim(shape[2], padding[2], padding[3], window[1], strides[1], 1);
  if ((shape[1] != dyn && shape[1] <= 0) || (shape[2] != dyn && shape[2] <= 0))
    fail(op, "window larger than the padded input " + input.type().str(), loc);
  TensorType type{input.dtype(), shape};
  return s.emit("rlx." + op + " " + input.ssa() + " {window = " + arr(window) +
                    ", strides = " + arr(strides) +
                    ", padding = " + arr(padding) + "} : " + sig({input}, type),
                type);
}

} // namespace

// Binary ops.
Tensor add(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary("add", a, b, loc);
}
Tensor sub(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary("sub", a, b, loc);
}
Tensor mul(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary("mul", a, b, loc);
}
Tensor div(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary("div", a, b, loc);
}
Tensor pow(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary("pow", a, b, loc, /*floatOnly=*/true);
}
Tensor pow(const Tensor &a, double b, SourceLoc loc) {
  return pow(a, scalarLike(a, b), loc);
}
Tensor maximum(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary("maximum", a, b, loc);
}
Tensor maximum(const Tensor &a, double b, SourceLoc loc) {
  return maximum(a, scalarLike(a, b), loc);
}
Tensor minimum(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return binary("minimum", a, b, loc);
}
Tensor minimum(const Tensor &a, double b, SourceLoc loc) {
  return minimum(a, scalarLike(a, b), loc);
}

Tensor operator+(const Tensor &a, const Tensor &b) { return add(a, b, {}); }
Tensor operator-(const Tensor &a, const Tensor &b) { return sub(a, b, {}); }
Tensor operator*(const Tensor &a, const Tensor &b) { return mul(a, b, {}); }
Tensor operator/(const Tensor &a, const Tensor &b) { return div(a, b, {}); }
Tensor operator+(const Tensor &a, double b) { return a + scalarLike(a, b); }
Tensor operator-(const Tensor &a, double b) { return a - scalarLike(a, b); }
Tensor operator*(const Tensor &a, double b) { return a * scalarLike(a, b); }
Tensor operator/(const Tensor &a, double b) { return a / scalarLike(a, b); }
Tensor operator+(double a, const Tensor &b) { return scalarLike(b, a) + b; }
Tensor operator-(double a, const Tensor &b) { return scalarLike(b, a) - b; }
Tensor operator*(double a, const Tensor &b) { return scalarLike(b, a) * b; }
Tensor operator/(double a, const Tensor &b) { return scalarLike(b, a) / b; }
Tensor operator-(const Tensor &a) { return neg(a, {}); }

// Unary ops.
Tensor neg(const Tensor &x, SourceLoc loc) {
  return unary("neg", x, loc, false);
}
Tensor abs(const Tensor &x, SourceLoc loc) {
  return unary("abs", x, loc, false);
}
Tensor exp(const Tensor &x, SourceLoc loc) { return unary("exp", x, loc); }
Tensor log(const Tensor &x, SourceLoc loc) { return unary("log", x, loc); }
Tensor sqrt(const Tensor &x, SourceLoc loc) { return unary("sqrt", x, loc); }
Tensor rsqrt(const Tensor &x, SourceLoc loc) { return unary("rsqrt", x, loc); }
Tensor tanh(const Tensor &x, SourceLoc loc) { return unary("tanh", x, loc); }
Tensor erf(const Tensor &x, SourceLoc loc) { return unary("erf", x, loc); }
Tensor sigmoid(const Tensor &x, SourceLoc loc) {
  return unary("sigmoid", x, loc);
}
Tensor relu(const Tensor &x, SourceLoc loc) {
  return unary("relu", x, loc, false);
}
Tensor gelu(const Tensor &x, const std::string &approximate, SourceLoc loc) {
  if (approximate != "tanh" && approximate != "erf")
    fail("gelu",
         "approximate must be \"tanh\" or \"erf\", got \"" + approximate + "\"",
         loc);
  return unary(
      "gelu", x, loc, true,
      approximate == "tanh" ? "" : " {approximate = \"" + approximate + "\"}");
}
Tensor square(const Tensor &x, SourceLoc loc) { return mul(x, x, loc); }
Tensor sign(const Tensor &x, SourceLoc loc) {
  Tensor zero = scalarLike(x, 0);
  return where(gt(x, zero, loc), scalarLike(x, 1),
               where(lt(x, zero, loc), scalarLike(x, -1), zero, loc), loc);
}
Tensor stop_gradient(const Tensor &x, SourceLoc loc) {
  Scope &s = commonScope("stop_gradient", {x}, loc);
  return s.emit("rlx.stop_gradient " + x.ssa() + " : " + x.type().mlir(),
                x.type());
}
Tensor optimization_barrier(const Tensor &x, SourceLoc loc) {
  Scope &s = commonScope("optimization_barrier", {x}, loc);
  return s.emit("rlx.optimization_barrier " + x.ssa() + " : " + x.type().mlir(),
                x.type());
}

// Comparisons.
Tensor eq(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("eq", a, b, loc);
}
Tensor ne(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("ne", a, b, loc);
}
Tensor lt(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("lt", a, b, loc);
}
Tensor le(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("le", a, b, loc);
}
Tensor gt(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("gt", a, b, loc);
}
Tensor ge(const Tensor &a, const Tensor &b, SourceLoc loc) {
  return compare("ge", a, b, loc);
}
Tensor operator<(const Tensor &a, const Tensor &b) { return lt(a, b, {}); }
Tensor operator<=(const Tensor &a, const Tensor &b) { return le(a, b, {}); }
Tensor operator>(const Tensor &a, const Tensor &b) { return gt(a, b, {}); }
Tensor operator>=(const Tensor &a, const Tensor &b) { return ge(a, b, {}); }
Tensor operator<(const Tensor &a, double b) { return a < scalarLike(a, b); }
Tensor operator>(const Tensor &a, double b) { return a > scalarLike(a, b); }

Tensor where(const Tensor &cond, const Tensor &onTrue, const Tensor &onFalse,
             SourceLoc loc) {
  const std::string op = "where";
  Scope &s = commonScope(op, {cond, onTrue, onFalse}, loc);
  if (cond.dtype() != DType::i1)
    fail(op, "the condition must be i1, got " + cond.type().str(), loc);
  if (onTrue.dtype() != onFalse.dtype())
    fail(op, "branches differ in element type: " + types({onTrue, onFalse}),
         loc);
  TensorType type{onTrue.dtype(),
                  broadcastShapes(op, {cond, onTrue, onFalse}, loc)};
  return s.emit("rlx.select " + cond.ssa() + ", " + onTrue.ssa() + ", " +
                    onFalse.ssa() + " : " + sig({cond, onTrue, onFalse}, type),
                type);
}

Tensor cast(const Tensor &x, DType dtype, SourceLoc loc) {
  Scope &s = commonScope("cast", {x}, loc);
  if (x.dtype() == dtype)
    return x;
  TensorType type{dtype, x.shape()};
  return s.emit("rlx.cast " + x.ssa() + " : " + x.type().mlir() + " -> " +
                    type.mlir(),
                type);
}

// Contraction, convolution, pooling.
Tensor matmul(const Tensor &a, const Tensor &b, SourceLoc loc) {
  const std::string op = "matmul";
  Scope &s = commonScope(op, {a, b}, loc);
  if (a.rank() < 2 || b.rank() < 2)
    fail(op, "operands need rank 2 or more: " + types({a, b}, " x "), loc);
  if (a.dtype() != b.dtype())
    fail(op, "element types differ: " + types({a, b}, " x "), loc);
  requireNotBool(op, a, loc);
  int64_t k1 = a.dim(-1), k2 = b.dim(-2);
  if (k1 != dyn && k2 != dyn && k1 != k2)
    fail(op,
         "contracting dims differ (" + std::to_string(k1) + " vs " +
             std::to_string(k2) + "): " + types({a, b}, " x "),
         loc);
  Shape batchA(a.shape().begin(), a.shape().end() - 2);
  Shape batchB(b.shape().begin(), b.shape().end() - 2);
  Tensor ta(nullptr, "", TensorType{a.dtype(), batchA});
  Tensor tb(nullptr, "", TensorType{b.dtype(), batchB});
  Shape shape;
  try {
    shape = broadcastShapes(op, {ta, tb}, {});
  } catch (const Error &) {
    fail(op, "batch dims do not broadcast: " + types({a, b}, " x "), loc);
  }
  shape.push_back(a.dim(-2));
  shape.push_back(b.dim(-1));
  TensorType type{a.dtype(), shape};
  return s.emit("rlx.matmul " + a.ssa() + ", " + b.ssa() + " : " +
                    sig({a, b}, type),
                type);
}

Tensor conv2d(const Tensor &input, const Tensor &filter, const Axes &strides,
              const Axes &padding, const Axes &dilations, int64_t groups,
              SourceLoc loc) {
  const std::string op = "conv2d";
  Scope &s = commonScope(op, {input, filter}, loc);
  requireFloat(op, input, loc);
  if (input.rank() != 4 || filter.rank() != 4 || strides.size() != 2 ||
      padding.size() != 4 || dilations.size() != 2 || groups < 1)
    fail(op,
         "expects NHWC input and [KH,KW,C/groups,F] filter: " +
             types({input, filter}, " * "),
         loc);
  if (input.dtype() != filter.dtype())
    fail(op, "element types differ: " + types({input, filter}, " * "), loc);
  int64_t c = input.dim(3), cg = filter.dim(2), f = filter.dim(3);
  if ((c != dyn && cg != dyn && c != cg * groups) ||
      (f != dyn && f % groups != 0))
    fail(op,
         "channels do not match with " + std::to_string(groups) +
             " group(s): " + types({input, filter}, " * "),
         loc);
  Shape shape = {input.dim(0),
                 poolDim(input.dim(1), padding[0], padding[1], filter.dim(0),
                         strides[0], dilations[0]),
                 poolDim(input.dim(2), padding[2], padding[3], filter.dim(1),
                         strides[1], dilations[1]),
                 f};
  TensorType type{input.dtype(), shape};
  return s.emit("rlx.conv2d " + input.ssa() + ", " + filter.ssa() +
                    " {strides = " + arr(strides) + ", padding = " +
                    arr(padding) + ", dilations = " + arr(dilations) +
                    ", groups = " + std::to_string(groups) +
                    " : i64} : " + sig({input, filter}, type),
                type);
}

Tensor max_pool2d(const Tensor &input, const Axes &window, const Axes &strides,
                  const Axes &padding, SourceLoc loc) {
  return pool("max_pool2d", input, window, strides, padding, loc);
}
Tensor avg_pool2d(const Tensor &input, const Axes &window, const Axes &strides,
                  const Axes &padding, SourceLoc loc) {
  return pool("avg_pool2d", input, window, strides, padding, loc);
}

// Reductions.
Tensor sum(const Tensor &x, const Axes &axes, bool keepdims, SourceLoc loc) {
  return reduce("sum", x, axes, keepdims, loc);
}
Tensor mean(const Tensor &x, const Axes &axes, bool keepdims, SourceLoc loc) {
  return reduce("mean", x, axes, keepdims, loc);
}
Tensor max(const Tensor &x, const Axes &axes, bool keepdims, SourceLoc loc) {
  return reduce("max", x, axes, keepdims, loc);
}
static Tensor softmaxLike(const std::string &op, const Tensor &x, int64_t axis,
                          SourceLoc loc) {
  Scope &s = commonScope(op, {x}, loc);
  requireFloat(op, x, loc);
  int64_t a = normAxis(op, axis, x.rank(), loc);
  return s.emit("rlx." + op + " " + x.ssa() + " {axis = " + std::to_string(a) +
                    " : i64} : " + x.type().mlir(),
                x.type());
}
Tensor softmax(const Tensor &x, int64_t axis, SourceLoc loc) {
  return softmaxLike("softmax", x, axis, loc);
}
Tensor log_softmax(const Tensor &x, int64_t axis, SourceLoc loc) {
  return softmaxLike("log_softmax", x, axis, loc);
}

// Shapes.
Tensor reshape(const Tensor &x, const Shape &target, SourceLoc loc) {
  const std::string op = "reshape";
  Scope &s = commonScope(op, {x}, loc);
  int64_t unknown = 0, known = 1;
  for (int64_t d : target) {
    if (d == dyn)
      ++unknown;
    else if (d < 0)
      fail(op, "bad dim " + std::to_string(d) + " in " + formatShape(target),
           loc);
    else
      known *= d;
  }
  if (unknown > 1)
    fail(op, "at most one inferred dim: " + formatShape(target), loc);
  Shape shape = target;
  if (x.type().isStatic()) {
    int64_t count = 1;
    for (int64_t d : x.shape())
      count *= d;
    if (unknown) {
      if (known == 0 || count % known != 0)
        fail(op,
             "cannot reshape " + x.type().str() + " to " + formatShape(target),
             loc);
      for (int64_t &d : shape)
        if (d == dyn)
          d = count / known;
    } else if (count != known) {
      fail(op,
           "element counts differ: " + x.type().str() + " to " +
               formatShape(target),
           loc);
    }
  } else if (!unknown) {
    fail(op,
         "reshaping the dynamic " + x.type().str() +
             " needs one dyn dim in the target " + formatShape(target),
         loc);
  }
  TensorType type{x.dtype(), shape};
  if (type == x.type())
    return x;
  return s.emit("rlx.reshape " + x.ssa() + " : " + sig({x}, type), type);
}

Tensor transpose(const Tensor &x, const Axes &permutation, SourceLoc loc) {
  const std::string op = "transpose";
  Scope &s = commonScope(op, {x}, loc);
  Axes perm = permutation;
  if (perm.empty())
    for (int64_t i = x.rank() - 1; i >= 0; --i)
      perm.push_back(i);
  Axes sorted = perm;
  for (int64_t &a : sorted)
    a = a < 0 ? a + x.rank() : a;
  perm = sorted;
  std::sort(sorted.begin(), sorted.end());
  Axes iota(x.rank());
  std::iota(iota.begin(), iota.end(), 0);
  if (sorted != iota)
    fail(op,
         formatShape(permutation) +
             " is not a permutation of the axes "
             "of " +
             x.type().str(),
         loc);
  Shape shape;
  for (int64_t a : perm)
    shape.push_back(x.shape()[a]);
  TensorType type{x.dtype(), shape};
  return s.emit("rlx.transpose " + x.ssa() + " {permutation = " + arr(perm) +
                    "} : " + sig({x}, type),
                type);
}

Tensor broadcast_to(const Tensor &x, const Shape &shape, SourceLoc loc) {
  const std::string op = "broadcast_to";
  Scope &s = commonScope(op, {x}, loc);
  if (static_cast<int64_t>(shape.size()) < x.rank())
    fail(op, "cannot broadcast " + x.type().str() + " to " + formatShape(shape),
         loc);
  size_t offset = shape.size() - x.shape().size();
  Axes dims;
  for (size_t i = 0; i < x.shape().size(); ++i) {
    int64_t d = x.shape()[i], r = shape[offset + i];
    if (d != 1 && d != r)
      fail(op,
           "cannot broadcast " + x.type().str() + " to " + formatShape(shape),
           loc);
    dims.push_back(offset + i);
  }
  for (size_t i = 0; i < offset; ++i)
    if (shape[i] == dyn)
      fail(op, "new dims must be static: " + formatShape(shape), loc);
  TensorType type{x.dtype(), shape};
  if (type == x.type())
    return x;
  return s.emit("rlx.broadcast_in_dim " + x.ssa() +
                    " {broadcast_dimensions = " + arr(dims) +
                    "} : " + sig({x}, type),
                type);
}

Tensor slice(const Tensor &x, const std::vector<Range> &ranges, SourceLoc loc) {
  const std::string op = "slice";
  Scope &s = commonScope(op, {x}, loc);
  if (static_cast<int64_t>(ranges.size()) > x.rank())
    fail(op, std::to_string(ranges.size()) + " ranges for " + x.type().str(),
         loc);
  Axes start, limit, strides;
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    Range r = d < static_cast<int64_t>(ranges.size()) ? ranges[d] : Range();
    int64_t size = x.shape()[d];
    if (r.step < 1)
      fail(op, "steps must be positive", loc);
    if (size == dyn) {
      if (r.step != 1)
        fail(op, "a dynamic dim takes step 1 only: " + x.type().str(), loc);
      start.push_back(r.start);
      // The op's -1 is the end; -2 drops the last element.
      limit.push_back(r.limit == Range::end ? -1
                      : r.limit < 0         ? r.limit - 1
                                            : r.limit);
      strides.push_back(1);
      shape.push_back(dyn);
      continue;
    }
    int64_t lo = r.start < 0 ? r.start + size : r.start;
    int64_t hi = r.limit == Range::end ? size
                 : r.limit < 0         ? r.limit + size
                                       : r.limit;
    lo = std::clamp<int64_t>(lo, 0, size);
    hi = std::clamp<int64_t>(hi, 0, size);
    if (hi <= lo)
      fail(op,
           "empty range [" + std::to_string(r.start) + ", " +
               (r.limit == Range::end ? std::string("end")
                                      : std::to_string(r.limit)) +
               ") on dim " + std::to_string(d) + " of " + x.type().str(),
           loc);
    start.push_back(lo);
    limit.push_back(hi);
    strides.push_back(r.step);
    shape.push_back((hi - lo + r.step - 1) / r.step);
  }
  TensorType type{x.dtype(), shape};
  return s.emit("rlx.slice " + x.ssa() + " {start = " + arr(start) +
                    ", limit = " + arr(limit) + ", strides = " + arr(strides) +
                    "} : " + sig({x}, type),
                type);
}

Tensor take(const Tensor &x, int64_t axis, int64_t index, SourceLoc loc) {
  int64_t a = normAxis("take", axis, x.rank(), loc);
  if (x.shape()[a] == dyn) {
    // A slice of a dynamic dim stays dynamic; a gather of one index drops
    // the axis directly.
    if (index < 0)
      fail("take",
           "a negative index on the dynamic axis " + std::to_string(axis) +
               " of " + x.type().str(),
           loc);
    return gather(x, x.scope().scalar(double(index), DType::i64), a, loc);
  }
  std::vector<Range> ranges(a + 1);
  ranges[a] = Range(index, index == -1 ? Range::end : index + 1);
  Tensor sliced = slice(x, ranges, loc);
  Shape shape = sliced.shape();
  shape.erase(shape.begin() + a);
  int dyns = 0;
  for (int64_t d : shape)
    dyns += d == dyn;
  if (dyns > 1)
    fail("take",
         "cannot drop an axis of " + x.type().str() +
             " (more than one dynamic dim)",
         loc);
  return reshape(sliced, shape, loc);
}

Tensor concat(const std::vector<Tensor> &xs, int64_t axis, SourceLoc loc) {
  const std::string op = "concat";
  if (xs.empty())
    fail(op, "no operands", loc);
  Scope &s = commonScope(op, xs, loc);
  int64_t a = normAxis(op, axis, xs[0].rank(), loc);
  Shape shape = xs[0].shape();
  shape[a] = 0;
  for (const Tensor &x : xs) {
    if (x.rank() != xs[0].rank() || x.dtype() != xs[0].dtype())
      fail(op, "operands differ in rank or element type: " + types(xs), loc);
    for (int64_t d = 0; d < x.rank(); ++d) {
      int64_t size = x.shape()[d];
      if (d == a) {
        shape[a] = shape[a] == dyn || size == dyn ? dyn : shape[a] + size;
      } else if (size != shape[d]) {
        if (size != dyn && shape[d] != dyn)
          fail(op, "operands differ off the axis: " + types(xs), loc);
        if (shape[d] == dyn)
          shape[d] = size;
      }
    }
  }
  TensorType type{xs[0].dtype(), shape};
  std::string operands;
  for (size_t i = 0; i < xs.size(); ++i)
    operands += (i ? ", " : "") + xs[i].ssa();
  return s.emit("rlx.concat " + operands + " {axis = " + std::to_string(a) +
                    " : i64} : " + sig(xs, type),
                type);
}

Tensor stack(const std::vector<Tensor> &xs, int64_t axis, SourceLoc loc) {
  if (xs.empty())
    fail("stack", "no operands", loc);
  int64_t rank = xs[0].rank() + 1;
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    fail("stack", "axis " + std::to_string(axis) + " out of range", loc);
  std::vector<Tensor> expanded;
  for (const Tensor &x : xs) {
    if (x.type() != xs[0].type())
      fail("stack", "operands differ: " + types(xs), loc);
    expanded.push_back(expandDims(x, a));
  }
  return concat(expanded, a, loc);
}

Tensor gather(const Tensor &x, const Tensor &indices, int64_t axis,
              SourceLoc loc) {
  const std::string op = "gather";
  Scope &s = commonScope(op, {x, indices}, loc);
  if (indices.dtype() != DType::i32 && indices.dtype() != DType::i64)
    fail(op, "indices must be i32 or i64, got " + indices.type().str(), loc);
  int64_t a = normAxis(op, axis, x.rank(), loc);
  Shape shape(x.shape().begin(), x.shape().begin() + a);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), x.shape().begin() + a + 1, x.shape().end());
  TensorType type{x.dtype(), shape};
  return s.emit("rlx.gather " + x.ssa() + ", " + indices.ssa() + " {axis = " +
                    std::to_string(a) + " : i64} : " + sig({x, indices}, type),
                type);
}

Tensor pad(const Tensor &x, const Axes &low, const Axes &high, double value,
           SourceLoc loc) {
  const std::string op = "pad";
  Scope &s = commonScope(op, {x}, loc);
  if (static_cast<int64_t>(low.size()) != x.rank() ||
      static_cast<int64_t>(high.size()) != x.rank())
    fail(op, "needs one low and one high padding per dim of " + x.type().str(),
         loc);
  Shape shape = x.shape();
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (low[d] < 0 || high[d] < 0)
      fail(op, "negative padding", loc);
    if (shape[d] == dyn && (low[d] || high[d]))
      fail(op, "dynamic dims cannot be padded: " + x.type().str(), loc);
    if (shape[d] != dyn)
      shape[d] += low[d] + high[d];
  }
  Tensor v = scalarLike(x, value);
  TensorType type{x.dtype(), shape};
  return s.emit("rlx.pad " + x.ssa() + ", " + v.ssa() + " {low = " + arr(low) +
                    ", high = " + arr(high) + ", interior = " +
                    arr(Axes(x.rank(), 0)) + "} : " + sig({x, v}, type),
                type);
}

Tensor one_hot(const Tensor &labels, int64_t classes, DType dtype,
               SourceLoc loc) {
  if (labels.dtype() != DType::i32 && labels.dtype() != DType::i64)
    fail("one_hot", "labels must be i32 or i64, got " + labels.type().str(),
         loc);
  std::vector<double> values(classes);
  std::iota(values.begin(), values.end(), 0.0);
  Tensor iota = labels.scope().constant(values, {classes}, labels.dtype());
  Tensor hot = eq(expandDims(labels, labels.rank()), iota, loc);
  return cast(hot, dtype, loc);
}

//===----------------------------------------------------------------------===//
// Tensor methods
//===----------------------------------------------------------------------===//

Tensor Tensor::matmul(const Tensor &rhs, SourceLoc loc) const {
  return rlx::matmul(*this, rhs, loc);
}
Tensor Tensor::sum(const Axes &axes, bool keepdims, SourceLoc loc) const {
  return rlx::sum(*this, axes, keepdims, loc);
}
Tensor Tensor::mean(const Axes &axes, bool keepdims, SourceLoc loc) const {
  return rlx::mean(*this, axes, keepdims, loc);
}
Tensor Tensor::max(const Axes &axes, bool keepdims, SourceLoc loc) const {
  return rlx::max(*this, axes, keepdims, loc);
}
Tensor Tensor::reshape(const Shape &shape, SourceLoc loc) const {
  return rlx::reshape(*this, shape, loc);
}
Tensor Tensor::transpose(const Axes &permutation, SourceLoc loc) const {
  return rlx::transpose(*this, permutation, loc);
}
Tensor Tensor::T(SourceLoc loc) const {
  if (rank() < 2)
    fail("T", "needs rank 2 or more, got " + type().str(), loc);
  Axes perm(rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[rank() - 1], perm[rank() - 2]);
  return rlx::transpose(*this, perm, loc);
}
Tensor Tensor::cast(DType dtype, SourceLoc loc) const {
  return rlx::cast(*this, dtype, loc);
}
Tensor Tensor::exp(SourceLoc loc) const { return rlx::exp(*this, loc); }
Tensor Tensor::log(SourceLoc loc) const { return rlx::log(*this, loc); }
Tensor Tensor::sqrt(SourceLoc loc) const { return rlx::sqrt(*this, loc); }
Tensor Tensor::tanh(SourceLoc loc) const { return rlx::tanh(*this, loc); }
Tensor Tensor::relu(SourceLoc loc) const { return rlx::relu(*this, loc); }
Tensor Tensor::sigmoid(SourceLoc loc) const { return rlx::sigmoid(*this, loc); }
Tensor Tensor::square(SourceLoc loc) const { return rlx::square(*this, loc); }
Tensor Tensor::softmax(int64_t axis, SourceLoc loc) const {
  return rlx::softmax(*this, axis, loc);
}
Tensor Tensor::log_softmax(int64_t axis, SourceLoc loc) const {
  return rlx::log_softmax(*this, axis, loc);
}

} // namespace rlx
