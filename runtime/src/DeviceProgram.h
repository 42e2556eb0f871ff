//===- DeviceProgram.h - An artifact's GPU modules on a device --*- C++ -*-===//
//
/// \file
/// The modules of a GPU artifact (its `rlx_artifact_device_binaries`, one
/// or more records per module) loaded on one device, each on the first
/// launch of one of its kernels: a session that calls one entry point never
/// compiles the others' pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_DEVICEPROGRAM_H
#define RLX_RUNTIME_SRC_DEVICEPROGRAM_H

#include "Device.h"

#include <map>
#include <mutex>

namespace rlxrt {

class DeviceProgram {
public:
  /// `binaries` must outlive the program (they are the artifact's).
  DeviceProgram(std::shared_ptr<Device> device,
                const std::vector<DeviceBinary> &binaries);
  DeviceProgram(const DeviceProgram &) = delete;
  DeviceProgram &operator=(const DeviceProgram &) = delete;

  Device &device() const { return *device_; }
  const std::shared_ptr<Device> &sharedDevice() const { return device_; }

  /// Module `name`, loaded now if it was not. Throws INTERNAL when the
  /// artifact has no such module, else as Device::loadModule. Thread-safe.
  DeviceModule &module(const std::string &name);

private:
  std::shared_ptr<Device> device_;
  std::map<std::string, std::vector<const DeviceBinary *>> records;
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<DeviceModule>> loaded;
};

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_DEVICEPROGRAM_H
