#!/usr/bin/env bash
# Installs every build, test and run dependency of fleetsweep from Debian packages.
# Idempotent: a second run installs nothing new. Needs root (or sudo).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PKGS=(
  build-essential cmake ninja-build pkg-config git
  libzmq3-dev cppzmq-dev
  libprotobuf-dev protobuf-compiler
  libhiredis-dev zlib1g-dev libjemalloc-dev
  libtorch-dev
  prometheus-cpp-dev
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev
  redis-server redis-tools prometheus
  python3 python3-scipy python3-numpy
  chromium fonts-dejavu-core
  golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev
  clang libclang-rt-14-dev
  clang-format
  patchelf tini
)
# Node.js + npm (chart test): machines that ship NodeSource's nodejs (which carries npm) must not
# get Debian's npm, which conflicts with it; only a machine without npm installs Debian's pair.
if ! command -v npm >/dev/null 2>&1; then PKGS+=(nodejs npm); fi
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
