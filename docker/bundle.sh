#!/usr/bin/env bash
# Bundles a built fleetsweep so that it runs on any Linux base image with a new enough glibc (the
# worker image's runtime stage, which may be a vendor image of any distribution):
#
#   docker/bundle.sh BUILD_DIR OUT_DIR
#
# 1. `cmake --install BUILD_DIR --prefix OUT_DIR`: the layout tests/build/install_test.py checks
#    (bin/ with the binaries, bin/benches/ with the benchmark programs, platforms/).
# 2. Each ELF file in OUT_DIR/bin gets every shared library it needs, except glibc's own, copied
#    into OUT_DIR/lib, and the RUNPATH $ORIGIN/../lib (each copied library: $ORIGIN).
# 3. OUT_DIR/sbin/tini: Debian's static tini (an init for PID 1 that needs no library).
#
# Errors: exits non-zero naming the problem when an argument, cmake, patchelf or tini-static is
# missing, the install fails, or a library cannot be resolved on this machine. OUT_DIR must not
# exist or be empty (nothing of an earlier bundle is mixed in).
set -euo pipefail
die() { echo "bundle.sh: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: docker/bundle.sh BUILD_DIR OUT_DIR"
build=$1 out=$2
[ -f "$build/CMakeCache.txt" ] || die "$build is not a CMake build directory"
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then die "$out exists and is not empty"; fi
for tool in cmake patchelf ldd; do
  command -v "$tool" >/dev/null || die "$tool not found (scripts/setup.sh installs it)"
done
tini=/usr/bin/tini-static
[ -x "$tini" ] || die "$tini not found (Debian package tini)"

cmake --install "$build" --prefix "$out" >/dev/null || die "cmake --install $build failed"
mkdir -p "$out/lib" "$out/sbin"
is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
glibc_own() {
  case "$1" in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|libutil.so.*) return 0 ;;
    libanl.so.*|ld-linux*.so.*) return 0 ;;
  esac
  return 1
}
for bin in "$out"/bin/*; do
  [ -f "$bin" ] && is_elf "$bin" || continue
  deps=$(ldd "$bin") || die "ldd $bin failed"
  if grep -q "not found" <<<"$deps"; then die "$bin: $(grep 'not found' <<<"$deps" | head -3)"; fi
  while read -r lib; do
    glibc_own "$(basename "$lib")" || cp -nL "$lib" "$out/lib/"
  done < <(awk '/=> \// {print $3}' <<<"$deps")
  patchelf --set-rpath '$ORIGIN/../lib' "$bin"
done
for lib in "$out"/lib/*; do
  [ -f "$lib" ] && patchelf --set-rpath '$ORIGIN' "$lib"
done
cp "$tini" "$out/sbin/tini"
echo "bundle.sh: $(ls "$out/bin" | wc -l) entries in bin/, $(ls "$out/lib" | wc -l) libraries in lib/"
