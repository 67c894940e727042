#!/usr/bin/env python3
"""vLLM engine benchmark for fleetsweep (examples/vllm-engine.yaml), one-shot or as a warm session.

setup (once per process: per session key = the engine settings, which are in the command line)
    starts `vllm serve MODEL` with the engine settings under test, waits for /health, and reads
    the engine arguments the server itself logged: their hash is the fingerprint (an argument the
    engine silently dropped then does not look injected). The server stays up for every
    execution the session serves and is stopped (its whole process group) when the session ends.
run (one execution)
    `vllm bench serve --save-result` against the running server; every throughput and latency
    figure of its result.json becomes a sample (request_throughput, output_throughput,
    total_token_throughput, {mean,median,std,p<P>}_{ttft,tpot,itl,e2el}_ms), the run's description
    (num_prompts, duration, completed, failed, ...) info lines.
So a persistent sweep starts the engine once per configuration per slot (an engine start costs
minutes), not once per execution; one-shot (the default) starts it per execution. A server that
exits or never becomes healthy is an `error` line (its log tail goes to stderr, where the worker
finds out-of-memory and NotImplementedError texts).

Served by fleetsweep_bench ({FLEETSWEEP_BIN}/benches/python). Not run in CI with vLLM (no GPU):
tests/honest/vllm_harness_test.py runs it against tests/data/vllm/fake_vllm.py.
"""
import argparse
import atexit
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fleetsweep_bench as fsb  # noqa: E402

# result.json keys that are measurements (samples); other numbers are the run's description.
THROUGHPUTS = ("request_throughput", "output_throughput", "total_token_throughput",
               "request_goodput", "max_output_tokens_per_s", "max_concurrent_requests")
LATENCY = re.compile(r"^(mean|median|std|p\d+(\.\d+)?)_(ttft|tpot|itl|e2el)_ms$")


def parse_args(argv):
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
    a = p.parse_args(argv)
    a.port += a.port_offset
    return a


class Engine:
    """A running `vllm serve` (its own process group) and what it said about its arguments."""

    def __init__(self, a):
        self.a = a
        # Its log and result files live in the execution's workdir (inside the worker's scratch
        # root, removed by the worker), and are removed by stop() as well.
        self.dir = tempfile.mkdtemp(prefix="fs-vllm-", dir=os.getcwd())
        self.log_path = os.path.join(self.dir, "server.log")
        chunked = "--enable-chunked-prefill" if a.enable_chunked_prefill == "true" else \
            "--no-enable-chunked-prefill"
        serve = [a.vllm, "serve", a.model, "--port", str(a.port),
                 "--max-num-seqs", str(a.max_num_seqs),
                 "--max-num-batched-tokens", str(a.max_num_batched_tokens),
                 "--max-model-len", str(a.max_model_len), chunked]
        with open(self.log_path, "w") as log:
            self.server = subprocess.Popen(serve, stdin=subprocess.DEVNULL, stdout=log,
                                           stderr=subprocess.STDOUT,
                                           start_new_session=True)
        atexit.register(self.stop)
        # SIGTERM (the worker ending the session) runs the atexit handlers too.
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        self.wait_healthy()
        self.fingerprint = self.read_fingerprint()

    def log_tail(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()[-2000:]

    def wait_healthy(self):
        deadline = time.time() + self.a.startup_timeout
        while True:
            if self.server.poll() is not None:
                print(self.log_tail(), file=sys.stderr)  # the worker classifies OOM / not impl.
                raise fsb.BenchError("exit", "vllm serve exited during startup")
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/health" % self.a.port,
                                            timeout=2):
                    return
            except OSError:
                pass
            if time.time() > deadline:
                raise fsb.BenchError("timeout", "vllm serve never became healthy")
            time.sleep(0.2)

    def read_fingerprint(self):
        # What the engine says it runs with (vLLM logs its non-default args / engine config).
        with open(self.log_path, errors="replace") as f:
            lines = [l for l in f.read().splitlines()
                     if re.search(r"max_num_seqs|max_num_batched_tokens|chunked_prefill", l)]
        if not lines:
            return None
        text = "\n".join(re.sub(r"^.*?(INFO|WARNING)\S*", "", l) for l in lines)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def stop(self):
        try:
            self.stop_server()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def stop_server(self):
        if self.server.poll() is not None:
            return
        try:
            os.killpg(self.server.pid, signal.SIGTERM)
            self.server.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.server.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def report(result, out):
    """result.json of `vllm bench serve` -> samples (measurements) and info (description)."""
    for key, value in sorted(result.items()):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if isinstance(value, str):
                out.info(key, value)
            continue
        if key in THROUGHPUTS or LATENCY.match(key):
            out.sample(key, value)
        else:
            out.info(key, str(value))


def main():
    a = parse_args(sys.argv[1:])
    state = {}

    def setup(session):
        state["engine"] = Engine(a)
        return state["engine"]

    def run(engine, prepared, params, out):
        if engine.server.poll() is not None:
            print(engine.log_tail(), file=sys.stderr)
            raise fsb.BenchError("exit", "vllm serve is gone")
        result_file = os.path.join(engine.dir, "result.json")
        if os.path.exists(result_file):
            os.remove(result_file)
        bench = [a.vllm, "bench", "serve", "--model", a.model, "--port", str(a.port),
                 "--dataset-name", "random", "--random-input-len", str(a.input_len),
                 "--random-output-len", str(a.output_len), "--num-prompts", str(a.num_prompts),
                 # e2el is not in vLLM's default --percentile-metrics (ttft,tpot,itl): without
                 # it a bound on p99_e2el_ms would have nothing to check.
                 "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,90,99",
                 "--save-result", "--result-filename", result_file]
        # Its report is not protocol; stdin is the session's request pipe: not for it.
        rc = subprocess.call(bench, stdin=subprocess.DEVNULL, stdout=sys.stderr)
        if rc != 0 or not os.path.exists(result_file):
            raise fsb.BenchError("exit", "vllm bench serve exited with %d" % rc)
        with open(result_file) as f:
            report(json.load(f), out)
        if engine.fingerprint:
            out.fingerprint(engine.fingerprint)
        else:
            out.info("fingerprint", "the server logged no engine arguments")

    fsb.serve(run, setup=setup, argv=[])


if __name__ == "__main__":
    main()
