/*===-- MpiShim.h - The runtime's view of librlx-mpi.so ------------*- C -*-===*\
|*                                                                            *|
|* librlx-mpi.so is built against mpi.h and linked with libmpi; librlxrt     *|
|* dlopens it on first use. MPI's handles (MPI_COMM_WORLD, MPI_FLOAT) are    *|
|* macros whose meaning differs between implementations (pointers to         *|
|* globals in Open MPI, integers in MPICH), so only code compiled against    *|
|* the implementation's own mpi.h may name them: the shim does, and offers   *|
|* the runtime this table of plain C functions instead.                      *|
|*                                                                            *|
|* Every function returns 0 on success or writes a NUL-terminated message    *|
|* into `error` (`error_size` bytes) and returns non-zero: 1 for a caller    *|
|* error, 2 for a timeout or a failed peer. `dtype` is an rlx_dtype_t value. *|
\*===----------------------------------------------------------------------===*/

#ifndef RLX_RUNTIME_SRC_MPISHIM_H
#define RLX_RUNTIME_SRC_MPISHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped when the table changes; the runtime refuses another version. */
#define RLX_MPI_SHIM_VERSION 1
/** The function the runtime looks up: returns the table. */
#define RLX_MPI_SHIM_SYMBOL "rlx_mpi_shim"

typedef struct rlx_mpi_shim_t {
  uint32_t version;
  /** Initializes MPI unless already done; the world's rank and size, and
      the library's version string (static storage). */
  int (*initialize)(int32_t *rank, int32_t *size, const char **library,
                    char *error, size_t error_size);
  /** Finalizes MPI if `initialize` started it. */
  void (*finalize)(void);
  /** Elementwise sum (op 0), max (2) or min (3) of `count` elements. Sums
      are reduce-scatter then all-gather: each block is reduced by one
      replica, in MPI's fixed order, and copied to the others. */
  int (*all_reduce)(const void *in, void *out, int64_t count, int32_t dtype,
                    int32_t op, double timeout_seconds, char *error,
                    size_t error_size);
  /** `block_bytes` from each replica, concatenated in rank order. */
  int (*all_gather)(const void *in, void *out, int64_t block_bytes,
                    double timeout_seconds, char *error, size_t error_size);
  /** Sums `size` blocks of `block_count` elements; rank r gets block r. */
  int (*reduce_scatter)(const void *in, void *out, int64_t block_count,
                        int32_t dtype, double timeout_seconds, char *error,
                        size_t error_size);
  /** `bytes` of `root`'s buffer into everyone's. */
  int (*broadcast)(void *buffer, int64_t bytes, int32_t root,
                   double timeout_seconds, char *error, size_t error_size);
} rlx_mpi_shim_t;

typedef const rlx_mpi_shim_t *(*rlx_mpi_shim_fn_t)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RLX_RUNTIME_SRC_MPISHIM_H */
