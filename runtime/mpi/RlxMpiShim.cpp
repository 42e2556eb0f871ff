//===- RlxMpiShim.cpp - librlx-mpi.so: MPI behind a plain C table ---------===//
///
/// \file
/// The only code of rlx compiled against mpi.h (runtime/src/MpiShim.h says
/// why). Collectives are MPI's non-blocking ones, polled with MPI_Test
/// until done or until the timeout passes, so that a replica that died or
/// hangs makes the others fail with a message instead of waiting forever.
/// Sums are reduce-scatter then all-gather: each block is reduced once, by
/// its owner, and every replica receives the same bits (MPI_Allreduce may
/// reduce in a different order on each replica).
///
//===----------------------------------------------------------------------===//

#include "MpiShim.h"

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

/// Whether `initialize` started MPI (and `finalize` should end it).
bool startedMpi = false;
/// Collectives abandoned by a timeout. MPI_Finalize would wait for them
/// forever if a peer died: `finalize` gives them a moment to finish (a late
/// peer), and otherwise leaves MPI unfinalized (mpirun then reports that the
/// process exited without finalizing and ends the job).
std::vector<MPI_Request> abandoned;
char libraryVersion[MPI_MAX_LIBRARY_VERSION_STRING] = "";

/// rlx_dtype_t values (rlx/runtime.h), spelled here so that the shim needs
/// nothing but mpi.h.
enum : int32_t { F16 = 0, BF16 = 1, F32 = 2, F64 = 3, I1 = 4, I8 = 5,
                 I32 = 6, I64 = 7 };

/// How long a wait spins on MPI_Test before it sleeps between tests: MPI's
/// non-blocking collectives advance only inside MPI calls, so sleeping
/// early stretches every round of a large all-reduce; spinning for long
/// takes the core from replicas that share it (more replicas than cores).
constexpr double kSpinSeconds = 0.005;

/// Elements per MPI call: MPI counts are `int`.
constexpr int64_t kChunk = int64_t(1) << 30;

int report(char *error, size_t size, int code, const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(error, size, format, args);
  va_end(args);
  return code;
}

int mpiFailure(int rc, const char *what, char *error, size_t size) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS)
    std::snprintf(text, sizeof(text), "MPI error %d", rc);
  // A process failure in MPI surfaces as an error of the call.
  return report(error, size, 2, "%s failed: %s", what, text);
}

MPI_Datatype reduceType(int32_t dtype) {
  switch (dtype) {
  case F32:
    return MPI_FLOAT;
  case F64:
    return MPI_DOUBLE;
  case I1:
    return MPI_UINT8_T;
  case I8:
    return MPI_INT8_T;
  case I32:
    return MPI_INT32_T;
  case I64:
    return MPI_INT64_T;
  default:
    return MPI_DATATYPE_NULL;
  }
}

const char *dtypeName(int32_t dtype) {
  static const char *const names[] = {"f16", "bf16", "f32", "f64",
                                      "i1",  "i8",   "i32", "i64"};
  return dtype >= 0 && dtype < 8 ? names[dtype] : "an unknown type";
}

int64_t elementSize(int32_t dtype) {
  switch (dtype) {
  case F16:
  case BF16:
    return 2;
  case F32:
  case I32:
    return 4;
  case F64:
  case I64:
    return 8;
  default:
    return 1;
  }
}

/// Waits for `request`: spins on MPI_Test for a while (a step's
/// collectives are short), then sleeps between tests so that a replica
/// waiting for a slow one leaves it the core.
int wait(MPI_Request *request, double timeout, const char *what, char *error,
         size_t size) {
  auto start = std::chrono::steady_clock::now();
  for (int spins = 0;; ++spins) {
    int done = 0;
    int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, what, error, size);
    if (done)
      return 0;
    if (spins % 64 != 63)
      continue;
    // Leaves the core to another runnable process (a replica or anything
    // else sharing it) without giving up the low latency of spinning.
    sched_yield();
    double waited = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    if (timeout > 0 && waited > timeout) {
      abandoned.push_back(*request);
      return report(error, size, 2,
                    "%s timed out after %g s waiting for the other "
                    "replicas (one died, hangs, or issued a different "
                    "collective)",
                    what, timeout);
    }
    if (waited > kSpinSeconds)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

int initialize(int32_t *rank, int32_t *size, const char **library,
               char *error, size_t errorSize) {
  int finalized = 0, initialized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return report(error, errorSize, 1,
                  "MPI was already finalized in this process");
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED,
                             &provided);
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, "MPI_Init_thread", error, errorSize);
    startedMpi = true;
  }
  // Errors come back as codes (and become statuses), never abort the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int r = 0, s = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  *rank = r;
  *size = s;
  int length = 0;
  MPI_Get_library_version(libraryVersion, &length);
  // The version text runs over several lines in Open MPI: keep the first.
  for (char &c : libraryVersion)
    if (c == '\n' || c == ',')
      c = '\0';
  *library = libraryVersion;
  return 0;
}

void finalize() {
  if (!startedMpi)
    return;
  startedMpi = false;
  auto start = std::chrono::steady_clock::now();
  while (!abandoned.empty()) {
    int done = 0;
    if (MPI_Testall(static_cast<int>(abandoned.size()), abandoned.data(),
                    &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return;
    if (done)
      break;
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5))
      return; // a peer is gone: finalizing would hang
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  MPI_Finalize();
}

int allReduce(const void *in, void *out, int64_t count, int32_t dtype,
              int32_t op, double timeout, char *error, size_t errorSize) {
  MPI_Datatype type = reduceType(dtype);
  if (type == MPI_DATATYPE_NULL)
    return report(error, errorSize, 1,
                  "all_reduce of %s is not supported (f32, f64, i1, i8, i32, "
                  "i64 are)",
                  dtypeName(dtype));
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int64_t bytes = elementSize(dtype);
  const char *src = static_cast<const char *>(in);
  char *dst = static_cast<char *>(out);
  for (int64_t offset = 0; offset < count; offset += kChunk) {
    int64_t n = std::min(kChunk, count - offset);
    MPI_Request request;
    if (op != 0) {
      MPI_Op mpiOp = op == 2 ? MPI_MAX : MPI_MIN;
      int rc = MPI_Iallreduce(src + offset * bytes, dst + offset * bytes,
                              static_cast<int>(n), type, mpiOp,
                              MPI_COMM_WORLD, &request);
      if (rc != MPI_SUCCESS)
        return mpiFailure(rc, "all_reduce", error, errorSize);
      if (int failed = wait(&request, timeout, "all_reduce", error, errorSize))
        return failed;
      continue;
    }
    std::vector<int> counts(size), displs(size);
    for (int r = 0, at = 0; r < size; ++r) {
      counts[r] = static_cast<int>(n / size + (r < n % size ? 1 : 0));
      displs[r] = at;
      at += counts[r];
    }
    char *mine = dst + (offset + displs[rank]) * bytes;
    int rc = MPI_Ireduce_scatter(src + offset * bytes, mine, counts.data(),
                                 type, MPI_SUM, MPI_COMM_WORLD, &request);
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, "all_reduce (reduce-scatter)", error, errorSize);
    if (int failed = wait(&request, timeout, "all_reduce (reduce-scatter)",
                          error, errorSize))
      return failed;
    rc = MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                         dst + offset * bytes, counts.data(), displs.data(),
                         type, MPI_COMM_WORLD, &request);
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, "all_reduce (all-gather)", error, errorSize);
    if (int failed = wait(&request, timeout, "all_reduce (all-gather)", error,
                          errorSize))
      return failed;
  }
  return 0;
}

int allGather(const void *in, void *out, int64_t blockBytes, double timeout,
              char *error, size_t errorSize) {
  if (blockBytes > INT_MAX)
    return report(error, errorSize, 1,
                  "all_gather of %lld bytes per replica: at most %d are "
                  "supported",
                  static_cast<long long>(blockBytes), INT_MAX);
  MPI_Request request;
  int rc = MPI_Iallgather(in, static_cast<int>(blockBytes), MPI_BYTE, out,
                          static_cast<int>(blockBytes), MPI_BYTE,
                          MPI_COMM_WORLD, &request);
  if (rc != MPI_SUCCESS)
    return mpiFailure(rc, "all_gather", error, errorSize);
  return wait(&request, timeout, "all_gather", error, errorSize);
}

int reduceScatter(const void *in, void *out, int64_t blockCount,
                  int32_t dtype, double timeout, char *error,
                  size_t errorSize) {
  MPI_Datatype type = reduceType(dtype);
  if (type == MPI_DATATYPE_NULL)
    return report(error, errorSize, 1,
                  "reduce_scatter of %s is not supported (f32, f64, i1, i8, "
                  "i32, i64 are)",
                  dtypeName(dtype));
  if (blockCount > INT_MAX)
    return report(error, errorSize, 1,
                  "reduce_scatter of %lld elements per replica: at most %d "
                  "are supported",
                  static_cast<long long>(blockCount), INT_MAX);
  MPI_Request request;
  int rc = MPI_Ireduce_scatter_block(in, out, static_cast<int>(blockCount),
                                     type, MPI_SUM, MPI_COMM_WORLD, &request);
  if (rc != MPI_SUCCESS)
    return mpiFailure(rc, "reduce_scatter", error, errorSize);
  return wait(&request, timeout, "reduce_scatter", error, errorSize);
}

int broadcast(void *buffer, int64_t bytes, int32_t root, double timeout,
              char *error, size_t errorSize) {
  char *data = static_cast<char *>(buffer);
  for (int64_t offset = 0; offset < bytes; offset += kChunk) {
    int64_t n = std::min(kChunk, bytes - offset);
    MPI_Request request;
    int rc = MPI_Ibcast(data + offset, static_cast<int>(n), MPI_BYTE, root,
                        MPI_COMM_WORLD, &request);
    if (rc != MPI_SUCCESS)
      return mpiFailure(rc, "broadcast", error, errorSize);
    if (int failed = wait(&request, timeout, "broadcast", error, errorSize))
      return failed;
  }
  return 0;
}

const rlx_mpi_shim_t shim = {RLX_MPI_SHIM_VERSION, initialize, finalize,
                             allReduce,            allGather,  reduceScatter,
                             broadcast};

} // namespace

extern "C" __attribute__((visibility("default"))) const rlx_mpi_shim_t *
rlx_mpi_shim(void) {
  return &shim;
}
