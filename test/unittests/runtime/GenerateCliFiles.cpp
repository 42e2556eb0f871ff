//===- GenerateCliFiles.cpp - Inputs and weights for the rlx-run tests ----===//
//
/// \file
/// `rlx-runtime-testgen DIR [ARTIFACT]` writes the .npy and safetensors
/// files the rlx-run command-line tests use, with the runtime itself, so the
/// tests need neither Python nor numpy; given an artifact, also a truncated
/// and a bit-flipped copy of it.
//
//===----------------------------------------------------------------------===//

#include "rlx/runtime.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>

namespace {

rlx::runtime::HostTensor f32(const std::vector<int64_t> &dims,
                             const std::vector<float> &values) {
  rlx::runtime::HostTensor tensor =
      rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, dims);
  for (size_t i = 0; i < values.size() && i < tensor.element_count(); ++i)
    tensor.data<float>()[i] = values[i];
  return tensor;
}

void writeWeights(const std::string &file, bool extra, bool badShape) {
  rlx::runtime::TensorList weights;
  weights.append("layer.0.weight", f32(badShape ? std::vector<int64_t>{2, 3}
                                                : std::vector<int64_t>{3, 2},
                                       {0.5f, -0.5f, 1.0f, 0.0f, 1.5f, 0.5f}));
  weights.append("layer.0.bias", f32({2}, {0.25f, -1.0f}));
  if (extra)
    weights.append("unused.weight", f32({1}, {0}));
  weights.write_safetensors(file);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: rlx-runtime-testgen DIR [ARTIFACT]\n");
    return 2;
  }
  std::string dir = argv[1];
  if (argc == 3) {
    std::ifstream in(argv[2], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (bytes.size() < 2) {
      std::fprintf(stderr, "rlx-runtime-testgen: cannot read %s\n", argv[2]);
      return 1;
    }
    std::ofstream(dir + "/truncated.so", std::ios::binary)
        << bytes.substr(0, bytes.size() / 2);
    bytes[bytes.size() / 2] ^= 0x10;
    std::ofstream(dir + "/flipped.so", std::ios::binary) << bytes;
  }
  try {
    writeWeights(dir + "/weights.safetensors", false, false);
    writeWeights(dir + "/extra.safetensors", true, false);
    writeWeights(dir + "/bad_shape.safetensors", false, true);
    f32({2, 3}, {1, 2, 3, 4, 5, 6}).write_npy(dir + "/x.npy");
    f32({2, 10}, {}).write_npy(dir + "/x_bad.npy");
    std::vector<float> many(300);
    for (size_t i = 0; i < many.size(); ++i)
      many[i] = static_cast<float>(i) / 3;
    f32({100, 3}, many).write_npy(dir + "/x_big.npy");
    rlx::runtime::HostTensor a =
        rlx::runtime::HostTensor::allocate(RLX_DTYPE_F64, {2, 4});
    for (int i = 0; i < 8; ++i)
      a.data<double>()[i] = i;
    a.write_npy(dir + "/a.npy");
    rlx::runtime::HostTensor scale =
        rlx::runtime::HostTensor::allocate(RLX_DTYPE_I32, {});
    *scale.data<int32_t>() = 2;
    scale.write_npy(dir + "/scale.npy");
    std::ofstream(dir + "/corrupt.npy") << "\x93NUMPY\x01\x00garbage";
    // The fake GPU artifact's param and an input of its `forward`.
    rlx::runtime::TensorList gpuWeights;
    gpuWeights.append("p", f32({4}, {0.25f, -1.0f, 2.0f, 0.5f}));
    gpuWeights.write_safetensors(dir + "/gpu_weights.safetensors");
    f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}).write_npy(dir + "/gpu_x.npy");
  } catch (const rlx::runtime::RuntimeError &error) {
    std::fprintf(stderr, "rlx-runtime-testgen: %s\n", error.what());
    return 1;
  }
  return 0;
}
