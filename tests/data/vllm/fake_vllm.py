#!/usr/bin/env python3
"""A stand-in for the `vllm` CLI (vLLM cannot run on the CI machine: no GPU, not installed).

  fake_vllm.py bench serve --save-result --result-filename FILE [other flags ignored]

writes FILE in the format `vllm bench serve --save-result` documents (top-level numbers
request_throughput, output_throughput, {mean,median,std,p99}_{ttft,tpot,itl,e2el}_ms, strings,
per-request lists), starting from tests/data/vllm/bench_result.json. The engine settings arrive as
FLEETSWEEP_PARAM_MAX_NUM_SEQS, FLEETSWEEP_PARAM_MAX_NUM_BATCHED_TOKENS and
FLEETSWEEP_PARAM_ENABLE_CHUNKED_PREFILL (in reality they are `vllm serve` flags); a toy model maps
them to throughput and latency: more sequences -> more throughput and a longer p99 end-to-end
latency. Deterministic.
"""
import json
import os
import sys


def main(argv):
    if argv[:2] != ["bench", "serve"]:
        print("fake vllm: only `bench serve` is implemented", file=sys.stderr)
        return 2
    out = "result.json"
    if "--result-filename" in argv:
        out = argv[argv.index("--result-filename") + 1]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_result.json")) as f:
        r = json.load(f)
    seqs = int(os.environ.get("FLEETSWEEP_PARAM_MAX_NUM_SEQS", "64"))
    tokens = int(os.environ.get("FLEETSWEEP_PARAM_MAX_NUM_BATCHED_TOKENS", "8192"))
    chunked = os.environ.get("FLEETSWEEP_PARAM_ENABLE_CHUNKED_PREFILL", "true") == "true"
    scale = (seqs / 64) ** 0.5 * (1.05 if chunked else 1.0) * min(1.0, tokens / 4096) ** 0.2
    for k in ("request_throughput", "output_throughput", "total_token_throughput"):
        r[k] *= scale
    lat = seqs / 64 * (0.9 if chunked else 1.0)
    for k in list(r):
        if k.endswith("_ms"):
            r[k] *= lat
    with open(out, "w") as f:
        json.dump(r, f)
    print(json.dumps({"type": "info", "key": "fake_vllm", "value": "toy engine model"}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
