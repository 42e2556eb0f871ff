//===- Tensor.cpp - Host tensors and named tensor lists -------------------===//
//
/// \file
/// rlx_tensor_t and rlx_tensor_list_t.
//
//===----------------------------------------------------------------------===//

#include "Tensor.h"
#include "DType.h"
#include "Status.h"

#include <cstdlib>
#include <cstring>

using namespace rlxrt;

static void freeData(void *, void *data) { std::free(data); }

static void checkDims(const int64_t *dims, size_t rank) {
  if (rank > 0 && !dims)
    fail(RLX_STATUS_INVALID_ARGUMENT, "dims must not be NULL when rank > 0");
}

/// A tensor with dtype and dims set and no data yet.
static std::unique_ptr<rlx_tensor_s>
newTensor(const rlx_dtype_t &unchecked, const int64_t *dims, size_t rank) {
  rlx_dtype_t dtype = checkedDType(unchecked);
  checkDims(dims, rank);
  auto tensor = std::make_unique<rlx_tensor_s>();
  tensor->dtype = dtype;
  tensor->dims.assign(dims, dims + rank);
  tensor->elementCount = checkedElementCount(dims, rank, rlx_dtype_size(dtype));
  tensor->byteSize = tensor->elementCount * rlx_dtype_size(dtype);
  return tensor;
}

namespace rlxrt {

TensorRef allocateTensor(rlx_dtype_t dtype, const int64_t *dims, size_t rank) {
  auto tensor = newTensor(dtype, dims, rank);
  // Round up: aligned_alloc wants a multiple of the alignment, and a
  // zero-byte tensor still gets a valid, unique pointer.
  size_t bytes = (tensor->byteSize + 63) / 64 * 64;
  if (bytes == 0)
    bytes = 64;
  void *data = std::aligned_alloc(64, bytes);
  if (!data)
    fail(RLX_STATUS_RESOURCE_EXHAUSTED,
         "cannot allocate " + std::to_string(tensor->byteSize) +
             " bytes for a " + formatDimsType(dtype, dims, rank) + " tensor");
  std::memset(data, 0, bytes);
  tensor->data = data;
  tensor->releaseFn = freeData;
  return TensorRef(tensor.release());
}

TensorRef wrapTensor(rlx_dtype_t dtype, const int64_t *dims, size_t rank,
                     void *data, std::shared_ptr<const void> keepAlive) {
  auto tensor = newTensor(dtype, dims, rank);
  tensor->data = data;
  tensor->keepAlive = std::move(keepAlive);
  return TensorRef(tensor.release());
}

TensorRef wrapDeviceTensor(rlx_dtype_t dtype, const int64_t *dims, size_t rank,
                           std::shared_ptr<DeviceBuffer> buffer,
                           uint64_t address) {
  auto tensor = newTensor(dtype, dims, rank);
  tensor->deviceBuffer = std::move(buffer);
  tensor->deviceAddress = address;
  return TensorRef(tensor.release());
}

void requireHost(const rlx_tensor_t &tensor, const std::string &what) {
  if (tensor.deviceBuffer)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         what + ": the " + formatDimsType(tensor.dtype, tensor.dims) +
             " tensor is in " + deviceName(tensor.device()) +
             " device memory (copy it with rlx_tensor_to_host)");
}

} // namespace rlxrt

long rlx_tensor_list_s::find(const std::string &name) const {
  auto it = indexByName.find(name);
  return it == indexByName.end() ? -1 : static_cast<long>(it->second);
}

void rlx_tensor_list_s::append(std::string name, TensorRef tensor) {
  if (!indexByName.try_emplace(name, items.size()).second)
    fail(RLX_STATUS_INVALID_ARGUMENT, "duplicate tensor name '" + name + "'");
  items.emplace_back(std::move(name), std::move(tensor));
}

extern "C" {

rlx_status_t rlx_tensor_allocate(rlx_dtype_t dtype, size_t rank,
                                 const int64_t *dims,
                                 rlx_tensor_t **out_tensor) {
  return guard([&] {
    requireArg(out_tensor, "out_tensor");
    *out_tensor = allocateTensor(checkedDType(dtype), dims, rank).release();
  });
}

rlx_status_t rlx_tensor_wrap(rlx_dtype_t dtype, size_t rank,
                             const int64_t *dims, void *data,
                             rlx_release_fn_t release_fn,
                             void *release_user_data,
                             rlx_tensor_t **out_tensor) {
  return guard([&] {
    requireArg(out_tensor, "out_tensor");
    auto tensor = newTensor(dtype, dims, rank);
    if (!data && tensor->byteSize > 0)
      fail(RLX_STATUS_INVALID_ARGUMENT,
           "data must not be NULL for a non-empty tensor");
    tensor->data = data;
    tensor->releaseFn = release_fn;
    tensor->releaseUserData = release_user_data;
    *out_tensor = tensor.release();
  });
}

void rlx_tensor_retain(rlx_tensor_t *tensor) {
  if (tensor)
    tensor->refCount.fetch_add(1, std::memory_order_relaxed);
}

void rlx_tensor_release(rlx_tensor_t *tensor) {
  if (tensor && tensor->refCount.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete tensor;
}

rlx_dtype_t rlx_tensor_dtype(const rlx_tensor_t *tensor) {
  return tensor->dtype;
}

size_t rlx_tensor_rank(const rlx_tensor_t *tensor) {
  return tensor->dims.size();
}

const int64_t *rlx_tensor_dims(const rlx_tensor_t *tensor) {
  return tensor->dims.empty() ? nullptr : tensor->dims.data();
}

size_t rlx_tensor_element_count(const rlx_tensor_t *tensor) {
  return tensor->elementCount;
}

size_t rlx_tensor_byte_size(const rlx_tensor_t *tensor) {
  return tensor->byteSize;
}

void *rlx_tensor_data(const rlx_tensor_t *tensor) { return tensor->data; }

rlx_status_t rlx_tensor_get_f64(const rlx_tensor_t *tensor, size_t index,
                                double *out_value) {
  return guard([&] {
    requireArg(tensor, "tensor");
    requireArg(out_value, "out_value");
    requireHost(*tensor, "cannot read an element");
    if (index >= tensor->elementCount)
      fail(RLX_STATUS_OUT_OF_RANGE,
           "element index " + std::to_string(index) + " out of range for " +
               formatDimsType(tensor->dtype, tensor->dims));
    const char *bytes = static_cast<const char *>(tensor->data) +
                        index * rlx_dtype_size(tensor->dtype);
    auto load = [&](auto zero) {
      decltype(zero) value;
      std::memcpy(&value, bytes, sizeof(value));
      return value;
    };
    switch (tensor->dtype) {
    case RLX_DTYPE_F16:
      *out_value = halfToDouble(load(uint16_t()));
      break;
    case RLX_DTYPE_BF16:
      *out_value = bfloat16ToDouble(load(uint16_t()));
      break;
    case RLX_DTYPE_F32:
      *out_value = load(float());
      break;
    case RLX_DTYPE_F64:
      *out_value = load(double());
      break;
    case RLX_DTYPE_I1:
      *out_value = load(uint8_t()) ? 1.0 : 0.0;
      break;
    case RLX_DTYPE_I8:
      *out_value = load(int8_t());
      break;
    case RLX_DTYPE_I32:
      *out_value = load(int32_t());
      break;
    case RLX_DTYPE_I64:
      *out_value = static_cast<double>(load(int64_t()));
      break;
    case RLX_DTYPE_I16:
      *out_value = load(int16_t());
      break;
    case RLX_DTYPE_UI8:
      *out_value = load(uint8_t());
      break;
    case RLX_DTYPE_UI16:
      *out_value = load(uint16_t());
      break;
    case RLX_DTYPE_UI32:
      *out_value = load(uint32_t());
      break;
    case RLX_DTYPE_UI64:
      *out_value = static_cast<double>(load(uint64_t()));
      break;
    default:
      *out_value = narrowFloatToDouble(tensor->dtype, load(uint8_t()));
      break;
    }
  });
}

rlx_status_t rlx_tensor_list_create(rlx_tensor_list_t **out_list) {
  return guard([&] {
    requireArg(out_list, "out_list");
    *out_list = new rlx_tensor_list_s();
  });
}

void rlx_tensor_list_free(rlx_tensor_list_t *list) { delete list; }

rlx_status_t rlx_tensor_list_append(rlx_tensor_list_t *list, const char *name,
                                    rlx_tensor_t *tensor) {
  return guard([&] {
    requireArg(list, "list");
    requireArg(name, "name");
    requireArg(tensor, "tensor");
    list->append(name, TensorRef::retain(tensor));
  });
}

size_t rlx_tensor_list_size(const rlx_tensor_list_t *list) {
  return list ? list->items.size() : 0;
}

const char *rlx_tensor_list_name(const rlx_tensor_list_t *list, size_t index) {
  if (!list || index >= list->items.size())
    return nullptr;
  return list->items[index].first.c_str();
}

rlx_tensor_t *rlx_tensor_list_get(const rlx_tensor_list_t *list, size_t index) {
  if (!list || index >= list->items.size())
    return nullptr;
  return list->items[index].second.get();
}

rlx_status_t rlx_tensor_list_find(const rlx_tensor_list_t *list,
                                  const char *name, size_t *out_index) {
  return guard([&] {
    requireArg(list, "list");
    requireArg(name, "name");
    requireArg(out_index, "out_index");
    long index = list->find(name);
    if (index < 0)
      fail(RLX_STATUS_NOT_FOUND,
           std::string("no tensor named '") + name + "' in the list");
    *out_index = static_cast<size_t>(index);
  });
}

} // extern "C"
