#!/usr/bin/env python3
"""A persistent benchmark for the honest-measurement integration tests (tests/honest/): each
PROCESS keeps an offset of its own, as an engine's startup state can.

It serves fleetsweep's session protocol through the repository's helper
(worker/benches/python/fleetsweep_bench.py). The reported time is SYNTHETIC:
10 ms * N * the process's offset * 0.5% noise, where the offset is drawn once per process
(lognormal, sd 10%). `alias` is a session-key parameter (the spec passes it in the command) that
the time ignores; N is used (N=2 twice as slow). So alias does nothing, yet its levels never
share a process: a test that counted executions would read the processes' offsets as its effect.

usage: session_bench.py ALIAS   (FLEETSWEEP_SESSION=persistent: serve executions on stdin)
"""
import hashlib
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "worker", "benches", "python"))
import fleetsweep_bench as fsb  # noqa: E402


def setup(session):
    rng = random.Random(os.urandom(8))
    return {"offset": math.exp(rng.gauss(0.0, 0.1)), "rng": rng}


def run(ctx, prepared, params, out):
    n = int(params["N"])
    for _ in range(5):
        out.sample("time_ms", 10.0 * n * ctx["offset"] * math.exp(ctx["rng"].gauss(0.0, 0.005)))
    out.check(passed=True, max_rel_error=0.0)
    out.fingerprint(hashlib.sha256(f"n={n}".encode()).hexdigest()[:16])


if __name__ == "__main__":
    fsb.serve(run, setup=setup, argv=sys.argv[2:])
