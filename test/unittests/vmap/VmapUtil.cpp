//===- VmapUtil.cpp - Plumbing of the rlx vmap tests ----------------------===//

#include "VmapUtil.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <sstream>
#include <stdexcept>

namespace rlx::vmap {


std::string TensorType::str() const {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return s + element + ">";
}

TensorType TensorType::withDim(int64_t axis, int64_t size) const {
  TensorType t = *this;
  t.shape.insert(t.shape.begin() + axis, size);
  return t;
}

namespace {

/// Every `tensor<...>` in `text`, parsed.
std::vector<TensorType> tensorTypesIn(const std::string &text) {
  std::vector<TensorType> types;
  for (size_t at = text.find("tensor<"); at != std::string::npos;
       at = text.find("tensor<", at + 1)) {
    size_t begin = at + 7, end = text.find('>', begin);
    if (end == std::string::npos)
      throw std::runtime_error("unterminated tensor type in: " + text);
    std::string body = text.substr(begin, end - begin);
    TensorType t;
    std::stringstream parts(body);
    std::vector<std::string> tokens;
    for (std::string token; std::getline(parts, token, 'x');)
      tokens.push_back(token);
    t.element = tokens.back();
    tokens.pop_back();
    for (const std::string &d : tokens) {
      if (d == "?") {
        t.shape.push_back(-1);
        continue;
      }
      if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error("not a shape: tensor<" + body + ">");
      t.shape.push_back(std::stoll(d));
    }
    types.push_back(t);
  }
  return types;
}

size_t matchingParen(const std::string &text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(')
      ++depth;
    else if (text[i] == ')' && --depth == 0)
      return i;
  }
  throw std::runtime_error("unbalanced parentheses");
}

} // namespace

Signature parseSignature(const std::string &text, const std::string &name) {
  std::string needle = "@" + name + "(";
  size_t at = std::string::npos;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + 1)) {
    size_t lineStart = text.rfind('\n', pos);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    if (text.compare(lineStart, 10, "func.func ") == 0) {
      at = pos;
      break;
    }
  }
  if (at == std::string::npos)
    throw std::runtime_error("no func.func @" + name + " in the text");
  size_t open = at + needle.size() - 1;
  size_t close = matchingParen(text, open);
  Signature sig;
  sig.args = tensorTypesIn(text.substr(open, close - open + 1));
  size_t arrow = text.find("->", close);
  if (arrow == std::string::npos)
    throw std::runtime_error("@" + name + " returns nothing");
  size_t next = text.find_first_not_of(" \n", arrow + 2);
  if (text[next] == '(') {
    size_t end = matchingParen(text, next);
    sig.results = tensorTypesIn(text.substr(next, end - next + 1));
  } else {
    size_t end = text.find('{', next);
    sig.results = tensorTypesIn(text.substr(next, end - next));
  }
  return sig;
}

std::string Axes::str() const {
  std::string s = "in_axes = [";
  for (size_t i = 0; i < in.size(); ++i)
    s += (i ? ", " : "") + (in[i] ? std::to_string(*in[i]) : "unit");
  s += "], out_axes = array<i64: ";
  for (size_t i = 0; i < out.size(); ++i)
    s += (i ? ", " : "") + std::to_string(out[i]);
  return s + ">";
}

int64_t normalize(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

std::vector<TensorType> batchedArgs(const Signature &sig, const Axes &axes,
                                    int64_t n) {
  std::vector<TensorType> types;
  for (size_t i = 0; i < sig.args.size(); ++i)
    types.push_back(axes.in[i] ? sig.args[i].withDim(
                                     normalize(*axes.in[i], sig.args[i].rank() + 1), n)
                               : sig.args[i]);
  return types;
}

std::vector<TensorType> batchedResults(const Signature &sig, const Axes &axes,
                                       int64_t n) {
  std::vector<TensorType> types;
  for (size_t i = 0; i < sig.results.size(); ++i)
    types.push_back(sig.results[i].withDim(
        normalize(axes.out[i], sig.results[i].rank() + 1), n));
  return types;
}

std::string vmapWrapper(const std::string &wrapper, const std::string &callee,
                        const Signature &sig, const Axes &axes, int64_t n) {
  std::vector<TensorType> args = batchedArgs(sig, axes, n);
  std::vector<TensorType> results = batchedResults(sig, axes, n);
  auto join = [](const std::vector<TensorType> &types) {
    std::string s;
    for (size_t i = 0; i < types.size(); ++i)
      s += (i ? ", " : "") + types[i].str();
    return s;
  };
  std::string params, operands;
  for (size_t i = 0; i < args.size(); ++i) {
    params += (i ? ", " : "") + std::string("%a") + std::to_string(i) + ": " +
              args[i].str();
    operands += (i ? ", " : "") + std::string("%a") + std::to_string(i);
  }
  std::string resultList = results.size() == 1 ? join(results)
                                               : "(" + join(results) + ")";
  std::string lhs = "%r", uses = "%r";
  if (results.size() > 1) {
    lhs = "%r:" + std::to_string(results.size());
    uses.clear();
    for (size_t i = 0; i < results.size(); ++i)
      uses += (i ? ", " : "") + std::string("%r#") + std::to_string(i);
  }
  return "func.func @" + wrapper + "(" + params + ") -> " + resultList +
         " {\n  " + lhs + " = rlx.vmap @" + callee + "(" + operands + ") {" +
         axes.str() + "} : (" + join(args) + ") -> " + resultList +
         "\n  return " + uses + " : " + join(results) + "\n}\n";
}

Arr takeAlong(const Arr &a, int64_t axis, int64_t k) {
  std::vector<int64_t> shape = a.shape;
  int64_t outer = 1, inner = 1, size = shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  shape.erase(shape.begin() + axis);
  Arr r(a.dtype, shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      r.v[o * inner + i] = a.v[(o * size + k) * inner + i];
  return r;
}

::testing::AssertionResult close(const Arr &expected, const Arr &got,
                                 double relTol) {
  if (expected.dtype != got.dtype)
    return ::testing::AssertionFailure()
           << "dtype " << e2e::mlirTypeName(got.dtype) << ", expected "
           << e2e::mlirTypeName(expected.dtype);
  if (expected.shape != got.shape)
    return ::testing::AssertionFailure()
           << "shape " << e2e::shapeString(got.shape) << ", expected "
           << e2e::shapeString(expected.shape);
  bool exact = !e2e::is_float(expected.dtype);
  int bad = 0;
  std::ostringstream detail;
  detail.precision(17);
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double e = expected.v[i], g = got.v[i];
    bool ok = (std::isnan(e) && std::isnan(g)) || e == g ||
              (!exact && std::fabs(g - e) <= relTol * std::max(std::fabs(e), 1.0));
    if (!ok && bad++ < 5)
      detail << "\n  [" << i << "] got " << g << ", loop gives " << e
             << " (diff " << g - e << ")";
  }
  if (bad)
    return ::testing::AssertionFailure()
           << bad << " of " << expected.numel() << " elements differ"
           << (exact ? " (exact compare)" : "") << detail.str();
  return ::testing::AssertionSuccess();
}

double tightTolerance(rlx_dtype_t dtype) {
  switch (dtype) {
  case RLX_DTYPE_F64:
    return 1e-12;
  case RLX_DTYPE_F32:
    return 1e-5;
  default:
    return 0;
  }
}

} // namespace rlx::vmap
