#!/usr/bin/python3
"""The vLLM engine harness (worker/benches/vllm/vllm_engine_bench.py, as installed beside the
binaries) through `fleetsweep run`, against the fake `vllm` (tests/data/vllm/fake_vllm.py: a real
HTTP server for `serve`, vLLM's result file for `bench serve`). Checks, for a persistent sweep:
the engine is started once per session, not per execution (the fake logs every start), every
execution reports vLLM's throughput and latency figures as samples and the engine's own logged
arguments as the fingerprint (max_num_seqs injected: fingerprints differ), the toy model's
ordering comes out (more sequences, more throughput), the p99_e2el_ms bound is enforced, and no
server outlives the sweep, and neither the worker's scratch root nor the harness's fs-vllm-*
directories are left behind. Then the same spec one-shot: one engine start per execution. Exit 77
when the binaries are missing."""
import json
import os
import socket
import subprocess
import sys
import tempfile

BIN = os.environ.get("FLEETSWEEP_BIN", "")
SRC = os.environ.get("FLEETSWEEP_SRC", "")
FAKE = os.path.join(SRC, "tests", "data", "vllm", "fake_vllm.py")

SPEC = """sweep: vllm-harness-%(mode)s
executor:
  type: exec
  command: ["/usr/bin/python3", "{FLEETSWEEP_BIN}/benches/vllm/vllm_engine_bench.py",
            "--vllm", "%(fake)s", "--model", "toy", "--port", "%(port)d",
            "--port-offset", "{SLOT}", "--max-num-seqs", "{max_num_seqs}",
            "--max-num-batched-tokens", "{max_num_batched_tokens}",
            "--enable-chunked-prefill", "{enable_chunked_prefill}", "--startup-timeout", "20"]
  env: {FAKE_VLLM_LOG: "%(log)s"}
  timeout: 60
  session: {mode: %(mode)s}
parameters:
  max_num_seqs: [32, 64, 128]
  max_num_batched_tokens: [8192]
  enable_chunked_prefill: [true]
repetitions: {min: 3, max: 3}
metrics:
  - {name: output_throughput, goal: maximize, unit: tok/s}
  - {name: p99_e2el_ms, goal: minimize, unit: ms, max: 5000}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def sweep(tmp, mode):
    log = os.path.join(tmp, mode + "-starts.log")
    spec = os.path.join(tmp, mode + ".yaml")
    with open(spec, "w") as f:
        f.write(SPEC % dict(mode=mode, fake=FAKE, port=free_port(), log=log))
    out = os.path.join(tmp, "out-" + mode)
    # TMPDIR inside the test's dir: what the workers and the harness leave there is checked.
    env = dict(os.environ, TMPDIR=os.path.join(tmp, "tmpdir"))
    os.makedirs(env["TMPDIR"], exist_ok=True)
    p = subprocess.run([os.path.join(BIN, "fleetsweep"), "run", spec, "--workers", "1",
                        "--out", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=150, env=env)
    with open(os.path.join(out, "results.json")) as f:
        r = json.load(f)
    starts = []
    if os.path.exists(log):
        with open(log) as f:
            starts = [line.split() for line in f if line.strip()]
    return p.returncode, p.stdout, r, starts


def check_no_server_left(starts):
    for row in starts:
        pid = int(row[1])
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            if b"fake_vllm" in f.read():
                fail("fake vllm serve %d outlived the sweep" % pid)


def system_vllm_dirs():
    base = tempfile.gettempdir()
    return {d for d in os.listdir(base) if d.startswith("fs-vllm-")}


def check_no_dirs_left(tmp, before):
    """The worker's default scratch root and the harness's fs-vllm-* dirs are removed."""
    left = sorted(system_vllm_dirs() - before)
    for dirpath, dirnames, _ in os.walk(tmp):
        left += [os.path.join(dirpath, d) for d in dirnames
                 if d.startswith(("fs-vllm-", "fleetsweep-scratch-"))]
    if left:
        fail("left behind after the sweep: %s" % left)


def main():
    if not os.access(os.path.join(BIN, "fleetsweep"), os.X_OK) or \
            not os.path.exists(os.path.join(BIN, "benches", "vllm", "vllm_engine_bench.py")):
        print("skip: fleetsweep or the installed vLLM harness is missing")
        return 77
    before = system_vllm_dirs()
    with tempfile.TemporaryDirectory(prefix="honest-vllm-harness-") as tmp:
        rc, text, r, starts = sweep(tmp, "persistent")
        if rc != 0:
            fail("persistent sweep rc %d\n%s" % (rc, text))
        configs = r["configurations"]
        executions = sum(c["ok_attempts"] for c in configs)
        if len(configs) != 3 or executions != 9:
            fail("want 3 configurations x 3 ok executions: %s" % [(c["params"], c["ok_attempts"])
                                                                 for c in configs])
        if not 3 <= len(starts) < executions:
            fail("persistent: %d engine starts for %d executions (want one per session)"
                 % (len(starts), executions))
        by_seqs = {}
        for c in configs:
            for name in ("output_throughput", "p99_e2el_ms", "request_throughput",
                         "median_ttft_ms", "p90_itl_ms"):
                if name not in c["metrics"]:
                    fail("metric %s missing from %s" % (name, c["params"]))
            if len(c["fingerprints"]) != 1:
                fail("one engine fingerprint per configuration: %s" % c["fingerprints"])
            by_seqs[int(c["params"]["max_num_seqs"])] = c
        if not by_seqs[32]["median"] < by_seqs[64]["median"] < by_seqs[128]["median"]:
            fail("throughput does not follow max_num_seqs: %s"
                 % {k: c["median"] for k, c in by_seqs.items()})
        if len({tuple(c["fingerprints"]) for c in configs}) != 3:
            fail("max_num_seqs did not change the engine's logged arguments")
        if not by_seqs[128].get("violates_bound") or by_seqs[32].get("violates_bound"):
            fail("the p99_e2el_ms bound: %s" % {k: (c["metrics"]["p99_e2el_ms"]["median"],
                                                     c.get("violates_bound"))
                                                 for k, c in by_seqs.items()})
        if r["warm_state"]["max_position"] < 2:
            fail("no execution ran in a warm session: %s" % r["warm_state"])
        check_no_server_left(starts)
        check_no_dirs_left(tmp, before)

        rc, text, r, starts = sweep(tmp, "one-shot")
        if rc != 0:
            fail("one-shot sweep rc %d\n%s" % (rc, text))
        executions = sum(c["ok_attempts"] for c in r["configurations"])
        if executions != 9 or len(starts) != executions:
            fail("one-shot: %d engine starts for %d executions" % (len(starts), executions))
        check_no_server_left(starts)
        check_no_dirs_left(tmp, before)
    print("ok: persistent 3 configurations x 3 executions served by fewer engine starts than "
          "executions; one-shot one start per execution")
    return 0


if __name__ == "__main__":
    sys.exit(main())
