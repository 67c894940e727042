#!/usr/bin/env bash
# The seed's tuning jobs on one GPU node, in ONE command (issue 18; results in docs/gpu-results.md):
#
#   bash scripts/gpu-tune.sh                 # from the project root on the GPU node; OUT=... (./out-tune)
#
# 1. scripts/triton_tune.py: the Triton fused-MoE kernel (worker/benches/triton/) tuned per batch
#    size M (Mixtral-8x7B shapes, successive halving over a sample of benchmark_moe.py's space,
#    shared memory as a constraint), the full grid on three M beside the halving, the platform
#    surfaces, the shared-memory table and the flash-attention autotune set (TUNE_ARGS are passed
#    on, e.g. TUNE_ARGS="--sample 96 --ms 16,256"); then scripts/triton_tables.py writes
#    $OUT/tables.md, and $OUT/vllm_moe_config.json is vLLM's E=8,N=14336,device_name=<GPU>.json.
# 2. FLEETSWEEP=1 also builds fleetsweep (needs .devdeps/ carried, scripts/device-env.sh; build in
#    $BUILD, default /tmp/build-gpu) and runs the per-M specs of scripts/triton_moe_specs.py through
#    `fleetsweep run` with persistent sessions (FS_MS batch sizes, FS_STRATEGY/FS_BUDGET search,
#    FS_SLOTS slots of one worker on GPU 0: they prepare in parallel and time alone; FS_CONFIGS: only
#    these tile sets, BM/BN/BK/GROUP/warps/stages,...), then exports the
#    vLLM JSON from those runs ($OUT/fs_vllm_moe_config.json) and tars the runs ($OUT/fs-runs.tgz).
set -uo pipefail
OUT=${OUT:-$PWD/out-tune}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-$(mktemp -d /tmp/triton-cache.XXXXXX)}  # fresh caches
t_start=$(date +%s)
step() { echo "=== [$(( $(date +%s) - t_start ))s] $*"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/nvidia-smi.txt"

# Clocks, power and temperature every second while the jobs run (drift under sustained GEMMs).
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -l 1 \
  > "$OUT/clocks.csv" 2>/dev/null &
clocks_pid=$!
trap 'kill "$clocks_pid" 2>/dev/null' EXIT

if [ "${DIRECT:-1}" = 1 ]; then
  step "direct driver (scripts/triton_tune.py ${TUNE_ARGS:-})"
  # shellcheck disable=SC2086
  python3 scripts/triton_tune.py --out "$OUT" ${TUNE_ARGS:-} > "$OUT/tune.log" 2>&1
  echo "  rc=$?"
  grep -E "winner|grid M|surface|fa |compiled|deadline|Error|error" "$OUT/tune.log" | tail -60
  python3 scripts/triton_tables.py "$OUT" > "$OUT/tables.md" && step "tables in $OUT/tables.md"
fi

if [ "${FLEETSWEEP:-0}" = 1 ]; then
  BUILD=${BUILD:-/tmp/build-gpu}
  step "build fleetsweep into $BUILD"
  # shellcheck disable=SC1091
  source scripts/device-env.sh .devdeps
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLEETSWEEP_BUILD_TESTS=OFF \
    "-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH" > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
  timeout 300 cmake --build "$BUILD" --target fleetsweep fleetsweep-worker -j "$(nproc)" > "$OUT/build.log" 2>&1 \
    || { grep -m 20 -E "error|Error" "$OUT/build.log"; exit 1; }
  step "per-M sweeps through fleetsweep run (persistent sessions)"
  python3 scripts/triton_moe_specs.py specs --out "$OUT/specs" --ms "${FS_MS:-16,256,1024}" \
    --strategy "${FS_STRATEGY:-lhs}" --budget "${FS_BUDGET:-64}" --session persistent \
    ${FS_CONFIGS:+--configs "$FS_CONFIGS"} > /dev/null || exit 1
  runs=()
  for spec in "$OUT"/specs/*.yaml; do
    name=$(basename "$spec" .yaml)
    t0=$SECONDS
    timeout "${FS_TIMEOUT:-240}" "$BUILD/bin/fleetsweep" run "$spec" --workers 1 --slots "${FS_SLOTS:-4}" --devices 0 \
      --out "$OUT/fs/$name" > "$OUT/fs-$name.txt" 2>&1
    echo "  $name rc=$? $((SECONDS - t0)) s wall"
    tail -12 "$OUT/fs-$name.txt"
    runs+=("$OUT/fs/$name")
  done
  python3 scripts/triton_moe_specs.py export --device-name "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
    "${runs[@]}" > "$OUT/fs_vllm_moe_config.json"
  rm -rf "$OUT"/fs/*/store
  tar czf "$OUT/fs-runs.tgz" -C "$OUT" fs specs fs-*.txt 2>/dev/null && rm -rf "$OUT/fs" "$OUT/specs" "$OUT"/fs-*.txt
fi
step "done"
