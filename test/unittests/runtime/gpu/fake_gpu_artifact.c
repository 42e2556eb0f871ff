/*===- fake_gpu_artifact.c - A hand-written GPU artifact for tests --------===*\
|*                                                                            *|
|* Implements docs/abi.md, "GPU artifacts", by hand so the runtime's device   *|
|* layer can be tested without the compiler: host entry code that only sizes *|
|* buffers, allocates, uploads, launches and frees through the hooks, and    *|
|* device code for each target. Compile-time switches:                       *|
|*   FAKE_GPU_TARGET=2|3|4   vulkan (SPIR-V from the .comp files, compiled   *|
|*                           by glslangValidator into the *_spv.h headers),  *|
|*                           cuda (the PTX below) or rocm (placeholder       *|
|*                           bytes: only the missing-driver path is tested)  *|
|*   FAKE_GPU_NO_SPIRV       a Vulkan artifact without kernels (no           *|
|*                           glslangValidator at build time)                 *|
|*   FAKE_GPU_OMIT_LAUNCH_HOOK  leave out rlx_artifact_device_launch_hook    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "rlx/abi.h"

#include <stdint.h>
#include <string.h>

/* The digest note; the build seals it after linking (rlx-seal-artifact). */
__attribute__((section(RLX_ARTIFACT_DIGEST_SECTION), used, aligned(4)))
static const rlx_artifact_digest_note_t digest_note =
    RLX_ARTIFACT_DIGEST_NOTE_INITIALIZER;

#define EXPORT __attribute__((visibility("default")))
/* RLX_ABI_VERSION as manifest text. */
#define ABI_VERSION_STRING(version) #version
#define ABI_VERSION_TEXT_OF(version) ABI_VERSION_STRING(version)
#define ABI_VERSION_TEXT ABI_VERSION_TEXT_OF(RLX_ABI_VERSION)

#define TARGET_VULKAN 2
#define TARGET_CUDA 3
#define TARGET_ROCM 4
#ifndef FAKE_GPU_TARGET
#define FAKE_GPU_TARGET TARGET_VULKAN
#endif

/* rlx_device_binary_t comes from rlx/abi.h. */

EXPORT void *(*rlx_artifact_device_alloc_hook)(int64_t bytes);
EXPORT void (*rlx_artifact_device_free_hook)(void *device_ptr);
EXPORT void (*rlx_artifact_device_upload_hook)(void *device_dst,
                                               const void *host_src,
                                               int64_t bytes);
EXPORT void (*rlx_artifact_device_download_hook)(void *host_dst,
                                                 const void *device_src,
                                                 int64_t bytes);
#ifndef FAKE_GPU_OMIT_LAUNCH_HOOK
EXPORT void (*rlx_artifact_device_launch_hook)(
    const char *module, const char *kernel, const int64_t grid[3],
    const int64_t block[3], int64_t num_args, const int64_t *args);
#else
static void (*rlx_artifact_device_launch_hook)(const char *, const char *,
                                               const int64_t *, const int64_t *,
                                               int64_t, const int64_t *);
#endif

/* ---- Device code --------------------------------------------------------- */

#if FAKE_GPU_TARGET == TARGET_VULKAN
#define TARGET "vulkan"
#ifndef FAKE_GPU_NO_SPIRV
#include "add_param_spv.h"
#include "scale_add_spv.h"
#include "twice_f64_spv.h"
#define SPIRV(module, words)                                                   \
  { module, "spirv", "", (const uint8_t *)words, sizeof(words) }
EXPORT const rlx_device_binary_t rlx_artifact_device_binaries[] = {
    SPIRV("forward_kernel_0", scale_add_spv),
    SPIRV("forward_kernel_1", add_param_spv),
    SPIRV("double_kernel", twice_f64_spv)};
EXPORT const int64_t rlx_artifact_device_binary_count = 3;
#else
EXPORT const rlx_device_binary_t rlx_artifact_device_binaries[1];
EXPORT const int64_t rlx_artifact_device_binary_count = 0;
#endif

#elif FAKE_GPU_TARGET == TARGET_CUDA
#define TARGET "cuda"
/* The kernels of scale_add.comp and add_param.comp in PTX, written after
   what clang --target=nvptx64-nvidia-cuda makes of them. */
static const char ptx[] =
    ".version 7.0\n"
    ".target sm_60\n"
    ".address_size 64\n"
    ".visible .entry scale_add(.param .u64 x, .param .u64 c, .param .u64 t,\n"
    "    .param .u32 n, .param .u32 cols, .param .f32 scale)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .f32 %f<5>;\n"
    "  .reg .b64 %rd<9>;\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  ld.param.u32 %r5, [n];\n"
    "  setp.ge.s32 %p1, %r4, %r5;\n"
    "  @%p1 bra SCALE_ADD_DONE;\n"
    "  ld.param.u64 %rd1, [x];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  ld.param.u64 %rd2, [c];\n"
    "  cvta.to.global.u64 %rd2, %rd2;\n"
    "  ld.param.u64 %rd3, [t];\n"
    "  cvta.to.global.u64 %rd3, %rd3;\n"
    "  ld.param.u32 %r6, [cols];\n"
    "  ld.param.f32 %f1, [scale];\n"
    "  mul.wide.s32 %rd4, %r4, 4;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n"
    "  ld.global.f32 %f2, [%rd5];\n"
    "  rem.s32 %r7, %r4, %r6;\n"
    "  mul.wide.s32 %rd6, %r7, 4;\n"
    "  add.s64 %rd7, %rd2, %rd6;\n"
    "  ld.global.f32 %f3, [%rd7];\n"
    "  fma.rn.f32 %f4, %f2, %f1, %f3;\n"
    "  add.s64 %rd8, %rd3, %rd4;\n"
    "  st.global.f32 [%rd8], %f4;\n"
    "SCALE_ADD_DONE:\n"
    "  ret;\n"
    "}\n"
    ".visible .entry add_param(.param .u64 t, .param .u64 p, .param .u64 y,\n"
    "    .param .u32 n, .param .u32 cols)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .f32 %f<4>;\n"
    "  .reg .b64 %rd<9>;\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  ld.param.u32 %r5, [n];\n"
    "  setp.ge.s32 %p1, %r4, %r5;\n"
    "  @%p1 bra ADD_PARAM_DONE;\n"
    "  ld.param.u64 %rd1, [t];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  ld.param.u64 %rd2, [p];\n"
    "  cvta.to.global.u64 %rd2, %rd2;\n"
    "  ld.param.u64 %rd3, [y];\n"
    "  cvta.to.global.u64 %rd3, %rd3;\n"
    "  ld.param.u32 %r6, [cols];\n"
    "  mul.wide.s32 %rd4, %r4, 4;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n"
    "  ld.global.f32 %f1, [%rd5];\n"
    "  rem.s32 %r7, %r4, %r6;\n"
    "  mul.wide.s32 %rd6, %r7, 4;\n"
    "  add.s64 %rd7, %rd2, %rd6;\n"
    "  ld.global.f32 %f2, [%rd7];\n"
    "  add.rn.f32 %f3, %f1, %f2;\n"
    "  add.s64 %rd8, %rd3, %rd4;\n"
    "  st.global.f32 [%rd8], %f3;\n"
    "ADD_PARAM_DONE:\n"
    "  ret;\n"
    "}\n";
#define PTX(module)                                                            \
  { module, "ptx", "", (const uint8_t *)ptx, sizeof(ptx) - 1 }
EXPORT const rlx_device_binary_t rlx_artifact_device_binaries[] = {
    PTX("forward_kernel_0"), PTX("forward_kernel_1")};
EXPORT const int64_t rlx_artifact_device_binary_count = 2;

#else
#define TARGET "rocm"
static const uint8_t placeholder[] = "not an hsaco";
EXPORT const rlx_device_binary_t rlx_artifact_device_binaries[] = {
    {"forward_kernel_0", "hsaco", "gfx90a", placeholder, sizeof(placeholder)},
    {"forward_kernel_1", "hsaco", "gfx90a", placeholder, sizeof(placeholder)}};
EXPORT const int64_t rlx_artifact_device_binary_count = 2;
#endif

/* ---- Manifest ------------------------------------------------------------ */

EXPORT uint32_t rlx_artifact_abi_version(void) { return RLX_ABI_VERSION; }

#define SPEC(name, dtype, shape)                                               \
  "{\"name\": \"" name "\", \"dtype\": \"" dtype "\", \"shape\": " shape "}"
#define ENTRY(name, symbol)                                                    \
  "{\"name\": \"" name "\", \"symbol\": \"" symbol "\""
#define PARAM SPEC("p", "f32", "[4]")
/* clang-format off */
static const char manifest[] =
    "{\"format\": \"rlx-artifact\", \"abi_version\": " ABI_VERSION_TEXT
    ", \"target\": \"" TARGET
    "\", \"compiler\": \"fake_gpu_artifact.c\", \"entry_points\": ["
    /* y[r, j] = 2 x[r, j] + c[j] + p[j], c = {0, 0.5, 1, 1.5} */
    ENTRY("forward", "fake_forward")
    ", \"inputs\": [" SPEC("x", "f32", "[-1, 4]") "]"
    ", \"params\": [" PARAM "]"
    ", \"outputs\": [" SPEC("y", "f32", "[-1, 4]") "]}, "
    /* forward without its first row, as a view 16 bytes into the result */
    ENTRY("tail", "fake_tail")
    ", \"inputs\": [" SPEC("x", "f32", "[-1, 4]") "]"
    ", \"params\": [" PARAM "]"
    ", \"outputs\": [" SPEC("y", "f32", "[-1, 4]") "]}, "
    /* forward, transposed: a strided view of the result */
    ENTRY("transposed", "fake_transposed")
    ", \"inputs\": [" SPEC("x", "f32", "[-1, 4]") "]"
    ", \"params\": [" PARAM "]"
    ", \"outputs\": [" SPEC("y", "f32", "[4, -1]") "]}, "
    /* forward's first element, read by the host and uploaded again */
    ENTRY("first", "fake_first")
    ", \"inputs\": [" SPEC("x", "f32", "[-1, 4]") "]"
    ", \"params\": [" PARAM "]"
    ", \"outputs\": [" SPEC("z", "f32", "[1]") "]}, "
    /* y = 2 x in f64 */
    ENTRY("twice", "fake_twice")
    ", \"inputs\": [" SPEC("x", "f64", "[-1]") "]"
    ", \"outputs\": [" SPEC("y", "f64", "[-1]") "]}, "
    /* Asks for 2^50 bytes. */
    ENTRY("huge", "fake_huge")
    ", \"inputs\": [], \"outputs\": [" SPEC("z", "f32", "[1]") "]}, "
    /* Allocates its output, then launches a kernel that does not exist. */
    ENTRY("bad_kernel", "fake_bad_kernel")
    ", \"inputs\": [], \"outputs\": [" SPEC("z", "f32", "[1]") "]}, "
    /* Returns its input as its output (the ABI forbids it). */
    ENTRY("alias", "fake_alias")
    ", \"inputs\": [" SPEC("x", "f32", "[4]") "]"
    ", \"outputs\": [" SPEC("y", "f32", "[4]") "]}"
    "], \"params\": [" PARAM "]}";
/* clang-format on */

EXPORT const char *rlx_artifact_manifest(void) { return manifest; }

/* ---- Entry code ---------------------------------------------------------- */

/* A memref descriptor is 3 + 2r int64 words: allocated, aligned, offset,
   sizes[r], strides[r]; its pointers are device pointers. */
static int64_t pointerWord(const void *p) { return (int64_t)(uintptr_t)p; }
static void *wordPointer(int64_t word) { return (void *)(uintptr_t)word; }

static void launch(const char *module, const char *kernel, int64_t n,
                   int64_t numArgs, const int64_t *args) {
  int64_t grid[3] = {(n + 63) / 64, 1, 1}, block[3] = {64, 1, 1};
  rlx_artifact_device_launch_hook(module, kernel, grid, block, numArgs, args);
}

static int64_t floatBits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/* y = 2 x + c + p, returned from row `skip` on. */
static void forward(void **args, int64_t skip) {
  static const float constants[4] = {0.0f, 0.5f, 1.0f, 1.5f};
  const int64_t *x = args[0], *p = args[1];
  int64_t *y = args[2];
  int64_t rows = x[3], n = rows * 4;
  /* c: a constant of the program, freed as soon as its last reader is
     launched (the runtime must wait for that kernel before freeing). */
  void *c = rlx_artifact_device_alloc_hook(sizeof(constants));
  void *t = rlx_artifact_device_alloc_hook(n * 4);
  /* The output starts 256 bytes into its block. */
  char *block = rlx_artifact_device_alloc_hook(256 + n * 4);
  char *out = block + 256;
  rlx_artifact_device_upload_hook(c, constants, sizeof(constants));
  {
    int64_t scaleAdd[12] = {0, x[1], 0, pointerWord(c), 0, pointerWord(t), 1, n,
                            1, 4,    3, floatBits(2.0f)};
    launch("forward_kernel_0", "scale_add", n, 6, scaleAdd);
  }
  rlx_artifact_device_free_hook(c);
  {
    int64_t addParam[10] = {
        0, pointerWord(t), 0, p[1], 0, pointerWord(out), 1, n, 1, 4};
    launch("forward_kernel_1", "add_param", n, 5, addParam);
  }
  rlx_artifact_device_free_hook(t);
  y[0] = pointerWord(block);
  y[1] = pointerWord(out);
  y[2] = skip * 4;
  y[3] = rows - skip;
  y[4] = 4;
  y[5] = 4;
  y[6] = 1;
}

EXPORT int32_t fake_forward(void **args) {
  forward(args, 0);
  return 0;
}

EXPORT int32_t fake_tail(void **args) {
  forward(args, 1);
  return 0;
}

EXPORT int32_t fake_transposed(void **args) {
  int64_t *y = args[2];
  forward(args, 0);
  y[4] = y[3]; /* sizes [4, rows], strides [1, 4] */
  y[3] = 4;
  y[5] = 1;
  y[6] = 4;
  return 0;
}

/* The host reads forward's first element between the kernels that compute
   it and the upload of the output: the download must wait for them. */
EXPORT int32_t fake_first(void **args) {
  int64_t y[7];
  void *forwardArgs[3] = {args[0], args[1], y};
  int64_t *z = args[2];
  float first = -1.0f;
  void *out;
  forward(forwardArgs, 0);
  rlx_artifact_device_download_hook(&first, wordPointer(y[1]), sizeof(first));
  rlx_artifact_device_free_hook(wordPointer(y[0]));
  out = rlx_artifact_device_alloc_hook(sizeof(first));
  rlx_artifact_device_upload_hook(out, &first, sizeof(first));
  z[0] = z[1] = pointerWord(out);
  z[2] = 0;
  z[3] = 1;
  z[4] = 1;
  return 0;
}

EXPORT int32_t fake_twice(void **args) {
  const int64_t *x = args[0];
  int64_t *y = args[1];
  int64_t n = x[3];
  void *out = rlx_artifact_device_alloc_hook(n * 8);
  int64_t twice[6] = {0, x[1], 0, pointerWord(out), 1, n};
  launch("double_kernel", "twice", n, 3, twice);
  y[0] = y[1] = pointerWord(out);
  y[2] = 0;
  y[3] = n;
  y[4] = 1;
  return 0;
}

EXPORT int32_t fake_huge(void **args) {
  int64_t *z = args[0];
  void *block = rlx_artifact_device_alloc_hook((int64_t)1 << 50);
  z[0] = z[1] = pointerWord(block);
  z[3] = 1;
  z[4] = 1;
  return 0;
}

EXPORT int32_t fake_bad_kernel(void **args) {
  int64_t *z = args[0];
  void *block = rlx_artifact_device_alloc_hook(4);
  z[0] = z[1] = pointerWord(block);
  z[3] = 1;
  z[4] = 1;
  launch("forward_kernel_0", "nope", 1, 0, 0);
  return 0;
}

EXPORT int32_t fake_alias(void **args) {
  const int64_t *x = args[0];
  int64_t *y = args[1];
  memcpy(y, x, 5 * sizeof(int64_t));
  return 0;
}
