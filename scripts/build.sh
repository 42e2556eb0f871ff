#!/usr/bin/env bash
# Configures (once) and builds rlx in build/ with clang-22, lld, ccache and
# Ninja. Incremental the second time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${RLX_JOBS:-$(nproc)}
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
cmake --build build -j "$jobs"
