//===- rlx-testdata.cpp - Writes test inputs for the lit tests ------------===//
///
/// \file
/// `rlx-testdata npy FILE DTYPE D0,D1,...` writes a .npy whose element i is
/// (i % 7) - 3 (cast to DTYPE), so lit tests need neither Python nor numpy.
///
//===----------------------------------------------------------------------===//

#include "rlx/runtime.hpp"

#include <cstdio>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
  if (argc != 5 || std::string(argv[1]) != "npy") {
    std::fprintf(stderr, "usage: rlx-testdata npy FILE DTYPE D0,D1,...\n");
    return 2;
  }
  rlx_dtype_t dtype;
  if (rlx_status_t status = rlx_dtype_parse(argv[3], &dtype)) {
    rlx_status_free(status);
    std::fprintf(stderr, "rlx-testdata: unknown dtype '%s'\n", argv[3]);
    return 2;
  }
  std::vector<int64_t> dims;
  std::stringstream list(argv[4]);
  for (std::string item; std::getline(list, item, ',');)
    if (!item.empty())
      dims.push_back(std::stoll(item));
  try {
    rlx::runtime::HostTensor tensor =
        rlx::runtime::HostTensor::allocate(dtype, dims);
    for (size_t i = 0; i < tensor.element_count(); ++i) {
      double v = double(i % 7) - 3.0;
      switch (dtype) {
      case RLX_DTYPE_F32: tensor.data<float>()[i] = float(v); break;
      case RLX_DTYPE_F64: tensor.data<double>()[i] = v; break;
      case RLX_DTYPE_I32: tensor.data<int32_t>()[i] = int32_t(v); break;
      case RLX_DTYPE_I64: tensor.data<int64_t>()[i] = int64_t(v); break;
      case RLX_DTYPE_I8: tensor.data<int8_t>()[i] = int8_t(v); break;
      case RLX_DTYPE_I1: tensor.data<uint8_t>()[i] = v > 0; break;
      case RLX_DTYPE_F16: tensor.data<_Float16>()[i] = _Float16(v); break;
      default:
        // bf16: .npy has no such dtype (write_npy refuses it below).
        break;
      }
    }
    tensor.write_npy(argv[2]);
  } catch (const rlx::runtime::RuntimeError &e) {
    std::fprintf(stderr, "rlx-testdata: %s\n", e.what());
    return 1;
  }
  return 0;
}
