#!/usr/bin/env bash
# Installs every build, test and run dependency of fleetsweep from Debian packages.
# Idempotent: a second run installs nothing new. Needs root (or sudo).
#
#   bash scripts/setup.sh                  everything: build, tests, CI, the demo
#   bash scripts/setup.sh --build [--torch]
#                                          only what a build without tests needs (the container
#                                          images' builder stage): the libraries, CMake, patchelf
#                                          and tini for docker/bundle.sh; --torch adds libtorch-dev
#
# Errors: an unknown argument exits 2 naming it; apt's own errors stop the script (set -e).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
BUILD_ONLY=0 TORCH=0
for arg in "$@"; do
  case "$arg" in
    --build) BUILD_ONLY=1 ;;
    --torch) TORCH=1 ;;
    *) echo "setup.sh: unknown argument '$arg' (expected --build, --torch)" >&2; exit 2 ;;
  esac
done
BUILD_PKGS=(
  build-essential cmake ninja-build pkg-config git
  libzmq3-dev cppzmq-dev
  libprotobuf-dev protobuf-compiler
  libhiredis-dev zlib1g-dev libjemalloc-dev
  prometheus-cpp-dev
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
  python3 patchelf tini
)
if [ "$BUILD_ONLY" -eq 1 ]; then
  PKGS=("${BUILD_PKGS[@]}")
  if [ "$TORCH" -eq 1 ]; then PKGS+=(libtorch-dev); fi
else
PKGS=(
  "${BUILD_PKGS[@]}"
  libtorch-dev
  libgtest-dev libgmock-dev
  redis-server redis-tools prometheus
  python3-scipy python3-numpy
  chromium fonts-dejavu-core
  golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev
  clang libclang-rt-14-dev
  clang-format
)
# Node.js + npm (chart test): machines that ship NodeSource's nodejs (which carries npm) must not
# get Debian's npm, which conflicts with it; only a machine without npm installs Debian's pair.
if ! command -v npm >/dev/null 2>&1; then PKGS+=(nodejs npm); fi
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
# Debian's redis-server/prometheus packages may start system services; the tests start their own.
