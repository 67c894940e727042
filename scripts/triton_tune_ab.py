#!/usr/bin/env python3
"""Before/after of fused-MoE kernel versions on one GPU, interleaved in one process.

Each --variant NAME=PATH[:ATTR=INT,...] is a copy of worker/benches/triton/fused_moe_bench.py
(e.g. the committed one, saved with `git show REV:worker/benches/triton/fused_moe_bench.py`),
loaded as its own module, with module attributes overridden (e.g. `:B_DESC=0`). All variants
share one set of inputs per M (same seed, same float32 reference) and go through the harness's
own setup / prepare / run, as scripts/triton_tune.py does. Per M, every (tile set, variant) pair
gets --execs executions round-robin, the variant order reversed every other round, so clock drift
under sustained load hits every variant alike; each execution's record in runs.jsonl carries the
SM clock, power and clock-event reasons read through NVML right after it.

Writes under --out: runs.jsonl, results.json, tables.md (per M: each variant's best tile set,
median, 95% CI, roofline floor and ratio; each variant's per-tile-set ratio to the first one).
"""
import argparse
import importlib.util
import json
import multiprocessing as mp
import os
import sys
import time

import triton_tuning  # noqa: F401 - puts the harnesses on sys.path
import moe_algo  # noqa: E402
import tune_report as tr  # noqa: E402
from triton_tuning.common import T0, check_ok, cid, log
from triton_tuning.execution import Runner

SHAPE = (1024, 8, 14336, 4096, 2)


def parse_variant(text):
    """NAME=PATH[:ATTR=INT,...] -> (name, path, {attr: int})."""
    name, _, rest = text.partition("=")
    path, _, over = rest.partition(":")
    if not name or not path:
        raise ValueError("variant must be NAME=PATH[:ATTR=INT,...], got %r" % text)
    attrs = {}
    for item in filter(None, over.split(",")):
        key, _, value = item.partition("=")
        attrs[key] = int(value)
    return name, path, attrs


def load_variant(spec):
    name, path, attrs = spec
    mspec = importlib.util.spec_from_file_location("moe_variant_" + name, path)
    mod = importlib.util.module_from_spec(mspec)
    mspec.loader.exec_module(mod)
    for key, value in attrs.items():
        setattr(mod, key, value)
    return mod


def _compile_chunk(job):
    """Child process: compile (variant, tile set) pairs into the shared TRITON_CACHE_DIR."""
    pairs, shape = job
    done, mods, ctxs = 0, {}, {}
    for spec, c in pairs:
        try:
            if spec[0] not in mods:
                mods[spec[0]] = load_variant(spec)
                ctxs[spec[0]] = mods[spec[0]].setup({})
            mods[spec[0]].compile_tile_set(ctxs[spec[0]], c, shape)
            done += 1
        except Exception as exc:  # noqa: BLE001 - prepare reports it again in the main process
            print("compile %s %s: %s" % (spec[0], cid(c), str(exc)[:200]), file=sys.stderr)
    return done


class Clocks:
    """SM / memory clock, power, temperature and clock-event reasons through NVML (None if absent)."""

    def __init__(self):
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nv, self.h = pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:  # noqa: BLE001
            self.nv = None

    def read(self):
        if self.nv is None:
            return None
        nv, h = self.nv, self.h
        out = {}
        for key, fn in (("sm_mhz", lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)),
                        ("mem_mhz", lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM)),
                        ("power_w", lambda: nv.nvmlDeviceGetPowerUsage(h) / 1000.0),
                        ("temp_c", lambda: nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)),
                        ("reasons", lambda: nv.nvmlDeviceGetCurrentClocksThrottleReasons(h))):
            try:
                out[key] = fn()
            except Exception:  # noqa: BLE001
                out[key] = None
        return out


def summarize(samples, floor, base_name):
    """samples: {variant: {tile set: [executions]}} -> per variant: best tile set, median, CI,
    ratio to the floor, and the per-tile-set ratio to variant base_name."""
    out = {}
    meds = {v: {c: tr.median([x for e in ex for x in e]) for c, ex in per.items() if ex}
            for v, per in samples.items()}
    for v, per in meds.items():
        if not per:
            out[v] = None
            continue
        best = min(per, key=lambda c: per[c])
        ratios = [per[c] / meds[base_name][c] for c in per if c in meds.get(base_name, {})]
        geo = None
        if ratios:
            prod = 1.0
            for r in ratios:
                prod *= r
            geo = prod ** (1.0 / len(ratios))
        out[v] = {"best": best, "median": per[best], "ci": tr.hierarchical_ci(samples[v][best]),
                  "floor": floor, "ratio": per[best] / floor, "medians": per,
                  "geomean_vs_base": geo, "tile_sets": len(per)}
    return out


def table(res, variants):
    base = variants[0]
    lines = ["| M | variant | best tile set | median ms | 95%% CI | floor ms | ratio | vs %s best | "
             "geomean per tile set vs %s | SM MHz (median) |" % (base, base),
             "|---|---|---|---|---|---|---|---|---|---|"]
    for m, per in res["moe"].items():
        b = per["summary"].get(base)
        for v in variants:
            s = per["summary"].get(v)
            if not s:
                lines.append("| %s | %s | (none) | | | | | | | |" % (m, v))
                continue
            lines.append("| %s | %s | %s | %.4f | [%.4f, %.4f] | %.4f | %.2f | %s | %s | %s |" % (
                m, v, s["best"], s["median"], s["ci"][0], s["ci"][1], s["floor"], s["ratio"],
                "%.3f" % (s["median"] / b["median"]) if b else "",
                "%.3f" % s["geomean_vs_base"] if s["geomean_vs_base"] is not None else "",
                per["sm_mhz"].get(v) or ""))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out-ab")
    ap.add_argument("--variant", action="append", required=True,
                    help="NAME=PATH[:ATTR=INT,...]; the first is the base of the ratios")
    ap.add_argument("--ms", default="1024,2048,4096")
    ap.add_argument("--configs", required=True, help="tile sets BM/BN/BK/GROUP/warps/stages, comma separated")
    ap.add_argument("--execs", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=max(1, min(12, (os.cpu_count() or 2) - 1)))
    ap.add_argument("--no-floors", action="store_true", help="use the earlier ceilings instead of measuring")
    ap.add_argument("--deadline-s", type=float, default=480)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import torch
    import triton
    from triton_tuning.parts import floors

    specs = [parse_variant(v) for v in args.variant]
    names = [s[0] for s in specs]
    configs = [moe_algo.parse_tile_set(c) for c in args.configs.split(",")]
    res = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "triton": triton.__version__, "variants": args.variant, "configs": [cid(c) for c in configs],
           "moe": {}}
    clocks = Clocks()
    res["clocks_start"] = clocks.read()
    log("device %s, torch %s, triton %s, clocks %s" % (res["device"], res["torch"], res["triton"],
                                                       res["clocks_start"]))
    res["floors"] = ({"copy_GBps": 4155.0, "matmul_TFLOPs": 760.0} if args.no_floors else floors(torch))
    log("floors %s" % res["floors"])

    pairs = [(s, c) for c in configs for s in specs]
    t = time.time()
    chunks = [pairs[i::args.jobs] for i in range(args.jobs) if pairs[i::args.jobs]]
    with mp.get_context("spawn").Pool(len(chunks)) as pool:
        done = sum(pool.map(_compile_chunk, [(c, SHAPE) for c in chunks]))
    res["compile_s"] = time.time() - t
    log("compiled %d of %d (variant, tile set) pairs in %.1f s" % (done, len(pairs), res["compile_s"]))

    mods = {s[0]: load_variant(s) for s in specs}
    ctxs = {v: mods[v].setup({}) for v in names}
    shared_inputs = {}
    for v in names:
        ctxs[v]["inputs"] = shared_inputs  # one set of inputs and one reference per M
        log("variant %s: %s, b_desc=%s" % (v, mods[v].__file__, ctxs[v].get("b_desc")))
    runs = open(os.path.join(args.out, "runs.jsonl"), "a")
    base = {"E": 8, "N": 14336, "K": 4096, "topk": 2, "reps": args.reps, "warmup": 2,
            "smem_limit": 0}  # no platform surface: every tile parameter honoured
    for m in [int(x) for x in args.ms.split(",")]:
        if time.time() - T0 > args.deadline_s:
            log("deadline: stops before M=%d" % m)
            break
        runners = {v: Runner(mods[v], ctxs[v], runs) for v in names}
        samples = {v: {} for v in names}
        errs, fps, sm = {v: [] for v in names}, {v: {} for v in names}, {v: [] for v in names}
        t = time.time()
        for rnd in range(args.execs):
            order = names if rnd % 2 == 0 else names[::-1]
            for c in configs:
                for v in order:
                    col = runners[v].execute("ab", cid(c), dict(base, M=m, **c),
                                             {"M": m, "variant": v, "round": rnd + 1})
                    ck = clocks.read()
                    runs.write(json.dumps({"part": "clocks", "M": m, "variant": v, "key": cid(c),
                                           "clocks": ck}) + "\n")
                    if ck and ck.get("sm_mhz"):
                        sm[v].append(ck["sm_mhz"])
                    if col is None:
                        continue
                    errs[v].append(col.check_result[1])
                    fps[v][cid(c)] = col.fp
                    if check_ok(col):
                        samples[v].setdefault(cid(c), []).append(col.samples)
        touched = (moe_algo.experts_touched(next(iter(shared_inputs.values()))["ids_list"])
                   if shared_inputs else 8)
        floor = moe_algo.roofline_ms(m, 14336, 4096, 2, touched, res["floors"]["matmul_TFLOPs"],
                                     res["floors"]["copy_GBps"])
        entry = {"wall_s": time.time() - t, "floor": floor, "touched": touched,
                 "summary": summarize(samples, floor, names[0]),
                 "errors": {v: [min(e), max(e)] if e else None for v, e in errs.items()},
                 "failed": {v: dict(runners[v].failed) for v in names},
                 "fingerprints": fps, "sm_mhz": {v: tr.median(s) if s else None for v, s in sm.items()},
                 "smem": {v: {k: [p.smem_bytes, p.smem_estimate] for k, p in runners[v].prepared.items()}
                          for v in names},
                 "samples": samples}
        res["moe"][m] = entry
        for v in names:
            s = entry["summary"].get(v)
            if s:
                log("M=%d %s: best %s %.4f ms [%.4f, %.4f] floor %.4f ratio %.2f, geomean vs %s %s,"
                    " err %s, SM %s MHz, failed %d" % (
                        m, v, s["best"], s["median"], s["ci"][0], s["ci"][1], floor, s["ratio"],
                        names[0], s["geomean_vs_base"], entry["errors"][v], entry["sm_mhz"][v],
                        len(entry["failed"][v])))
        for v in names:
            runners[v].drop()
        runs.flush()
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(res, f, indent=1, default=str)
    res["clocks_end"] = clocks.read()
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1, default=str)
    text = table(res, names)
    open(os.path.join(args.out, "tables.md"), "w").write(text)
    print(text)
    log("done")


if __name__ == "__main__":
    main()
