/*===-- rlx/abi.h - The artifact ABI: compiler and runtime --------*- C -*-===*\
|*                                                                            *|
|* The one definition of the contract between an rlx artifact (the shared     *|
|* library rlxc writes) and the code that loads it: the ABI version, the      *|
|* names the artifact exports, the signatures behind them, the device-code    *|
|* records of GPU artifacts and every key of the manifest JSON.               *|
|* docs/abi.md explains what each of them means.                              *|
|*                                                                            *|
|* The compiler writes these names and the runtime looks them up, both        *|
|* through this header: neither side spells one itself. It is plain C with    *|
|* no dependencies so that the compiler can include it without linking the    *|
|* runtime, and so can any other loader.                                      *|
|*                                                                            *|
|* Any change to a name, signature or layout here is an ABI break: bump       *|
|* RLX_ABI_VERSION.                                                           *|
|*                                                                            *|
|* The header is valid C89/C99 and C++.                                       *|
\*===----------------------------------------------------------------------===*/

#ifndef RLX_ABI_H
#define RLX_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The artifact ABI version: what `rlx_artifact_abi_version()` returns and
    the manifest's "abi_version"; the runtime loads only artifacts of its own
    version. Version 3: entry code returns on failure instead of the hooks
    unwinding it; host memory goes through the call's allocation hooks.
    Version 4: collectives are started and waited for apart
    (RLX_COLLECTIVE_START, RLX_COLLECTIVE_WAIT). */
#define RLX_ABI_VERSION 4

/*===----------------------------------------------------------------------===*
 * Exported symbols
 *===----------------------------------------------------------------------===*/

/** Every symbol an artifact exports starts with one of these two prefixes;
    everything else it defines is hidden. */
#define RLX_ARTIFACT_SYMBOL_PREFIX "rlx_artifact_"
/** Entry symbols: RLX_ENTRY_SYMBOL_PREFIX + the entry point's name (the
    manifest's "symbol" names it; a loader looks it up there). */
#define RLX_ENTRY_SYMBOL_PREFIX "rlx_entry_"
/** Not exported: the code of an entry point inside the artifact is
    RLX_IMPL_SYMBOL_PREFIX + its name, reserved so that a model function
    called `exp` or `free` cannot collide with the C library. */
#define RLX_IMPL_SYMBOL_PREFIX "rlx_impl_"

/** `rlx_artifact_abi_version_fn_t`: returns RLX_ABI_VERSION. A library
    without it is not an rlx artifact. */
#define RLX_ARTIFACT_ABI_VERSION_SYMBOL "rlx_artifact_abi_version"
/** `rlx_artifact_manifest_fn_t`: the manifest JSON, NUL-terminated, in
    static storage. */
#define RLX_ARTIFACT_MANIFEST_SYMBOL "rlx_artifact_manifest"
/** `int32_t`: the thread count of parallel regions (0 until set); only in
    artifacts with parallel kernels. The runtime writes it before each call. */
#define RLX_ARTIFACT_NUM_THREADS_SYMBOL "rlx_artifact_num_threads"
/** Host-side hook slots (pointers the loader sets), each of the type named
    like it + `_t`: the call in progress, host memory of the entry code,
    a failed run-time check, and whether the call has failed. */
#define RLX_ARTIFACT_CALL_HOOK_SYMBOL "rlx_artifact_call_hook"
#define RLX_ARTIFACT_ALLOC_HOOK_SYMBOL "rlx_artifact_alloc_hook"
#define RLX_ARTIFACT_FREE_HOOK_SYMBOL "rlx_artifact_free_hook"
#define RLX_ARTIFACT_ERROR_HOOK_SYMBOL "rlx_artifact_error_hook"
#define RLX_ARTIFACT_FAILED_HOOK_SYMBOL "rlx_artifact_failed_hook"
/** GPU artifacts: `const rlx_device_binary_t[]`, the device code. */
#define RLX_ARTIFACT_DEVICE_BINARIES_SYMBOL "rlx_artifact_device_binaries"
/** GPU artifacts: `const int64_t`, the number of device binaries. */
#define RLX_ARTIFACT_DEVICE_BINARY_COUNT_SYMBOL                                \
  "rlx_artifact_device_binary_count"
/** GPU artifacts: hook slots, each of the type named like it + `_t`. */
#define RLX_ARTIFACT_DEVICE_ALLOC_HOOK_SYMBOL "rlx_artifact_device_alloc_hook"
#define RLX_ARTIFACT_DEVICE_FREE_HOOK_SYMBOL "rlx_artifact_device_free_hook"
#define RLX_ARTIFACT_DEVICE_UPLOAD_HOOK_SYMBOL "rlx_artifact_device_upload_hook"
#define RLX_ARTIFACT_DEVICE_LAUNCH_HOOK_SYMBOL "rlx_artifact_device_launch_hook"
#define RLX_ARTIFACT_DEVICE_DOWNLOAD_HOOK_SYMBOL                               \
  "rlx_artifact_device_download_hook"
/** `rlx_artifact_collective_hook_t` slot: artifacts with collectives
    (rlx.all_reduce, ...) call it for each one. Optional: an artifact
    without collectives has none. */
#define RLX_ARTIFACT_COLLECTIVE_HOOK_SYMBOL "rlx_artifact_collective_hook"

/* The exported symbols by which artifacts have them, as X-macro lists
   (X(name) per symbol) so that tools and tests can walk every name. Entry
   symbols come on top of these. */

/** Every artifact. */
#define RLX_ARTIFACT_REQUIRED_SYMBOLS(X)                                       \
  X(RLX_ARTIFACT_ABI_VERSION_SYMBOL)                                           \
  X(RLX_ARTIFACT_MANIFEST_SYMBOL)
/** Every artifact rlxc writes; optional to a loader (an artifact without
    allocations or checks need not have them). */
#define RLX_ARTIFACT_HOOK_SYMBOLS(X)                                           \
  X(RLX_ARTIFACT_CALL_HOOK_SYMBOL)                                             \
  X(RLX_ARTIFACT_ALLOC_HOOK_SYMBOL)                                            \
  X(RLX_ARTIFACT_FREE_HOOK_SYMBOL)                                             \
  X(RLX_ARTIFACT_ERROR_HOOK_SYMBOL)                                            \
  X(RLX_ARTIFACT_FAILED_HOOK_SYMBOL)
/** CPU artifacts with parallel kernels. */
#define RLX_ARTIFACT_THREAD_SYMBOLS(X) X(RLX_ARTIFACT_NUM_THREADS_SYMBOL)
/** Every GPU artifact (target cuda, rocm or vulkan); all required. */
#define RLX_ARTIFACT_DEVICE_SYMBOLS(X)                                         \
  X(RLX_ARTIFACT_DEVICE_BINARIES_SYMBOL)                                       \
  X(RLX_ARTIFACT_DEVICE_BINARY_COUNT_SYMBOL)                                   \
  X(RLX_ARTIFACT_DEVICE_ALLOC_HOOK_SYMBOL)                                     \
  X(RLX_ARTIFACT_DEVICE_FREE_HOOK_SYMBOL)                                      \
  X(RLX_ARTIFACT_DEVICE_UPLOAD_HOOK_SYMBOL)                                    \
  X(RLX_ARTIFACT_DEVICE_LAUNCH_HOOK_SYMBOL)                                    \
  X(RLX_ARTIFACT_DEVICE_DOWNLOAD_HOOK_SYMBOL)

/*===----------------------------------------------------------------------===*
 * Signatures
 *===----------------------------------------------------------------------===*/

typedef uint32_t (*rlx_artifact_abi_version_fn_t)(void);
typedef const char *(*rlx_artifact_manifest_fn_t)(void);
/** An entry symbol. `args`: one memref descriptor pointer per input, then
    per param, then the buffer the callee fills with output descriptors
    (docs/abi.md, "Calling an entry point"). Returns 0 on success. */
typedef int32_t (*rlx_artifact_entry_fn_t)(void **args);

/** Hooks: the loader sets them at load, before any call. A hook that fails
    records the failure on the call in progress and returns; the entry code
    then stops and returns (docs/abi.md, "When a call fails"). `call` is
    what the call hook returned on the thread that entered the entry point
    (worker threads of a parallel region get it passed down); null outside a
    call. */
typedef void *(*rlx_artifact_call_hook_t)(void);
/** Host memory of the entry code, `alignment`-aligned (a power of two).
    Null, with the failure recorded, when there is none left. The runtime
    frees what a failed call allocated. */
typedef void *(*rlx_artifact_alloc_hook_t)(void *call, int64_t bytes,
                                           int64_t alignment);
typedef void (*rlx_artifact_free_hook_t)(void *call, void *block);
/** Records a failed run-time check; `message` names the op's location. */
typedef void (*rlx_artifact_error_hook_t)(void *call, const char *message);
/** Nonzero once any hook has failed during `call`, on any thread. */
typedef int32_t (*rlx_artifact_failed_hook_t)(void *call);
/** Device memory, >= 256-byte aligned; zero bytes still give a distinct
    non-null pointer. */
typedef void *(*rlx_artifact_device_alloc_hook_t)(int64_t bytes);
typedef void (*rlx_artifact_device_free_hook_t)(void *device_ptr);
/** Copies a constant of the program from host to device memory. */
typedef void (*rlx_artifact_device_upload_hook_t)(void *device_dst,
                                                  const void *host_src,
                                                  int64_t bytes);
/** Launches `kernel` of `module` on grid x block; `args` holds `num_args`
    (kind, value) pairs of 64-bit words, kinds from rlx_kernel_arg_kind_t, in
    kernel parameter order. */
typedef void (*rlx_artifact_device_launch_hook_t)(
    const char *module, const char *kernel, const int64_t *grid,
    const int64_t *block, int64_t num_args, const int64_t *args);
/** Waits for the work the call has queued, then copies `bytes` of device
    memory to the host: a value host code branches on (a while loop's
    condition, a switch's index). Since ABI version 2. */
typedef void (*rlx_artifact_device_download_hook_t)(void *host_dst,
                                                    const void *device_src,
                                                    int64_t bytes);

/** What the collective hook is asked to do. */
typedef enum rlx_collective_kind_e {
  RLX_COLLECTIVE_ALL_REDUCE_SUM = 0,
  RLX_COLLECTIVE_ALL_REDUCE_MEAN = 1,
  RLX_COLLECTIVE_ALL_REDUCE_MAX = 2,
  RLX_COLLECTIVE_ALL_REDUCE_MIN = 3,
  RLX_COLLECTIVE_ALL_GATHER = 4,     /**< `arg`: the op's axis_size */
  RLX_COLLECTIVE_REDUCE_SCATTER = 5, /**< sum; `arg`: the op's axis_size */
  RLX_COLLECTIVE_BROADCAST = 6,      /**< `arg`: the root replica */
  RLX_COLLECTIVE_AXIS_INDEX = 7,     /**< writes one i32 to `out` */
  /** Waits for the collective started with these `in` and `out` (the other
      arguments repeat the start's). A wait for nothing started returns. */
  RLX_COLLECTIVE_WAIT = 8,
  /** Or'ed into kinds 0-6: starts the collective and may return before it
      is done (the runtime runs it on the communicator's thread, in the
      order started). Until the wait, `in` must not change and `out` must
      not be read. The entry code waits for each collective it starts. */
  RLX_COLLECTIVE_START = 0x100
} rlx_collective_kind_t;

/** One collective over the replicas of the session's communicator, on
    host memory. `dtype` is an rlx_dtype_t value (runtime.h). `count`: the
    elements of `in` for all-reduce and broadcast (`out` has as many), of
    one replica's block for all-gather (`in`; `out` holds axis_size blocks)
    and reduce-scatter (`out`; `in` holds axis_size blocks). Blocks are
    contiguous: the compiler moves the gathered or scattered dim in front
    first. A failure is recorded on the call in progress. */
typedef void (*rlx_artifact_collective_hook_t)(int32_t kind, int32_t dtype,
                                               const void *in, void *out,
                                               int64_t count, int64_t arg);

/** The kind word of a kernel argument of the launch hook. */
typedef enum rlx_kernel_arg_kind_e {
  RLX_KERNEL_ARG_POINTER = 0, /**< a device pointer */
  RLX_KERNEL_ARG_I32 = 1,     /**< the low 32 bits of the value */
  RLX_KERNEL_ARG_I64 = 2,
  RLX_KERNEL_ARG_F32 = 3, /**< the float's bits in the low 32 bits */
  RLX_KERNEL_ARG_F64 = 4  /**< the double's bits */
} rlx_kernel_arg_kind_t;

/*===----------------------------------------------------------------------===*
 * Device code of GPU artifacts
 *===----------------------------------------------------------------------===*/

/** One record of RLX_ARTIFACT_DEVICE_BINARIES_SYMBOL: one compiled GPU
    module for one chip. */
typedef struct rlx_device_binary_t {
  const char *module; /**< GPU module name; a launch names it */
  const char *format; /**< one of RLX_DEVICE_BINARY_FORMAT_* */
  const char *chip;   /**< "sm_90", "gfx90a"; "" for spirv */
  const uint8_t *data;
  uint64_t size;
} rlx_device_binary_t;

#define RLX_DEVICE_BINARY_FORMAT_SPIRV "spirv" /**< vulkan */
#define RLX_DEVICE_BINARY_FORMAT_PTX "ptx"     /**< cuda, JIT fallback */
#define RLX_DEVICE_BINARY_FORMAT_CUBIN "cubin" /**< cuda */
#define RLX_DEVICE_BINARY_FORMAT_HSACO "hsaco" /**< rocm */

/*===----------------------------------------------------------------------===*
 * Integrity: the digest note
 *===----------------------------------------------------------------------===*/

/* Every artifact carries one ELF note (in a PT_NOTE segment, so a loader
   finds it from the program headers alone) recording the file's size and a
   digest of its bytes. A loader checks both before it maps anything: a
   truncated, bit-flipped or edited artifact is refused instead of reaching
   the dynamic loader. The digest is XXH64 (seed 0) of the whole file with
   the note's 16 descriptor bytes read as zeros; it detects corruption, it
   does not authenticate (anyone can recompute it). */

/** The section the note lives in (an SHT_NOTE section, 4-byte aligned). */
#define RLX_ARTIFACT_DIGEST_SECTION ".note.rlx.digest"
/** The note's owner name (with its NUL, 4 bytes) and type. */
#define RLX_ARTIFACT_DIGEST_NOTE_NAME "RLX"
#define RLX_ARTIFACT_DIGEST_NOTE_TYPE 0x52445831u /* "1XDR" */
/** The digest algorithm, for messages and docs. */
#define RLX_ARTIFACT_DIGEST_ALGORITHM "xxh64"

/** The note as it lies in the file: the ELF note header, the name, then the
    descriptor. Integers of the descriptor are little-endian byte arrays so
    that the note needs no more than 4-byte alignment. */
typedef struct rlx_artifact_digest_note_t {
  uint32_t name_size;       /**< 4 */
  uint32_t descriptor_size; /**< 16 */
  uint32_t type;            /**< RLX_ARTIFACT_DIGEST_NOTE_TYPE */
  char name[4];             /**< RLX_ARTIFACT_DIGEST_NOTE_NAME */
  uint8_t file_size[8];     /**< the whole file's size in bytes */
  uint8_t digest[8];        /**< XXH64 of the file, descriptor zeroed */
} rlx_artifact_digest_note_t;

/** An unsealed note (descriptor zero), for writers that seal after linking. */
#define RLX_ARTIFACT_DIGEST_NOTE_INITIALIZER                                   \
  {4, 16, RLX_ARTIFACT_DIGEST_NOTE_TYPE, RLX_ARTIFACT_DIGEST_NOTE_NAME,       \
   {0}, {0}}

/*===----------------------------------------------------------------------===*
 * CPU features
 *===----------------------------------------------------------------------===*/

/* The x86 features a manifest's "cpu_features" may require: the instruction
   set extensions compiled code can use, by LLVM's name, with where CPUID
   reports each and which XCR0 state bits the OS must have enabled for it.
   X(name, leaf, subleaf, register (0 eax, 1 ebx, 2 ecx, 3 edx), bit, xcr0).
   rlxc records those its CPU has (for --cpu=NAME and --cpu-features); the
   runtime checks them against the CPU it runs on before the first call. */
#define RLX_X86_XCR0_AVX 0x6u        /**< SSE and AVX state */
#define RLX_X86_XCR0_AVX512 0xe6u    /**< and opmask, ZMM state */
#define RLX_X86_XCR0_AMX 0x60006u    /**< and tile config, tile data */
#define RLX_X86_CPU_FEATURES(X)                                                \
  X("sse", 1, 0, 3, 25, 0)                                                     \
  X("sse2", 1, 0, 3, 26, 0)                                                    \
  X("sse3", 1, 0, 2, 0, 0)                                                     \
  X("pclmul", 1, 0, 2, 1, 0)                                                   \
  X("ssse3", 1, 0, 2, 9, 0)                                                    \
  X("fma", 1, 0, 2, 12, RLX_X86_XCR0_AVX)                                      \
  X("cx16", 1, 0, 2, 13, 0)                                                    \
  X("sse4.1", 1, 0, 2, 19, 0)                                                  \
  X("sse4.2", 1, 0, 2, 20, 0)                                                  \
  X("movbe", 1, 0, 2, 22, 0)                                                   \
  X("popcnt", 1, 0, 2, 23, 0)                                                  \
  X("aes", 1, 0, 2, 25, 0)                                                     \
  X("avx", 1, 0, 2, 28, RLX_X86_XCR0_AVX)                                      \
  X("f16c", 1, 0, 2, 29, RLX_X86_XCR0_AVX)                                     \
  X("rdrnd", 1, 0, 2, 30, 0)                                                   \
  X("bmi", 7, 0, 1, 3, 0)                                                      \
  X("avx2", 7, 0, 1, 5, RLX_X86_XCR0_AVX)                                      \
  X("bmi2", 7, 0, 1, 8, 0)                                                     \
  X("avx512f", 7, 0, 1, 16, RLX_X86_XCR0_AVX512)                               \
  X("avx512dq", 7, 0, 1, 17, RLX_X86_XCR0_AVX512)                              \
  X("rdseed", 7, 0, 1, 18, 0)                                                  \
  X("adx", 7, 0, 1, 19, 0)                                                     \
  X("avx512ifma", 7, 0, 1, 21, RLX_X86_XCR0_AVX512)                            \
  X("avx512cd", 7, 0, 1, 28, RLX_X86_XCR0_AVX512)                              \
  X("sha", 7, 0, 1, 29, 0)                                                     \
  X("avx512bw", 7, 0, 1, 30, RLX_X86_XCR0_AVX512)                              \
  X("avx512vl", 7, 0, 1, 31, RLX_X86_XCR0_AVX512)                              \
  X("avx512vbmi", 7, 0, 2, 1, RLX_X86_XCR0_AVX512)                             \
  X("avx512vbmi2", 7, 0, 2, 6, RLX_X86_XCR0_AVX512)                            \
  X("gfni", 7, 0, 2, 8, 0)                                                     \
  X("vaes", 7, 0, 2, 9, RLX_X86_XCR0_AVX)                                      \
  X("vpclmulqdq", 7, 0, 2, 10, RLX_X86_XCR0_AVX)                               \
  X("avx512vnni", 7, 0, 2, 11, RLX_X86_XCR0_AVX512)                            \
  X("avx512bitalg", 7, 0, 2, 12, RLX_X86_XCR0_AVX512)                          \
  X("avx512vpopcntdq", 7, 0, 2, 14, RLX_X86_XCR0_AVX512)                       \
  X("avx512vp2intersect", 7, 0, 3, 8, RLX_X86_XCR0_AVX512)                     \
  X("amx-bf16", 7, 0, 3, 22, RLX_X86_XCR0_AMX)                                 \
  X("avx512fp16", 7, 0, 3, 23, RLX_X86_XCR0_AVX512)                            \
  X("amx-tile", 7, 0, 3, 24, RLX_X86_XCR0_AMX)                                 \
  X("amx-int8", 7, 0, 3, 25, RLX_X86_XCR0_AMX)                                 \
  X("avxvnni", 7, 1, 0, 4, RLX_X86_XCR0_AVX)                                   \
  X("avx512bf16", 7, 1, 0, 5, RLX_X86_XCR0_AVX512)                             \
  X("amx-fp16", 7, 1, 0, 21, RLX_X86_XCR0_AMX)                                 \
  X("avxifma", 7, 1, 0, 23, RLX_X86_XCR0_AVX)                                  \
  X("avxvnniint8", 7, 1, 3, 4, RLX_X86_XCR0_AVX)                               \
  X("avxneconvert", 7, 1, 3, 5, RLX_X86_XCR0_AVX)                              \
  X("sahf", 0x80000001u, 0, 2, 0, 0)                                           \
  X("lzcnt", 0x80000001u, 0, 2, 5, 0)                                          \
  X("sse4a", 0x80000001u, 0, 2, 6, 0)                                          \
  X("prfchw", 0x80000001u, 0, 2, 8, 0)                                         \
  X("xop", 0x80000001u, 0, 2, 11, RLX_X86_XCR0_AVX)                            \
  X("fma4", 0x80000001u, 0, 2, 16, RLX_X86_XCR0_AVX)

/*===----------------------------------------------------------------------===*
 * Manifest JSON
 *===----------------------------------------------------------------------===*/

/* Keys of each object of the manifest, and an X-macro list of each object's
   keys: rlxc writes every key listed. */

/** The top-level object. */
#define RLX_MANIFEST_FORMAT "format" /**< RLX_MANIFEST_FORMAT_NAME */
#define RLX_MANIFEST_ABI_VERSION "abi_version"
#define RLX_MANIFEST_TARGET "target" /**< one of RLX_MANIFEST_TARGET_* */
#define RLX_MANIFEST_COMPILER "compiler"
/** The LLVM target triple of the code that runs on the CPU (all of a CPU
    artifact, the host side of a GPU artifact). */
#define RLX_MANIFEST_TARGET_TRIPLE "target_triple"
/** The LLVM CPU name that code was compiled for ("x86-64-v3", "znver4"). */
#define RLX_MANIFEST_CPU "cpu"
/** The CPU features that code needs, "+name" each (LLVM's names), from
    RLX_X86_CPU_FEATURES on x86; a loader refuses to run the artifact on a
    CPU that lacks one. */
#define RLX_MANIFEST_CPU_FEATURES "cpu_features"
#define RLX_MANIFEST_ENTRY_POINTS "entry_points" /**< entry point objects */
#define RLX_MANIFEST_PARAMS "params" /**< tensor objects: the union */
#define RLX_MANIFEST_KEYS(X)                                                   \
  X(RLX_MANIFEST_FORMAT)                                                       \
  X(RLX_MANIFEST_ABI_VERSION)                                                  \
  X(RLX_MANIFEST_TARGET)                                                       \
  X(RLX_MANIFEST_COMPILER)                                                     \
  X(RLX_MANIFEST_TARGET_TRIPLE)                                                \
  X(RLX_MANIFEST_CPU)                                                          \
  X(RLX_MANIFEST_CPU_FEATURES)                                                 \
  X(RLX_MANIFEST_ENTRY_POINTS)                                                 \
  X(RLX_MANIFEST_PARAMS)

/** The value of RLX_MANIFEST_FORMAT. */
#define RLX_MANIFEST_FORMAT_NAME "rlx-artifact"
/** Values of RLX_MANIFEST_TARGET. */
#define RLX_MANIFEST_TARGET_CPU "cpu"
#define RLX_MANIFEST_TARGET_CUDA "cuda"
#define RLX_MANIFEST_TARGET_ROCM "rocm"
#define RLX_MANIFEST_TARGET_VULKAN "vulkan"

/** An entry point. */
#define RLX_MANIFEST_ENTRY_NAME "name"
#define RLX_MANIFEST_ENTRY_SYMBOL "symbol"
#define RLX_MANIFEST_ENTRY_INPUTS "inputs"   /**< tensor objects */
#define RLX_MANIFEST_ENTRY_PARAMS "params"   /**< tensor objects */
#define RLX_MANIFEST_ENTRY_OUTPUTS "outputs" /**< tensor objects */
#define RLX_MANIFEST_ENTRY_DIM_CONSTRAINTS "dim_constraints"
#define RLX_MANIFEST_ENTRY_WORKSPACE_BYTES "workspace_bytes"
/** The entry point computing, from weights alone, the params of this one
    named by its outputs, or "" (docs/abi.md, `prepare`; optional). */
#define RLX_MANIFEST_ENTRY_PREPARE "prepare"
#define RLX_MANIFEST_ENTRY_WORKSPACE_LOWER_BOUND_BYTES                         \
  "workspace_lower_bound_bytes"
#define RLX_MANIFEST_ENTRY_POINT_KEYS(X)                                       \
  X(RLX_MANIFEST_ENTRY_NAME)                                                   \
  X(RLX_MANIFEST_ENTRY_SYMBOL)                                                 \
  X(RLX_MANIFEST_ENTRY_INPUTS)                                                 \
  X(RLX_MANIFEST_ENTRY_PARAMS)                                                 \
  X(RLX_MANIFEST_ENTRY_OUTPUTS)                                                \
  X(RLX_MANIFEST_ENTRY_DIM_CONSTRAINTS)                                        \
  X(RLX_MANIFEST_ENTRY_WORKSPACE_BYTES)                                        \
  X(RLX_MANIFEST_ENTRY_PREPARE)                                                \
  X(RLX_MANIFEST_ENTRY_WORKSPACE_LOWER_BOUND_BYTES)

/** A tensor: an input, output or param. */
#define RLX_MANIFEST_TENSOR_NAME "name"
#define RLX_MANIFEST_TENSOR_DTYPE "dtype"
#define RLX_MANIFEST_TENSOR_SHAPE "shape" /**< -1 = dynamic */
#define RLX_MANIFEST_TENSOR_KEYS(X)                                            \
  X(RLX_MANIFEST_TENSOR_NAME)                                                  \
  X(RLX_MANIFEST_TENSOR_DTYPE)                                                 \
  X(RLX_MANIFEST_TENSOR_SHAPE)

/** A dim constraint of an entry point. */
#define RLX_MANIFEST_DIM_CONSTRAINT_DIMS "dims" /**< [input, dim] pairs */
#define RLX_MANIFEST_DIM_CONSTRAINT_SIZE "size" /**< -1 = any */
#define RLX_MANIFEST_DIM_CONSTRAINT_KEYS(X)                                    \
  X(RLX_MANIFEST_DIM_CONSTRAINT_DIMS)                                          \
  X(RLX_MANIFEST_DIM_CONSTRAINT_SIZE)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RLX_ABI_H */
