#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang and runs each for N seconds.
#
#   scripts/run-fuzz.sh [SECONDS_PER_TARGET=60] [TARGET...]
#
# Build dir: $FUZZ_BUILD_DIR (default <repo>/build-fuzz), configured with CC=clang CXX=clang++
# -DFLEETSWEEP_FUZZ=ON -DFLEETSWEEP_WITH_TORCH=OFF -DFLEETSWEEP_BUILD_TESTS=OFF and every library
# instrumented (-fsanitize=fuzzer-no-link,address,undefined). Each target runs on a working copy
# of its seed corpus (fuzz/corpus/<target>/, never modified) under <build>/fuzz-work/; crash
# reproducers land in <build>/fuzz-artifacts/. Prints one line per target:
#   fuzz: TARGET clean SECONDS s, EXECS execs, CORPUS inputs
# Exit: 0 all clean, 1 a target crashed/leaked/timed out (its log is printed), 77 no clang or no
# libFuzzer runtime (install clang and libclang-rt-14-dev), 2 build failure.
set -uo pipefail
SECONDS_PER_TARGET="${1:-60}"
shift || true
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
TARGETS=("$@")
[ "${#TARGETS[@]}" -eq 0 ] && TARGETS=(fuzz_spec fuzz_expr fuzz_wire fuzz_bench_output)
JOBS="${FUZZ_JOBS:-2}"

if ! command -v clang++ >/dev/null || ! command -v clang >/dev/null; then
  echo "fuzz: SKIP, clang/clang++ not found (apt-get install clang libclang-rt-14-dev)"
  exit 77
fi
probe="$(mktemp -d)"
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long){return 0;}' \
  > "$probe/p.cc"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cc" -o "$probe/p" 2>/dev/null; then
  rm -rf "$probe"
  echo "fuzz: SKIP, clang cannot link -fsanitize=fuzzer (apt-get install libclang-rt-14-dev)"
  exit 77
fi
rm -rf "$probe"

start=$(date +%s)
SRC="$ROOT"
if ! grep -q 'add_subdirectory(fuzz)' "$ROOT/CMakeLists.txt"; then
  # The top level does not add fuzz/ yet: build through a wrapper project that adds both.
  SRC="$BUILD.wrapper"
  mkdir -p "$SRC"
  printf '%s\n' 'cmake_minimum_required(VERSION 3.18)' 'project(fleetsweep_fuzz_wrapper CXX)' \
    "add_subdirectory($ROOT fleetsweep)" "add_subdirectory($ROOT/fuzz fuzz)" > "$SRC/CMakeLists.txt"
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFLEETSWEEP_FUZZ=ON -DFLEETSWEEP_WITH_TORCH=OFF -DFLEETSWEEP_BUILD_TESTS=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
    > "$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 2; }
fi
if ! ninja -C "$BUILD" -j"$JOBS" "${TARGETS[@]}" > "$BUILD/fuzz-build.log" 2>&1; then
  tail -50 "$BUILD/fuzz-build.log"
  echo "fuzz: build failed (if fuzz/ is not built, the top-level CMakeLists.txt needs"
  echo "      if(FLEETSWEEP_FUZZ) add_subdirectory(fuzz) endif())"
  exit 2
fi
echo "fuzz: build took $(( $(date +%s) - start )) s"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
rc=0
for t in "${TARGETS[@]}"; do
  work="$BUILD/fuzz-work/$t"
  arts="$BUILD/fuzz-artifacts"
  mkdir -p "$work" "$arts"
  cp -n "$ROOT/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
  log="$BUILD/fuzz-$t.log"
  t0=$(date +%s)
  "$BUILD/fuzz/$t" "$work" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$arts/$t-" > "$log" 2>&1
  r=$?
  secs=$(( $(date +%s) - t0 ))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  if [ "$r" -eq 0 ]; then
    echo "fuzz: $t clean ${secs} s, ${execs:-?} execs, $(ls "$work" | wc -l) inputs"
  else
    echo "fuzz: $t FAILED (exit $r) after ${secs} s; log $log; artifacts $arts:"
    grep -E 'ERROR|SUMMARY|#[0-9]+ 0x|Test unit written' "$log" | head -40
    rc=1
  fi
done
exit $rc
