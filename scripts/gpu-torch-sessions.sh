#!/usr/bin/env bash
# fleetsweep-torch-bench's serve mode on one GPU, in ONE command (issue 13; results in
# docs/gpu-results.md "Torch bench sessions"). From the project root on the GPU node, .devdeps/
# carried (/work/shared/device/README.md):
#
#   OUT=$OUT bash scripts/gpu-torch-sessions.sh
#
# 1. builds fleetsweep, fleetsweep-worker and fleetsweep-torch-bench against the node's torch
#    (BUILD, default /tmp/build-gpu: outside the carried tree);
# 2. bench/torch_session_bench.py: the fused-MoE kernel at Mixtral-8x7B shapes (bf16, bi-v100
#    surface), BLOCK_SIZE_M 16..128, one persistent session against one process per execution:
#    the share of each execution outside the timed kernel;
# 3. `fleetsweep run examples/torch-moe.yaml` (persistent sessions) end to end.
set -uo pipefail
OUT=${OUT:-$PWD/out-torch-sessions}
BUILD=${BUILD:-/tmp/build-gpu}
mkdir -p "$OUT"
t_start=$(date +%s)
step() { echo "=== [$(( $(date +%s) - t_start ))s] $*"; }

step "environment and build ($BUILD)"
# shellcheck source=scripts/gpu-build.sh
source scripts/gpu-build.sh
gpu_build ON fleetsweep fleetsweep-worker fleetsweep-torch-bench

step "persistent session vs one process per execution (bench/torch_session_bench.py)"
timeout 240 python3 bench/torch_session_bench.py --bench "$BUILD/bin/fleetsweep-torch-bench" \
  --device cuda --dtype bfloat16 --executions "${EXECUTIONS:-3}" --levels 16,32,64,128 \
  | tee "$OUT/torch_session_bench.md"

step "fleetsweep run examples/torch-moe.yaml (persistent sessions, 1 worker)"
t0=$SECONDS
timeout 200 "$BUILD/bin/fleetsweep" run examples/torch-moe.yaml --workers 1 --devices 0 \
  --out "$OUT/run-moe" > "$OUT/run-moe.txt" 2>&1
echo "  rc=$? $((SECONDS - t0)) s wall"
tail -15 "$OUT/run-moe.txt"
rm -rf "$OUT/run-moe/store"
step "done"
