//===- CallLog.cpp - RLX_DEBUG=ops: each call's tensors on stderr ---------===//

#include "CallLog.h"
#include "DType.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace rlxrt {

bool callLogEnabled() {
  static const bool enabled = [] {
    const char *setting = std::getenv("RLX_DEBUG");
    if (!setting)
      return false;
    std::stringstream list(setting);
    for (std::string item; std::getline(list, item, ',');)
      if (item == "ops")
        return true;
    return false;
  }();
  return enabled;
}

/// ` min=.. max=..` of the finite elements, then the count of each kind of
/// non-finite one that occurs.
static std::string summary(const rlx_tensor_t &tensor) {
  if (tensor.device() != RLX_DEVICE_CPU)
    return " (on the device)";
  if (tensor.elementCount == 0)
    return " (empty)";
  double lo = INFINITY, hi = -INFINITY;
  size_t nans = 0, posInfs = 0, negInfs = 0;
  for (size_t i = 0; i < tensor.elementCount; ++i) {
    double v = 0;
    if (rlx_status_t status = rlx_tensor_get_f64(&tensor, i, &v)) {
      rlx_status_free(status);
      return "";
    }
    if (std::isnan(v))
      ++nans;
    else if (std::isinf(v))
      ++(v > 0 ? posInfs : negInfs);
    else {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  std::ostringstream os;
  os.precision(6);
  if (lo <= hi)
    os << " min=" << lo << " max=" << hi;
  if (nans)
    os << " nan=" << nans;
  if (posInfs)
    os << " +inf=" << posInfs;
  if (negInfs)
    os << " -inf=" << negInfs;
  return os.str();
}

void logCallTensors(const std::string &entry, const char *kind,
                    const std::vector<std::string> &names,
                    const rlx_tensor_t *const *tensors, size_t count) {
  std::string text;
  for (size_t i = 0; i < count; ++i)
    text += "rlx: " + entry + ": " + kind + " " + names[i] + " " +
            formatDimsType(tensors[i]->dtype, tensors[i]->dims) +
            summary(*tensors[i]) + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

} // namespace rlxrt
