//===- DeviceTensor.cpp - Tensors in device memory ------------------------===//
//
/// \file
/// Copies between host tensors and device tensors, outside any call.
//
//===----------------------------------------------------------------------===//

#include "Status.h"
#include "Tensor.h"

using namespace rlxrt;

TensorRef rlxrt::uploadTensor(const std::shared_ptr<Device> &device,
                            const rlx_tensor_t &host) {
  requireHost(host, "cannot copy a tensor to the device");
  auto buffer =
      std::make_shared<DeviceBuffer>(device, device->allocate(host.byteSize));
  std::unique_ptr<DeviceQueue> queue = device->createQueue();
  queue->upload(buffer->address, host.data, host.byteSize);
  queue->synchronize();
  uint64_t address = buffer->address;
  return wrapDeviceTensor(host.dtype, host.dims.data(), host.dims.size(),
                          std::move(buffer), address);
}

TensorRef rlxrt::downloadTensor(const rlx_tensor_t &tensor) {
  TensorRef host =
      allocateTensor(tensor.dtype, tensor.dims.data(), tensor.dims.size());
  std::unique_ptr<DeviceQueue> queue =
      tensor.deviceBuffer->device->createQueue();
  queue->download(host->data, tensor.deviceAddress, tensor.byteSize);
  return host;
}

extern "C" {

rlx_device_t rlx_tensor_device(const rlx_tensor_t *tensor) {
  return tensor->device();
}

rlx_status_t rlx_tensor_to_host(rlx_tensor_t *tensor,
                                rlx_tensor_t **out_tensor) {
  return guard([&] {
    requireArg(tensor, "tensor");
    requireArg(out_tensor, "out_tensor");
    *out_tensor = tensor->deviceBuffer ? downloadTensor(*tensor).release()
                                       : TensorRef::retain(tensor).release();
  });
}

} // extern "C"
