/*===- list_entry_points.c - An artifact's interface, through the C API --===*
 *
 * Loads an artifact with librlxrt's C API alone and prints its entry points
 * with their inputs, outputs and params, as `rlx-run --info` does. Plain
 * C99: what a program built with `pkg-config --cflags --libs rlx-runtime`
 * sees.
 *
 *   list_entry_points model.so
 *
 *===----------------------------------------------------------------------===*/

#include <rlx/runtime.h>

#include <stdio.h>

typedef rlx_status_t (*spec_fn)(const rlx_entry_point_t *, size_t,
                                rlx_tensor_spec_t *);

/* Prints "  inputs: x f32[?,4]" for the `count` specs `fn` returns. */
static int print_specs(const char *what, const rlx_entry_point_t *entry,
                       size_t count, spec_fn fn) {
  printf("  %s:", what);
  for (size_t i = 0; i < count; ++i) {
    rlx_tensor_spec_t spec;
    rlx_status_t status = fn(entry, i, &spec);
    if (status) {
      fprintf(stderr, "error: %s\n", rlx_status_message(status));
      rlx_status_free(status);
      return 1;
    }
    printf(" %s %s[", spec.name, rlx_dtype_name(spec.dtype));
    for (size_t d = 0; d < spec.rank; ++d) {
      if (spec.shape[d] < 0)
        printf("%s?", d ? "," : "");
      else
        printf("%s%lld", d ? "," : "", (long long)spec.shape[d]);
    }
    printf("]");
  }
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s ARTIFACT.so\n", argv[0]);
    return 2;
  }
  rlx_artifact_t *artifact = NULL;
  rlx_status_t status = rlx_artifact_load(argv[1], &artifact);
  if (status) {
    fprintf(stderr, "error: %s: %s\n",
            rlx_status_code_string(rlx_status_code(status)),
            rlx_status_message(status));
    rlx_status_free(status);
    return 1;
  }
  printf("%s: target %s, compiled by %s\n", rlx_artifact_path(artifact),
         rlx_artifact_target(artifact), rlx_artifact_compiler(artifact));
  int failed = 0;
  size_t count = rlx_artifact_entry_point_count(artifact);
  for (size_t i = 0; i < count && !failed; ++i) {
    const rlx_entry_point_t *entry = rlx_artifact_entry_point_at(artifact, i);
    printf("%s\n", rlx_entry_point_name(entry));
    failed = print_specs("inputs", entry, rlx_entry_point_input_count(entry),
                         rlx_entry_point_input) ||
             print_specs("outputs", entry, rlx_entry_point_output_count(entry),
                         rlx_entry_point_output) ||
             print_specs("params", entry, rlx_entry_point_param_count(entry),
                         rlx_entry_point_param);
  }
  rlx_artifact_release(artifact);
  return failed || count == 0;
}
