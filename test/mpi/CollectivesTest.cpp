//===- CollectivesTest.cpp - Collectives on N replicas against references -===//
///
/// \file
/// Run under `mpirun -np N`. Every replica r holds x_r (known to every
/// replica: each computes all of them), so each checks its own results
/// against host loops over all replicas: the forward collectives against
/// closed forms; their gradients, as the compiled per-replica grad computes
/// them (the derivative of the sum over replicas of their losses, JAX's
/// pmap semantics), against f64 central differences of that sum; JVPs
/// against central differences of the replica's output; vmap against a
/// loop of unbatched calls.
///
//===----------------------------------------------------------------------===//

#include "MpiTestUtil.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <functional>

using namespace rlx;
using namespace rlx::mpitest;

namespace {

const std::string kAxis = "replicas";
int N = 1;
runtime::Communicator comm;

/// Replica s's 2x3 input: distinct across replicas and elements.
std::vector<double> xOf(int s) {
  std::vector<double> x(6);
  for (int i = 0; i < 6; ++i)
    x[i] = std::sin(1.0 + i + 7.0 * s);
  return x;
}

/// Replica s's (2N)x3 input for psum_scatter.
std::vector<double> bigOf(int s) {
  std::vector<double> x(6 * N);
  for (int i = 0; i < 6 * N; ++i)
    x[i] = std::cos(0.5 + i + 3.0 * s);
  return x;
}

Array f64(const std::vector<double> &v, const Shape &shape) {
  return Array::from(v, shape, DType::f64);
}

Compiled compile(const Func &f) {
  Compiled c = f.jit(Device::cpu());
  c.with_communicator(comm);
  return c;
}

void forward() {
  Func f("forward", [](Scope &s) {
    Tensor x = s.input("x", {2, 3}, DType::f64);
    Tensor big = s.input("big", {2 * N, 3}, DType::f64);
    return std::vector<Tensor>{
        psum(x, kAxis),          pmean(x, kAxis),
        pmax(x, kAxis),          pmin(x, kAxis),
        all_gather(x, kAxis, 0, N), all_gather(x, kAxis, 1, N),
        psum_scatter(big, kAxis, 0, N), pbroadcast(x, kAxis, N - 1),
        cast(axis_index(s, kAxis), DType::f64)};
  });
  Outputs out = compile(f).run({{"x", f64(xOf(rank), {2, 3})},
                                {"big", f64(bigOf(rank), {2 * N, 3})}});
  std::vector<double> sum(6, 0), mx(6, -1e9), mn(6, 1e9), g0, g1(6 * N),
      scatter(6, 0);
  for (int s = 0; s < N; ++s) {
    std::vector<double> x = xOf(s), big = bigOf(s);
    for (int i = 0; i < 6; ++i) {
      sum[i] += x[i];
      mx[i] = std::max(mx[i], x[i]);
      mn[i] = std::min(mn[i], x[i]);
      scatter[i] += big[rank * 6 + i];
    }
    g0.insert(g0.end(), x.begin(), x.end());
    for (int row = 0; row < 2; ++row)
      for (int col = 0; col < 3; ++col)
        g1[row * 3 * N + s * 3 + col] = x[row * 3 + col];
  }
  std::vector<double> mean(6);
  for (int i = 0; i < 6; ++i)
    mean[i] = sum[i] / N;
  expectNear(toVector(out[0]), sum, 1e-12, 0, "psum");
  expectNear(toVector(out[1]), mean, 1e-12, 0, "pmean");
  expectNear(toVector(out[2]), mx, 0, 0, "pmax");
  expectNear(toVector(out[3]), mn, 0, 0, "pmin");
  expectNear(toVector(out[4]), g0, 0, 0, "all_gather dim 0");
  expectNear(toVector(out[5]), g1, 0, 0, "all_gather dim 1");
  expectNear(toVector(out[6]), scatter, 1e-12, 0, "psum_scatter");
  expectNear(toVector(out[7]), xOf(N - 1), 0, 0, "pbroadcast");
  expectNear(toVector(out[8]), {double(rank)}, 0, 0, "axis_index");
}

/// A per-replica loss L_s(x_s, c_s) and its host twin: the sum over
/// replicas T(x_0, ..., x_{N-1}) = sum_s c_s * reduce(y_s) for the
/// collective's per-replica output y_s.
struct GradCase {
  std::string name;
  /// The collective on x (the traced side).
  std::function<Tensor(Scope &, const Tensor &)> traced;
  /// y_s from every replica's x (the host side).
  std::function<std::vector<double>(const std::vector<std::vector<double>> &,
                                    int)>
      host;
  /// Operand shape.
  Shape shape;
  std::function<std::vector<double>(int)> input;
};

/// Replica s's loss weight, so that replicas' losses differ.
double cOf(int s) { return s + 1.0; }

/// The fixed weights of the loss: sum(w * y^2) over y's elements.
double weight(size_t i) { return 0.5 + 0.25 * double(i % 5); }

double hostLoss(const GradCase &g, const std::vector<std::vector<double>> &xs) {
  double total = 0;
  for (int s = 0; s < N; ++s) {
    std::vector<double> y = g.host(xs, s);
    double l = 0;
    for (size_t i = 0; i < y.size(); ++i)
      l += weight(i) * y[i] * y[i] + 0.3 * y[i];
    total += cOf(s) * l;
  }
  return total;
}

void gradient(const GradCase &g) {
  Func loss(g.name, [&](Scope &s) {
    Tensor x = s.input("x", g.shape, DType::f64);
    Tensor c = s.input("c", {}, DType::f64);
    Tensor y = g.traced(s, x);
    int64_t count = 1;
    for (int64_t d : y.shape())
      count *= d;
    std::vector<double> w(static_cast<size_t>(count));
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = weight(i);
    Tensor wt = s.constant(w, y.shape(), DType::f64);
    return c * sum(wt * y * y + 0.3 * y);
  });
  std::vector<std::vector<double>> xs;
  for (int s = 0; s < N; ++s)
    xs.push_back(g.input(s));
  Outputs out = compile(loss.grad({"x"}))
                    .run({{"x", f64(xs[rank], g.shape)},
                          {"c", Array::scalar(cOf(rank), DType::f64)}});
  std::vector<double> want(xs[rank].size());
  const double eps = 1e-6;
  for (size_t i = 0; i < want.size(); ++i) {
    auto plus = xs, minus = xs;
    plus[rank][i] += eps;
    minus[rank][i] -= eps;
    want[i] = (hostLoss(g, plus) - hostLoss(g, minus)) / (2 * eps);
  }
  expectNear(toVector(out[0]), want, 1e-6, 1e-7, "grad of " + g.name);
}

std::vector<double> hostSum(const std::vector<std::vector<double>> &xs) {
  std::vector<double> y(xs[0].size(), 0);
  for (const auto &x : xs)
    for (size_t i = 0; i < y.size(); ++i)
      y[i] += x[i];
  return y;
}

std::vector<GradCase> gradCases() {
  auto small = [](int s) { return xOf(s); };
  auto big = [](int s) { return bigOf(s); };
  return {
      {"psum", [](Scope &, const Tensor &x) { return psum(x, kAxis); },
       [](const auto &xs, int) { return hostSum(xs); }, {2, 3}, small},
      {"pmean", [](Scope &, const Tensor &x) { return pmean(x, kAxis); },
       [](const auto &xs, int) {
         std::vector<double> y = hostSum(xs);
         for (double &v : y)
           v /= N;
         return y;
       },
       {2, 3}, small},
      {"pmax", [](Scope &, const Tensor &x) { return pmax(x, kAxis); },
       [](const auto &xs, int) {
         std::vector<double> y = xs[0];
         for (const auto &x : xs)
           for (size_t i = 0; i < y.size(); ++i)
             y[i] = std::max(y[i], x[i]);
         return y;
       },
       {2, 3}, small},
      {"all_gather_dim1",
       [](Scope &, const Tensor &x) { return all_gather(x, kAxis, 1, N); },
       [](const auto &xs, int) {
         std::vector<double> y(6 * N);
         for (int s = 0; s < N; ++s)
           for (int row = 0; row < 2; ++row)
             for (int col = 0; col < 3; ++col)
               y[row * 3 * N + s * 3 + col] = xs[s][row * 3 + col];
         return y;
       },
       {2, 3}, small},
      {"psum_scatter",
       [](Scope &, const Tensor &x) { return psum_scatter(x, kAxis, 0, N); },
       [](const auto &xs, int s) {
         std::vector<double> all = hostSum(xs);
         return std::vector<double>(all.begin() + s * 6,
                                    all.begin() + (s + 1) * 6);
       },
       {2 * N, 3}, big},
      {"pbroadcast",
       [](Scope &, const Tensor &x) { return pbroadcast(x, kAxis, N - 1); },
       [](const auto &xs, int) { return xs[N - 1]; }, {2, 3}, small},
  };
}

/// jvp on every replica with tangent t_r; the replica's output tangent
/// against the central difference of its host output along all tangents.
void jvp(const GradCase &g) {
  Func f(g.name + "_fn", [&](Scope &s) {
    return g.traced(s, s.input("x", g.shape, DType::f64));
  });
  std::vector<std::vector<double>> xs, ts;
  for (int s = 0; s < N; ++s) {
    xs.push_back(g.input(s));
    std::vector<double> t(xs.back().size());
    for (size_t i = 0; i < t.size(); ++i)
      t[i] = std::cos(3.0 * i + s);
    ts.push_back(t);
  }
  Outputs out = compile(f.jvp({"x"})).run(
      {{"x", f64(xs[rank], g.shape)}, {"t.x", f64(ts[rank], g.shape)}});
  const double eps = 1e-6;
  auto plus = xs, minus = xs;
  for (int s = 0; s < N; ++s)
    for (size_t i = 0; i < xs[s].size(); ++i) {
      plus[s][i] += eps * ts[s][i];
      minus[s][i] -= eps * ts[s][i];
    }
  std::vector<double> yp = g.host(plus, rank), ym = g.host(minus, rank);
  std::vector<double> want(yp.size());
  for (size_t i = 0; i < want.size(); ++i)
    want[i] = (yp[i] - ym[i]) / (2 * eps);
  expectNear(toVector(out[1]), want, 1e-6, 1e-8, "jvp of " + g.name);
}

/// vmap over a batch of 3 against a loop of unbatched calls (and the host).
void vmap(const GradCase &g) {
  Func f(g.name + "_one", [&](Scope &s) {
    return g.traced(s, s.input("x", g.shape, DType::f64));
  });
  const int64_t batch = 3;
  Shape batched = g.shape;
  batched.insert(batched.begin(), batch);
  std::vector<double> xsBatch;
  std::vector<std::vector<std::vector<double>>> perExample(batch);
  for (int64_t b = 0; b < batch; ++b)
    for (int s = 0; s < N; ++s) {
      std::vector<double> x = g.input(s);
      for (double &v : x)
        v += 0.1 * b;
      perExample[b].push_back(x);
      if (s == rank)
        xsBatch.insert(xsBatch.end(), x.begin(), x.end());
    }
  Outputs mapped =
      compile(f.vmap({0}, {0}, batch)).run({{"x", f64(xsBatch, batched)}});
  Compiled one = compile(f);
  std::vector<double> looped, host;
  for (int64_t b = 0; b < batch; ++b) {
    Outputs o = one.run({{"x", f64(perExample[b][rank], g.shape)}});
    std::vector<double> v = toVector(o[0]);
    looped.insert(looped.end(), v.begin(), v.end());
    std::vector<double> h = g.host(perExample[b], rank);
    host.insert(host.end(), h.begin(), h.end());
  }
  expectNear(toVector(mapped[0]), looped, 0, 0, "vmap of " + g.name +
                                                    " vs a loop");
  expectNear(looped, host, 1e-12, 1e-12, "loop of " + g.name + " vs host");
}

} // namespace

int main() {
  try {
    comm = runtime::Communicator::mpi(120);
    rank = comm.rank();
    N = comm.size();
    // mpirun's replicas on this host share its cores.
    if (!std::getenv("RLX_NUM_THREADS") && N > 1) {
      cpu_set_t set;
      sched_getaffinity(0, sizeof(set), &set);
      int share = std::max(1, CPU_COUNT(&set) / N);
      expect(rlx_get_num_threads() == share,
             "kernel threads " + std::to_string(rlx_get_num_threads()) +
                 ", expected the replica's share " + std::to_string(share));
    }
    forward();
    for (const GradCase &g : gradCases()) {
      gradient(g);
      jvp(g);
    }
    std::vector<GradCase> cases = gradCases();
    vmap(cases[0]); // psum
    vmap(cases[3]); // all_gather along dim 1 (dim 2 once batched)
    vmap(cases[4]); // psum_scatter
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rank %d: FAIL exception: %s\n", rank, e.what());
    ++failures;
  }
  if (rank == 0 && failures == 0)
    std::printf("collectives on %d replicas: ok\n", N);
  return failures ? 1 : 0;
}
