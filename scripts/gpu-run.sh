#!/usr/bin/env bash
# The GPU measurement run of the torch executor, in ONE script (run on the GPU machine from the
# project root, with .devdeps/ carried; see /work/shared/device/README.md):
#   bash scripts/gpu-run.sh            # writes everything under $OUT (default ./out-gpu)
# Steps: build fleetsweep-torch-bench against the image's torch (build-gpu/), measure the floors
# (device-to-device copy bandwidth, bf16 matmul TFLOP/s), run each kernel family over its parameter
# levels at real shapes, time one configuration independently with triton.testing.do_bench, and
# write a summary. Budget: about 8 minutes of GPU time (each step has its own timeout).
set -uo pipefail
OUT=${OUT:-$PWD/out-gpu}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run.log") 2>&1
t_start=$(date +%s)
step() { echo "=== [$(( $(date +%s) - t_start ))s] $*"; }

step "environment"
# shellcheck disable=SC1091
source scripts/device-env.sh .devdeps
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' \
  | tee "$OUT/versions.txt"

step "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLEETSWEEP_WITH_TORCH=ON "-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH" \
  -DFLEETSWEEP_BUILD_TESTS=OFF > "$OUT/cmake.log" 2>&1 || { echo "configure failed"; tail -40 "$OUT/cmake.log"; exit 1; }
timeout 300 cmake --build build-gpu --target fleetsweep-torch-bench -j "$(nproc)" > "$OUT/build.log" 2>&1 \
  || { echo "build failed"; grep -m 20 -E "error|Error" "$OUT/build.log"; exit 1; }
B=build-gpu/bin/fleetsweep-torch-bench
export FLEETSWEEP_SRC=$PWD

# bench NAME ARGS...: one bench run, protocol lines in $OUT/NAME.jsonl, exit code in $OUT/NAME.rc
bench() {
  local name=$1
  shift
  timeout 150 "$B" --device cuda --dtype bfloat16 "$@" > "$OUT/$name.jsonl" 2> "$OUT/$name.stderr"
  local rc=$?
  echo "$rc" > "$OUT/$name.rc"
  echo "  $name rc=$rc $(grep -c '"sample"' "$OUT/$name.jsonl") samples"
}

# PART=1: build + floors + direct kernel runs + independent timing; PART=2: build (cached when the
# machine is still warm) + the fleetsweep sweeps (torch specs, Triton); PART=all: both (over 10 min).
PART=${PART:-all}
if [ "$PART" = 1 ] || [ "$PART" = all ]; then
step "floors (copy bandwidth, bf16 matmul)"
bench floors --kernel floors --reps 30 --warmup 5 --shapes copy_mib=2048,matmul_n=8192

step "fused MoE, bi-v100 surface (BLOCK_SIZE_M honoured only), Mixtral-8x7B shapes"
for bm in 16 32 64 128 256; do
  bench "moe_biv100_bm$bm" --kernel moe --platform bi-v100 --reps 30 --warmup 5 --param BLOCK_SIZE_M=$bm
done
# BLOCK_SIZE_N is ignored on bi-v100: the fingerprint must equal moe_biv100_bm64's.
bench moe_biv100_bm64_bn128 --kernel moe --platform bi-v100 --reps 5 --warmup 2 \
  --param BLOCK_SIZE_M=64 --param BLOCK_SIZE_N=128
step "fused MoE, cuda surface (all four tiles honoured; libtorch tiles are coarse)"
bench moe_cuda_bm64_tiled --kernel moe --platform cuda --reps 10 --warmup 2 \
  --param BLOCK_SIZE_M=64 --param BLOCK_SIZE_N=7168 --param BLOCK_SIZE_K=2048 --param GROUP_SIZE_M=8
bench moe_small_m64_bm16 --kernel moe --platform bi-v100 --reps 30 --warmup 5 \
  --gpu-shapes M=64,K=4096,N=14336,E=8,topk=2 --param BLOCK_SIZE_M=16
bench moe_small_m64_bm64 --kernel moe --platform bi-v100 --reps 30 --warmup 5 \
  --gpu-shapes M=64,K=4096,N=14336,E=8,topk=2 --param BLOCK_SIZE_M=64

step "paged attention decode (64 seqs x 4096 ctx, 32/8 heads, d=128)"
for bs in 16 32; do
  bench "pa_v1_bs$bs" --kernel paged_attention --platform cuda --reps 30 --warmup 5 --param block_size=$bs
done
for ps in 256 512 1024; do
  bench "pa_v2_bs16_ps$ps" --kernel paged_attention --platform cuda --reps 30 --warmup 5 \
    --param block_size=16 --param use_v1=false --param partition_size=$ps
done
bench pa_v2_biv100 --kernel paged_attention --platform bi-v100 --reps 5 --param use_v1=false

step "prefix prefill (4 seqs, prefix 2048 + 512 new, 32/8 heads, d=128)"
for bm in 64 128; do
  for bn in 32 64 128; do
    bench "pp_m${bm}_n${bn}" --kernel prefix_prefill --platform cuda --reps 30 --warmup 5 \
      --param BLOCK_M=$bm --param BLOCK_N=$bn
  done
done

step "independent timing (triton.testing.do_bench) of moe BLOCK_SIZE_M=64"
timeout 180 python3 worker/executors/torch/independent_timing.py --block-m 64 \
  > "$OUT/independent_moe_bm64.json" 2> "$OUT/independent_moe_bm64.stderr"
echo "  rc=$? $(cat "$OUT/independent_moe_bm64.json")"

fi  # PART 1
if [ "$PART" = 2 ] || [ "$PART" = all ]; then
step "fleetsweep run: the three torch sweeps end to end on this GPU (coordinator + 1 worker)"
timeout 240 cmake --build build-gpu --target fleetsweep fleetsweep-worker -j "$(nproc)" >> "$OUT/build.log" 2>&1 \
  || { echo "CLI build failed"; grep -m 20 -E "error|Error" "$OUT/build.log"; }
for s in torch-moe torch-paged-attention torch-prefix-prefill; do
  sed 's/dtype: float32/dtype: bfloat16/' "examples/$s.yaml" > "$OUT/$s.yaml"
  rm -rf "$OUT/run-$s"
  t0=$SECONDS
  timeout 150 build-gpu/bin/fleetsweep run \
    "$OUT/$s.yaml" --workers 1 --devices 0 --out "$OUT/run-$s" > "$OUT/run-$s.txt" 2>&1
  echo "  $s rc=$? $((SECONDS - t0)) s wall"
  tail -25 "$OUT/run-$s.txt"
done

step "Triton prefix-prefill sweep (worker/harness, compiled-kernel fingerprints), 4 workers on GPU 0"
sed 's/repetitions: {min: 3, max: 8/repetitions: {min: 3, max: 3/' examples/triton-prefix-prefill.yaml \
  > "$OUT/triton-prefix-prefill.yaml"
rm -rf "$OUT/run-triton"
t0=$SECONDS
timeout 280 build-gpu/bin/fleetsweep run "$OUT/triton-prefix-prefill.yaml" --workers 4 --devices 0 \
  --out "$OUT/run-triton" > "$OUT/run-triton.txt" 2>&1
echo "  triton rc=$? $((SECONDS - t0)) s wall"
tail -40 "$OUT/run-triton.txt"
rm -rf "$OUT"/run-*/store 2>/dev/null
fi  # PART 2

step "summary"
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import glob, json, os, statistics, sys
out = sys.argv[1]
floors = {}
rows = []
for path in sorted(glob.glob(os.path.join(out, "*.jsonl"))):
    name = os.path.basename(path)[:-6]
    lines = []
    for l in open(path):
        try:
            lines.append(json.loads(l))
        except ValueError:
            pass
    info = {l["key"]: l["value"] for l in lines if l.get("type") == "info"}
    samples = [l["value"] for l in lines if l.get("type") == "sample" and l.get("metric") == "time_ms"]
    fp = next((l["value"] for l in lines if l.get("type") == "fingerprint"), "-")
    chk = next((l for l in lines if l.get("type") == "check"), None)
    err = next((l for l in lines if l.get("type") == "error"), None)
    if name == "floors":
        floors = info
        continue
    rc = open(os.path.join(out, name + ".rc")).read().strip()
    if samples:
        s = sorted(samples)
        med = statistics.median(s)
        p10, p90 = s[len(s) // 10], s[(len(s) * 9) // 10]
        rows.append(f"{name:28s} rc={rc} median={med:9.4f} ms p10={p10:9.4f} p90={p90:9.4f} n={len(s):3d} "
                    f"fp={fp} check={chk['max_rel_error'] if chk else '-'} "
                    f"flops={info.get('flops_per_rep', '-')} method={info.get('timing_method', '-')}")
    else:
        rows.append(f"{name:28s} rc={rc} no samples: {err or chk}")
print("floors:", {k: floors.get(k) for k in ("copy_GBps_median", "matmul_TFLOPs_median", "matmul_shape", "timing_method")})
print("\n".join(rows))
PY
step "done"
