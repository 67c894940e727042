#!/usr/bin/python3
"""A fake fused-MoE / vLLM-engine benchmark for tests/report (stdlib only, instant).

Reads its parameters from FLEETSWEEP_PARAM_* and prints fleetsweep protocol lines. Mode "moe":
time_ms depends on BLOCK_SIZE_M and M (BLOCK_SIZE_N is ignored, like ixformer); info reports the
shapes and a device name with a space. Mode "engine": output_throughput from max_num_seqs and
enable_chunked_prefill.
"""
import json
import os
import random
import sys


def p(name, default=None):
    return os.environ.get("FLEETSWEEP_PARAM_" + name.upper(), default)


def emit(**kv):
    print(json.dumps(kv), flush=True)


mode = sys.argv[1] if len(sys.argv) > 1 else "moe"
rnd = random.Random()
if mode == "moe":
    bm, m = int(p("BLOCK_SIZE_M")), int(p("M"))
    # M=1 prefers small tiles, M=256 large ones.
    best = 16 if m < 64 else 64
    base = 1.0 + abs(bm - best) / 16.0 + m / 256.0
    emit(type="info", key="shapes", value="M=%d,K=128,N=512,E=8,topk=2" % m)
    emit(type="info", key="device_name", value="Fake GPU 9000")
    emit(type="fingerprint", value="moe-bm%d" % bm)
    emit(type="check", passed=True, max_rel_error=0.0, tolerance=1e-3)
    for _ in range(4):
        emit(type="sample", metric="time_ms", value=base * (1 + 0.002 * rnd.random()))
else:
    seqs = int(p("max_num_seqs"))
    chunked = p("enable_chunked_prefill") == "true"
    thr = 1000.0 + 5.0 * seqs + (400.0 if chunked else 0.0)
    emit(type="fingerprint", value="engine-%d-%s" % (seqs, chunked))
    for _ in range(4):
        emit(type="sample", metric="output_throughput", value=thr * (1 + 0.002 * rnd.random()))
