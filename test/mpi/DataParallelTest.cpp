//===- DataParallelTest.cpp - N replicas train like one big batch ---------===//
///
/// \file
/// Run under `mpirun -np N`. Replica r trains an MLP with
/// make_train_step(..., DataParallel{}) on rows [r*B, (r+1)*B) of each
/// step's global batch of N*B rows; every replica also trains the plain
/// step on all N*B rows, alone. After 20 steps (SGD with momentum, then
/// Adam) the data-parallel params equal the single-process ones within
/// 1e-5 relative, and are bit-identical across replicas (their bytes agree
/// by digest). Replicas other than 0 start from other params: the first
/// step's broadcast from replica 0 must replace them.
///
//===----------------------------------------------------------------------===//

#include "MpiTestUtil.h"

#include <cstring>

using namespace rlx;
using namespace rlx::mpitest;

namespace {

const int64_t kBatch = 4; // per replica
const int kSteps = 20;

Func model() {
  return Func("mlp", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 6});
    Tensor y = s.input("y", {dyn, 3});
    return mse(linear(s, "out", tanh(linear(s, "hidden", x, 8)), 3), y);
  });
}

/// Rows [first, first + count) of the data set.
std::map<std::string, Array> rows(int64_t first, int64_t count) {
  std::vector<float> x, y;
  for (int64_t k = first; k < first + count; ++k) {
    for (int j = 0; j < 6; ++j)
      x.push_back(static_cast<float>(std::sin(0.37 * double(k) + 1.3 * j)));
    for (int j = 0; j < 3; ++j)
      y.push_back(static_cast<float>(std::cos(0.11 * double(k) * (j + 1))));
  }
  return {{"x", Array::from(x, {count, 6})}, {"y", Array::from(y, {count, 3})}};
}

void trainsLikeOneBatch(const std::string &name,
                        const optim::GradientTransformation &optimizer,
                        const runtime::Communicator &comm) {
  int N = comm.size();
  Func loss = model();
  DataParallel parallel;
  parallel.communicator = std::make_shared<runtime::Communicator>(comm.share());
  parallel.bucket_bytes = 64; // several buckets even for this small MLP
  TrainStep dp = make_train_step(loss, optimizer, Schedule::constant(0.05),
                                 parallel);
  dp.jit().init_randn(7 + static_cast<uint64_t>(rank));
  TrainStep single = make_train_step(loss, optimizer, Schedule::constant(0.05));
  single.jit().init_randn(7);
  expect(dp.replicas() == N && dp.replica() == rank,
         name + ": replica " + std::to_string(dp.replica()) + " of " +
             std::to_string(dp.replicas()));
  for (int t = 0; t < kSteps; ++t) {
    int64_t first = int64_t(t) * N * kBatch;
    double dpLoss = dp.step(rows(first + rank * kBatch, kBatch));
    double oneLoss = single.step(rows(first, N * kBatch));
    expectNear({dpLoss}, {oneLoss}, 1e-5, 1e-7,
               name + ": loss of step " + std::to_string(t + 1));
  }
  std::string bytes;
  for (const std::string &p : loss.param_names()) {
    Array got = dp.param(p), want = single.param(p);
    expectNear(toVector(got), toVector(want), 1e-5, 1e-6,
               name + ": param '" + p + "' after " + std::to_string(kSteps) +
                   " steps");
    bytes.append(static_cast<const char *>(got.host().data()),
                 got.host().byte_size());
  }
  try {
    comm.check_agreement(bytes, name + " params");
  } catch (const runtime::RuntimeError &e) {
    expect(false, name + ": replicas differ: " + e.what());
  }
}

} // namespace

int main() {
  try {
    runtime::Communicator comm = runtime::Communicator::mpi(120);
    rank = comm.rank();
    trainsLikeOneBatch("sgd", Optimizer::sgd(0.9), comm);
    trainsLikeOneBatch("adam", Optimizer::adam(), comm);
    if (rank == 0 && failures == 0)
      std::printf("data parallel on %d replicas: ok\n", comm.size());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rank %d: FAIL exception: %s\n", rank, e.what());
    ++failures;
  }
  return failures ? 1 : 0;
}
