/*===- fake_artifact.c - A hand-written rlx artifact for tests ------------===*\
|*                                                                            *|
|* Implements docs/abi.md by hand so the runtime can be tested without the   *|
|* compiler. Compile-time switches build the broken variants the tests need: *|
|*   FAKE_ABI_VERSION=n     export a different ABI version                    *|
|*   FAKE_MANIFEST_KIND=1   manifest that is not JSON                         *|
|*   FAKE_MANIFEST_KIND=2   JSON with a field of the wrong type               *|
|*   FAKE_MANIFEST_KIND=4   `prepare` naming an entry point with inputs       *|
|*   FAKE_MANIFEST_KIND=5   a prepared param of another type than its maker's *|
|*   FAKE_PLAIN             an ordinary shared library with no rlx symbols    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(FAKE_PLAIN)

__attribute__((visibility("default"))) int plain_function(void) { return 42; }

#else

#include "rlx/abi.h"

/* The digest note; the build seals it after linking (rlx-seal-artifact). */
__attribute__((section(RLX_ARTIFACT_DIGEST_SECTION), used, aligned(4)))
static const rlx_artifact_digest_note_t digest_note =
    RLX_ARTIFACT_DIGEST_NOTE_INITIALIZER;

#ifndef FAKE_ABI_VERSION
#define FAKE_ABI_VERSION RLX_ABI_VERSION
#endif
#ifndef FAKE_MANIFEST_KIND
#define FAKE_MANIFEST_KIND 0
#endif

#define EXPORT __attribute__((visibility("default")))
/* RLX_ABI_VERSION as manifest text. */
#define ABI_VERSION_STRING(version) #version
#define ABI_VERSION_TEXT_OF(version) ABI_VERSION_STRING(version)
#define ABI_VERSION_TEXT ABI_VERSION_TEXT_OF(RLX_ABI_VERSION)

EXPORT uint32_t rlx_artifact_abi_version(void) { return FAKE_ABI_VERSION; }

#if FAKE_MANIFEST_KIND == 1
static const char manifest[] =
    "{\"format\": \"rlx-artifact\", \"entry_points\": [";
#elif FAKE_MANIFEST_KIND == 2
static const char manifest[] =
    "{\"format\": \"rlx-artifact\", \"abi_version\": " ABI_VERSION_TEXT
    ", \"target\": \"cpu\","
    " \"entry_points\": [{\"name\": \"f\", \"symbol\": \"f\","
    " \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": \"oops\"}],"
    " \"outputs\": []}]}";
#elif FAKE_MANIFEST_KIND == 3
/* `free` is found by dlsym through the C library, not in the artifact. */
static const char manifest[] =
    "{\"format\": \"rlx-artifact\", \"abi_version\": " ABI_VERSION_TEXT
    ", \"target\": \"cpu\","
    " \"entry_points\": [{\"name\": \"f\", \"symbol\": \"free\","
    " \"inputs\": [], \"outputs\": []}]}";
#elif FAKE_MANIFEST_KIND == 4 || FAKE_MANIFEST_KIND == 5
/* f reads p, which g makes; g takes an input (4) or makes p as f64 (5). */
static const char manifest[] =
    "{\"format\": \"rlx-artifact\", \"abi_version\": " ABI_VERSION_TEXT
    ", \"target\": \"cpu\","
    " \"entry_points\": [{\"name\": \"f\", \"symbol\": \"f\","
    " \"prepare\": \"g\", \"inputs\": [],"
    " \"params\": [{\"name\": \"p\", \"dtype\": \"f32\", \"shape\": [2]}],"
    " \"outputs\": []},"
    " {\"name\": \"g\", \"symbol\": \"g\","
#if FAKE_MANIFEST_KIND == 4
    " \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [2]}],"
    " \"outputs\": [{\"name\": \"p\", \"dtype\": \"f32\", \"shape\": [2]}]}]}";
#else
    " \"inputs\": [],"
    " \"outputs\": [{\"name\": \"p\", \"dtype\": \"f64\", \"shape\": [2]}]}]}";
#endif
#else
/* One tensor description of the manifest. */
#define SPEC(name, dtype, shape)                                               \
  "{\"name\": \"" name "\", \"dtype\": \"" dtype "\", \"shape\": " shape "}"
#define ENTRY(name, symbol)                                                    \
  "{\"name\": \"" name "\", \"symbol\": \"" symbol "\""
#define WEIGHT SPEC("layer.0.weight", "f32", "[3, 2]")
#define BIAS SPEC("layer.0.bias", "f32", "[2]")
/* clang-format off */
static const char manifest[] =
    "{\"format\": \"rlx-artifact\", \"abi_version\": " ABI_VERSION_TEXT
    ", \"target\": \"cpu\","
    " \"compiler\": \"fake_artifact.c\", \"entry_points\": ["
    /* y[b,j] = sum_k x[b,k] * w[k,j] + bias[j] */
    ENTRY("affine", "fake_affine")
    ", \"inputs\": [" SPEC("x", "f32", "[-1, 3]") "]"
    ", \"params\": [" WEIGHT ", " BIAS "]"
    ", \"outputs\": [" SPEC("y", "f32", "[-1, 2]") "]"
    ", \"workspace_bytes\": 0}, "
    /* rowsum[b] = scale * sum_k a[b,k] + bias[0]; count = rows */
    ENTRY("stats", "fake_stats")
    ", \"inputs\": [" SPEC("a", "f64", "[-1, 4]") ", "
                      SPEC("scale", "i32", "[]") "]"
    ", \"params\": [" BIAS "]"
    ", \"outputs\": [" SPEC("rowsum", "f64", "[-1]") ", "
                       SPEC("count", "i64", "[]") "]"
    ", \"workspace_bytes\": 128}, "
    ENTRY("transpose", "fake_transpose")
    ", \"inputs\": [" SPEC("m", "f32", "[2, 3]") "]"
    ", \"outputs\": [" SPEC("t", "f32", "[3, 2]") "]}, "
    ENTRY("negate", "fake_negate")
    ", \"inputs\": [" SPEC("b", "i1", "[-1]") "]"
    ", \"outputs\": [" SPEC("nb", "i1", "[-1]") "]}, "
    ENTRY("fail", "fake_fail")
    ", \"inputs\": [], \"outputs\": [" SPEC("z", "f32", "[1]") "]}, "
    ENTRY("fail_in_worker", "fake_fail_in_worker")
    ", \"inputs\": [" SPEC("bytes", "i64", "[]") "]"
    ", \"outputs\": [" SPEC("z", "f32", "[1]") "]}"
    "], \"params\": [" WEIGHT ", " BIAS "]}";
/* clang-format on */
#endif

EXPORT const char *rlx_artifact_manifest(void) { return manifest; }

/* A memref descriptor is 3 + 2r int64 words: allocated, aligned, offset,
   sizes[r], strides[r]. */
static void *allocatedOf(const int64_t *d) {
  void *p;
  memcpy(&p, d, sizeof(p));
  return p;
}
static void *alignedOf(const int64_t *d) {
  void *p;
  memcpy(&p, d + 1, sizeof(p));
  return p;
}
static void setPointers(int64_t *d, void *allocated, void *aligned) {
  memcpy(d, &allocated, sizeof(allocated));
  memcpy(d + 1, &aligned, sizeof(aligned));
}

/* y[b,j] = sum_k x[b,k] * w[k,j] + bias[j] */
EXPORT int32_t fake_affine(void **args) {
  const int64_t *x = args[0], *w = args[1], *bias = args[2];
  int64_t *y = args[3];
  int64_t rows = x[3], b, j, k;
  const float *xd = (const float *)alignedOf(x) + x[2];
  const float *wd = (const float *)alignedOf(w) + w[2];
  const float *bd = (const float *)alignedOf(bias) + bias[2];
  float *out;
  if (x[4] != 3 || x[6] != 1 || w[3] != 3 || w[4] != 2 || bias[3] != 2)
    return 2; /* the runtime must have checked this */
  out = malloc((size_t)(rows * 2) * sizeof(float) + 1);
  if (!out)
    return 1;
  for (b = 0; b < rows; ++b)
    for (j = 0; j < 2; ++j) {
      float sum = bd[j];
      for (k = 0; k < 3; ++k)
        sum += xd[b * x[5] + k] * wd[k * 2 + j];
      out[b * 2 + j] = sum;
    }
  setPointers(y, out, out);
  y[2] = 0;
  y[3] = rows;
  y[4] = 2;
  y[5] = 2;
  y[6] = 1;
  return 0;
}

/* rowsum[b] = scale * sum_k a[b,k] + bias[0] (data at offset 2 of its
   block, to exercise `offset`); count = rows. */
EXPORT int32_t fake_stats(void **args) {
  const int64_t *a = args[0], *scale = args[1], *bias = args[2];
  int64_t *out = args[3];
  int64_t *rowsum = out, *count = out + 5;
  int64_t rows = a[3], b, k;
  const double *ad = alignedOf(a);
  int32_t s = *(const int32_t *)alignedOf(scale);
  float b0 = *(const float *)alignedOf(bias);
  double *sums = malloc((size_t)(rows + 2) * sizeof(double));
  int64_t *n = malloc(sizeof(int64_t));
  for (b = 0; b < rows; ++b) {
    double sum = 0;
    for (k = 0; k < 4; ++k)
      sum += ad[b * 4 + k];
    sums[2 + b] = s * sum + b0;
  }
  *n = rows;
  setPointers(rowsum, sums, sums);
  rowsum[2] = 2;
  rowsum[3] = rows;
  rowsum[4] = 1;
  setPointers(count, n, n);
  count[2] = 0;
  return 0;
}

/* t = transpose(m), returned as a strided view of m's layout. */
EXPORT int32_t fake_transpose(void **args) {
  const int64_t *m = args[0];
  int64_t *t = args[1];
  float *copy = malloc(6 * sizeof(float));
  memcpy(copy, alignedOf(m), 6 * sizeof(float));
  setPointers(t, copy, copy);
  t[2] = 0;
  t[3] = 3; /* sizes */
  t[4] = 2;
  t[5] = 1; /* strides */
  t[6] = 3;
  return 0;
}

EXPORT int32_t fake_negate(void **args) {
  const int64_t *bdesc = args[0];
  int64_t *out = args[1];
  int64_t n = bdesc[3], i;
  const unsigned char *in = alignedOf(bdesc);
  unsigned char *result = malloc((size_t)n + 1);
  for (i = 0; i < n; ++i)
    result[i] = !in[i];
  setPointers(out, result, result);
  out[2] = 0;
  out[3] = n;
  out[4] = 1;
  return 0;
}

/* Allocates its output, then fails: the runtime must free the block. */
EXPORT int32_t fake_fail(void **args) {
  int64_t *z = args[0];
  float *block = malloc(sizeof(float));
  setPointers(z, block, block);
  z[3] = 1;
  z[4] = 1;
  (void)allocatedOf;
  return 7;
}

/* The host hooks, set by the runtime at load (rlx/abi.h). */
EXPORT rlx_artifact_call_hook_t rlx_artifact_call_hook;
EXPORT rlx_artifact_alloc_hook_t rlx_artifact_alloc_hook;
EXPORT rlx_artifact_free_hook_t rlx_artifact_free_hook;
EXPORT rlx_artifact_failed_hook_t rlx_artifact_failed_hook;

struct worker_job {
  void *call;
  int64_t bytes;
  void *block;
};

static void *worker(void *arg) {
  struct worker_job *job = arg;
  job->block = rlx_artifact_alloc_hook(job->call, job->bytes, 64);
  return NULL;
}

/* What rlxc's code does when a parallel region's worker cannot allocate:
   the output and 4 MiB of temporaries are allocated on the calling
   thread, a second thread asks for `bytes`, and the calling thread asks
   the state afterwards and returns without freeing anything. The runtime
   must report the worker's failure and free every block. */
EXPORT int32_t fake_fail_in_worker(void **args) {
  const int64_t *bytes = alignedOf(args[0]);
  int64_t *z = args[1];
  void *call = rlx_artifact_call_hook();
  float *out = rlx_artifact_alloc_hook(call, sizeof(float), 64);
  int i;
  struct worker_job job;
  pthread_t thread;
  setPointers(z, out, out);
  z[2] = 0;
  z[3] = 1;
  z[4] = 1;
  if (!out)
    return 0;
  out[0] = 1.0f;
  for (i = 0; i < 4; ++i)
    if (!rlx_artifact_alloc_hook(call, 1 << 20, 64))
      return 0;
  job.call = call;
  job.bytes = *bytes;
  job.block = NULL;
  if (pthread_create(&thread, NULL, worker, &job) != 0)
    return 3;
  pthread_join(thread, NULL);
  if (rlx_artifact_failed_hook(call))
    return 0;
  rlx_artifact_free_hook(call, job.block);
  return 0;
}

#endif
