/*===-- rlx/communicator.h - Replicas and their collectives -------*- C -*-===*\
|*                                                                            *|
|* A communicator joins the replicas (processes) that run the same artifact  *|
|* in data-parallel training: the collectives of an artifact (rlx.all_reduce *|
|* and the others) exchange values through the communicator of the session   *|
|* that calls it. Three kinds: a single replica (the program runs alone,    *|
|* every collective is the identity), MPI (one replica per MPI process; Open *|
|* MPI or any MPI the shim library librlx-mpi.so was built against, loaded   *|
|* with dlopen on first use so that librlxrt loads without MPI) and NCCL     *|
|* (one CUDA device per process; libnccl.so.2 loaded with dlopen).           *|
|*                                                                            *|
|* Reductions are deterministic: each block of an all-reduce is summed by one *|
|* replica in a fixed order and copied to the others, so every replica holds *|
|* bit-identical results, run after run.                                      *|
|*                                                                            *|
|* Thread-safety: a communicator serializes its collectives; every replica   *|
|* must issue the same collectives in the same order.                        *|
\*===----------------------------------------------------------------------===*/

#ifndef RLX_COMMUNICATOR_H
#define RLX_COMMUNICATOR_H

#include "rlx/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rlx_communicator_s rlx_communicator_t;

typedef struct rlx_communicator_options_t {
  /** Seconds a collective waits for the other replicas before it fails with
      UNAVAILABLE (a replica died, hangs or issued other collectives); the
      communicator is then broken and every later collective fails at once.
      0: wait forever. Default 60, or the environment variable
      RLX_COLLECTIVE_TIMEOUT_S when set. */
  double timeout_seconds;
} rlx_communicator_options_t;

/** Sets the defaults. */
RLX_API void
rlx_communicator_options_initialize(rlx_communicator_options_t *out_options);

/** A communicator of one replica (rank 0 of 1). The caller owns one
    reference. */
RLX_API rlx_status_t
rlx_communicator_create_single(rlx_communicator_t **out_communicator);

/** The MPI world: one replica per process of `mpirun -np N`. Initializes
    MPI (MPI_Init_thread, serialized) unless the program already did, and
    finalizes it when the last reference to an MPI communicator goes (MPI
    cannot start again in that process: a later create is
    FAILED_PRECONDITION). FAILED_PRECONDITION when MPI cannot be loaded
    ("MPI is not available: librlx-mpi.so: libmpi.so.40: cannot open ...").
    The shim is looked up in RLX_MPI_SHIM (a path), else beside librlxrt.
    Unless RLX_NUM_THREADS is set, the replicas mpirun started on one host
    share its cores: each sets the kernel thread count
    (rlx_set_num_threads) to the cores it may run on divided by that
    number. `options` may be NULL (defaults). */
RLX_API rlx_status_t
rlx_communicator_create_mpi(const rlx_communicator_options_t *options,
                            rlx_communicator_t **out_communicator);

/** NCCL: one replica per replica of `bootstrap` (the MPI world, or a single
    communicator), each on one CUDA device (replica r on device r % count),
    NCCL's unique id sent from replica 0 over `bootstrap`, which every
    replica must pass (it is used only here). libnccl.so.2 (or the path in
    RLX_NCCL_LIBRARY: pip's nvidia-nccl-cu12 ships it) and libcuda.so.1 are
    loaded with dlopen: FAILED_PRECONDITION "NCCL is not available: ...",
    or "NCCL 2.x.y loaded, but no CUDA driver (...)" / "... no CUDA device
    (...)". Collectives take host buffers (what CPU artifacts pass),
    staged through device memory; they block (no timeout). */
RLX_API rlx_status_t
rlx_communicator_create_nccl(rlx_communicator_t *bootstrap,
                             rlx_communicator_t **out_communicator);

RLX_API void rlx_communicator_retain(rlx_communicator_t *communicator);
RLX_API void rlx_communicator_release(rlx_communicator_t *communicator);

/** This replica's index in [0, size). */
RLX_API int32_t rlx_communicator_rank(const rlx_communicator_t *communicator);
/** The number of replicas. */
RLX_API int32_t rlx_communicator_size(const rlx_communicator_t *communicator);
/** "single" or "mpi (Open MPI v4.1.4, ...)". Valid while it lives. */
RLX_API const char *
rlx_communicator_description(const rlx_communicator_t *communicator);

/** Replaces `tensor`'s elements (host memory, written in place) by those of
    replica `root`'s: the initial weights of data-parallel training. Every
    replica must pass a tensor of the same dtype and shape: a mismatch is
    INVALID_ARGUMENT on every replica, naming `what` and both shapes. */
RLX_API rlx_status_t rlx_communicator_broadcast_tensor(
    rlx_communicator_t *communicator, rlx_tensor_t *tensor, int32_t root,
    const char *what);

/** Checks that every replica passed the same bytes (an artifact's manifest,
    the shapes of its weights): FAILED_PRECONDITION naming `what` and the
    first replica that differs from replica 0 otherwise, on every replica. */
RLX_API rlx_status_t rlx_communicator_check_agreement(
    rlx_communicator_t *communicator, const void *bytes, size_t size,
    const char *what);

/** Makes the session's calls run their collectives on `communicator`
    (retained; NULL: none, and a collective is FAILED_PRECONDITION). First
    checks that every replica runs the same artifact (its manifest):
    FAILED_PRECONDITION naming the replica that differs. Collective, like
    the calls after it: every replica must call it. */
RLX_API rlx_status_t
rlx_session_set_communicator(rlx_session_t *session,
                             rlx_communicator_t *communicator);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RLX_COMMUNICATOR_H */
