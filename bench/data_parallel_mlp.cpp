//===- data_parallel_mlp.cpp - Data-parallel Adam step of an MLP ----------===//
///
/// \file
/// Run as one process or under `mpirun -np P`: the MLP 784-512-512-10
/// (ReLU, softmax cross-entropy) with Adam, a global batch of `global`
/// rows (default 128) split over the replicas, trained with
/// make_train_step(..., DataParallel{}) (one bucket: the gradients are one
/// all-reduce of 2.68 MB per step). Prints, on replica 0, the median ms per
/// global step over `steps` steps and, measured apart, the median ms of an
/// all-reduce (pmean) of the gradients' size with the bytes each replica
/// sends and receives in a ring all-reduce, 2 (P-1)/P x size.
/// Usage: [mpirun -np P] rlx-bench-data-parallel [steps] [global]
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median and min ms of `fn` over `count` calls after 5 warm-up calls, on
/// replica 0 (the steps are collective: every replica waits for the
/// slowest, so replica 0's times are the global step's).
template <typename Fn> std::pair<double, double> timeMs(int count, Fn &&fn) {
  for (int i = 0; i < 5; ++i)
    fn();
  std::vector<double> ms;
  for (int i = 0; i < count; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  return {median(ms), *std::min_element(ms.begin(), ms.end())};
}

} // namespace

int main(int argc, char **argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 100;
  int64_t global = argc > 2 ? std::atoll(argv[2]) : 128;
  try {
    auto replicas = std::make_shared<rlx::runtime::Communicator>(
        std::getenv("OMPI_COMM_WORLD_SIZE") ? rlx::runtime::Communicator::mpi()
                                            : rlx::runtime::Communicator::single());
    int P = replicas->size(), rank = replicas->rank();
    if (global % P != 0) {
      std::fprintf(stderr, "global batch %lld does not divide by %d\n",
                   static_cast<long long>(global), P);
      return 2;
    }
    int64_t batch = global / P;
    rlx::Func loss("mlp_loss", [batch](rlx::Scope &s) {
      rlx::Tensor x = s.input("x", {batch, 784});
      rlx::Tensor y = s.input("labels", {batch}, rlx::i32);
      rlx::Tensor h = rlx::relu(rlx::linear(s, "fc1", x, 512));
      h = rlx::relu(rlx::linear(s, "fc2", h, 512));
      return rlx::cross_entropy(rlx::linear(s, "fc3", h, 10), y);
    });
    rlx::DataParallel parallel;
    parallel.communicator = replicas;
    rlx::TrainStep step = rlx::make_train_step(
        loss, rlx::Optimizer::adam(), rlx::Schedule::constant(1e-3), parallel);
    step.jit().init_randn(0, 0.03);
    std::mt19937 rng(1 + rank);
    std::normal_distribution<float> normal;
    std::vector<float> x(batch * 784);
    std::vector<int32_t> labels(batch);
    for (float &v : x)
      v = normal(rng);
    for (int32_t &l : labels)
      l = static_cast<int32_t>(rng() % 10);
    std::map<std::string, rlx::Array> inputs = {
        {"x", rlx::Array::from(x, {batch, 784})},
        {"labels", rlx::Array::from(labels, {batch})}};
    auto [stepMs, stepMin] = timeMs(steps, [&] { step.step(inputs); });

    // The gradients' all-reduce alone: one pmean of as many f32.
    int64_t count = 0;
    for (const std::string &p : loss.param_names())
      count += static_cast<int64_t>(step.param(p).size());
    rlx::Func reduce("grad_allreduce", [count](rlx::Scope &s) {
      return rlx::pmean(s.input("g", {count}), "replicas");
    });
    rlx::Compiled allReduce = reduce.jit(rlx::Device::cpu());
    allReduce.with_communicator(*replicas);
    rlx::Array g = rlx::Array::zeros({count});
    auto [reduceMs, reduceMin] =
        timeMs(steps, [&] { allReduce.run({{"g", g}}); });

    double bytes = 4.0 * double(count);
    double ring = P > 1 ? 2.0 * (P - 1) / P * bytes : 0;
    if (rank == 0)
      std::printf("rlx  P=%d global batch %lld (%lld each): %.3f ms/step "
                  "(min %.3f); all-reduce of %.2f MB: %.3f ms (min %.3f), "
                  "ring moves %.2f MB per replica per step\n",
                  P, static_cast<long long>(global),
                  static_cast<long long>(batch), stepMs, stepMin, bytes / 1e6,
                  reduceMs, reduceMin, ring / 1e6);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rlx-bench-data-parallel: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
