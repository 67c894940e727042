#!/usr/bin/env python3
"""One vLLM engine benchmark execution for fleetsweep (examples/vllm-engine.yaml).

Starts `vllm serve MODEL` with the engine settings under test, waits for /health, runs
`vllm bench serve --save-result --result-filename result.json` against it (the exec executor
reads that file with `output: {file: result.json, format: vllm-bench}`), then stops the server
(its whole process group). Prints protocol lines (docs/executors.md): a fingerprint of the
engine arguments the server itself logged (so an argument the engine silently dropped does not
look injected), and an `error` line when the server does not come up (NotImplementedError and
out-of-memory texts are classified by the worker from the output).

Not run in CI: vLLM and a GPU are not available there (tests use tests/data/vllm/fake_vllm.py).
"""
import argparse
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request


def emit(**record):
    print(json.dumps(record), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--vllm", default="vllm", help="the vllm executable")
    p.add_argument("--model", required=True)
    p.add_argument("--port", type=int, default=18000, help="base port of the server")
    p.add_argument("--port-offset", type=int, default=0,
                   help="added to --port: pass {SLOT} so that the slots of a node never collide")
    p.add_argument("--max-num-seqs", type=int, required=True)
    p.add_argument("--max-num-batched-tokens", type=int, required=True)
    p.add_argument("--enable-chunked-prefill", choices=["true", "false"], required=True)
    p.add_argument("--max-model-len", type=int, default=4096)
    p.add_argument("--num-prompts", type=int, default=200)
    p.add_argument("--input-len", type=int, default=1024)
    p.add_argument("--output-len", type=int, default=128)
    p.add_argument("--startup-timeout", type=float, default=900)
    a = p.parse_args()
    a.port += a.port_offset

    chunked = "--enable-chunked-prefill" if a.enable_chunked_prefill == "true" else \
        "--no-enable-chunked-prefill"
    serve = [a.vllm, "serve", a.model, "--port", str(a.port),
             "--max-num-seqs", str(a.max_num_seqs),
             "--max-num-batched-tokens", str(a.max_num_batched_tokens),
             "--max-model-len", str(a.max_model_len), chunked]
    log_path = os.path.abspath("server.log")
    with open(log_path, "w") as log:
        server = subprocess.Popen(serve, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        deadline = time.time() + a.startup_timeout
        while True:
            if server.poll() is not None:
                tail = open(log_path, errors="replace").read()[-2000:]
                print(tail, file=sys.stderr)  # the worker classifies OOM / NotImplementedError
                emit(type="error", **{"class": "exit"}, detail="vllm serve exited during startup")
                return 1
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{a.port}/health", timeout=2):
                    break
            except OSError:
                pass
            if time.time() > deadline:
                emit(type="error", **{"class": "timeout"}, detail="vllm serve never became healthy")
                return 1
            time.sleep(2)
        # What the engine says it runs with (vLLM logs its non-default args / engine config).
        text = open(log_path, errors="replace").read()
        lines = [l for l in text.splitlines()
                 if re.search(r"max_num_seqs|max_num_batched_tokens|chunked_prefill", l)]
        if lines:
            emit(type="fingerprint", value=hashlib.sha256(
                "\n".join(re.sub(r"^.*?(INFO|WARNING)", "", l) for l in lines).encode()).hexdigest()[:16])
        bench = [a.vllm, "bench", "serve", "--model", a.model, "--port", str(a.port),
                 "--dataset-name", "random", "--random-input-len", str(a.input_len),
                 "--random-output-len", str(a.output_len), "--num-prompts", str(a.num_prompts),
                 # e2el is not in vLLM's default --percentile-metrics (ttft,tpot,itl): without
                 # it a bound on p99_e2el_ms would have nothing to check.
                 "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,90,99",
                 "--save-result", "--result-filename", "result.json"]
        rc = subprocess.call(bench)
        return rc
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(server.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    sys.exit(main())
