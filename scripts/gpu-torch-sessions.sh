#!/usr/bin/env bash
# fleetsweep-torch-bench's serve mode on one GPU, in ONE command (issue 13; results in
# docs/gpu-results.md "Torch bench sessions"). From the project root on the GPU node, .devdeps/
# carried (/work/shared/device/README.md):
#
#   OUT=$OUT bash scripts/gpu-torch-sessions.sh      (QUICK=1: without the one-shot comparison
#                                                     and the float32 example run)
#
# 1. builds fleetsweep, fleetsweep-worker and fleetsweep-torch-bench against the node's torch
#    (BUILD, default /tmp/build-gpu: outside the carried tree);
# 2. bench/torch_session_bench.py: the fused-MoE kernel at Mixtral-8x7B shapes (bf16, bi-v100
#    surface), BLOCK_SIZE_M 16..128, one persistent session against one process per execution:
#    the share of each execution outside the timed kernel; then a session with --prewarm;
# 3. `fleetsweep run examples/torch-moe.yaml` (persistent sessions) end to end;
# 4. the same sweep in bf16 at BLOCK_SIZE_M 16..128 with 1 slot without and with prewarm, then 2
#    slots on GPU 0 with prewarm (the second slot prepares while the first times: one timing gate
#    per device), and
#    bench/device_time_table.py on each run's store: per execution the share outside the timed
#    kernel, per device the timed share of the wall.
set -uo pipefail
OUT=${OUT:-$PWD/out-torch-sessions}
BUILD=${BUILD:-/tmp/build-gpu}
mkdir -p "$OUT"
t_start=$(date +%s)
step() { echo "=== [$(( $(date +%s) - t_start ))s] $*"; }

step "environment and build ($BUILD)"
# shellcheck source=scripts/gpu-build.sh
source scripts/gpu-build.sh
gpu_build ON fleetsweep fleetsweep-worker fleetsweep-torch-bench fleetsweep-store-dump

step "persistent session vs one process per execution (bench/torch_session_bench.py)"
[ "${QUICK:-0}" = 1 ] || timeout 240 python3 bench/torch_session_bench.py --bench "$BUILD/bin/fleetsweep-torch-bench" \
  --device cuda --dtype bfloat16 --executions "${EXECUTIONS:-3}" --levels 16,32,64,128 --warmup 0 --detail \
  | tee "$OUT/torch_session_bench.md"
timeout 240 python3 bench/torch_session_bench.py --bench "$BUILD/bin/fleetsweep-torch-bench" \
  --device cuda --dtype bfloat16 --executions "${EXECUTIONS:-3}" --levels 16,32,64,128 --warmup 0 --detail \
  --no-one-shot --prewarm | tee "$OUT/torch_session_bench_prewarm.md"

step "fleetsweep run examples/torch-moe.yaml (persistent sessions, 1 worker)"
t0=$SECONDS
[ "${QUICK:-0}" = 1 ] || timeout 200 "$BUILD/bin/fleetsweep" run examples/torch-moe.yaml --workers 1 --devices 0 \
  --out "$OUT/run-moe" > "$OUT/run-moe.txt" 2>&1
echo "  rc=$? $((SECONDS - t0)) s wall"
tail -15 "$OUT/run-moe.txt" 2>/dev/null
rm -rf "$OUT/run-moe/store"

step "bf16 sweep: 1 slot without and with prewarm, 2 slots with (bench/device_time_table.py)"
sed -e 's/^  dtype: float32/  dtype: bfloat16/' -e 's/values: \[8, 16, 32, 64\]/values: [16, 32, 64, 128]/' \
  examples/torch-moe.yaml > "$OUT/torch-moe-bf16.yaml"
grep -v '^  prewarm:' "$OUT/torch-moe-bf16.yaml" > "$OUT/torch-moe-bf16-noprewarm.yaml"
for run in noprewarm-1 prewarm-1 prewarm-2; do
  slots=${run##*-}
  spec="$OUT/torch-moe-bf16.yaml"
  [ "${run%-*}" = noprewarm ] && spec="$OUT/torch-moe-bf16-noprewarm.yaml"
  t0=$SECONDS
  timeout 200 "$BUILD/bin/fleetsweep" run "$spec" --workers 1 --slots "$slots" \
    --devices 0 --out "$OUT/run-bf16-$run" > "$OUT/run-bf16-$run.txt" 2>&1
  echo "  $run: slots=$slots rc=$? $((SECONDS - t0)) s wall"
  grep -E "^winner|^warm state|^session starts" "$OUT/run-bf16-$run.txt"
  "$BUILD/bin/fleetsweep-store-dump" "file://$OUT/run-bf16-$run/store" torch-moe \
    > "$OUT/run-bf16-$run.jsonl"
  python3 bench/device_time_table.py "$OUT/run-bf16-$run.jsonl" | tee "$OUT/run-bf16-$run.md"
  rm -rf "$OUT/run-bf16-$run/store"
done
step "done"
