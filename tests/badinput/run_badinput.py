#!/usr/bin/env python3
"""Bad-input tests: every malformed input ends in a clear error or a recovery, never a crash or
lost data.

  run_badinput.py specs          malformed specs (tests/data/specs/*.yaml + generated ones):
                                 `fleetsweep validate` and `fleetsweep run` exit non-zero with a
                                 message naming the file, never on a signal
  run_badinput.py wire           malformed, truncated, oversized and hostile wire messages over a
                                 real DEALER socket (bin/fleetsweep-wire-poke): the coordinator
                                 rejects them, keeps serving, and a normal worker completes the
                                 sweep with nothing forged in it
  run_badinput.py bench-output   a benchmark printing garbage and ~1.5 GB through a whole
                                 `fleetsweep run`: the run ends, every configuration is done or
                                 infeasible with a reason
  run_badinput.py redis-outage   redis-server SIGKILLed for 3 s in the middle of a coordinator +
                                 2 workers sweep, then restarted: the sweep completes, no sample
                                 lost or counted twice (or, failing that, a clear error and no
                                 crash - reported as a failure with the log)
Exit 0 pass, 1 fail, 77 a needed external binary (redis-server) is missing.
"""
import collections
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "chaos"))
import chaos_lib as cl  # noqa: E402

SRC = os.environ.get("FLEETSWEEP_SRC", os.path.join(HERE, "..", ".."))
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)
    return cond


def spec_text(bench, name, params, reps, extra_args=(), timeout=20):
    cmd = json.dumps([bench] + list(extra_args))
    lines = [f"sweep: {name}", "executor:", "  type: exec", f"  command: {cmd}",
             f"  timeout: {timeout}", "parameters:"]
    for k, vals in params.items():
        lines.append(f"  {k}: {{values: {json.dumps(vals)}}}")
    lines += [f"repetitions: {{min: {reps}, max: {reps}, target_rel_ci: 0.5, max_failures: 2,"
              " deterministic_failures: 1}",
              "metrics:", "  - {name: time_ms, goal: minimize, unit: ms}"]
    return "\n".join(lines) + "\n"


def test_specs(work):
    fs = cl.binary("fleetsweep")
    cases = sorted(glob.glob(os.path.join(SRC, "tests", "data", "specs", "*.yaml")))
    gen = {
        "binary.yaml": bytes(range(256)) * 8,
        "empty.yaml": b"",
        "deep.yaml": b"sweep: " + b"[" * 20000 + b"]" * 20000 + b"\n",
        "huge-constraint.yaml": (b"sweep: s\nexecutor: {type: exec, command: [/bin/true]}\n"
                                 b"parameters: {A: {values: [1, 2]}}\nconstraints: ['"
                                 + b"A + " * 50000 + b"1 > 0']\n"
                                 b"metrics: [{name: t, goal: minimize}]\n"),
        "huge-range.yaml": (b"sweep: s\nexecutor: {type: exec, command: [/bin/true]}\n"
                            b"parameters: {A: {range: {from: 0, to: 1000000000000000000, step: 1}}}\n"
                            b"metrics: [{name: t, goal: minimize}]\n"),
        "anchors.yaml": (b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a]\n"
                         b"c: &c [*b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c]\n"
                         b"sweep: *d\n"),
        "nul.yaml": b"sweep: a\x00b\nparameters: {A: {values: [1]}}\n",
        "bad-utf8.yaml": b"sweep: \xff\xfe\nparameters: {\xc3: {values: [1]}}\n",
    }
    for name, data in gen.items():
        p = os.path.join(work, name)
        with open(p, "wb") as f:
            f.write(data)
        cases.append(p)
    for path in cases:
        t0 = time.time()
        r = subprocess.run([fs, "validate", path], capture_output=True, text=True,
                           errors="replace", timeout=60)
        msg = (r.stderr + r.stdout).strip().splitlines()
        first = msg[0] if msg else ""
        base = os.path.basename(path)
        print(f"validate {base}: rc={r.returncode} {time.time() - t0:.1f}s {first[:150]}")
        check(r.returncode > 0, f"validate {base}: rc={r.returncode} (want a non-zero exit, "
                                f"not a signal)")
        check(base in (r.stderr + r.stdout), f"validate {base}: message does not name the file")
    # One through `fleetsweep run`: it must refuse before starting anything.
    bad = os.path.join(SRC, "tests", "data", "specs", "bad-type.yaml")
    r = subprocess.run([fs, "run", bad, "--workers", "1", "--out", os.path.join(work, "run-out")],
                       capture_output=True, text=True, errors="replace", timeout=60)
    check(r.returncode > 0 and "bad-type.yaml" in r.stderr + r.stdout,
          f"run bad-type.yaml: rc={r.returncode} {r.stderr[-300:]}")


def test_wire(work):
    procs = cl.Procs(work)
    bench = cl.binary("fleetsweep-tiny-bench")
    spec = os.path.join(work, "wire.yaml")
    with open(spec, "w") as f:
        f.write(spec_text(bench, "wire", {"A": [1, 2, 3], "B": [0, 1]}, 2,
                          ["--value", "{A}"]))
    out = os.path.join(work, "out")
    os.makedirs(out)
    port = cl.free_port()
    ep = f"tcp://127.0.0.1:{port}"
    store = "file:" + os.path.join(work, "store")
    coord = procs.start([cl.binary("fleetsweep-coordinator"), "--spec", spec, "--redis", store,
                         "--bind", ep, "--insecure", "--exit-when-finished", "--out", out,
                         "--worker-timeout", "2", "--no-progress"], "coordinator")
    time.sleep(0.5)
    r = subprocess.run([cl.binary("fleetsweep-wire-poke"), ep], capture_output=True, text=True,
                       timeout=120)
    print(r.stdout + r.stderr)
    replies = dict(line[5:].split(": ", 1) for line in r.stdout.splitlines()
                   if line.startswith("case "))
    check(r.returncode == 0, f"wire-poke rc={r.returncode}")
    check(coord.poll() is None, "coordinator died under malformed messages:\n"
          + cl.tail(os.path.join(work, "coordinator.log")))
    for case in ("empty", "one-byte", "garbage-4k", "truncated-hello", "wrong-version",
                 "unexpected-kind", "work-request-unknown-worker"):
        check(replies.get(case, "").startswith("reject"),
              f"case {case}: got '{replies.get(case)}', want a Reject")
    # Over ZMQ_MAXMSGSIZE, libzmq drops the message (and the connection) before buffering it:
    # no reply, and the coordinator keeps serving (final-hello below).
    check(replies.get("oversized-65MiB", "none") in ("none", "") or
          replies.get("oversized-65MiB", "").startswith("reject"),
          f"case oversized-65MiB: got '{replies.get('oversized-65MiB')}'")
    check(replies.get("final-hello", "").startswith("hello_ack"),
          f"final-hello: got '{replies.get('final-hello')}', want hello_ack (still serving)")
    worker = procs.start([cl.binary("fleetsweep-worker"), "--coordinator", ep, "--insecure",
                          "--slots", "1", "--exit-when-finished", "--allow-exec",
                          os.path.join(os.path.dirname(bench), "*")], "worker")
    try:
        rc = coord.wait(timeout=60)
    except subprocess.TimeoutExpired:
        rc = None
    check(rc == 0, f"sweep after the poke did not finish: coordinator rc={rc}\n"
          + cl.tail(os.path.join(work, "coordinator.log")))
    results = os.path.join(out, "results.json")
    if check(os.path.exists(results), "no results.json"):
        with open(results) as f:
            res = json.load(f)
        s = res["summary"]
        check(s["configurations"] == 6 and s["done"] == 6, f"summary {s}")
        check(all(c["n"] == 2 for c in res["configurations"]),
              "a configuration's n is not its 2 repetitions: "
              + str([(c["params"], c["n"]) for c in res["configurations"]]))
        check("no-such-config" not in json.dumps(res), "the forged result reached results.json")
        _, attempts = cl.read_dump(store, "wire")
        forged = [a for a in attempts if a["config_key"] == "no-such-config"]
        # A Result whose config_key is not in the sweep is acknowledged but never stored.
        check(not forged, f"a result for an unknown configuration was stored: {forged}")
    try:
        worker.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    procs.close()


def test_bench_output(work):
    bench = cl.binary("fleetsweep-tiny-bench")
    spec = os.path.join(work, "garbage.yaml")
    with open(spec, "w") as f:
        f.write(spec_text(bench, "garbage", {"G": [0, 1000000, 1500000000]}, 1,
                          ["--value", "2", "--garbage-bytes", "{G}"], timeout=60))
    out = os.path.join(work, "out")
    t0 = time.time()
    r = subprocess.run([cl.binary("fleetsweep"), "run", spec, "--workers", "1", "--out", out],
                       capture_output=True, text=True, errors="replace", timeout=170)
    print(f"fleetsweep run: rc={r.returncode} in {time.time() - t0:.1f}s")
    print((r.stdout + r.stderr)[-1500:])
    check(r.returncode >= 0, f"fleetsweep run died on signal {-r.returncode}")
    results = os.path.join(out, "results.json")
    if not check(os.path.exists(results), "no results.json"):
        return
    with open(results) as f:
        res = json.load(f)
    check(res["summary"]["configurations"] == 3 and res["summary"]["unfinished"] == 0,
          f"summary {res['summary']}")
    for c in res["configurations"]:
        g = c["params"]["G"]
        print(f"  G={g}: {c['status']} n={c['n']} failure={c.get('failure')}")
        check(c["status"] in ("done", "infeasible"), f"G={g}: status {c['status']}")
        if c["status"] == "infeasible":
            check(bool(c.get("failure", {}).get("detail")), f"G={g}: infeasible with no reason")
    small = [c for c in res["configurations"] if c["params"]["G"] in ("0", "1000000")]
    check(all(c["status"] == "done" and c["n"] == 1 for c in small),
          "garbage before the sample lost the sample: " + str(small))


def test_redis_outage(work):
    procs = cl.Procs(work)
    bench = cl.binary("fleetsweep-tiny-bench")
    ledger = os.path.join(work, "ledger.txt")
    spec = os.path.join(work, "outage.yaml")
    with open(spec, "w") as f:
        f.write(spec_text(bench, "outage", {"A": list(range(1, 13)), "B": list(range(5))}, 2,
                          ["--value", "{A}", "--sleep-ms", "40", "--ledger", ledger]))
    os.makedirs(os.path.join(work, "redis"))
    out = os.path.join(work, "out")
    os.makedirs(out)
    redis = cl.Redis(procs, os.path.join(work, "redis"))
    redis.start()
    ep = f"tcp://127.0.0.1:{cl.free_port()}"
    coord = procs.start([cl.binary("fleetsweep-coordinator"), "--spec", spec, "--redis",
                         redis.url, "--bind", ep, "--insecure", "--exit-when-finished", "--out", out,
                         "--worker-timeout", "3", "--no-progress"], "coordinator")
    for i in range(2):
        procs.start([cl.binary("fleetsweep-worker"), "--coordinator", ep, "--insecure", "--slots",
                     "1", "--redis", redis.url, "--node", f"w{i}", "--exit-when-finished",
                     "--allow-exec", os.path.join(os.path.dirname(bench), "*")], f"worker{i}")

    def lines():
        try:
            with open(ledger) as f:
                return [x.strip() for x in f if x.strip()]
        except FileNotFoundError:
            return []

    deadline = time.time() + 60
    while len(lines()) < 30 and time.time() < deadline and coord.poll() is None:
        time.sleep(0.05)
    check(len(lines()) >= 30, "the sweep never got going")
    redis.stop(signal.SIGKILL)
    time.sleep(3)
    redis.start()
    try:
        rc = coord.wait(timeout=90)
    except subprocess.TimeoutExpired:
        rc = None
    log = cl.tail(os.path.join(work, "coordinator.log"))
    if not check(rc == 0, f"sweep did not complete after the Redis outage: rc={rc}\n{log}"):
        check(rc is not None and rc > 0, "coordinator crashed (signal) or hung")
        procs.close()
        return
    configs, attempts = cl.read_dump(redis.url, "outage")
    ids = [a["attempt_id"] for a in attempts]
    led = set(lines())
    check(len(ids) == len(set(ids)), "attempt ids stored twice")
    check(all(i in led for i in ids), "stored attempts missing from the ledger")
    ok = collections.Counter(a["config_key"] for a in attempts if a["ok"] and not a["reference"])
    check(len(configs) == 60 and all(c["state"] == 3 for c in configs.values()),
          "configurations not all DONE")
    check(all(ok[k] >= 2 for k in configs), "a configuration lost repetitions")
    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    check(all(c["n"] == ok[c["key"]] for c in res["configurations"]),
          "results.json n differs from the stored ok attempts")
    print(f"redis outage: {len(lines())} executions, {len(ids)} stored, all 60 configs done")
    procs.close()


def main():
    tests = {"specs": test_specs, "wire": test_wire, "bench-output": test_bench_output,
             "redis-outage": test_redis_outage}
    if len(sys.argv) != 2 or sys.argv[1] not in tests:
        print("usage: run_badinput.py " + "|".join(tests), file=sys.stderr)
        return 2
    if sys.argv[1] == "redis-outage":
        cl.redis_binary()
    work = tempfile.mkdtemp(prefix="fs-badinput-")
    tests[sys.argv[1]](work)
    if FAILS:
        print(f"FAILED ({len(FAILS)}); work dir kept: {work}")
        return 1
    subprocess.run(["rm", "-rf", work])
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
