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
"""
import argparse
import json
import multiprocessing as mp
import os
import random
import sys
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.path.join(SRC, "worker", "benches", "triton")
sys.path[:0] = [BENCH_DIR, os.path.join(SRC, "worker", "benches", "python")]

import fa_algo  # noqa: E402
import moe_algo  # noqa: E402
import tune_report as tr  # noqa: E402

T0 = time.time()


def log(msg):
    print("[%6.1fs] %s" % (time.time() - T0, msg), flush=True)


class Collect:
    """Stands in for fleetsweep_bench.Emitter: keeps what run() reports."""

    def __init__(self):
        self.samples, self.info_map, self.fp, self.check_result, self.err = [], {}, None, None, None

    def sample(self, metric, value=None, values=None):
        self.samples.extend(values if values is not None else [value])

    def fingerprint(self, value):
        self.fp = value

    def check(self, passed, max_rel_error=None, tolerance=None, detail=None):
        self.check_result = (bool(passed), max_rel_error)

    def info(self, key, value):
        self.info_map[key] = value

    def error(self, cls, detail=""):
        self.err = (cls, detail)


def cid(config):
    return "%d/%d/%d/%d/%d/%d" % tuple(config[k] for k in moe_algo.TILE_PARAMS)


# --------------------------------------------------------------------------------- compile pool

def _compile_chunk(job):
    """Child process: compile tile sets into the shared TRITON_CACHE_DIR (no launch)."""
    kind, items, shape = job
    import torch
    done = 0
    try:
        if kind == "moe":
            import fused_moe_bench as b
            kern = b._kernel()
            m, e, n, k, topk = shape
            bf, f32, i32 = (torch.empty(16, device="cuda", dtype=d) for d in
                            (torch.bfloat16, torch.float32, torch.int32))
            for c in items:
                launch = dict(BLOCK_SIZE_M=c["BLOCK_SIZE_M"], BLOCK_SIZE_N=c["BLOCK_SIZE_N"],
                              BLOCK_SIZE_K=c["BLOCK_SIZE_K"], GROUP_SIZE_M=c["GROUP_SIZE_M"],
                              num_warps=c["num_warps"], num_stages=c["num_stages"], grid=(1,))
                try:
                    kern.warmup(bf, bf, bf, f32, i32, i32, 2 * n, k, 4096, 4096, k, 1, 2 * n * k, k, 1,
                                2 * n, 1, TOP_K=topk, MUL_WEIGHT=False, **launch)
                    kern.warmup(bf, bf, bf, f32, i32, i32, k, n, 4096, 4096, n, 1, k * n, n, 1, k, 1,
                                TOP_K=1, MUL_WEIGHT=True, **launch)
                    done += 1
                except Exception as exc:  # noqa: BLE001 - the main process reports it
                    print("compile %s: %s" % (cid(c), str(exc)[:120]), file=sys.stderr)
        else:
            import flash_attn_bench as b
            kern = b.make_kernel()
            bf = torch.empty(16, device="cuda", dtype=torch.bfloat16)
            for c, d, causal in items:
                try:
                    kern.warmup(bf, bf, bf, bf, 0.1, 4096, HEAD_DIM=d, BLOCK_M=c["BLOCK_M"],
                                BLOCK_N=c["BLOCK_N"], CAUSAL=causal, num_warps=c["num_warps"],
                                num_stages=c["num_stages"], grid=(1,))
                    done += 1
                except Exception as exc:  # noqa: BLE001
                    print("compile fa %s: %s" % (c, str(exc)[:120]), file=sys.stderr)
    except Exception as exc:  # noqa: BLE001
        print("compile pool: %s" % exc, file=sys.stderr)
    return done


def compile_pool(kind, items, shape, jobs):
    t = time.time()
    chunks = [items[i::jobs] for i in range(jobs) if items[i::jobs]]
    with mp.get_context("spawn").Pool(len(chunks)) as pool:
        done = sum(pool.map(_compile_chunk, [(kind, c, shape) for c in chunks]))
    log("compiled %d of %d %s items in %.1f s with %d processes" % (done, len(items), kind,
                                                                     time.time() - t, len(chunks)))
    return time.time() - t


# ------------------------------------------------------------------------------------ executions

class Runner:
    """Prepared tile sets of one shape (kept between executions, like a warm session)."""

    def __init__(self, bench, ctx, out_file):
        self.bench, self.ctx, self.out_file = bench, ctx, out_file
        self.prepared, self.failed = {}, {}
        self.executions = 0

    def execute(self, part, key, params, extra=None):
        """One execution; returns the Collect, or None when the tile set failed (kept failed)."""
        if key in self.failed:
            return None
        record = {"part": part, "key": key, "params": {k: params[k] for k in params}}
        record.update(extra or {})
        t = time.time()
        try:
            if key not in self.prepared:
                self.prepared[key] = self.bench.prepare(self.ctx, self.bench_params(params))
            col = Collect()
            self.bench.run(self.ctx, self.prepared[key], self.bench_params(params), col)
            self.executions += 1
        except Exception as exc:  # noqa: BLE001 - recorded, never retried
            cls = getattr(exc, "cls", type(exc).__name__)
            self.failed[key] = (cls, str(getattr(exc, "detail", "") or exc)[:300])
            record.update(status="failed", failure=self.failed[key])
            self.out_file.write(json.dumps(record) + "\n")
            return None
        record.update(status="ok", samples=col.samples, fingerprint=col.fp,
                      check=col.check_result, info=col.info_map,
                      wall_s=time.time() - t)
        self.out_file.write(json.dumps(record) + "\n")
        return col

    @staticmethod
    def bench_params(params):
        import fleetsweep_bench as fsb
        return fsb.Params({k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in params.items()})

    def drop(self):
        self.prepared.clear()


def check_ok(col):
    return bool(col.check_result and col.check_result[0])


def halving(runner, part, m, configs, base, eta, finalists, final_execs, first_reps):
    """Successive halving over executions: every tile set one execution, keep the best 1/eta by
    the median of all its samples, repeat until `finalists` remain, then top the finalists up to
    `final_execs` executions. Round 1 takes `first_reps` samples per execution. Returns (winner id, {id: [executions]}, executions, wall s)."""
    t, start_execs = time.time(), runner.executions
    samples = {}
    alive = [cid(c) for c in configs]
    by_id = {cid(c): c for c in configs}
    rnd = 0
    while True:
        rnd += 1
        for i in alive:
            reps = base["reps"] if rnd > 1 else first_reps
            col = runner.execute(part, i, dict(base, M=m, reps=reps, **by_id[i]), {"M": m, "round": rnd})
            if col is not None and check_ok(col):
                samples.setdefault(i, []).append(col.samples)
        alive = [i for i in alive if i in samples]
        scores = {i: tr.median([x for e in samples[i] for x in e]) for i in alive}
        if len(alive) <= finalists:
            break
        alive = tr.halving_keep(scores, eta, finalists)
    for i in alive:
        while len(samples[i]) < final_execs:
            col = runner.execute(part, i, dict(base, M=m, **by_id[i]), {"M": m, "round": "final"})
            if col is None:
                break
            samples[i].append(col.samples)
    scores = {i: tr.median([x for e in samples[i] for x in e]) for i in alive if i in samples}
    winner = min(scores, key=lambda i: scores[i]) if scores else None
    return winner, samples, runner.executions - start_execs, time.time() - t


def grid(runner, part, m, configs, base, execs):
    t, start_execs = time.time(), runner.executions
    samples = {}
    for rep in range(execs):
        for c in configs:  # round-robin: drift hits every tile set alike
            col = runner.execute(part, cid(c), dict(base, M=m, **c), {"M": m, "round": rep + 1})
            if col is not None and check_ok(col):
                samples.setdefault(cid(c), []).append(col.samples)
    return samples, runner.executions - start_execs, time.time() - t


# ---------------------------------------------------------------------------------------- parts

def floors(torch):
    x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)

    def timed(fn, reps):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            ts.append(s.elapsed_time(e))
        return tr.median(ts)

    copy_ms = timed(lambda: y.copy_(x), 20)
    mm_ms = timed(lambda: a @ b, 20)
    w = torch.randn(1 << 31, dtype=torch.bfloat16, device="cuda")  # 4 GiB, read once
    read_ms = timed(lambda: torch.sum(w, dtype=torch.float32), 10)
    return {"copy_GBps": 2 * x.numel() / copy_ms / 1e6, "matmul_TFLOPs": 2 * 8192 ** 3 / mm_ms / 1e9,
            "read_GBps": 2 * w.numel() / read_ms / 1e6}


def device_smem_limit(torch):
    try:
        import triton
        return int(triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"])
    except Exception:  # noqa: BLE001
        return int(getattr(torch.cuda.get_device_properties(0), "shared_memory_per_block_optin", 232448))


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
        sample = [dict(zip(moe_algo.TILE_PARAMS, (int(v) for v in c.split("/")))) for c in args.configs.split(",")]
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


def surfaces(runner, base):
    rows = []
    tiles = [{"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 2},
             {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 2},
             {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 2},
             {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 2},
             {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 8, "num_stages": 3},
             {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 2}]
    for platform in ("cuda", "bi-v100"):
        for t in tiles:
            key = platform + ":" + cid(t)
            col = runner.execute("surfaces", key, dict(base, M=256, platform=platform, **t), {"M": 256})
            rows.append({"platform": platform, "requested": cid(t), "fingerprint": col.fp if col else None,
                         "median": tr.median(col.samples) if col else None,
                         "ran": col.info_map.get("tiles") if col else None})
            log("surface %s %s -> %s" % (platform, cid(t), rows[-1]["fingerprint"]))
    return rows


def flash_attention(fa_bench, runs, args):
    import torch
    import triton
    shapes = fa_algo.SHAPES[:args.fa_shapes]
    cands = fa_algo.candidates()
    items = [(c, s[3], s[4]) for c in cands for s in {(x[3], x[4]): x for x in shapes}.values()]
    out = {"compile_s": compile_pool("fa", items, None, args.jobs), "shapes": {}}
    ctx = fa_bench.setup({})
    results = {}
    for shape in shapes:
        name = fa_algo.shape_name(shape)
        b, h, s, d, causal = shape
        rows = []
        runner = Runner(fa_bench, ctx, runs)
        for c in cands:
            params = dict(c, B=b, H=h, S=s, D=d, causal=causal, reps=20, warmup=3)
            col = runner.execute("fa", name + ":" + str(fa_algo.config_key(c)), params, {"shape": name})
            ok = col is not None and check_ok(col)
            smem = getattr(runner.prepared.get(name + ":" + str(fa_algo.config_key(c))), "smem_bytes", None)
            rows.append((c, tr.median(col.samples) if ok else None, smem,
                         runner.failed.get(name + ":" + str(fa_algo.config_key(c)))))
            runner.drop()
        results[name] = [(r[0], r[1]) for r in rows]
        out["shapes"][name] = {"rows": [{"config": r[0], "median": r[1], "smem": r[2], "failed": r[3]} for r in rows]}
        log("fa %s: %d configs, best %s" % (name, len(rows), min((r for r in rows if r[1]), key=lambda r: r[1])[:2]))
    chosen = fa_algo.best_set(results)
    text = fa_algo.export_config_list(chosen)
    open(os.path.join(args.out, "flash_attn_configs.py"), "w").write(text)
    out["export"] = text
    # The pasted list, autotuned, against the best single config of each shape (same timer); the
    # same for the lists chosen among configs that fit 48 and 32 KiB of shared memory.
    for name, t in time_autotuned(fa_bench, ctx, shapes, chosen, results).items():
        out["shapes"][name].update(t)
    out["limited"] = {}
    smem = {name: {fa_algo.config_key(r["config"]): r["smem"] for r in out["shapes"][name]["rows"]}
            for name in results}
    for limit in (48 * 1024, 32 * 1024):
        fit = {name: [(c, m) for c, m in rows
                      if (b := smem[name].get(fa_algo.config_key(c))) is not None and b <= limit]
               for name, rows in results.items()}
        chosen_l = fa_algo.best_set(fit)
        if not chosen_l:
            continue
        text = fa_algo.export_config_list(chosen_l, name="configs_smem%dk" % (limit // 1024))
        open(os.path.join(args.out, "flash_attn_configs_smem%dk.py" % (limit // 1024)), "w").write(text)
        out["limited"][str(limit)] = {"export": text,
                                      "shapes": time_autotuned(fa_bench, ctx, shapes, chosen_l, fit)}
    return out


def time_autotuned(fa_bench, ctx, shapes, chosen, results):
    """Per shape: the chosen list as a @triton.autotune set against the best single config of
    `results` (same timer, 30 samples of 10 launches). Returns {shape name: figures}."""
    import torch
    import triton
    configs = [triton.Config({"BLOCK_M": c["BLOCK_M"], "BLOCK_N": c["BLOCK_N"]}, num_warps=c["num_warps"],
                             num_stages=c["num_stages"]) for c, _ in chosen]
    tuned = fa_bench.make_autotuned(configs)
    single = fa_bench.make_kernel()
    figures = {}
    for shape in shapes:
        name = fa_algo.shape_name(shape)
        rows = [r for r in results.get(name, []) if r[1] is not None]
        if not rows:
            continue
        inp = fa_bench.inputs(ctx, shape)
        best_c = min(rows, key=lambda r: r[1])[0]
        fa_bench.launch(ctx, tuned, inp, shape)  # autotunes on first call
        torch.cuda.synchronize()
        t_auto = tr.median(fa_bench.time_launches(ctx, lambda: fa_bench.launch(ctx, tuned, inp, shape), 30, 3, 10))
        t_best = tr.median(fa_bench.time_launches(ctx, lambda: fa_bench.launch(ctx, single, inp, shape, best_c), 30, 3, 10))
        picked = getattr(tuned, "best_config", None)
        figures[name] = dict(autotuned_ms=t_auto, best_single_ms=t_best, best_single=best_c,
                             autotune_picked=str(picked), list_size=len(configs))
        log("fa %s (%d configs): autotuned %.4f ms vs best single %.4f ms (ratio %.3f), picked %s"
            % (name, len(configs), t_auto, t_best, t_auto / t_best, picked))
    return figures


def write(out_dir, res):
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(res, f, indent=1, default=str)
    winners = {}
    for m, e in res.get("moe", {}).items():
        if e.get("winner"):
            winners[m] = dict(zip(moe_algo.TILE_PARAMS, (int(v) for v in e["winner"].split("/"))))
    if winners:
        name = tr.vllm_moe_file_name(8, 14336, res["device"])
        for fname in (name, "vllm_moe_config.json"):  # the second travels back from the GPU node
            with open(os.path.join(out_dir, fname), "w") as f:
                f.write(tr.dump_vllm_moe(winners))


if __name__ == "__main__":
    main()
