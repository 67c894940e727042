#!/usr/bin/env python3
"""Where a fused-MoE execution's time goes, launch by launch, against each launch's own floor.

For each M (--ms) and tile set (--configs, BLOCK_M/BLOCK_N/BLOCK_K/GROUP/warps/stages), the
harness worker/benches/triton/fused_moe_bench.py prepares the tile set as in a sweep (its setup
and prepare: the same inputs, routing and checks), then times the whole pipeline (median of
--reps launches of all four) and each launch alone (median of --reps): gemm1 (x by w1), silu,
gemm2 (by w2), sum. Per GEMM it reports the programs, their waves over the device's SMs and the
fraction of the SMs' time those waves fill (moe_algo.wave_use), the rows computed against the
rows that exist (padding to BLOCK_M per expert), and the GEMM's floor: its useful FLOPs at the
bf16 matmul rate measured in the same run (a 8192^3 torch matmul). The whole pipeline's floor is
moe_algo.roofline_ms at that rate and the measured copy bandwidth, as scripts/triton_tune.py's.

    python3 scripts/triton_moe_parts.py --ms 1024,1536,2048 --configs 128/256/64/64/8/4 --out DIR

Writes DIR/parts.json and DIR/parts.md; prints the table. Needs torch, triton and a CUDA GPU.
"""
import argparse
import json
import os
import sys

import triton_tuning  # noqa: F401 - puts the harnesses on sys.path
import moe_algo  # noqa: E402
from triton_tuning.common import timed  # noqa: E402
from triton_tuning.execution import Runner  # noqa: E402


def rates(torch):
    """(bf16 matmul TFLOP/s, device copy GB/s), medians of 20, the clocks as found."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    mm = timed(torch, lambda: a @ b, 20)
    x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    cp = timed(torch, lambda: y.copy_(x), 20)
    return 2 * 8192 ** 3 / (mm * 1e-3) / 1e12, 2 * x.numel() / (cp * 1e-3) / 1e9


def one(bench, ctx, torch, m, tile_set, reps, tflops, gbps, sms):
    tiles = moe_algo.parse_tile_set(tile_set)
    params = dict({"M": m, "E": 8, "N": 14336, "K": 4096, "topk": 2, "smem_limit": 0}, **tiles)
    p = bench.prepare(ctx, Runner.bench_params(params))
    _, e, n, k, topk = p.shape
    stages = dict(bench._stages(ctx, p))
    whole = timed(torch, lambda: [f() for f in stages.values()], reps)
    rows, valid = p.em, m * topk
    g1, g2 = moe_algo.stage_tiles(p.em, n, k, p.tiles)
    flops = {"gemm1": 2 * valid * k * 2 * n, "gemm2": 2 * valid * n * k}
    row = {"M": m, "tiles": tile_set, "whole_ms": whole, "check_error": p.err,
           "rows_computed": rows, "rows_valid": valid,
           "floor_ms": moe_algo.roofline_ms(m, n, k, topk, moe_algo.experts_touched(
               p.inp["ids_list"]), tflops, gbps)}
    for name, fn in stages.items():
        row[name + "_ms"] = timed(torch, fn, reps)
    for name, programs in (("gemm1", g1), ("gemm2", g2)):
        waves, use = moe_algo.wave_use(programs, sms)
        row[name] = {"programs": programs, "waves": waves, "wave_use": use,
                     "floor_ms": 1e3 * flops[name] / (tflops * 1e12)}
    return row


def table(rows, tflops, gbps, device):
    out = ["# %s: bf16 matmul %.0f TFLOP/s, copy %.0f GB/s" % (device, tflops, gbps), "",
           "| M | tile set | whole ms (floor, ratio) | rows computed / valid | gemm1 ms (floor ratio;"
           " programs, waves, wave use) | silu ms | gemm2 ms (floor ratio; programs, waves, wave"
           " use) | sum ms | parts / whole |", "|---:|---|---|---:|---|---:|---|---:|---:|"]
    for r in rows:
        g = {s: "%.4f (%.2f; %d, %d, %.0f%%)" % (r[s + "_ms"], r[s + "_ms"] / r[s]["floor_ms"],
                                                  r[s]["programs"], r[s]["waves"],
                                                  100 * r[s]["wave_use"]) for s in ("gemm1", "gemm2")}
        parts = sum(r[s + "_ms"] for s in ("gemm1", "silu", "gemm2", "sum"))
        out.append("| %d | %s | %.4f (%.4f, %.2f) | %d / %d (+%.0f%%) | %s | %.4f | %s | %.4f | %.3f |"
                   % (r["M"], r["tiles"], r["whole_ms"], r["floor_ms"], r["whole_ms"] / r["floor_ms"],
                      r["rows_computed"], r["rows_valid"],
                      100 * (r["rows_computed"] / r["rows_valid"] - 1), g["gemm1"], r["silu_ms"],
                      g["gemm2"], r["sum_ms"], parts / r["whole_ms"]))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ms", default="1024")
    ap.add_argument("--configs", default="128/256/64/64/8/4")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    try:  # bad input is refused by name before any GPU work
        ms = [int(x) for x in args.ms.split(",")]
        configs = [c for c in args.configs.split(",") if c]
        for c in configs:
            moe_algo.parse_tile_set(c)
    except ValueError as exc:
        ap.error("--ms %r / --configs: %s" % (args.ms, exc))
    import torch
    import fused_moe_bench as bench
    ctx = bench.setup(None)
    tflops, gbps = rates(torch)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    device = torch.cuda.get_device_name()
    rows = [one(bench, ctx, torch, m, c, args.reps, tflops, gbps, sms) for m in ms for c in configs]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "parts.json"), "w") as f:
        json.dump({"device": device, "sms": sms, "tflops": tflops, "gbps": gbps, "rows": rows}, f,
                  indent=1)
    text = table(rows, tflops, gbps, device)
    with open(os.path.join(args.out, "parts.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
