#!/usr/bin/env bash
# Warm sessions against the alternative a user has, on one GPU, in ONE command (issue 13; results
# in docs/gpu-results.md "Sessions"). Run from the project root on the GPU node with .devdeps/
# carried (/work/shared/device/README.md):
#
#   OUT=$OUT bash scripts/gpu-sessions.sh
#
# The Triton prefix-prefill sweep (examples/triton-prefix-prefill.yaml, 26 configurations, repetitions
# fixed at 3 executions x 20 samples), each way with a FRESH Triton cache, one after the other:
#   loop        bench/triton_loop_bench.py: the plain in-process Python loop over the same harness
#   persistent  fleetsweep run --workers 1 --slots 1 (one warm session)
#   parallel    fleetsweep run --workers 1 --slots $SLOTS --devices 0 (sessions prepare in parallel,
#               the timing gate lets one time at a time)
#   one-shot    the same spec with session mode one-shot (a process per execution), --slots 1, on
#               ONESHOT_CONFIGS random configurations (default 6, x 3 executions): its seconds per
#               execution, times the loop's executions, is the projected wall of the whole sweep
#   run-after-prepare  persistent, 1 slot, with FSB_RUN_AFTER_PREPARE=1 in the benchmark's
#               environment: one request per execution instead of the two-step prepare/run
# WAYS (default "loop persistent parallel one-shot") picks the ways and their order; a way named
# again runs again (its second run is NAME-2, ...), e.g. WAYS="loop run-after-prepare persistent
# run-after-prepare persistent" alternates the protocol forms.
# Then bench/sessions_table.py prints one table (wall, ratio to the loop, executions, winner, GPU-timed
# fraction). BUILD (default /tmp/build-gpu) holds the build, outside the carried tree.
set -uo pipefail
OUT=${OUT:-$PWD/out-sessions}
BUILD=${BUILD:-/tmp/build-gpu}
SLOTS=${SLOTS:-4}
ONESHOT_CONFIGS=${ONESHOT_CONFIGS:-6}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
t_start=$(date +%s)
step() { echo "=== [$(( $(date +%s) - t_start ))s] $*"; }

step "environment and build ($BUILD)"
# shellcheck source=scripts/gpu-build.sh
source scripts/gpu-build.sh
gpu_build OFF fleetsweep fleetsweep-worker

spec() {  # spec MODE FILE: the example with repetitions fixed at 3 and the given session mode
  sed -e 's/^repetitions:.*/repetitions: {min: 3, max: 3, max_failures: 2, deterministic_failures: 1}/' \
      -e "s/session: {mode: persistent[^}]*}/session: {mode: $1}/" \
      examples/triton-prefix-prefill.yaml > "$2"
}
spec persistent "$OUT/persistent.yaml"
spec one-shot "$OUT/one-shot.yaml"
sed 's/^  timeout: 300$/  timeout: 300\n  env: {FSB_RUN_AFTER_PREPARE: "1"}/' "$OUT/persistent.yaml" \
  > "$OUT/run-after-prepare.yaml"
sed -i "s/^search:.*/search: {strategy: random, budget: $ONESHOT_CONFIGS, seed: 1}/" "$OUT/one-shot.yaml"
grep -n "session\|repetitions" "$OUT/persistent.yaml" "$OUT/one-shot.yaml"

fresh_cache() { export TRITON_CACHE_DIR; TRITON_CACHE_DIR=$(mktemp -d /tmp/triton-cache.XXXXXX); }
timed() {  # timed NAME SECONDS CMD...: wall seconds into $OUT/NAME.wall, output into $OUT/NAME.txt
  local name=$1 limit=$2
  shift 2
  fresh_cache
  local t0
  t0=$(date +%s.%N)
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  python3 -c "import sys; print(round($(date +%s.%N) - $t0, 2))" > "$OUT/$name.wall"
  echo "  $name rc=$rc wall=$(cat "$OUT/$name.wall") s"
  tail -4 "$OUT/$name.txt"
}

run_way() {  # run_way WAY NAME
  local way=$1 name=$2
  case $way in
    loop)
      step "in-process Python loop"
      timed loop 200 python3 bench/triton_loop_bench.py --executions 3 --json "$OUT/loop.json" ;;
    persistent | run-after-prepare)
      step "fleetsweep run, $way, 1 slot ($name)"
      timed "$name" 200 "$BUILD/bin/fleetsweep" run "$OUT/$way.yaml" --workers 1 --slots 1 \
        --devices 0 --out "$OUT/run-$name" ;;
    parallel)
      step "fleetsweep run, persistent, $SLOTS slots on GPU 0 ($name)"
      timed "$name" 200 "$BUILD/bin/fleetsweep" run "$OUT/persistent.yaml" --workers 1 \
        --slots "$SLOTS" --devices 0 --out "$OUT/run-$name" ;;
    one-shot)
      step "fleetsweep run, one-shot, 1 slot ($ONESHOT_CONFIGS configurations, $name)"
      timed "$name" 240 "$BUILD/bin/fleetsweep" run "$OUT/one-shot.yaml" --workers 1 --slots 1 \
        --devices 0 --out "$OUT/run-$name" ;;
    *) echo "unknown way $way" ;;
  esac
}
declare -A seen=()
names=()
for way in ${WAYS:-loop persistent parallel one-shot}; do
  seen[$way]=$(( ${seen[$way]:-0} + 1 ))
  name=$way
  [ "${seen[$way]}" -gt 1 ] && name="$way-${seen[$way]}"
  [ "$way" = loop ] || names+=("$name")
  run_way "$way" "$name"
done
echo "${names[*]}" > "$OUT/ways.txt"
step "table"
python3 bench/sessions_table.py "$OUT" | tee "$OUT/table.md"
rm -rf "$OUT"/run-*/store
step "done"
