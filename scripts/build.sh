#!/usr/bin/env bash
# Configures and builds fleetsweep into build/ (binaries in build/bin/). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
# CI builds with warnings as errors (FLEETSWEEP_WERROR); a user's build keeps them warnings.
WERROR=()
if [ "${CI:-}" = "true" ]; then WERROR=(-DFLEETSWEEP_WERROR=ON); fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  "${WERROR[@]}" ${CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j"${JOBS:-$(nproc)}"
