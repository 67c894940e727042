#!/usr/bin/env python3
"""The Triton tuning jobs of issue 18 on one GPU, in one process (plus a compile pool).

Direct in-process driver of worker/benches/triton/{fused_moe,flash_attn}_bench.py: it calls their
setup / prepare / run exactly as a persistent fleetsweep session does, so the numbers are the
harnesses' own. Parts (--parts, comma separated; default all):

  floors    device-to-device copy GB/s and bf16 matmul TFLOP/s (the roofline's two ceilings)
  moe       per batch size M: successive halving over executions on a sample of benchmark_moe's
            compute-bound space (pruned by the device's shared memory: infeasible at compile
            time, counted, never run); winner, median, CI, floor, ratio; the vLLM JSON
  grid      on --grid-ms: every sampled tile set x --grid-execs executions, against the halving
  surfaces  cuda vs bi-v100 surface: which requested tiles change the compiled kernel
  smem      what a 32/48/64/100 KiB and the device's limit admit, best time under each
  fa        flash-attention configs per shape, the exported triton.Config list, autotuned check

Writes under --out: runs.jsonl (every execution), tables.md (the markdown tables for
docs/gpu-results.md), E=8,N=14336,device_name=<GPU>.json, flash_attn_configs.py, and stops
starting new work at --deadline-s (what is done is still written).

The pieces live in scripts/triton_tuning/ (package docstring); this file is the command line and
the order of the parts.
"""
import argparse
import os
import random
import time

import triton_tuning  # noqa: F401 - puts the harnesses on sys.path
import fa_algo  # noqa: E402
import moe_algo  # noqa: E402
import tune_report as tr  # noqa: E402
from triton_tuning.common import T0, log
from triton_tuning.compile import compile_pool
from triton_tuning.execution import Runner, grid, halving
from triton_tuning.flash import flash_attention
from triton_tuning.output import write
from triton_tuning.parts import device_smem_limit, floors, surfaces


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out-triton")
    ap.add_argument("--parts", default="floors,moe,grid,surfaces,smem,fa")
    ap.add_argument("--ms", default=",".join(str(m) for m in moe_algo.TUNED_BATCH_SIZES))
    ap.add_argument("--grid-ms", default="16,256,1024")
    ap.add_argument("--sample", type=int, default=160, help="tile sets drawn from the space")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--configs", default="", help="tile sets to tune instead of a sample")
    ap.add_argument("--eta", type=int, default=3)
    ap.add_argument("--finalists", type=int, default=3)
    ap.add_argument("--final-execs", type=int, default=3)
    ap.add_argument("--grid-execs", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--first-reps", type=int, default=3, help="samples per execution in round 1")
    ap.add_argument("--jobs", type=int, default=max(1, min(16, (os.cpu_count() or 2) - 1)))
    ap.add_argument("--fa-shapes", type=int, default=len(fa_algo.SHAPES))
    ap.add_argument("--deadline-s", type=float, default=540)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    parts = set(args.parts.split(","))
    import torch
    import fused_moe_bench as moe_bench
    import flash_attn_bench as fa_bench
    res = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    import triton
    res["triton"] = triton.__version__
    res["smem_device"] = device_smem_limit(torch)
    log("device %s, torch %s, triton %s, shared memory per block %d B" % (
        res["device"], res["torch"], res["triton"], res["smem_device"]))
    runs = open(os.path.join(args.out, "runs.jsonl"), "a")
    late = lambda: time.time() - T0 > args.deadline_s  # noqa: E731

    res["floors"] = floors(torch) if "floors" in parts else {"copy_GBps": 4277.0, "matmul_TFLOPs": 811.0}
    log("floors %s" % res["floors"])

    shape = (1024, 8, 14336, 4096, 2)
    feasible, too_big = moe_algo.tuning_space(smem_limit=res["smem_device"])
    rng = random.Random(args.seed)
    # Stratified: a quarter of the sample fits 48 KiB (the SMEM question needs those measured).
    small = [c for c in feasible if moe_algo.config_smem(c) <= 48 * 1024]
    large = [c for c in feasible if moe_algo.config_smem(c) > 48 * 1024]
    n_small = min(len(small), args.sample // 4)
    sample = rng.sample(small, n_small) + rng.sample(large, min(len(large), args.sample - n_small))
    if args.configs:  # an explicit list instead (ids BM/BN/BK/GROUP/warps/stages, comma separated)
        sample = [moe_algo.parse_tile_set(c) for c in args.configs.split(",")]
    res["space"] = {"total": len(feasible) + len(too_big), "feasible": len(feasible),
                    "infeasible_smem_estimate": len(too_big), "sampled": len(sample)}
    log("space %s" % res["space"])
    base = {"E": 8, "N": 14336, "K": 4096, "topk": 2, "reps": args.reps, "warmup": 2,
            "smem_limit": res["smem_device"], "platform": "cuda"}

    if parts & {"moe", "grid", "surfaces"}:
        res["compile_moe_s"] = compile_pool("moe", sample, shape, args.jobs)
    ctx = moe_bench.setup({})
    runner = Runner(moe_bench, ctx, runs)
    res["moe"], res["grid"] = {}, {}
    if "moe" in parts:
        for m in [int(x) for x in args.ms.split(",")]:
            if late():
                log("deadline: per-M tuning stops before M=%d" % m)
                break
            win, samples, execs, wall = halving(runner, "moe", m, sample, base, args.eta,
                                                args.finalists, args.final_execs, args.first_reps)
            ids = runner.ctx["inputs"]
            touched = moe_algo.experts_touched(next(iter(ids.values()))["ids_list"]) if ids else 8
            entry = {"executions": execs, "wall_s": wall, "failed": dict(runner.failed),
                     "round1": {i: tr.median(s[0]) for i, s in samples.items()}}
            if win:
                flat = [x for e in samples[win] for x in e]
                entry.update(winner=win, median=tr.median(flat), ci=tr.hierarchical_ci(samples[win]),
                             n_exec=len(samples[win]),
                             floor=moe_algo.roofline_ms(m, 14336, 4096, 2, touched,
                                                        res["floors"]["matmul_TFLOPs"],
                                                        res["floors"]["copy_GBps"]),
                             )
                entry["ratio"] = entry["median"] / entry["floor"]
                log("M=%d winner %s %.4f ms [%.4f, %.4f] floor %.4f ratio %.2f, %d executions, %.1f s"
                    % (m, win, entry["median"], entry["ci"][0], entry["ci"][1], entry["floor"],
                       entry["ratio"], execs, wall))
            res["moe"][m] = entry
            if "grid" in parts and m in [int(x) for x in args.grid_ms.split(",")] and not late():
                runner.drop()  # the grid prepares (loads, checks, captures) for itself
                gs, gexecs, gwall = grid(runner, "grid", m, sample, base, args.grid_execs)
                gmed = {i: tr.median([x for e in s for x in e]) for i, s in gs.items()}
                best = min(gmed, key=lambda i: gmed[i])
                res["grid"][m] = {"best": best, "best_median": gmed[best],
                                  "best_ci": tr.hierarchical_ci(gs[best]), "executions": gexecs,
                                  "wall_s": gwall, "halving_pick": win,
                                  "halving_pick_grid_median": gmed.get(win),
                                  "halving_pick_ci": tr.hierarchical_ci(gs[win]) if win in gs else None,
                                  "halving_executions": execs, "halving_wall_s": wall,
                                  "medians": gmed}
                log("grid M=%d best %s %.4f ms (%d executions, %.1f s); halving pick %s %.4f ms (%d executions)"
                    % (m, best, gmed[best], gexecs, gwall, win, gmed.get(win, float("nan")), execs))
            for i, p in runner.prepared.items():
                res.setdefault("smem", {})[i] = p.smem_bytes
            runner.failed.clear()
            runner.drop()
            write(args.out, res)
    if "surfaces" in parts and not late():
        res["surfaces"] = surfaces(runner, base)
        runner.drop()
    write(args.out, res)
    if "fa" in parts and not late():
        res["fa"] = flash_attention(fa_bench, runs, args)
    write(args.out, res)
    log("done")


if __name__ == "__main__":
    main()
