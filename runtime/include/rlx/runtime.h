/*===-- rlx/runtime.h - The rlx runtime C API ---------------------*- C -*-===*\
|*                                                                            *|
|* The C ABI of librlxrt: load an rlx artifact (docs/abi.md), inspect its     *|
|* manifest, bind weights, call its entry points on the CPU or a GPU; plus    *|
|* tensors and the .npy / safetensors file formats.                           *|
|*                                                                            *|
|* Conventions (IREE-style):                                                  *|
|*  - Objects are opaque handles; reference-counted ones have retain/release. *|
|*  - Every fallible call returns an rlx_status_t: NULL means OK, anything    *|
|*    else is an owned error object the caller frees with rlx_status_free.    *|
|*  - Results are returned through trailing out_* parameters, which are only  *|
|*    written on success.                                                     *|
|*  - No C++ exception ever crosses this boundary.                            *|
|*  - Strings returned as `const char*` are borrowed: they stay valid as long *|
|*    as the object they came from.                                           *|
|*  - Plain accessors (no status) require a non-NULL handle; fallible calls   *|
|*    answer INVALID_ARGUMENT for a NULL one.                                 *|
|*                                                                            *|
|* The header is valid C89/C99 and C++.                                       *|
\*===----------------------------------------------------------------------===*/

#ifndef RLX_RUNTIME_H
#define RLX_RUNTIME_H

#include "rlx/abi.h" /* RLX_ABI_VERSION: the artifact ABI it speaks */

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define RLX_API
#else
#define RLX_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Status
 *===----------------------------------------------------------------------===*/

typedef enum rlx_status_code_e {
  RLX_STATUS_OK = 0,
  /** The caller passed something wrong: bad input shape, unknown weight. */
  RLX_STATUS_INVALID_ARGUMENT = 1,
  /** A file, entry point, input or weight name does not exist. */
  RLX_STATUS_NOT_FOUND = 2,
  /** The system is not in a state to do this: a weight is unbound, the
      artifact's ABI version differs from the runtime's. */
  RLX_STATUS_FAILED_PRECONDITION = 3,
  /** A file is corrupt or truncated (artifact manifest, safetensors, npy). */
  RLX_STATUS_DATA_LOSS = 4,
  /** A valid request that this runtime does not support (e.g. a dtype). */
  RLX_STATUS_UNIMPLEMENTED = 5,
  /** A bug, or an entry point that reported failure. */
  RLX_STATUS_INTERNAL = 6,
  /** An index past the end. */
  RLX_STATUS_OUT_OF_RANGE = 7,
  /** Out of memory or address space. */
  RLX_STATUS_RESOURCE_EXHAUSTED = 8,
  /** Another replica did not take part in a collective in time: it died,
      hangs, or issued a different collective (rlx/communicator.h). */
  RLX_STATUS_UNAVAILABLE = 9
} rlx_status_code_t;

/** An error. NULL is success. Owned by whoever received it. */
typedef struct rlx_status_s *rlx_status_t;

/** The code of `status`; RLX_STATUS_OK for NULL. Thread-safe. */
RLX_API rlx_status_code_t rlx_status_code(rlx_status_t status);
/** The message of `status` ("" for NULL); valid until rlx_status_free. */
RLX_API const char *rlx_status_message(rlx_status_t status);
/** Frees `status`; NULL is a no-op. */
RLX_API void rlx_status_free(rlx_status_t status);
/** A static name such as "INVALID_ARGUMENT". */
RLX_API const char *rlx_status_code_string(rlx_status_code_t code);

/* ---- Threads ------------------------------------------------------------ */

/** The most threads rlx asks of the OpenMP pool (libomp aborts the process
    when asked for far more than it can create). */
#define RLX_MAX_THREADS 4096

/** Sets how many threads the parallel kernels of every artifact in this
    process use from the next call on; 0 or less means every core the
    process may run on (the default, unless RLX_NUM_THREADS is set at
    start-up), more than RLX_MAX_THREADS means RLX_MAX_THREADS. All
    artifacts share one OpenMP thread pool. Thread-safe. */
RLX_API void rlx_set_num_threads(int32_t count);
/** The current thread count (at least 1). */
RLX_API int32_t rlx_get_num_threads(void);

/*===----------------------------------------------------------------------===*
 * Devices
 *
 * Where an artifact runs and where a tensor's elements live. A GPU device is
 * opened (its driver dlopen'ed) by the first session that runs on it and
 * shared by every session of the process on it; librlxrt and every artifact
 * load on a machine without the driver.
 *===----------------------------------------------------------------------===*/

typedef enum rlx_device_e {
  /** In session options: the device the artifact was compiled for. */
  RLX_DEVICE_DEFAULT = 0,
  RLX_DEVICE_CPU = 1,
  /** The first Vulkan physical device, or RLX_VULKAN_DEVICE=index. */
  RLX_DEVICE_VULKAN = 2,
  /** CUDA device 0 (CUDA_VISIBLE_DEVICES picks it), or RLX_CUDA_DEVICE. */
  RLX_DEVICE_CUDA = 3,
  /** AMD GPUs through HIP (artifacts compiled for target "rocm"); device 0,
      or RLX_HIP_DEVICE. */
  RLX_DEVICE_HIP = 4
} rlx_device_t;

/** "default", "cpu", "vulkan", "cuda", "hip"; "?" outside the enum. */
RLX_API const char *rlx_device_name(rlx_device_t device);
/** Parses "cpu", "vulkan", "cuda" or "hip"; INVALID_ARGUMENT otherwise. */
RLX_API rlx_status_t rlx_device_parse(const char *name,
                                      rlx_device_t *out_device);

/*===----------------------------------------------------------------------===*
 * Element types
 *===----------------------------------------------------------------------===*/

/** Element types; the manifest spells them as MLIR does: "f16" ... "i64",
    the unsigned integers "ui8" ... "ui64", the narrow floats "f8E4M3FN". i1 is
   stored as one byte per element (0 or 1); the f8, f6 and f4 types as one byte
   per element, their code in the low bits (as the ml_dtypes package stores
   them). f8E8M0FNU is the MX formats' block scale: 2^(code - 127), code 255
   NaN. */
typedef enum rlx_dtype_e {
  RLX_DTYPE_F16 = 0,
  RLX_DTYPE_BF16 = 1,
  RLX_DTYPE_F32 = 2,
  RLX_DTYPE_F64 = 3,
  RLX_DTYPE_I1 = 4,
  RLX_DTYPE_I8 = 5,
  RLX_DTYPE_I32 = 6,
  RLX_DTYPE_I64 = 7,
  RLX_DTYPE_F8E4M3FN = 8,
  RLX_DTYPE_F8E5M2 = 9,
  RLX_DTYPE_F8E4M3FNUZ = 10,
  RLX_DTYPE_F8E5M2FNUZ = 11,
  RLX_DTYPE_F6E3M2FN = 12,
  RLX_DTYPE_F6E2M3FN = 13,
  RLX_DTYPE_F4E2M1FN = 14,
  RLX_DTYPE_I16 = 15,
  RLX_DTYPE_UI8 = 16,
  RLX_DTYPE_UI16 = 17,
  RLX_DTYPE_UI32 = 18,
  RLX_DTYPE_UI64 = 19,
  RLX_DTYPE_F8E8M0FNU = 20
} rlx_dtype_t;

/** The manifest spelling ("f32"), or "?" for a value outside the enum. Every
    function taking an rlx_dtype_t checks it as an integer first: a value
    outside the enum is "?", 0 or INVALID_ARGUMENT, never undefined. */
RLX_API const char *rlx_dtype_name(rlx_dtype_t dtype);
/** Bytes per element (1 for i1), 0 for a value outside the enum. */
RLX_API size_t rlx_dtype_size(rlx_dtype_t dtype);
/** Parses a manifest spelling; INVALID_ARGUMENT for an unknown one. */
RLX_API rlx_status_t rlx_dtype_parse(const char *name, rlx_dtype_t *out_dtype);

/*===----------------------------------------------------------------------===*
 * Tensors
 *
 * A dense, row-major, contiguous array in host memory or, for a device
 * tensor (rlx_tensor_device), in a GPU's memory. Reference-counted; retain
 * and release are thread-safe, reading a tensor from several threads is
 * safe, writing its data while another thread reads it is the caller's race.
 *===----------------------------------------------------------------------===*/

typedef struct rlx_tensor_s rlx_tensor_t;

/** Called once when a wrapping tensor's last reference goes away. */
typedef void (*rlx_release_fn_t)(void *user_data, void *data);

/** Creates a tensor owning fresh zero-filled memory (64-byte aligned).
    `dims` holds `rank` non-negative sizes (may be NULL when rank is 0). The
    caller owns one reference in `*out_tensor`. */
RLX_API rlx_status_t rlx_tensor_allocate(rlx_dtype_t dtype, size_t rank,
                                         const int64_t *dims,
                                         rlx_tensor_t **out_tensor);

/** Creates a tensor over caller memory `data` without copying it. When the
    last reference is released, `release_fn(release_user_data, data)` is called
    if non-NULL; with a NULL `release_fn` the memory is borrowed and the caller
    keeps it alive (and unchanged while it is in use) until the tensor is
    released. `data` may be NULL only when the tensor has no elements. */
RLX_API rlx_status_t rlx_tensor_wrap(rlx_dtype_t dtype, size_t rank,
                                     const int64_t *dims, void *data,
                                     rlx_release_fn_t release_fn,
                                     void *release_user_data,
                                     rlx_tensor_t **out_tensor);

/** Adds a reference; NULL is a no-op. Thread-safe. */
RLX_API void rlx_tensor_retain(rlx_tensor_t *tensor);
/** Drops a reference, freeing the tensor at zero; NULL is a no-op. */
RLX_API void rlx_tensor_release(rlx_tensor_t *tensor);

RLX_API rlx_dtype_t rlx_tensor_dtype(const rlx_tensor_t *tensor);
RLX_API size_t rlx_tensor_rank(const rlx_tensor_t *tensor);
/** `rank` sizes, valid while the tensor lives (NULL when rank is 0). */
RLX_API const int64_t *rlx_tensor_dims(const rlx_tensor_t *tensor);
/** The number of elements (1 for rank 0). */
RLX_API size_t rlx_tensor_element_count(const rlx_tensor_t *tensor);
RLX_API size_t rlx_tensor_byte_size(const rlx_tensor_t *tensor);
/** The first element. Tensors from rlx_safetensors_read and bound weights
    point into a read-only file mapping: do not write through them. NULL
    for a device tensor (rlx_tensor_device). */
RLX_API void *rlx_tensor_data(const rlx_tensor_t *tensor);
/** Reads element `index` (row-major) converted to double, whatever the dtype
    (f16 and bf16 are widened exactly). OUT_OF_RANGE past the end. */
RLX_API rlx_status_t rlx_tensor_get_f64(const rlx_tensor_t *tensor,
                                        size_t index, double *out_value);

/** Where the elements live: RLX_DEVICE_CPU for host tensors. A device
    tensor comes from a GPU session (rlx_session_to_device, or a call with
    `outputs_on_device`) and keeps its device memory until its last
    reference goes. It has no host data: rlx_tensor_data returns NULL, and
    rlx_tensor_get_f64, rlx_npy_write and rlx_safetensors_write answer
    FAILED_PRECONDITION; read it back with rlx_tensor_to_host. */
RLX_API rlx_device_t rlx_tensor_device(const rlx_tensor_t *tensor);
/** A host tensor with the elements of `tensor`: a new reference to `tensor`
    itself when it is on the host, else a fresh copy downloaded from the
    device (it waits for the device). Thread-safe. */
RLX_API rlx_status_t rlx_tensor_to_host(rlx_tensor_t *tensor,
                                        rlx_tensor_t **out_tensor);

/*===----------------------------------------------------------------------===*
 * Named tensor lists (safetensors contents, call outputs)
 *
 * An ordered list of (name, tensor) with unique names. Not reference-counted:
 * whoever created or received it frees it. Concurrent reads are safe.
 *===----------------------------------------------------------------------===*/

typedef struct rlx_tensor_list_s rlx_tensor_list_t;

RLX_API rlx_status_t rlx_tensor_list_create(rlx_tensor_list_t **out_list);
/** Frees the list and releases its references; NULL is a no-op. */
RLX_API void rlx_tensor_list_free(rlx_tensor_list_t *list);
/** Appends `tensor` (retained; the caller keeps its own reference) under a
    copy of `name`. INVALID_ARGUMENT if the name is already present. */
RLX_API rlx_status_t rlx_tensor_list_append(rlx_tensor_list_t *list,
                                            const char *name,
                                            rlx_tensor_t *tensor);
RLX_API size_t rlx_tensor_list_size(const rlx_tensor_list_t *list);
/** The name at `index`, NULL past the end; valid while the list lives. */
RLX_API const char *rlx_tensor_list_name(const rlx_tensor_list_t *list,
                                         size_t index);
/** The tensor at `index`, borrowed (retain it to keep it past the list's
    life), NULL past the end. */
RLX_API rlx_tensor_t *rlx_tensor_list_get(const rlx_tensor_list_t *list,
                                          size_t index);
/** The index of `name`; NOT_FOUND if absent. */
RLX_API rlx_status_t rlx_tensor_list_find(const rlx_tensor_list_t *list,
                                          const char *name, size_t *out_index);

/*===----------------------------------------------------------------------===*
 * File formats. All functions are thread-safe; every error names the file.
 *===----------------------------------------------------------------------===*/

/** Reads a .npy file (format 1.0/2.0/3.0, C order, dtypes <f2 <f4 <f8 |b1
    |i1 <i4 <i8) into a new owning tensor; the caller owns the reference.
    DATA_LOSS for a corrupt or truncated file, UNIMPLEMENTED for an
    unsupported dtype or Fortran order. */
RLX_API rlx_status_t rlx_npy_read(const char *path, rlx_tensor_t **out_tensor);
/** Writes `tensor` as a .npy file (format 1.0); bf16 is UNIMPLEMENTED (numpy
    has no such dtype). Overwrites `path`. */
RLX_API rlx_status_t rlx_npy_write(const char *path,
                                   const rlx_tensor_t *tensor);

/** Memory-maps a safetensors file read-only and returns its tensors in file
    order, each pointing into the mapping (no copy; the mapping lives until
    the last tensor is released) when its data is aligned to its element
    size, else an aligned copy (a header length that is not a multiple of 8
    misaligns every tensor). Time and memory are linear in the header. The
    caller owns the list. `__metadata__` is skipped. DATA_LOSS for any
    corruption, UNIMPLEMENTED for a dtype outside rlx_dtype_t. Weights are
    expected to stay unchanged on disk while mapped. */
RLX_API rlx_status_t rlx_safetensors_read(const char *path,
                                          rlx_tensor_list_t **out_list);
/** Writes every tensor of `list` under its name (data 8-byte aligned, tensors
    sorted by descending element size so each stays aligned). */
RLX_API rlx_status_t rlx_safetensors_write(const char *path,
                                           const rlx_tensor_list_t *list);

/*===----------------------------------------------------------------------===*
 * Artifacts
 *
 * A loaded model.so and its parsed manifest. Immutable after loading, so
 * every query is thread-safe. Reference-counted; sessions retain it.
 *===----------------------------------------------------------------------===*/

typedef struct rlx_artifact_s rlx_artifact_t;
/** An entry point of an artifact; borrowed, valid while the artifact lives. */
typedef struct rlx_entry_point_s rlx_entry_point_t;

/** The description of an input, output or param. All pointers are borrowed
    from the artifact. A shape entry of -1 is a dynamic dimension. */
typedef struct rlx_tensor_spec_t {
  const char *name;
  rlx_dtype_t dtype;
  size_t rank;
  const int64_t *shape;
} rlx_tensor_spec_t;

/** Loads the artifact at `path` (dlopen RTLD_NOW|RTLD_LOCAL) and parses its
    manifest. Errors: NOT_FOUND (no such file), INVALID_ARGUMENT (not an rlx
    artifact), FAILED_PRECONDITION (ABI version mismatch), DATA_LOSS
    (malformed manifest), UNIMPLEMENTED (unknown dtype). The caller owns one
    reference. Thread-safe. */
RLX_API rlx_status_t rlx_artifact_load(const char *path,
                                       rlx_artifact_t **out_artifact);
RLX_API void rlx_artifact_retain(rlx_artifact_t *artifact);
/** Drops a reference; at zero the library is dlclose'd, so no tensor may
    still point into its static storage (outputs never do, per the ABI). */
RLX_API void rlx_artifact_release(rlx_artifact_t *artifact);

/** The path it was loaded from. */
RLX_API const char *rlx_artifact_path(const rlx_artifact_t *artifact);
/** The manifest's "target" (e.g. "cpu"). */
RLX_API const char *rlx_artifact_target(const rlx_artifact_t *artifact);
/** The device the artifact was compiled for: its target, with "rocm" run
    through HIP. */
RLX_API rlx_device_t rlx_artifact_device(const rlx_artifact_t *artifact);
/** The manifest's "compiler" string, "" if absent. */
RLX_API const char *rlx_artifact_compiler(const rlx_artifact_t *artifact);
/** The CPU the artifact's CPU code was compiled for (the manifest's "cpu",
    an LLVM CPU name), "" if absent. */
RLX_API const char *rlx_artifact_cpu(const rlx_artifact_t *artifact);
/** The CPU features that code needs, "+avx2,+fma,..." (the manifest's
    "cpu_features"), and the ones of them this machine lacks ("" for none):
    a session of an artifact that needs a missing one is refused with
    FAILED_PRECONDITION. Owned by the artifact. */
RLX_API const char *rlx_artifact_cpu_features(const rlx_artifact_t *artifact);
RLX_API const char *
rlx_artifact_missing_cpu_features(const rlx_artifact_t *artifact);
/** The manifest JSON text exactly as the artifact exports it. */
RLX_API const char *rlx_artifact_manifest_json(const rlx_artifact_t *artifact);

/** The entry points a user calls: an entry point that prepares another's
    params from the weights (docs/abi.md, `prepare`) is run by the runtime
    and not counted. */
RLX_API size_t rlx_artifact_entry_point_count(const rlx_artifact_t *artifact);
/** The entry point at `index` (manifest order), NULL past the end. */
RLX_API const rlx_entry_point_t *
rlx_artifact_entry_point_at(const rlx_artifact_t *artifact, size_t index);
/** NOT_FOUND naming `name` and listing the entry points there are. */
RLX_API rlx_status_t
rlx_artifact_find_entry_point(const rlx_artifact_t *artifact, const char *name,
                              const rlx_entry_point_t **out_entry_point);

/** All params (the union over entry points). */
RLX_API size_t rlx_artifact_param_count(const rlx_artifact_t *artifact);
/** OUT_OF_RANGE past the end. */
RLX_API rlx_status_t rlx_artifact_param(const rlx_artifact_t *artifact,
                                        size_t index,
                                        rlx_tensor_spec_t *out_spec);

RLX_API const char *rlx_entry_point_name(const rlx_entry_point_t *entry_point);
RLX_API size_t
rlx_entry_point_input_count(const rlx_entry_point_t *entry_point);
RLX_API size_t
rlx_entry_point_output_count(const rlx_entry_point_t *entry_point);
/** The params a user binds for it (not those its prepare entry point makes,
    which the runtime computes from the bound weights once per binding). */
RLX_API size_t
rlx_entry_point_param_count(const rlx_entry_point_t *entry_point);
/** The entry point computing this one's prepared params from the weights
    (docs/abi.md, `prepare`), or NULL: its params are weights this entry
    point also needs bound. */
RLX_API const rlx_entry_point_t *
rlx_entry_point_prepare(const rlx_entry_point_t *entry_point);
/** Scratch memory the entry point needs, from the manifest. */
RLX_API uint64_t
rlx_entry_point_workspace_bytes(const rlx_entry_point_t *entry_point);
/** The most bytes of its temporaries live at once (no plan can use less),
    from the manifest; equal to the workspace when the manifest has none. */
RLX_API uint64_t rlx_entry_point_workspace_lower_bound_bytes(
    const rlx_entry_point_t *entry_point);
/** OUT_OF_RANGE past the end. */
RLX_API rlx_status_t rlx_entry_point_input(const rlx_entry_point_t *entry_point,
                                           size_t index,
                                           rlx_tensor_spec_t *out_spec);
RLX_API rlx_status_t
rlx_entry_point_output(const rlx_entry_point_t *entry_point, size_t index,
                       rlx_tensor_spec_t *out_spec);
/** Params in the order the entry symbol takes them. */
RLX_API rlx_status_t rlx_entry_point_param(const rlx_entry_point_t *entry_point,
                                           size_t index,
                                           rlx_tensor_spec_t *out_spec);
/** The position of input `name`; NOT_FOUND listing the inputs otherwise. */
RLX_API rlx_status_t rlx_entry_point_find_input(
    const rlx_entry_point_t *entry_point, const char *name, size_t *out_index);

/*===----------------------------------------------------------------------===*
 * Sessions: weight bindings + calls
 *
 * Thread-safety: rlx_session_call may run on one session from any number of
 * threads at once. Binding takes an exclusive lock, so binding while calls
 * run is safe too (it waits for them), but which weights a concurrent call
 * sees is then unspecified: bind before calling.
 *===----------------------------------------------------------------------===*/

typedef struct rlx_session_s rlx_session_t;

typedef struct rlx_bind_options_t {
  /** Non-zero: names in a safetensors file that no entry point uses are
      skipped instead of being an error. */
  int allow_unused;
} rlx_bind_options_t;

/** Sets the defaults (everything checked). */
RLX_API void rlx_bind_options_initialize(rlx_bind_options_t *out_options);

typedef struct rlx_session_options_t {
  /** The device to run on; RLX_DEVICE_DEFAULT is the one the artifact was
      compiled for, and any other must be that one too. */
  rlx_device_t device;
} rlx_session_options_t;

/** Sets the defaults (the artifact's device). */
RLX_API void rlx_session_options_initialize(rlx_session_options_t *out_options);

/** Creates a session with no weights bound; it retains `artifact`. The caller
    owns one reference. The first session of a process raises glibc's mmap
    and trim thresholds (mallopt) so that large tensors freed after a call
    are reused by the next instead of being unmapped and faulted in again;
    set RLX_MALLOC_TUNING=0 to leave malloc untouched. A session of a GPU
    artifact opens its device: FAILED_PRECONDITION when it cannot ("no CUDA
    driver (libcuda.so.1 not found)", "no Vulkan device ..."). Same as
    rlx_session_create_with_options with the default options. */
RLX_API rlx_status_t rlx_session_create(rlx_artifact_t *artifact,
                                        rlx_session_t **out_session);
/** Creates a session on `options->device` (`options` may be NULL: the
    defaults). A device other than the artifact's is INVALID_ARGUMENT
    ("artifact was compiled for vulkan, not cuda"); otherwise as
    rlx_session_create. */
RLX_API rlx_status_t rlx_session_create_with_options(
    rlx_artifact_t *artifact, const rlx_session_options_t *options,
    rlx_session_t **out_session);
RLX_API void rlx_session_retain(rlx_session_t *session);
RLX_API void rlx_session_release(rlx_session_t *session);
/** Borrowed; valid while the session lives. */
RLX_API rlx_artifact_t *rlx_session_artifact(const rlx_session_t *session);
/** The device the session runs on (never RLX_DEVICE_DEFAULT). */
RLX_API rlx_device_t rlx_session_device(const rlx_session_t *session);
/** The device for people, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" or
    "cpu"; valid while the session lives. */
RLX_API const char *
rlx_session_device_description(const rlx_session_t *session);
/** Memory of a session's device, shared by every session on it: bytes in
    live allocations (at their size classes) and in freed blocks kept for
    reuse, which never exceed `cache_limit_bytes` (env RLX_DEVICE_POOL_MB,
    default 1024). All zero for a CPU session. */
typedef struct rlx_device_memory_t {
  uint64_t live_bytes;
  uint64_t cached_bytes;
  uint64_t cache_limit_bytes;
} rlx_device_memory_t;
/** Fills `out_memory`. Thread-safe. */
RLX_API rlx_status_t rlx_session_device_memory(const rlx_session_t *session,
                                               rlx_device_memory_t *out_memory);
/** Copies host tensor `tensor` into the session's device memory, as a new
    device tensor the caller owns, to pass to calls without copying it
    again. For a CPU session, or a tensor already on the session's device, a
    new reference to `tensor` itself. A tensor on another device is
    INVALID_ARGUMENT. Thread-safe. */
RLX_API rlx_status_t rlx_session_to_device(rlx_session_t *session,
                                           rlx_tensor_t *tensor,
                                           rlx_tensor_t **out_tensor);

/** Binds every tensor of a safetensors file by name, memory-mapped (not
    copied). Several files may be bound one after another; a later binding of
    a name replaces the earlier one. All names are checked before any is
    bound (all or nothing): a name no entry point uses is INVALID_ARGUMENT
    ("unknown weight 'x' in FILE") unless options->allow_unused; a dtype or
    shape differing from the manifest is INVALID_ARGUMENT naming the weight,
    the expected and the actual type. `options` may be NULL (defaults). */
RLX_API rlx_status_t
rlx_session_bind_safetensors(rlx_session_t *session, const char *path,
                             const rlx_bind_options_t *options);
/** Binds `tensor` (retained) as weight `name`, with the same checks. A GPU
    session copies host weights to its device once, here (and for
    rlx_session_bind_safetensors), and keeps them there until they are
    rebound or the session goes; a device tensor of the session's device is
    bound as it is, without a copy. */
RLX_API rlx_status_t rlx_session_bind_tensor(rlx_session_t *session,
                                             const char *name,
                                             rlx_tensor_t *tensor);
/** The tensor bound to `name`, as a new reference the caller releases;
    NOT_FOUND if unbound. */
RLX_API rlx_status_t rlx_session_lookup_weight(rlx_session_t *session,
                                               const char *name,
                                               rlx_tensor_t **out_tensor);

/** Calls entry point `entry_name` with `input_count` inputs by position.
    Checks the entry exists (NOT_FOUND), the input count, each input's dtype,
    rank and static dims (INVALID_ARGUMENT naming the input with expected and
    actual shape), and that every param it reads is bound (FAILED_PRECONDITION
    naming the weight and the entry). Inputs are only read. On success
    `*out_outputs` is a new list the caller frees, holding one owning tensor
    per output, named as in the manifest. INTERNAL if the entry fails.
    On a GPU session, host inputs are copied to the device for the call and
    device tensors of its device are used in place (a device tensor of
    another device is INVALID_ARGUMENT); the call waits for the device and
    downloads the outputs into host tensors. A failed run-time check of
    the compiled code (a dynamic reshape that does not divide; with
    `rlxc --debug-checks`, the first op producing a NaN or an Inf, as
    `model.mlir:14:9: rlx.log produced -inf`) is INVALID_ARGUMENT with its
    message. With the environment variable RLX_DEBUG=ops (a comma-separated
    list holding `ops`), every call logs its inputs before and its outputs
    after to stderr, one line each: name, type, the min and max of the
    finite elements and the count of NaNs and Infs (host tensors only).
    Same as rlx_session_call_with_options with the default options. */
RLX_API rlx_status_t rlx_session_call(rlx_session_t *session,
                                      const char *entry_name,
                                      rlx_tensor_t *const *inputs,
                                      size_t input_count,
                                      rlx_tensor_list_t **out_outputs);

typedef struct rlx_call_options_t {
  /** Non-zero: a GPU session leaves the outputs in device memory, as device
      tensors (rlx_tensor_device) to pass to the next call without a copy or
      to read back with rlx_tensor_to_host. A CPU session ignores it. */
  int outputs_on_device;
} rlx_call_options_t;

/** Sets the defaults (outputs downloaded to the host). */
RLX_API void rlx_call_options_initialize(rlx_call_options_t *out_options);

/** rlx_session_call with `options` (NULL: the defaults). */
RLX_API rlx_status_t rlx_session_call_with_options(
    rlx_session_t *session, const char *entry_name, rlx_tensor_t *const *inputs,
    size_t input_count, const rlx_call_options_t *options,
    rlx_tensor_list_t **out_outputs);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RLX_RUNTIME_H */
