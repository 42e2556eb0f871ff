//===- Safetensors.cpp - The safetensors file format ----------------------===//
//
/// \file
/// Reads (memory-mapped, no copy) and writes safetensors files: an 8-byte
/// little-endian header length N, N bytes of JSON mapping each tensor name to
/// {dtype, shape, data_offsets}, then the data, offsets counted from the end
/// of the header. Every field of a corrupt file is checked before any byte of
/// data is touched, so no input can make the reader leave the mapping.
/// Reading is linear in the header (a file of 160k tensors took 59 s in
/// nlohmann's callback parser and linear lookups), and a
/// tensor whose data is not aligned to its element size (a header length
/// that is not a multiple of 8) is copied rather than handed out misaligned.
//
//===----------------------------------------------------------------------===//

#include "DType.h"
#include "File.h"
#include "Status.h"
#include "Tensor.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <unordered_set>

using namespace rlxrt;
using Json = nlohmann::json;

namespace {

/// The reference implementation's limit; larger is certainly corruption.
const uint64_t maxHeaderSize = 100u << 20;

const std::pair<const char *, rlx_dtype_t> safetensorsDTypes[] = {
    {"F16", RLX_DTYPE_F16},
    {"BF16", RLX_DTYPE_BF16},
    {"F32", RLX_DTYPE_F32},
    {"F64", RLX_DTYPE_F64},
    {"BOOL", RLX_DTYPE_I1},
    {"I8", RLX_DTYPE_I8},
    {"I32", RLX_DTYPE_I32},
    {"I64", RLX_DTYPE_I64},
    {"I16", RLX_DTYPE_I16},
    {"U8", RLX_DTYPE_UI8},
    {"U16", RLX_DTYPE_UI16},
    {"U32", RLX_DTYPE_UI32},
    {"U64", RLX_DTYPE_UI64},
    // safetensors' F8_E4M3 is the finite-with-NaN variant (PyTorch's
    // float8_e4m3fn). Its F6/F4 types pack several codes per byte, unlike
    // rlx's byte per element, so those are not read.
    {"F8_E4M3", RLX_DTYPE_F8E4M3FN},
    {"F8_E5M2", RLX_DTYPE_F8E5M2},
    {"F8_E8M0", RLX_DTYPE_F8E8M0FNU}};

const char *safetensorsName(rlx_dtype_t dtype) {
  for (const auto &entry : safetensorsDTypes)
    if (entry.second == dtype)
      return entry.first;
  return "?";
}

/// A non-negative JSON integer, or false.
bool getUnsigned(const Json &value, uint64_t &result) {
  if (value.is_number_unsigned()) {
    result = value.get<uint64_t>();
    return true;
  }
  if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    result = static_cast<uint64_t>(value.get<int64_t>());
    return true;
  }
  return false;
}

/// The keys of a top-level JSON object in order, and the first one that
/// repeats. A SAX pass: nlohmann's parse callback, used for this before,
/// scans every earlier entry at the end of each one (59 s for 160k).
struct TopLevelKeys : nlohmann::json_sax<Json> {
  std::vector<std::string> inOrder;
  std::string duplicate;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override {
    ++depth;
    return true;
  }
  bool key(string_t &name) override {
    if (depth != 1)
      return true;
    if (seen.insert(name).second)
      inOrder.push_back(name);
    else if (duplicate.empty())
      duplicate = name;
    return true;
  }
  bool end_object() override {
    --depth;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth;
    return true;
  }
  bool end_array() override {
    --depth;
    return true;
  }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &) override {
    return false;
  }

private:
  int depth = 0;
  std::unordered_set<std::string> seen;
};

std::unique_ptr<rlx_tensor_list_s> readSafetensors(const std::string &path) {
  std::shared_ptr<MappedFile> file = mapFile(path);
  auto corrupt = [&](const std::string &what) {
    fail(RLX_STATUS_DATA_LOSS,
         "'" + path + "' is not a valid safetensors file: " + what);
  };
  if (file->size < 8)
    corrupt("only " + std::to_string(file->size) +
            " bytes, shorter than the 8-byte header length");
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = (headerSize << 8) | file->base[i];
  if (headerSize > file->size - 8 || headerSize > maxHeaderSize)
    corrupt("header length " + std::to_string(headerSize) +
            " exceeds the file size (" + std::to_string(file->size) +
            " bytes)");
  const unsigned char *headerBegin = file->base + 8;
  // A JSON object may repeat a key and the parser keeps the last; a file
  // naming one tensor twice is refused instead of read as either. The
  // object is a std::map, so a first pass keeps file order.
  TopLevelKeys keys;
  if (!Json::sax_parse(headerBegin, headerBegin + headerSize, &keys))
    corrupt("the header is not valid JSON");
  Json header = Json::parse(headerBegin, headerBegin + headerSize,
                            /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded())
    corrupt("the header is not valid JSON");
  if (!keys.duplicate.empty())
    corrupt("the header names '" + keys.duplicate + "' twice");
  if (!header.is_object())
    corrupt("the header is not a JSON object");

  const unsigned char *dataBegin = headerBegin + headerSize;
  uint64_t dataSize = file->size - 8 - headerSize;
  auto list = std::make_unique<rlx_tensor_list_s>();
  // Byte ranges of the tensors, to refuse two that share bytes.
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> ranges;
  for (const std::string &name : keys.inOrder) {
    const Json &info = header.at(name);
    if (name == "__metadata__") {
      if (!info.is_object())
        corrupt("'__metadata__' is not an object");
      continue;
    }
    auto bad = [&](const std::string &what) {
      corrupt("tensor '" + name + "': " + what);
    };
    if (!info.is_object())
      bad("entry is not an object");
    auto dtypeField = info.find("dtype");
    if (dtypeField == info.end() || !dtypeField->is_string())
      bad("missing or non-string 'dtype'");
    std::string dtypeName = dtypeField->get<std::string>();
    const rlx_dtype_t *dtype = nullptr;
    for (const auto &entry : safetensorsDTypes)
      if (dtypeName == entry.first)
        dtype = &entry.second;
    if (!dtype)
      fail(RLX_STATUS_UNIMPLEMENTED, "unsupported dtype '" + dtypeName +
                                         "' of tensor '" + name + "' in '" +
                                         path + "'");

    auto shapeField = info.find("shape");
    if (shapeField == info.end() || !shapeField->is_array())
      bad("missing or non-array 'shape'");
    std::vector<int64_t> dims;
    for (const Json &dim : *shapeField) {
      uint64_t size;
      if (!getUnsigned(dim, size) || size > uint64_t(INT64_MAX))
        bad("'shape' holds something other than non-negative integers");
      dims.push_back(static_cast<int64_t>(size));
    }
    size_t elementSize = rlx_dtype_size(*dtype);
    size_t count = 0;
    try {
      count = checkedElementCount(dims.data(), dims.size(), elementSize);
    } catch (const StatusError &) {
      bad("shape " + formatDims(dims) + " is too large");
    }

    auto offsetsField = info.find("data_offsets");
    uint64_t begin = 0, end = 0;
    if (offsetsField == info.end() || !offsetsField->is_array() ||
        offsetsField->size() != 2 || !getUnsigned((*offsetsField)[0], begin) ||
        !getUnsigned((*offsetsField)[1], end))
      bad("'data_offsets' is not a pair of non-negative integers");
    if (begin > end || end > dataSize)
      bad("data_offsets [" + std::to_string(begin) + "," + std::to_string(end) +
          "] out of range of the " + std::to_string(dataSize) + " data bytes");
    if (end - begin != count * elementSize)
      bad("data_offsets [" + std::to_string(begin) + "," + std::to_string(end) +
          "] span " + std::to_string(end - begin) + " bytes but " +
          formatDimsType(*dtype, dims) + " needs " +
          std::to_string(count * elementSize));
    if (end > begin)
      ranges.emplace_back(begin, end, name);
    // The mapping is read-only; the tensor only promises not to be written.
    void *data = const_cast<unsigned char *>(dataBegin + begin);
    // Names are unique: the parse refused a repeated key.
    if (reinterpret_cast<uintptr_t>(data) % elementSize == 0) {
      list->append(name,
                   wrapTensor(*dtype, dims.data(), dims.size(), data, file));
      continue;
    }
    // Misaligned for its elements: an aligned copy, so that no reader of
    // the data (compiled code, a user's float *) loads misaligned.
    TensorRef copy = allocateTensor(*dtype, dims.data(), dims.size());
    std::memcpy(copy->data, data, copy->byteSize);
    list->append(name, std::move(copy));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    const auto &[begin, end, name] = ranges[i];
    const auto &[previousBegin, previousEnd, previousName] = ranges[i - 1];
    if (begin < previousEnd)
      corrupt("tensors '" + previousName + "' [" +
              std::to_string(previousBegin) + "," +
              std::to_string(previousEnd) + "] and '" + name + "' [" +
              std::to_string(begin) + "," + std::to_string(end) +
              "] overlap in the data");
  }
  return list;
}

void writeSafetensors(const std::string &path, const rlx_tensor_list_s &list) {
  // Larger elements first keeps every tensor aligned to its element size
  // once the data start is 8-byte aligned, as the reference writer does.
  std::vector<size_t> order(list.items.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    size_t sizeA = rlx_dtype_size(list.items[a].second->dtype);
    size_t sizeB = rlx_dtype_size(list.items[b].second->dtype);
    return sizeA != sizeB ? sizeA > sizeB : a < b;
  });
  std::vector<uint64_t> begins(order.size());
  uint64_t offset = 0;
  for (size_t i : order) {
    begins[i] = offset;
    offset += list.items[i].second->byteSize;
  }
  // The header object is written entry by entry, in list order (an
  // ordered JSON object would look each name up linearly); the list's names
  // are distinct.
  std::string text = "{";
  for (size_t i = 0; i < list.items.size(); ++i) {
    const rlx_tensor_t &tensor = *list.items[i].second;
    requireHost(tensor, "cannot write '" + path + "': tensor '" +
                            list.items[i].first + "'");
    if (list.items[i].first == "__metadata__")
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "cannot write '" + path + "': '__metadata__' is a reserved name");
    if (std::string(safetensorsName(tensor.dtype)) == "?")
      fail(RLX_STATUS_UNIMPLEMENTED,
           "cannot write '" + path + "': tensor '" + list.items[i].first +
               "' is " + rlx_dtype_name(tensor.dtype) +
               ", which safetensors has no byte-per-element type for");
    nlohmann::ordered_json entry = {
        {"dtype", safetensorsName(tensor.dtype)},
        {"shape", tensor.dims},
        {"data_offsets", {begins[i], begins[i] + tensor.byteSize}}};
    try {
      text += (i ? "," : "") + Json(list.items[i].first).dump() + ":" +
              entry.dump();
    } catch (const nlohmann::json::type_error &) {
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "cannot write '" + path + "': tensor names must be valid UTF-8");
    }
  }
  text += "}";
  text.append((8 - text.size() % 8) % 8, ' ');
  unsigned char prefix[8];
  uint64_t headerSize = text.size();
  for (int i = 0; i < 8; ++i)
    prefix[i] = static_cast<unsigned char>(headerSize >> (8 * i));
  std::vector<Chunk> chunks = {{prefix, 8}, {text.data(), text.size()}};
  for (size_t i : order)
    chunks.push_back(
        {list.items[i].second->data, list.items[i].second->byteSize});
  writeFile(path, chunks);
}

} // namespace

extern "C" {

rlx_status_t rlx_safetensors_read(const char *path,
                                  rlx_tensor_list_t **out_list) {
  return guard([&] {
    requireArg(path, "path");
    requireArg(out_list, "out_list");
    *out_list = readSafetensors(path).release();
  });
}

rlx_status_t rlx_safetensors_write(const char *path,
                                   const rlx_tensor_list_t *list) {
  return guard([&] {
    requireArg(path, "path");
    requireArg(list, "list");
    writeSafetensors(path, *list);
  });
}

} // extern "C"
