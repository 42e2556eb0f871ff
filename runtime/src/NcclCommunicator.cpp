//===- NcclCommunicator.cpp - Replicas on CUDA devices through NCCL -------===//
///
/// \file
/// NCCL and the CUDA driver are dlopen'ed (libnccl.so.2, or RLX_NCCL_LIBRARY;
/// libcuda.so.1), with the few types and functions used declared here (no
/// nccl.h, no cuda.h), so librlxrt builds and loads without them and asking
/// for NCCL without them is a status: "NCCL is not available: ...", or,
/// NCCL loaded, "NCCL 2.x.y loaded, but no CUDA device (...)".
///
/// One replica per process, each on one device (replica r takes device
/// r % count); the processes find each other through a bootstrap
/// communicator (MPI's world, or one replica alone), which carries NCCL's
/// unique id from replica 0. Collectives reach it with host buffers (the
/// CPU artifacts' hook): they are staged through device buffers and run on
/// one stream, which the call waits for. NCCL's ring algorithms reduce each
/// chunk once and copy it to the others, so the replicas' results are
/// bit-identical. NCCL's calls block: no timeout applies.
///
//===----------------------------------------------------------------------===//

#include "Communicator.h"
#include "DriverLibrary.h"
#include "Status.h"

#include <cstdlib>
#include <cstring>
#include <utility>

using namespace rlxrt;

namespace {

// NCCL's types (nccl.h), as far as they are used.
using ncclResult_t = int;
using ncclComm_t = void *;
struct ncclUniqueId {
  char internal[128];
};
enum : int { ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclInt64 = 4,
             ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8,
             ncclBfloat16 = 9 };
enum : int { ncclSum = 0, ncclMax = 2, ncclMin = 3 };

// The driver's (cuda.h).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUstream = void *;

#define RLX_NCCL_FUNCTIONS(X)                                                  \
  X(ncclGetVersion, "ncclGetVersion", ncclResult_t (*)(int *))                 \
  X(ncclGetUniqueId, "ncclGetUniqueId", ncclResult_t (*)(ncclUniqueId *))      \
  X(ncclCommInitRank, "ncclCommInitRank",                                      \
    ncclResult_t (*)(ncclComm_t *, int, ncclUniqueId, int))                    \
  X(ncclCommDestroy, "ncclCommDestroy", ncclResult_t (*)(ncclComm_t))          \
  X(ncclGetErrorString, "ncclGetErrorString", const char *(*)(ncclResult_t))   \
  X(ncclAllReduce, "ncclAllReduce",                                            \
    ncclResult_t (*)(const void *, void *, size_t, int, int, ncclComm_t,       \
                     CUstream))                                                \
  X(ncclAllGather, "ncclAllGather",                                            \
    ncclResult_t (*)(const void *, void *, size_t, int, ncclComm_t, CUstream)) \
  X(ncclReduceScatter, "ncclReduceScatter",                                    \
    ncclResult_t (*)(const void *, void *, size_t, int, int, ncclComm_t,       \
                     CUstream))                                                \
  X(ncclBroadcast, "ncclBroadcast",                                            \
    ncclResult_t (*)(const void *, void *, size_t, int, int, ncclComm_t,       \
                     CUstream))

#define RLX_NCCL_CUDA_FUNCTIONS(X)                                             \
  X(cuInit, "cuInit", CUresult (*)(unsigned))                                  \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult (*)(int *))                 \
  X(cuDeviceGet, "cuDeviceGet", CUresult (*)(CUdevice *, int))                 \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult (*)(char *, int, CUdevice))   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                      \
    CUresult (*)(CUcontext *, CUdevice))                                       \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",                 \
    CUresult (*)(CUdevice))                                                    \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", CUresult (*)(CUcontext))          \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", CUresult (*)(CUcontext *))          \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr *, size_t))          \
  X(cuMemFree, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                      \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2",                                           \
    CUresult (*)(CUdeviceptr, const void *, size_t))                           \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2",                                           \
    CUresult (*)(void *, CUdeviceptr, size_t))                                 \
  X(cuStreamCreate, "cuStreamCreate", CUresult (*)(CUstream *, unsigned))      \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult (*)(CUstream))             \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult (*)(CUstream))        \
  X(cuGetErrorString, "cuGetErrorString", CUresult (*)(CUresult, const char **))

template <typename T> using Function = T;

struct NcclApi {
#define RLX_DECLARE(member, symbol, type) Function<type> member = nullptr;
  RLX_NCCL_FUNCTIONS(RLX_DECLARE)
  RLX_NCCL_CUDA_FUNCTIONS(RLX_DECLARE)
#undef RLX_DECLARE
};

int ncclType(rlx_dtype_t dtype) {
  const std::pair<rlx_dtype_t, int> types[] = {
      {RLX_DTYPE_F16, ncclFloat16}, {RLX_DTYPE_BF16, ncclBfloat16},
      {RLX_DTYPE_F32, ncclFloat32}, {RLX_DTYPE_F64, ncclFloat64},
      {RLX_DTYPE_I1, ncclUint8},    {RLX_DTYPE_I8, ncclInt8},
      {RLX_DTYPE_I32, ncclInt32},   {RLX_DTYPE_I64, ncclInt64}};
  for (auto [rlx, nccl] : types)
    if (rlx == dtype)
      return nccl;
  fail(RLX_STATUS_UNIMPLEMENTED, std::string("NCCL: element type ") +
                                     rlx_dtype_name(dtype) +
                                     " is not supported");
}

class NcclCommunicator final : public Communicator {
public:
  NcclCommunicator(rlx_communicator_t &bootstrap) {
    loadNccl();
    loadDriver();
    rank_ = bootstrap.impl->rank();
    size_ = bootstrap.impl->size();
    int count = 0;
    checkCuda(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count < 1)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           version + " loaded, but no CUDA device (cuDeviceGetCount: 0)");
    checkCuda(api.cuDeviceGet(&device, rank_ % count), "cuDeviceGet");
    char name[256] = "";
    api.cuDeviceGetName(name, sizeof(name), device);
    checkCuda(api.cuDevicePrimaryCtxRetain(&context, device),
              "cuDevicePrimaryCtxRetain");
    Current current(*this);
    checkCuda(api.cuStreamCreate(&stream, 0), "cuStreamCreate");
    ncclUniqueId id;
    std::memset(&id, 0, sizeof(id));
    if (rank_ == 0)
      checkNccl(api.ncclGetUniqueId(&id), "ncclGetUniqueId");
    {
      std::lock_guard<std::mutex> lock(bootstrap.mutex);
      bootstrap.impl->broadcast(&id, sizeof(id), 0);
    }
    checkNccl(api.ncclCommInitRank(&comm, size_, id, rank_),
              "ncclCommInitRank");
    description_ = version + " on CUDA device " +
                   std::to_string(rank_ % count) + " (" + name + ")";
  }

  ~NcclCommunicator() override {
    if (!context)
      return;
    Current current(*this);
    if (comm)
      api.ncclCommDestroy(comm);
    for (CUdeviceptr buffer : {in, out})
      if (buffer)
        api.cuMemFree(buffer);
    if (stream)
      api.cuStreamDestroy(stream);
    current.release();
    api.cuDevicePrimaryCtxRelease(device);
  }

  int32_t rank() const override { return rank_; }
  int32_t size() const override { return size_; }
  const std::string &description() const override { return description_; }

  void allReduce(const void *src, void *dst, int64_t count, rlx_dtype_t dtype,
                 ReduceKind kind) override {
    size_t bytes = size_t(count) * rlx_dtype_size(dtype);
    Current current(*this);
    stage(src, bytes, bytes);
    int op = kind == ReduceKind::Max   ? ncclMax
             : kind == ReduceKind::Min ? ncclMin
                                       : ncclSum;
    checkNccl(api.ncclAllReduce(reinterpret_cast<void *>(in),
                                reinterpret_cast<void *>(out), size_t(count),
                                ncclType(dtype), op, comm, stream),
              "ncclAllReduce");
    finish(dst, bytes);
  }
  void allGather(const void *src, void *dst, int64_t blockBytes) override {
    Current current(*this);
    stage(src, size_t(blockBytes), size_t(blockBytes) * size_);
    checkNccl(api.ncclAllGather(reinterpret_cast<void *>(in),
                                reinterpret_cast<void *>(out),
                                size_t(blockBytes), ncclUint8, comm, stream),
              "ncclAllGather");
    finish(dst, size_t(blockBytes) * size_);
  }
  void reduceScatter(const void *src, void *dst, int64_t blockCount,
                     rlx_dtype_t dtype) override {
    size_t block = size_t(blockCount) * rlx_dtype_size(dtype);
    Current current(*this);
    stage(src, block * size_, block);
    checkNccl(api.ncclReduceScatter(reinterpret_cast<void *>(in),
                                    reinterpret_cast<void *>(out),
                                    size_t(blockCount), ncclType(dtype),
                                    ncclSum, comm, stream),
              "ncclReduceScatter");
    finish(dst, block);
  }
  void broadcast(void *buffer, int64_t bytes, int32_t root) override {
    Current current(*this);
    stage(buffer, size_t(bytes), size_t(bytes));
    checkNccl(api.ncclBroadcast(reinterpret_cast<void *>(in),
                                reinterpret_cast<void *>(out), size_t(bytes),
                                ncclUint8, root, comm, stream),
              "ncclBroadcast");
    finish(buffer, size_t(bytes));
  }

private:
  /// The device's primary context, current while it lives.
  class Current {
  public:
    explicit Current(NcclCommunicator &c) : c(&c) {
      c.api.cuCtxPushCurrent(c.context);
    }
    ~Current() { release(); }
    void release() {
      if (c) {
        CUcontext popped = nullptr;
        c->api.cuCtxPopCurrent(&popped);
        c = nullptr;
      }
    }

  private:
    NcclCommunicator *c;
  };

  void loadNccl() {
    std::vector<std::string> names = {"libnccl.so.2", "libnccl.so"};
    if (const char *path = std::getenv("RLX_NCCL_LIBRARY"); path && *path)
      names = {path};
    std::string error;
    void *library = loadDriverLibrary(names, error);
    if (!library)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           "NCCL is not available: " + error +
               " (pip's nvidia-nccl-cu12 ships libnccl.so.2; point "
               "RLX_NCCL_LIBRARY at it)");
#define RLX_LOAD(member, symbol, type)                                         \
  api.member = reinterpret_cast<type>(findDriverSymbol(library, symbol));      \
  if (!api.member)                                                             \
    fail(RLX_STATUS_FAILED_PRECONDITION,                                       \
         "NCCL is not available: the library lacks " symbol);
    RLX_NCCL_FUNCTIONS(RLX_LOAD)
    int code = 0;
    checkNccl(api.ncclGetVersion(&code), "ncclGetVersion");
    // NCCL >= 2.9 spells X.Y.Z as X * 10000 + Y * 100 + Z.
    version = "NCCL " + std::to_string(code / 10000) + "." +
              std::to_string(code / 100 % 100) + "." +
              std::to_string(code % 100);
  }

  void loadDriver() {
    std::string error;
    void *library = loadDriverLibrary({"libcuda.so.1"}, error);
    if (!library)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           version + " loaded, but no CUDA driver (libcuda.so.1 not found: " +
               error + ")");
    RLX_NCCL_CUDA_FUNCTIONS(RLX_LOAD)
#undef RLX_LOAD
    CUresult result = api.cuInit(0);
    if (result != 0)
      fail(RLX_STATUS_FAILED_PRECONDITION,
           version + " loaded, but no CUDA device (cuInit: " +
               cudaError(result) + ")");
  }

  std::string cudaError(CUresult result) {
    const char *text = nullptr;
    if (api.cuGetErrorString && api.cuGetErrorString(result, &text) == 0 &&
        text)
      return text;
    return "CUDA error " + std::to_string(result);
  }
  void checkCuda(CUresult result, const char *what) {
    if (result != 0)
      fail(RLX_STATUS_INTERNAL, std::string(what) + ": " + cudaError(result));
  }
  void checkNccl(ncclResult_t result, const char *what) {
    if (result != 0)
      fail(RLX_STATUS_UNAVAILABLE,
           std::string("NCCL: ") + what + ": " + api.ncclGetErrorString(result));
  }

  /// Copies `bytes` of host `src` into the device input buffer, growing the
  /// buffers to `inBytes` and `outBytes`.
  void stage(const void *src, size_t inBytes, size_t outBytes) {
    grow(in, inCapacity, inBytes);
    grow(out, outCapacity, outBytes);
    checkCuda(api.cuMemcpyHtoD(in, src, inBytes), "cuMemcpyHtoD");
  }
  void grow(CUdeviceptr &buffer, size_t &capacity, size_t bytes) {
    if (bytes <= capacity && buffer)
      return;
    if (buffer)
      api.cuMemFree(buffer);
    buffer = 0;
    capacity = 0;
    checkCuda(api.cuMemAlloc(&buffer, bytes ? bytes : 1), "cuMemAlloc");
    capacity = bytes;
  }
  /// Waits for the stream, then copies the result to host `dst`.
  void finish(void *dst, size_t bytes) {
    checkCuda(api.cuStreamSynchronize(stream), "cuStreamSynchronize");
    checkCuda(api.cuMemcpyDtoH(dst, out, bytes), "cuMemcpyDtoH");
  }

  NcclApi api;
  std::string version, description_;
  int32_t rank_ = 0, size_ = 1;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  ncclComm_t comm = nullptr;
  CUdeviceptr in = 0, out = 0;
  size_t inCapacity = 0, outCapacity = 0;
};

} // namespace

std::unique_ptr<Communicator>
rlxrt::createNcclCommunicator(rlx_communicator_t &bootstrap) {
  return std::make_unique<NcclCommunicator>(bootstrap);
}
