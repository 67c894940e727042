#!/usr/bin/env python3
"""The alternative a user has to fleetsweep: a plain in-process Python loop over the Triton
prefix-prefill harness (worker/benches/triton/prefix_prefill.py), for the same configurations,
executions and samples as examples/triton-prefix-prefill.yaml with repetitions fixed at N.

  python3 bench/triton_loop_bench.py [--executions 3] [--json OUT.json]

One process: setup once, then for each round, for each configuration: prepare (compile, inputs,
check; untimed) and run (warmup + 20 CUDA-event-timed launches). The winner is the configuration
with the lowest median of its executions' medians. Prints one JSON object: wall seconds (from
before setup to the end), the GPU-timed seconds (sum of the timed samples), executions, the
winner and every configuration's median. scripts/gpu-sessions.sh runs it beside `fleetsweep run`
(persistent and one-shot sessions) with fresh Triton caches each. GPU only.
"""
import argparse
import itertools
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(HERE, "..", "worker", "benches", "triton")


class Collect:
    """The harness's output object, keeping what a loop needs (samples, check, errors)."""

    def __init__(self):
        self.samples, self.checks, self.errors = [], [], []

    def sample(self, metric, value=None, values=None):
        self.samples.extend(values if values is not None else [value])

    def check(self, passed, **kw):
        self.checks.append(passed)

    def fingerprint(self, value):
        pass

    def info(self, key, value):
        pass

    def error(self, cls, detail=""):
        self.errors.append(cls)


def configurations():
    """The spec's space: BLOCK_M x BLOCK_N x num_warps under its one constraint (26)."""
    out = []
    for bm, bn, w in itertools.product([32, 64, 128], [32, 64, 128], [2, 4, 8]):
        if bm * bn <= 128 * 64 or w >= 4:
            out.append(dict(BLOCK_M=bm, BLOCK_N=bn, num_warps=w, num_stages=1, ctx_len=1024))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--executions", type=int, default=3)
    ap.add_argument("--json", help="also write the result here")
    a = ap.parse_args()
    t0 = time.time()
    sys.path.insert(0, HARNESS)
    import prefix_prefill as pp  # noqa: E402 (imports torch and triton: part of the wall time)
    ctx = pp.setup(None)
    configs = configurations()
    medians = {}
    timed_ms = 0.0
    failed = 0
    for _ in range(a.executions):
        for c in configs:
            key = "%d/%d/%d" % (c["BLOCK_M"], c["BLOCK_N"], c["num_warps"])
            out = Collect()
            try:
                prep = pp.prepare(ctx, dict(c))
                pp.run(ctx, prep, dict(c), out)
            except Exception as e:  # a tile set that cannot run: counted, the loop goes on
                failed += 1
                print("config %s failed: %s" % (key, str(e)[:200]), file=sys.stderr)
                continue
            timed_ms += sum(out.samples)
            medians.setdefault(key, []).append(statistics.median(out.samples))
    wall = time.time() - t0
    per_config = {k: statistics.median(v) for k, v in medians.items()}
    winner = min(per_config, key=per_config.get)
    res = dict(mode="in-process loop", wall_s=round(wall, 2), executions=a.executions * len(configs),
               failed=failed, gpu_timed_s=round(timed_ms / 1000, 3),
               gpu_timed_fraction=round(timed_ms / 1000 / wall, 5), winner=winner,
               winner_ms=round(per_config[winner], 4),
               medians={k: round(v, 4) for k, v in sorted(per_config.items(), key=lambda x: x[1])})
    text = json.dumps(res)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
