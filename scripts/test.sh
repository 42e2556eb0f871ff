#!/usr/bin/env bash
# Installs, builds and runs every test: lit (dialect, passes, codegen,
# end-to-end with rlxc and rlx-run) and the GoogleTest suites, through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
cd build
ctest --output-on-failure -j "${RLX_JOBS:-$(nproc)}"
