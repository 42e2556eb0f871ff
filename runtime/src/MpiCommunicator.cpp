//===- MpiCommunicator.cpp - The MPI world through librlx-mpi.so ----------===//
///
/// \file
/// librlxrt never links MPI: the first MPI communicator dlopens the shim
/// librlx-mpi.so (runtime/mpi/RlxMpiShim.cpp, linked with libmpi), found
/// through RLX_MPI_SHIM or beside librlxrt itself, so that the runtime and
/// artifacts load on machines without MPI and only asking for MPI fails
/// there ("MPI is not available: ..."). MPI is process-wide: one shim,
/// initialized once, finalized when the last MPI communicator goes (MPI
/// cannot be initialized again in the same process).
///
//===----------------------------------------------------------------------===//

#include "Communicator.h"
#include "MpiShim.h"
#include "Status.h"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>

#include <cstdlib>
#include <mutex>

using namespace rlxrt;

namespace {

/// The shim: loaded and initialized by the first MPI communicator.
struct MpiWorld {
  std::mutex mutex;
  const rlx_mpi_shim_t *shim = nullptr;
  int communicators = 0;
  bool finalized = false;
  int32_t rank = 0, size = 1;
  std::string library;
};

MpiWorld &world() {
  static MpiWorld *instance = new MpiWorld(); // outlives static destructors
  return *instance;
}

/// Where the shim is: RLX_MPI_SHIM, else the folder of librlxrt.
std::string shimPath() {
  if (const char *path = std::getenv("RLX_MPI_SHIM"))
    if (*path)
      return path;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&shimPath), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos)
      return self.substr(0, slash + 1) + "librlx-mpi.so";
  }
  return "librlx-mpi.so";
}

const rlx_mpi_shim_t *loadShim() {
  std::string path = shimPath();
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    const char *why = dlerror();
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "MPI is not available: " + std::string(why ? why : path) +
             " (install Open MPI: apt-get install openmpi-bin "
             "libopenmpi-dev; or set RLX_MPI_SHIM to librlx-mpi.so)");
  }
  auto get = reinterpret_cast<rlx_mpi_shim_fn_t>(
      dlsym(library, RLX_MPI_SHIM_SYMBOL));
  const rlx_mpi_shim_t *shim = get ? get() : nullptr;
  if (!shim || shim->version != RLX_MPI_SHIM_VERSION)
    fail(RLX_STATUS_FAILED_PRECONDITION,
         "'" + path + "' is not an rlx MPI shim of version " +
             std::to_string(RLX_MPI_SHIM_VERSION));
  return shim;
}

/// Replicas started by mpirun on one host share its cores: unless
/// RLX_NUM_THREADS chose, each takes its share of the cores it may run on
/// (all of them each, the default, would run N x cores threads). Under
/// `mpirun --bind-to core` that is the one core it is bound to.
void shareCores() {
  if (std::getenv("RLX_NUM_THREADS"))
    return;
  int local = 0;
  for (const char *var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char *value = std::getenv(var))
      local = std::atoi(value);
  if (local <= 1)
    return;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return;
  rlx_set_num_threads(std::max(1, CPU_COUNT(&set) / local));
}

/// Throws the shim's failure as a status: UNAVAILABLE for a timeout or a
/// failed peer (the communicator is broken), INVALID_ARGUMENT otherwise.
void check(int code, const char *error) {
  if (code == 0)
    return;
  fail(code == 2 ? RLX_STATUS_UNAVAILABLE : RLX_STATUS_INVALID_ARGUMENT,
       std::string("MPI: ") + error);
}

class MpiCommunicator final : public Communicator {
public:
  explicit MpiCommunicator(double timeout) : timeout(timeout) {
    MpiWorld &w = world();
    std::lock_guard<std::mutex> lock(w.mutex);
    if (w.finalized)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           "MPI was finalized when the last MPI communicator of this process "
           "was released; it cannot start again");
    if (!w.shim) {
      const rlx_mpi_shim_t *shim = loadShim();
      const char *library = "";
      check(shim->initialize(&w.rank, &w.size, &library, error, sizeof(error)),
            error);
      w.shim = shim;
      w.library = library;
      shareCores();
    }
    ++w.communicators;
    shim = w.shim;
    description_ = "mpi (" + w.library + ")";
  }

  ~MpiCommunicator() override {
    MpiWorld &w = world();
    std::lock_guard<std::mutex> lock(w.mutex);
    if (--w.communicators == 0) {
      w.shim->finalize();
      w.finalized = true;
    }
  }

  int32_t rank() const override { return world().rank; }
  int32_t size() const override { return world().size; }
  const std::string &description() const override { return description_; }

  void allReduce(const void *in, void *out, int64_t count, rlx_dtype_t dtype,
                 ReduceKind kind) override {
    // Mean is a sum here; the caller divides.
    int32_t op = kind == ReduceKind::Max   ? 2
                 : kind == ReduceKind::Min ? 3
                                           : 0;
    check(shim->all_reduce(in, out, count, dtype, op, timeout, error,
                           sizeof(error)),
          error);
  }
  void allGather(const void *in, void *out, int64_t blockBytes) override {
    check(shim->all_gather(in, out, blockBytes, timeout, error, sizeof(error)),
          error);
  }
  void reduceScatter(const void *in, void *out, int64_t blockCount,
                     rlx_dtype_t dtype) override {
    check(shim->reduce_scatter(in, out, blockCount, dtype, timeout, error,
                               sizeof(error)),
          error);
  }
  void broadcast(void *buffer, int64_t bytes, int32_t root) override {
    check(shim->broadcast(buffer, bytes, root, timeout, error, sizeof(error)),
          error);
  }

private:
  const rlx_mpi_shim_t *shim = nullptr;
  double timeout;
  std::string description_;
  char error[512] = "";
};

} // namespace

std::unique_ptr<Communicator> rlxrt::createMpiCommunicator(double timeout) {
  return std::make_unique<MpiCommunicator>(timeout);
}
