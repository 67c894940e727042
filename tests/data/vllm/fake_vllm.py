#!/usr/bin/env python3
"""A stand-in for the `vllm` CLI (vLLM cannot run on the CI machine: no GPU, not installed).

  fake_vllm.py serve MODEL --port P [--max-num-seqs N] [--max-num-batched-tokens T]
      [--enable-chunked-prefill | --no-enable-chunked-prefill] [other flags ignored]
  fake_vllm.py bench serve --save-result --result-filename FILE [--port P]
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
tests/data/vllm/bench_result.json. The engine settings come from the fake server on --port (GET
/fake/args) when `bench serve` is given one, else from FLEETSWEEP_PARAM_MAX_NUM_SEQS,
FLEETSWEEP_PARAM_MAX_NUM_BATCHED_TOKENS and FLEETSWEEP_PARAM_ENABLE_CHUNKED_PREFILL; a toy model
maps them to throughput and latency: more sequences -> more throughput and a longer p99
end-to-end latency. Deterministic.

`serve` answers GET /health and /fake/args on 127.0.0.1:P until SIGTERM, logs its non-default
engine arguments the way vLLM does, and appends "serve <pid> <args>" to $FAKE_VLLM_LOG (when set)
so that tests can count engine starts.
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


def serve(argv):
    import http.server
    port = int(flag(argv, "--port", "8000"))
    args = {"max_num_seqs": int(flag(argv, "--max-num-seqs", "256")),
            "max_num_batched_tokens": int(flag(argv, "--max-num-batched-tokens", "8192")),
            "enable_chunked_prefill": "--no-enable-chunked-prefill" not in argv}
    log = os.environ.get("FAKE_VLLM_LOG")
    if log:
        with open(log, "a") as f:
            f.write("serve %d %s\n" % (os.getpid(), json.dumps(args, sort_keys=True)))
    print("INFO 12-03 08:00:00 [api_server.py:1] non-default args: %r" % args, flush=True)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps(args).encode() if self.path == "/fake/args" else b"{}"
            self.send_response(200 if self.path in ("/health", "/fake/args") else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
    return 0


def engine_args(argv):
    """(max_num_seqs, max_num_batched_tokens, chunked) of the server on --port, else the env."""
    if "--port" in argv:
        import urllib.request
        url = "http://127.0.0.1:%s/fake/args" % flag(argv, "--port", "")
        with urllib.request.urlopen(url, timeout=5) as r:
            a = json.load(r)
        return a["max_num_seqs"], a["max_num_batched_tokens"], a["enable_chunked_prefill"]
    return (int(os.environ.get("FLEETSWEEP_PARAM_MAX_NUM_SEQS", "64")),
            int(os.environ.get("FLEETSWEEP_PARAM_MAX_NUM_BATCHED_TOKENS", "8192")),
            os.environ.get("FLEETSWEEP_PARAM_ENABLE_CHUNKED_PREFILL", "true") == "true")


def main(argv):
    if argv[:1] == ["serve"]:
        return serve(argv)
    if argv[:2] != ["bench", "serve"]:
        print("fake vllm: only `serve` and `bench serve` are implemented", file=sys.stderr)
        return 2
    out = flag(argv, "--result-filename", "result.json")
    selected = flag(argv, "--percentile-metrics", "ttft,tpot,itl").split(",")
    percentiles = flag(argv, "--metric-percentiles", "99").split(",")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_result.json")) as f:
        base = json.load(f)
    seqs, tokens, chunked = engine_args(argv)
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
