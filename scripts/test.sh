#!/usr/bin/env bash
# Installs, builds and runs every test: lit (dialect, passes, codegen,
# end-to-end with rlxc and rlx-run) and the GoogleTest suites, through ctest.
#
# scripts/test.sh --sanitize: the same suite built in build-sanitize/ with
# every C++ target under ASan and UBSan (-DRLX_SANITIZE=ON; the fuzzers,
# sanitized already, are left out). A sanitizer report fails its test; leaks
# are reported, except those of the GPU drivers listed in
# scripts/sanitize-leaks.supp. Slower: RLX_JOBS sets ctest's parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=0
for arg in "$@"; do
  case $arg in
    --sanitize) sanitize=1 ;;
    *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
  esac
done
./scripts/install-deps.sh
if [ "$sanitize" = 0 ]; then
  ./scripts/build.sh
  cd build
  ctest --output-on-failure -j "${RLX_JOBS:-$(nproc)}"
  exit
fi

jobs=${RLX_JOBS:-$(nproc)}
if [ ! -f build-sanitize/build.ninja ]; then
  cmake -S . -B build-sanitize -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DRLX_SANITIZE=ON -DRLX_BUILD_FUZZERS=OFF
fi
cmake --build build-sanitize -j "$jobs"
# The venv and the ONNX test data install-deps.sh made for build/
# (numerics.narrow-floats, onnx.backend-models).
[ -e build-sanitize/test-venv ] || ln -s ../build/test-venv build-sanitize/test-venv
[ -e build-sanitize/onnx-backend-data ] ||
  ln -s ../build/onnx-backend-data build-sanitize/onnx-backend-data
# allocator_may_return_null: a failed allocation is bad_alloc or NULL, as
# without ASan (test/e2e/out-of-memory.mlir asks for 64 TB on purpose).
# allow_user_poisoning=0: LLVM's headers poison a BumpPtrAllocator's free
# space when compiled with ASan, and the uninstrumented MLIR libraries
# allocate from the same allocators without unpoisoning (a false
# use-after-poison in every MLIRContext).
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:allow_user_poisoning=0:strict_init_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/scripts/sanitize-leaks.supp:print_suppressions=0
cd build-sanitize
# Not install.consumer: an instrumented build is no distribution, and its
# binaries name the build tree (the line tables' compilation directory, the
# sanitizers' source locations in generated .inc files), which that test
# refuses.
ctest --output-on-failure -j "$jobs" -E '^install\.consumer$'
