//===- DeviceProgram.cpp - An artifact's GPU modules on a device ----------===//

#include "DeviceProgram.h"
#include "Status.h"

using namespace rlxrt;

DeviceProgram::DeviceProgram(std::shared_ptr<Device> device,
                             const std::vector<DeviceBinary> &binaries)
    : device_(std::move(device)) {
  for (const DeviceBinary &binary : binaries)
    records[binary.module].push_back(&binary);
}

DeviceModule &DeviceProgram::module(const std::string &name) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(name);
  if (it != loaded.end())
    return *it->second;
  auto found = records.find(name);
  if (found == records.end()) {
    std::string names;
    for (const auto &entry : records)
      names += (names.empty() ? "'" : ", '") + entry.first + "'";
    fail(RLX_STATUS_INTERNAL,
         "the artifact has no GPU module '" + name +
             "' (modules: " + (names.empty() ? "none" : names) + ")");
  }
  std::unique_ptr<DeviceModule> module =
      device_->loadModule(name, found->second);
  return *loaded.emplace(name, std::move(module)).first->second;
}
