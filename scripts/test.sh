#!/usr/bin/env bash
# The test command: installs dependencies (Debian packages), builds, and runs the whole suite with
# ctest. Tests start their own redis-server / prometheus / chromium on free loopback ports.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --timeout 600 -j"${TEST_JOBS:-2}"
