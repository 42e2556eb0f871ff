//===- Npy.cpp - The .npy file format -------------------------------------===//
//
/// \file
/// Reads and writes NumPy's .npy format (versions 1.0, 2.0 and 3.0): a magic
/// string, a little-endian header length, a Python dict literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`, then the
/// raw data. The dict is parsed by hand: it is a tiny, fixed grammar, and a
/// corrupt file must fail cleanly rather than reach a general evaluator.
//
//===----------------------------------------------------------------------===//

#include "DType.h"
#include "File.h"
#include "Status.h"
#include "Tensor.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace rlxrt;

namespace {

const char magic[] = "\x93NUMPY";
const size_t magicSize = 6;

/// One value of the header dict.
struct HeaderValue {
  enum Kind { String, Bool, Tuple, Other } kind = Other;
  std::string text;
  bool boolean = false;
  std::vector<int64_t> integers;
};

/// A recursive-descent parser for the header's dict literal.
class HeaderParser {
public:
  HeaderParser(const std::string &path, const std::string &text)
      : path(path), text(text) {}

  std::map<std::string, HeaderValue> parseDict() {
    std::map<std::string, HeaderValue> dict;
    expect('{');
    while (true) {
      skipSpace();
      if (peek() == '}') {
        ++pos;
        break;
      }
      std::string key = parseString();
      expect(':');
      dict[key] = parseValue();
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      expect('}');
      break;
    }
    skipSpace();
    if (pos != text.size())
      error("unexpected text after the header dict");
    return dict;
  }

private:
  [[noreturn]] void error(const std::string &what) {
    fail(RLX_STATUS_DATA_LOSS, "corrupt .npy header in '" + path + "': " +
                                   what + " at offset " + std::to_string(pos));
  }
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\t' || text[pos] == '\r'))
      ++pos;
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c)
      error(std::string("expected '") + c + "'");
    ++pos;
  }
  std::string parseString() {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"')
      error("expected a string");
    size_t end = text.find(quote, pos + 1);
    if (end == std::string::npos)
      error("unterminated string");
    std::string value = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return value;
  }
  int64_t parseInteger() {
    skipSpace();
    size_t start = pos;
    int64_t value = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (value > (INT64_MAX - 9) / 10)
        error("integer too large");
      value = value * 10 + (text[pos] - '0');
      ++pos;
    }
    if (pos == start)
      error("expected a non-negative integer");
    // Python 2 era files may spell integers as `3L`.
    if (peek() == 'L')
      ++pos;
    return value;
  }
  HeaderValue parseValue() {
    skipSpace();
    HeaderValue value;
    char c = peek();
    if (c == '\'' || c == '"') {
      value.kind = HeaderValue::String;
      value.text = parseString();
    } else if (text.compare(pos, 4, "True") == 0) {
      value.kind = HeaderValue::Bool;
      value.boolean = true;
      pos += 4;
    } else if (text.compare(pos, 5, "False") == 0) {
      value.kind = HeaderValue::Bool;
      pos += 5;
    } else if (c == '(') {
      value.kind = HeaderValue::Tuple;
      ++pos;
      while (true) {
        skipSpace();
        if (peek() == ')') {
          ++pos;
          break;
        }
        value.integers.push_back(parseInteger());
        skipSpace();
        if (peek() == ',') {
          ++pos;
          continue;
        }
        expect(')');
        break;
      }
    } else if (c == '[' || c == '{') {
      // A structured dtype's field list: skip it balanced, report it later.
      int depth = 0;
      do {
        char d = peek();
        if (d == '\0')
          error("unterminated list");
        if (d == '[' || d == '{' || d == '(')
          ++depth;
        else if (d == ']' || d == '}' || d == ')')
          --depth;
        ++pos;
      } while (depth > 0);
    } else {
      error("unexpected character");
    }
    return value;
  }

  const std::string &path;
  const std::string &text;
  size_t pos = 0;
};

/// Maps a numpy `descr` to a dtype; throws for anything else.
rlx_dtype_t dtypeFromDescr(const std::string &path, const std::string &descr) {
  auto unsupported = [&](const std::string &why) {
    fail(RLX_STATUS_UNIMPLEMENTED,
         "unsupported .npy dtype '" + descr + "' in '" + path + "'" + why);
  };
  if (descr.size() < 3)
    unsupported("");
  char order = descr[0];
  std::string kind = descr.substr(1);
  if (order == '>' && kind != "b1" && kind != "i1" && kind != "u1")
    unsupported(" (big-endian)");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    unsupported("");
  static const std::pair<const char *, rlx_dtype_t> kinds[] = {
      {"f2", RLX_DTYPE_F16}, {"f4", RLX_DTYPE_F32}, {"f8", RLX_DTYPE_F64},
      {"b1", RLX_DTYPE_I1},  {"i1", RLX_DTYPE_I8},  {"i4", RLX_DTYPE_I32},
      {"i8", RLX_DTYPE_I64}, {"i2", RLX_DTYPE_I16}, {"u1", RLX_DTYPE_UI8},
      {"u2", RLX_DTYPE_UI16}, {"u4", RLX_DTYPE_UI32}, {"u8", RLX_DTYPE_UI64}};
  for (const auto &entry : kinds)
    if (kind == entry.first)
      return entry.second;
  unsupported(" (supported: <f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 |u1 <u2 <u4 "
              "<u8)");
  return RLX_DTYPE_F32;
}

/// The numpy `descr` of a dtype, or null when numpy has none.
const char *descrFromDType(rlx_dtype_t dtype) {
  switch (dtype) {
  case RLX_DTYPE_F16:
    return "<f2";
  case RLX_DTYPE_F32:
    return "<f4";
  case RLX_DTYPE_F64:
    return "<f8";
  case RLX_DTYPE_I1:
    return "|b1";
  case RLX_DTYPE_I8:
    return "|i1";
  case RLX_DTYPE_I32:
    return "<i4";
  case RLX_DTYPE_I64:
    return "<i8";
  case RLX_DTYPE_I16:
    return "<i2";
  case RLX_DTYPE_UI8:
    return "|u1";
  case RLX_DTYPE_UI16:
    return "<u2";
  case RLX_DTYPE_UI32:
    return "<u4";
  case RLX_DTYPE_UI64:
    return "<u8";
  case RLX_DTYPE_BF16:
    return nullptr;
  }
  return nullptr;
}

uint32_t readLittleEndian(const unsigned char *bytes, size_t count) {
  uint32_t value = 0;
  for (size_t i = 0; i < count; ++i)
    value |= static_cast<uint32_t>(bytes[i]) << (8 * i);
  return value;
}

TensorRef readNpy(const std::string &path) {
  std::vector<unsigned char> bytes = readFile(path);
  auto corrupt = [&](const std::string &what) {
    fail(RLX_STATUS_DATA_LOSS,
         "'" + path + "' is not a valid .npy file: " + what);
  };
  if (bytes.empty())
    corrupt("the file is empty");
  if (std::memcmp(bytes.data(), magic, std::min(bytes.size(), magicSize)) != 0)
    corrupt("bad magic string");
  if (bytes.size() < magicSize + 2)
    corrupt("truncated header");
  unsigned major = bytes[magicSize];
  if (major < 1 || major > 3)
    fail(RLX_STATUS_UNIMPLEMENTED,
         "unsupported .npy format version " + std::to_string(major) + "." +
             std::to_string(bytes[magicSize + 1]) + " in '" + path + "'");
  size_t lengthSize = major == 1 ? 2 : 4;
  size_t headerStart = magicSize + 2 + lengthSize;
  if (bytes.size() < headerStart)
    corrupt("truncated header");
  size_t headerLength =
      readLittleEndian(bytes.data() + magicSize + 2, lengthSize);
  if (headerLength > bytes.size() - headerStart)
    corrupt("header length " + std::to_string(headerLength) +
            " exceeds the file size (" + std::to_string(bytes.size()) +
            " bytes)");
  std::string header(reinterpret_cast<const char *>(bytes.data()) + headerStart,
                     headerLength);
  auto dict = HeaderParser(path, header).parseDict();

  auto descr = dict.find("descr");
  auto fortran = dict.find("fortran_order");
  auto shape = dict.find("shape");
  if (descr == dict.end() || fortran == dict.end() || shape == dict.end())
    corrupt("the header lacks 'descr', 'fortran_order' or 'shape'");
  if (descr->second.kind != HeaderValue::String)
    fail(RLX_STATUS_UNIMPLEMENTED,
         "unsupported structured .npy dtype in '" + path + "'");
  if (fortran->second.kind != HeaderValue::Bool)
    corrupt("'fortran_order' is not True or False");
  if (shape->second.kind != HeaderValue::Tuple)
    corrupt("'shape' is not a tuple");
  rlx_dtype_t dtype = dtypeFromDescr(path, descr->second.text);
  const std::vector<int64_t> &dims = shape->second.integers;
  if (fortran->second.boolean && dims.size() > 1)
    fail(RLX_STATUS_UNIMPLEMENTED,
         "'" + path +
             "' is in Fortran order; only C order is supported "
             "(save it with numpy.ascontiguousarray)");

  size_t elementSize = rlx_dtype_size(dtype);
  size_t count = 0;
  try {
    count = checkedElementCount(dims.data(), dims.size(), elementSize);
  } catch (const StatusError &) {
    corrupt("shape " + formatDims(dims) + " is too large");
  }
  size_t dataStart = headerStart + headerLength;
  size_t available = bytes.size() - dataStart;
  size_t expected = count * elementSize;
  if (available < expected)
    fail(RLX_STATUS_DATA_LOSS,
         "'" + path + "' is truncated: " + formatDimsType(dtype, dims) + " needs " +
             std::to_string(expected) + " data bytes, the file has " +
             std::to_string(available));
  if (available > expected)
    corrupt(std::to_string(available - expected) +
            " unexpected bytes after the data");

  TensorRef tensor = allocateTensor(dtype, dims.data(), dims.size());
  if (expected)
    std::memcpy(tensor->data, bytes.data() + dataStart, expected);
  if (dtype == RLX_DTYPE_I1) {
    // numpy bools are 0/1; normalize anything else so compiled code sees i1.
    auto *flags = static_cast<unsigned char *>(tensor->data);
    for (size_t i = 0; i < count; ++i)
      flags[i] = flags[i] != 0;
  }
  return tensor;
}

void writeNpy(const std::string &path, const rlx_tensor_t &tensor) {
  requireHost(tensor, "cannot write '" + path + "'");
  const char *descr = descrFromDType(tensor.dtype);
  if (!descr)
    fail(RLX_STATUS_UNIMPLEMENTED, std::string("cannot write '") + path +
                                       "': numpy has no " +
                                       rlx_dtype_name(tensor.dtype) + " dtype");
  std::string shape = "(";
  for (size_t i = 0; i < tensor.dims.size(); ++i)
    shape += std::to_string(tensor.dims[i]) + ", ";
  if (tensor.dims.size() > 1)
    shape.resize(shape.size() - 2); // (2, 3) but (2,)
  else if (tensor.dims.size() == 1)
    shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // numpy pads the header with spaces so the data starts 64-byte aligned.
  size_t prefixSize = magicSize + 2 + 2;
  size_t total = (prefixSize + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefixSize - header.size() - 1, ' ');
  header += '\n';
  unsigned char prefix[10];
  std::memcpy(prefix, magic, magicSize);
  prefix[6] = 1;
  prefix[7] = 0;
  if (header.size() > 0xffff)
    fail(RLX_STATUS_UNIMPLEMENTED,
         "cannot write '" + path + "': the .npy header is too long");
  prefix[8] = header.size() & 0xff;
  prefix[9] = header.size() >> 8;
  writeFile(path, {{prefix, sizeof(prefix)},
                   {header.data(), header.size()},
                   {tensor.data, tensor.byteSize}});
}

} // namespace

extern "C" {

rlx_status_t rlx_npy_read(const char *path, rlx_tensor_t **out_tensor) {
  return guard([&] {
    requireArg(path, "path");
    requireArg(out_tensor, "out_tensor");
    *out_tensor = readNpy(path).release();
  });
}

rlx_status_t rlx_npy_write(const char *path, const rlx_tensor_t *tensor) {
  return guard([&] {
    requireArg(path, "path");
    requireArg(tensor, "tensor");
    writeNpy(path, *tensor);
  });
}

} // extern "C"
