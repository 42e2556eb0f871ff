//===- CppWrapperTest.cpp - The header-only C++ wrapper -------------------===//

#include "rlx/runtime.hpp"

#include "TestUtil.h"

using namespace rlx::test;

namespace {

class CppWrapperTest : public TempDirTest {};

TEST_F(CppWrapperTest, EndToEnd) {
  rlx::runtime::Artifact artifact =
      rlx::runtime::Artifact::load(RLX_FAKE_ARTIFACT);
  EXPECT_EQ(artifact.target(), "cpu");
  ASSERT_EQ(artifact.entry_points().size(), 6u);
  rlx::runtime::EntryPoint affine = artifact.entry_point("affine");
  ASSERT_EQ(affine.inputs().size(), 1u);
  EXPECT_EQ(affine.inputs()[0].to_string(), "x: f32[?,3]");
  EXPECT_EQ(affine.params()[0].to_string(), "layer.0.weight: f32[3,2]");
  EXPECT_EQ(affine.outputs()[0].to_string(), "y: f32[?,2]");
  EXPECT_EQ(affine.find_input("x"), 0u);
  EXPECT_EQ(artifact.params().size(), 2u);

  rlx::runtime::TensorList weights;
  weights.append("layer.0.weight",
                 rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {3, 2}));
  weights.append("layer.0.bias",
                 rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {2}));
  weights.at("layer.0.bias").data<float>()[1] = 5;
  weights.write_safetensors(path("w.safetensors"));

  rlx::runtime::Session session(artifact);
  session.bind_safetensors(path("w.safetensors"));
  float x[6] = {1, 2, 3, 4, 5, 6};
  rlx::runtime::HostTensor input =
      rlx::runtime::HostTensor::borrow(RLX_DTYPE_F32, {2, 3}, x);
  rlx::runtime::TensorList outputs = session.call("affine", {&input});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs.name(0), "y");
  rlx::runtime::HostTensor y = outputs.at("y");
  EXPECT_EQ(y.type_string(), "f32[2,2]");
  EXPECT_EQ(y.get_f64(3), 5.0);

  y.write_npy(path("y.npy"));
  rlx::runtime::HostTensor back =
      rlx::runtime::HostTensor::read_npy(path("y.npy"));
  EXPECT_EQ(back.dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(back.get_f64(1), 5.0);

  rlx::runtime::HostTensor shared = back.share();
  rlx::runtime::HostTensor moved = std::move(back);
  EXPECT_FALSE(back);
  EXPECT_EQ(moved.get(), shared.get());
}

TEST_F(CppWrapperTest, ErrorsThrowRuntimeError) {
  try {
    rlx::runtime::Artifact::load(path("missing.so"));
    FAIL() << "no exception";
  } catch (const rlx::runtime::RuntimeError &error) {
    EXPECT_EQ(error.code(), RLX_STATUS_NOT_FOUND);
    EXPECT_NE(std::string(error.what()).find("missing.so"), std::string::npos);
  }
  rlx::runtime::Artifact artifact =
      rlx::runtime::Artifact::load(RLX_FAKE_ARTIFACT);
  rlx::runtime::Session session(artifact);
  rlx::runtime::HostTensor x =
      rlx::runtime::HostTensor::allocate(RLX_DTYPE_F32, {1, 3});
  try {
    session.call("affine", {&x});
    FAIL() << "no exception";
  } catch (const rlx::runtime::RuntimeError &error) {
    EXPECT_EQ(error.code(), RLX_STATUS_FAILED_PRECONDITION);
  }
  EXPECT_THROW(artifact.entry_point("nope"), rlx::runtime::RuntimeError);
  rlx::runtime::TensorList empty;
  EXPECT_THROW(empty.at(0), rlx::runtime::RuntimeError);
}

} // namespace
