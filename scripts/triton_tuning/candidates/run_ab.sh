#!/bin/bash
# One device call (one H200, ~5 min): the committed fused-MoE kernel ("old") against the candidate
# in this folder (a patch of the committed harness, applied to a temporary copy) with pointer B loads ("ptr": EVEN_K + unmasked A) and with TMA B loads ("tma"),
# interleaved per execution on the same inputs, 16 tile sets (run 3's 14 large ones and the M=16
# and M=64 winners) at 8 batch sizes; clocks logged. Writes under $OUT (at most 8 files):
# smi.txt clocks.csv ab_log.txt runs.jsonl results.json tables.md.
#   OUT=/some/dir bash scripts/triton_tuning/candidates/run_ab.sh
set -u
cd "$(dirname "$0")/../../.."
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
nvidia-smi > "$OUT/smi.txt"; nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >> "$OUT/smi.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 500 > "$OUT/clocks.csv" 2>&1 &
SMI=$!
CAND=$(mktemp -d)/fused_moe_bench.py
patch -s -o "$CAND" worker/benches/triton/fused_moe_bench.py \
  scripts/triton_tuning/candidates/fused_moe_even_k_tma.patch || { echo "the candidate patch does not apply"; exit 1; }
CFG=128/128/64/64/8/3,128/256/64/16/8/3,128/256/64/16/8/4,128/256/64/64/8/3,128/256/64/1/8/3
CFG=$CFG,128/256/64/32/8/3,256/128/64/16/8/3,256/128/64/16/8/4,128/128/64/64/8/4,128/128/64/16/8/5
CFG=$CFG,128/128/128/16/8/3,128/256/128/16/8/2,64/256/64/16/4/4,256/64/64/16/8/4
CFG=$CFG,16/256/128/1/8/3,32/256/128/64/4/3
export TRITON_CACHE_DIR=$(mktemp -d)  # fresh: every kernel compiled in this call
python3 scripts/triton_tune_ab.py --out "$OUT" --variant old=worker/benches/triton/fused_moe_bench.py \
  --variant ptr=$CAND:B_DESC=0 --variant tma=$CAND \
  --ms ${AB_MS:-16,256,512,1024,1536,2048,3072,4096} --configs $CFG --execs ${AB_EXECS:-5} \
  --jobs 12 --deadline-s ${AB_DEADLINE_S:-400} > "$OUT/ab_log.txt" 2>&1
echo "triton_tune_ab rc=$?" >> "$OUT/ab_log.txt"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >> "$OUT/smi.txt"
kill $SMI
tail -45 "$OUT/ab_log.txt"
