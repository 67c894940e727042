#!/usr/bin/env python3
"""A stand-in for the `vllm` CLI (vLLM cannot run on the CI machine: no GPU, not installed).

  fake_vllm.py bench serve --save-result --result-filename FILE
      [--percentile-metrics ttft,tpot,itl] [--metric-percentiles 99] [--save-detailed]
      [other flags ignored]

writes FILE with exactly the keys `vllm bench serve --save-result` writes (vllm/benchmarks/serve.py):
the run's setup (date, backend, model_id, tokenizer_id, num_prompts, request_rate, burstiness,
max_concurrency), its counts (duration, completed, failed, total_input_tokens,
total_output_tokens), the throughputs (request_throughput, request_goodput = null without
--goodput, output_throughput, total_token_throughput, max_output_tokens_per_s,
max_concurrent_requests) and mean/median/std/p<P> _ms of each metric named by
--percentile-metrics, whose default is ttft,tpot,itl: **no e2el unless asked for**. The
per-request lists (input_lens, ttfts, ...) only with --save-detailed. Values start from
tests/data/vllm/bench_result.json. The engine settings arrive as FLEETSWEEP_PARAM_MAX_NUM_SEQS,
FLEETSWEEP_PARAM_MAX_NUM_BATCHED_TOKENS and FLEETSWEEP_PARAM_ENABLE_CHUNKED_PREFILL (in reality
they are `vllm serve` flags); a toy model maps them to throughput and latency: more sequences ->
more throughput and a longer p99 end-to-end latency. Deterministic.
"""
import json
import os
import sys


SETUP = ("date", "backend", "model_id", "tokenizer_id", "num_prompts", "request_rate",
         "burstiness", "max_concurrency")
RESULT = ("duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
          "request_throughput", "request_goodput", "output_throughput", "total_token_throughput")
PEAKS = ("max_output_tokens_per_s", "max_concurrent_requests")
DETAILED = ("input_lens", "output_lens", "ttfts", "itls", "start_times", "generated_texts",
            "errors")


def flag(argv, name, default):
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv):
    if argv[:2] != ["bench", "serve"]:
        print("fake vllm: only `bench serve` is implemented", file=sys.stderr)
        return 2
    out = flag(argv, "--result-filename", "result.json")
    selected = flag(argv, "--percentile-metrics", "ttft,tpot,itl").split(",")
    percentiles = flag(argv, "--metric-percentiles", "99").split(",")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_result.json")) as f:
        base = json.load(f)
    seqs = int(os.environ.get("FLEETSWEEP_PARAM_MAX_NUM_SEQS", "64"))
    tokens = int(os.environ.get("FLEETSWEEP_PARAM_MAX_NUM_BATCHED_TOKENS", "8192"))
    chunked = os.environ.get("FLEETSWEEP_PARAM_ENABLE_CHUNKED_PREFILL", "true") == "true"
    scale = (seqs / 64) ** 0.5 * (1.05 if chunked else 1.0) * min(1.0, tokens / 4096) ** 0.2
    lat = seqs / 64 * (0.9 if chunked else 1.0)
    r = {k: base.get(k, 0) for k in SETUP + RESULT}
    r["failed"] = 0
    for k in ("request_throughput", "output_throughput", "total_token_throughput"):
        r[k] *= scale
    r["max_output_tokens_per_s"] = r["output_throughput"] * 1.4
    r["max_concurrent_requests"] = min(seqs, base["num_prompts"])
    for m in selected:
        p99 = base[f"p99_{m}_ms"] * lat
        r[f"mean_{m}_ms"] = base[f"mean_{m}_ms"] * lat
        r[f"median_{m}_ms"] = base[f"median_{m}_ms"] * lat
        r[f"std_{m}_ms"] = base[f"std_{m}_ms"] * lat
        for p in percentiles:
            name = str(int(float(p))) if float(p) == int(float(p)) else p
            r[f"p{name}_{m}_ms"] = r[f"median_{m}_ms"] + (p99 - r[f"median_{m}_ms"]) * float(p) / 99
    if "--save-detailed" in argv:
        for k in DETAILED:
            r[k] = base.get(k, [])
    with open(out, "w") as f:
        json.dump(r, f)
    print(json.dumps({"type": "info", "key": "fake_vllm", "value": "toy engine model"}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
