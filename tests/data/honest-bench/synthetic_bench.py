#!/usr/bin/env python3
"""A real benchmark program for the honest-measurement integration tests (tests/honest/).

It speaks the fleetsweep protocol (docs/executors.md) on stdout. Instead of timing wall-clock work
it reports a SYNTHETIC time, base(params) * node_factor * noise, so that the statistics the
aggregator computes can be checked against a known truth on a loaded CI machine. Everything else
is real: the process is started by a real worker, parameters arrive through FLEETSWEEP_PARAM_*,
FLEETSWEEP_NODE names the node, failures are real exceptions.

usage: synthetic_bench.py MODE
  ignore_all      every parameter is ignored: one fingerprint, one time (bench_bi100.py's bug)
  ignore_one      A and C change the kernel and the time; B is ignored entirely (also by the
                  noise, whose seed comes from what the kernel really uses)
  not_implemented use_v1=false raises NotImplementedError (paged attention V2); BLOCK is used
  node_effect     M sets the time (10 * 1.1^(M-1)); node local-1 is 20% slower
  aa              N is used (N=2 is twice as slow); alias is ignored: A/A calibration with
                  real random noise (2% lognormal)
"""
import hashlib
import json
import math
import os
import random
import sys


def param(name, default=None):
    return os.environ.get("FLEETSWEEP_PARAM_" + name.upper(), default)


def emit(**record):
    print(json.dumps(record), flush=True)


def fingerprint(text):
    emit(type="fingerprint", value=hashlib.sha256(text.encode()).hexdigest()[:16])


def report(base, rng, sigma, samples=5):
    for _ in range(samples):
        emit(type="sample", metric="time_ms", value=base * math.exp(rng.gauss(0.0, sigma)))
    emit(type="check", passed=True, max_rel_error=0.0)


def main():
    mode = sys.argv[1]
    node = os.environ.get("FLEETSWEEP_NODE", "")
    if mode == "ignore_all":
        rng = random.Random(7)
        report(10.0, rng, 0.002)
        fingerprint("torch.sum")  # whatever the parameters, the same built-in kernel ran
    elif mode == "ignore_one":
        a, c = int(param("A")), int(param("C"))
        used = f"A={a};C={c}"
        rng = random.Random(used)
        report(10.0 * (1 + 0.3 * (a - 1)) * (1 + 0.5 * (c - 1)), rng, 0.003)
        fingerprint("kernel;" + used)
    elif mode == "not_implemented":
        block = int(param("BLOCK"))
        if param("use_v1") == "false":
            raise NotImplementedError("paged_attention_v2")
        rng = random.Random(os.urandom(8))
        report(10.0 * (1 + 0.1 * math.log2(block / 16)), rng, 0.003)
        fingerprint(f"v1;block={block}")
    elif mode == "node_effect":
        m = int(param("M"))
        factor = 1.2 if node == "local-1" else 1.0
        rng = random.Random(os.urandom(8))
        report(10.0 * 1.1 ** (m - 1) * factor, rng, 0.003)
        fingerprint(f"m={m}")
    elif mode == "aa":
        n = int(param("N"))
        rng = random.Random(os.urandom(8))
        report(10.0 * n, rng, 0.02)
        fingerprint(f"n={n}")
    else:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
