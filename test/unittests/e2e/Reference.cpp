//===- Reference.cpp - Double-precision references of the rlx ops ---------===//

#include "Reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rlx::e2e::ref {

namespace {
void require(bool condition, const char *what) {
  if (!condition)
    throw std::logic_error(std::string("reference: ") + what);
}
} // namespace

void forEachIndex(const std::vector<int64_t> &shape,
                  const std::function<void(const std::vector<int64_t> &,
                                           int64_t)> &fn) {
  int64_t n = numElements(shape);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(index, flat);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

int64_t flatten(const std::vector<int64_t> &shape,
                const std::vector<int64_t> &index) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + index[d];
  return flat;
}

std::vector<int64_t>
broadcastShape(const std::vector<std::vector<int64_t>> &shapes) {
  size_t rank = 0;
  for (const auto &s : shapes)
    rank = std::max(rank, s.size());
  std::vector<int64_t> result(rank, 1);
  for (const auto &s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &r = result[rank - s.size() + i];
      if (s[i] == 1)
        continue;
      require(r == 1 || r == s[i], "shapes do not broadcast");
      r = s[i];
    }
  return result;
}

double broadcastRead(const Arr &a, const std::vector<int64_t> &index) {
  size_t offset = index.size() - a.shape.size();
  int64_t flat = 0;
  for (size_t d = 0; d < a.shape.size(); ++d)
    flat = flat * a.shape[d] + (a.shape[d] == 1 ? 0 : index[offset + d]);
  return a.v[flat];
}

Arr map(rlx_dtype_t dtype, const std::vector<const Arr *> &operands,
        const std::function<double(const std::vector<double> &)> &fn) {
  std::vector<std::vector<int64_t>> shapes;
  for (const Arr *a : operands)
    shapes.push_back(a->shape);
  Arr out(dtype, broadcastShape(shapes));
  std::vector<double> args(operands.size());
  forEachIndex(out.shape, [&](const std::vector<int64_t> &index, int64_t i) {
    for (size_t k = 0; k < operands.size(); ++k)
      args[k] = broadcastRead(*operands[k], index);
    out.v[i] = fn(args);
  });
  return out;
}

Arr unary(rlx_dtype_t dtype, const Arr &x,
          const std::function<double(double)> &fn) {
  return map(dtype, {&x}, [&](const std::vector<double> &a) { return fn(a[0]); });
}

Arr binary(rlx_dtype_t dtype, const Arr &a, const Arr &b,
           const std::function<double(double, double)> &fn) {
  return map(dtype, {&a, &b},
             [&](const std::vector<double> &v) { return fn(v[0], v[1]); });
}

double geluTanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
double geluErf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

Arr matmul(const Arr &a, const Arr &b) {
  require(a.shape.size() >= 2 && b.shape.size() >= 2, "matmul rank");
  int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back();
  int64_t k2 = b.shape[b.shape.size() - 2], n = b.shape.back();
  require(k == k2, "matmul K");
  std::vector<int64_t> aBatch(a.shape.begin(), a.shape.end() - 2);
  std::vector<int64_t> bBatch(b.shape.begin(), b.shape.end() - 2);
  std::vector<int64_t> batch = broadcastShape({aBatch, bBatch});
  std::vector<int64_t> outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  Arr out(a.dtype, outShape);
  // Per batch index: the flat offsets of the operand matrices.
  auto matrixOffset = [](const std::vector<int64_t> &opBatch,
                         const std::vector<int64_t> &index, int64_t size) {
    size_t offset = index.size() - opBatch.size();
    int64_t flat = 0;
    for (size_t d = 0; d < opBatch.size(); ++d)
      flat = flat * opBatch[d] + (opBatch[d] == 1 ? 0 : index[offset + d]);
    return flat * size;
  };
  int64_t outMatrix = 0;
  forEachIndex(batch, [&](const std::vector<int64_t> &index, int64_t) {
    int64_t ao = matrixOffset(aBatch, index, m * k);
    int64_t bo = matrixOffset(bBatch, index, k * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += a.v[ao + i * k + p] * b.v[bo + p * n + j];
        out.v[outMatrix + i * n + j] = acc;
      }
    outMatrix += m * n;
  });
  return out;
}

namespace {
int64_t windowExtent(int64_t size, int64_t before, int64_t after,
                     int64_t window, int64_t stride, int64_t dilation) {
  int64_t span = dilation * (window - 1) + 1;
  int64_t padded = size + before + after;
  return padded < span ? 0 : (padded - span) / stride + 1;
}
} // namespace

Arr conv2d(const Arr &x, const Arr &w, std::vector<int64_t> strides,
           std::vector<int64_t> padding, std::vector<int64_t> dilations,
           int64_t groups) {
  int64_t n = x.shape[0], h = x.shape[1], wd = x.shape[2], c = x.shape[3];
  int64_t kh = w.shape[0], kw = w.shape[1], cg = w.shape[2], f = w.shape[3];
  require(c == cg * groups && f % groups == 0, "conv2d channels");
  int64_t fg = f / groups;
  int64_t oh = windowExtent(h, padding[0], padding[1], kh, strides[0],
                            dilations[0]);
  int64_t ow = windowExtent(wd, padding[2], padding[3], kw, strides[1],
                            dilations[1]);
  Arr out(x.dtype, {n, oh, ow, f});
  forEachIndex(out.shape, [&](const std::vector<int64_t> &o, int64_t i) {
    int64_t g = o[3] / fg;
    double acc = 0;
    for (int64_t a = 0; a < kh; ++a)
      for (int64_t b = 0; b < kw; ++b) {
        int64_t y = o[1] * strides[0] + a * dilations[0] - padding[0];
        int64_t z = o[2] * strides[1] + b * dilations[1] - padding[2];
        if (y < 0 || y >= h || z < 0 || z >= wd)
          continue;
        for (int64_t ci = 0; ci < cg; ++ci)
          acc += x.v[flatten(x.shape, {o[0], y, z, g * cg + ci})] *
                 w.v[flatten(w.shape, {a, b, ci, o[3]})];
      }
    out.v[i] = acc;
  });
  return out;
}

namespace {
Arr pool(const Arr &x, const std::vector<int64_t> &window,
         const std::vector<int64_t> &strides,
         const std::vector<int64_t> &padding, bool isMax) {
  int64_t n = x.shape[0], h = x.shape[1], wd = x.shape[2], c = x.shape[3];
  int64_t oh = windowExtent(h, padding[0], padding[1], window[0], strides[0], 1);
  int64_t ow = windowExtent(wd, padding[2], padding[3], window[1], strides[1], 1);
  Arr out(x.dtype, {n, oh, ow, c});
  forEachIndex(out.shape, [&](const std::vector<int64_t> &o, int64_t i) {
    double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    for (int64_t a = 0; a < window[0]; ++a)
      for (int64_t b = 0; b < window[1]; ++b) {
        int64_t y = o[1] * strides[0] + a - padding[0];
        int64_t z = o[2] * strides[1] + b - padding[2];
        if (y < 0 || y >= h || z < 0 || z >= wd)
          continue; // a padded zero: never the max, adds nothing to the sum
        double v = x.v[flatten(x.shape, {o[0], y, z, o[3]})];
        acc = isMax ? std::max(acc, v) : acc + v;
      }
    out.v[i] = isMax ? acc : acc / static_cast<double>(window[0] * window[1]);
  });
  return out;
}
} // namespace

Arr maxPool2d(const Arr &x, std::vector<int64_t> window,
              std::vector<int64_t> strides, std::vector<int64_t> padding) {
  return pool(x, window, strides, padding, true);
}
Arr avgPool2d(const Arr &x, std::vector<int64_t> window,
              std::vector<int64_t> strides, std::vector<int64_t> padding) {
  return pool(x, window, strides, padding, false);
}

Arr reduce(const Arr &x, std::vector<int64_t> axes, bool keepdims,
           Reduce kind) {
  std::vector<bool> reduced(x.shape.size(), false);
  for (int64_t a : axes)
    reduced[a] = true;
  std::vector<int64_t> keptShape; // x's shape with reduced dims as 1
  std::vector<int64_t> outShape;
  int64_t count = 1;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    keptShape.push_back(reduced[d] ? 1 : x.shape[d]);
    if (reduced[d])
      count *= x.shape[d];
    if (!reduced[d])
      outShape.push_back(x.shape[d]);
    else if (keepdims)
      outShape.push_back(1);
  }
  Arr out(x.dtype, outShape);
  double init = kind == Reduce::Max ? -std::numeric_limits<double>::infinity()
                                    : 0.0;
  std::fill(out.v.begin(), out.v.end(), init);
  forEachIndex(x.shape, [&](const std::vector<int64_t> &index, int64_t i) {
    std::vector<int64_t> kept = index;
    for (size_t d = 0; d < kept.size(); ++d)
      if (reduced[d])
        kept[d] = 0;
    double &acc = out.v[flatten(keptShape, kept)];
    acc = kind == Reduce::Max ? std::max(acc, x.v[i]) : acc + x.v[i];
  });
  if (kind == Reduce::Mean)
    for (double &v : out.v)
      v /= static_cast<double>(count);
  return out;
}

Arr softmax(const Arr &x, int64_t axis, bool log) {
  Arr out(x.dtype, x.shape);
  Arr m = reduce(x, {axis}, true, Reduce::Max);
  Arr shifted = binary(x.dtype, x, m, [](double a, double b) { return a - b; });
  Arr e = unary(x.dtype, shifted, [](double a) { return std::exp(a); });
  Arr s = reduce(e, {axis}, true, Reduce::Sum);
  if (log)
    return binary(x.dtype, shifted, s,
                  [](double a, double b) { return a - std::log(b); });
  return binary(x.dtype, e, s, [](double a, double b) { return a / b; });
}

Arr reshape(const Arr &x, std::vector<int64_t> shape) {
  require(numElements(shape) == x.numel(), "reshape count");
  Arr out = x;
  out.shape = shape;
  return out;
}

Arr transpose(const Arr &x, std::vector<int64_t> permutation) {
  std::vector<int64_t> shape;
  for (int64_t p : permutation)
    shape.push_back(x.shape[p]);
  Arr out(x.dtype, shape);
  std::vector<int64_t> from(x.shape.size());
  forEachIndex(shape, [&](const std::vector<int64_t> &index, int64_t i) {
    for (size_t d = 0; d < permutation.size(); ++d)
      from[permutation[d]] = index[d];
    out.v[i] = x.v[flatten(x.shape, from)];
  });
  return out;
}

Arr broadcastInDim(const Arr &x, std::vector<int64_t> shape,
                   std::vector<int64_t> dims) {
  Arr out(x.dtype, shape);
  std::vector<int64_t> from(x.shape.size());
  forEachIndex(shape, [&](const std::vector<int64_t> &index, int64_t i) {
    for (size_t d = 0; d < dims.size(); ++d)
      from[d] = x.shape[d] == 1 ? 0 : index[dims[d]];
    out.v[i] = x.v[flatten(x.shape, from)];
  });
  return out;
}

Arr slice(const Arr &x, std::vector<int64_t> start, std::vector<int64_t> limit,
          std::vector<int64_t> strides) {
  std::vector<int64_t> shape;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (limit[d] == -1)
      limit[d] = x.shape[d];
    shape.push_back((limit[d] - start[d] + strides[d] - 1) / strides[d]);
  }
  Arr out(x.dtype, shape);
  std::vector<int64_t> from(x.shape.size());
  forEachIndex(shape, [&](const std::vector<int64_t> &index, int64_t i) {
    for (size_t d = 0; d < index.size(); ++d)
      from[d] = start[d] + index[d] * strides[d];
    out.v[i] = x.v[flatten(x.shape, from)];
  });
  return out;
}

Arr pad(const Arr &x, const Arr &value, std::vector<int64_t> low,
        std::vector<int64_t> high, std::vector<int64_t> interior) {
  std::vector<int64_t> shape;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    int64_t size = x.shape[d];
    shape.push_back(low[d] + size + (size > 0 ? (size - 1) * interior[d] : 0) +
                    high[d]);
  }
  Arr out(x.dtype, shape);
  for (double &e : out.v)
    e = value.v.at(0);
  std::vector<int64_t> to(x.shape.size());
  forEachIndex(x.shape, [&](const std::vector<int64_t> &index, int64_t i) {
    for (size_t d = 0; d < index.size(); ++d)
      to[d] = low[d] + index[d] * (interior[d] + 1);
    out.v[flatten(shape, to)] = x.v[i];
  });
  return out;
}

Arr concat(const std::vector<const Arr *> &xs, int64_t axis) {
  std::vector<int64_t> shape = xs[0]->shape;
  shape[axis] = 0;
  for (const Arr *x : xs)
    shape[axis] += x->shape[axis];
  Arr out(xs[0]->dtype, shape);
  forEachIndex(shape, [&](const std::vector<int64_t> &index, int64_t i) {
    std::vector<int64_t> from = index;
    for (const Arr *x : xs) {
      if (from[axis] < x->shape[axis]) {
        out.v[i] = x->v[flatten(x->shape, from)];
        return;
      }
      from[axis] -= x->shape[axis];
    }
  });
  return out;
}

Arr gather(const Arr &x, const Arr &indices, int64_t axis) {
  std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), x.shape.begin() + axis + 1, x.shape.end());
  Arr out(x.dtype, shape);
  size_t ir = indices.shape.size();
  forEachIndex(shape, [&](const std::vector<int64_t> &index, int64_t i) {
    std::vector<int64_t> at(index.begin() + axis,
                            index.begin() + axis + ir);
    int64_t k = static_cast<int64_t>(indices.v[flatten(indices.shape, at)]);
    k = std::clamp<int64_t>(k, 0, x.shape[axis] - 1);
    std::vector<int64_t> from(index.begin(), index.begin() + axis);
    from.push_back(k);
    from.insert(from.end(), index.begin() + axis + ir, index.end());
    out.v[i] = x.v[flatten(x.shape, from)];
  });
  return out;
}

Arr cast(const Arr &x, rlx_dtype_t to) {
  return unary(to, x, [&](double v) { return roundTo(to, v); });
}

double roundToFormat(double x, int mantissaBits, int minExponent,
                     double maxFinite, bool saturate, bool infinity) {
  if (std::isnan(x) || x == 0)
    return x;
  int exponent;
  std::frexp(x, &exponent); // |x| = f * 2^exponent, f in [0.5, 1)
  int ulpExponent = std::max(exponent - 1, minExponent) - mantissaBits;
  double rounded =
      std::ldexp(std::nearbyint(std::ldexp(x, -ulpExponent)), ulpExponent);
  if (std::fabs(rounded) <= maxFinite)
    return rounded;
  if (saturate)
    return std::copysign(maxFinite, x);
  return infinity ? std::copysign(INFINITY, x) : NAN;
}

} // namespace rlx::e2e::ref
