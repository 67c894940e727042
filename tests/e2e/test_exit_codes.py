#!/usr/bin/python3
"""Every exit code of `fleetsweep run` and `fleetsweep-coordinator` (coordinator/app/exit_codes.h,
docs/cli.md), each reached by real processes:

  0  a sweep that finishes; a sweep stopped by SIGINT (partial results written)
  2  a malformed spec; an unknown flag; an --out path under a regular file; a store that holds
     another spec under the same sweep name
  3  a store that cannot be reached; a ZeroMQ port already bound; a metrics port already bound
  4  a sweep whose only configuration always fails (NotImplementedError)
  5  a benchmark that ignores its parameters (the fingerprint audit refuses the result)
  6  a Redis flushed (FLUSHALL) under a running sweep: no results written
  7  a Redis that refuses writes (maxmemory) for longer than --store-give-up 1
  130  a second SIGINT while the coordinator winds down (its store stopped answering: the
     redis-server is SIGSTOPped): it exits at once, no results written

Local sweeps use `fleetsweep run --workers 1` (file store); 6 and 7 a real redis-server, the
coordinator and one worker. Exit 77 (skip) without the binaries or redis-server.
"""
import json
import os
import signal
import socket
import subprocess
import time

import e2e_harness as h

HONEST_BENCH = os.path.join(h.SRC, "tests", "data", "honest-bench", "synthetic_bench.py")

SPEC = """sweep: {name}
executor:
  type: exec
  command: ["/usr/bin/python3", "{bench}", "{{X}}"]
  timeout: 20
  env: {{E2E_LEDGER: "{ledger}", E2E_SLEEP: "{sleep}", E2E_NI_X: "{ni}"}}
parameters:
  X: {{values: [{values}]}}
repetitions: {{min: 2, max: 2, target_rel_ci: 0.5, max_failures: 3, deterministic_failures: 2}}
metrics:
  - {{name: time_ms, goal: minimize, unit: ms}}
"""

IGNORE_ALL = """sweep: exit-audit
executor:
  type: exec
  command: ["/usr/bin/python3", "{bench}", "ignore_all"]
  timeout: 30
parameters:
  BLOCK: {{values: [16, 32]}}
  items_per_thread: {{values: [1, 4]}}
reference: {{BLOCK: 16, items_per_thread: 1}}
repetitions: {{min: 3, max: 3, target_rel_ci: 0.5, max_failures: 3, deterministic_failures: 2}}
metrics:
  - {{name: time_ms, goal: minimize, unit: ms}}
"""


def write(case, name, text):
    path = os.path.join(case.tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def spec(case, name, values="1, 2", sleep="0", ni="none"):
    return write(case, name + ".yaml", SPEC.format(name=name, bench=h.BENCH, ledger=case.ledger,
                                                   sleep=sleep, ni=ni, values=values))


def fleetsweep(case, *args, timeout=120):
    p = subprocess.run([os.path.join(h.BIN, "fleetsweep"), *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout, cwd=case.tmp)
    return p.returncode, p.stdout, p.stderr


def coordinator(case, *args, timeout=30):
    p = subprocess.run([os.path.join(h.BIN, "fleetsweep-coordinator"), "--insecure",
                        "--no-progress", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout, cwd=case.tmp)
    return p.returncode, p.stdout + p.stderr


def expect(rc, want, what, text):
    h.check(rc == want, "%s: exit code %d, want %d\n%s" % (what, rc, want, text[-3000:]))


def ledger_lines(case):
    try:
        with open(case.ledger) as f:
            return len(f.read().splitlines())
    except FileNotFoundError:
        return 0


def listening_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("0.0.0.0", 0))
    s.listen(1)
    return s


def local_codes(case):
    out = lambda name: os.path.join(case.tmp, "out-" + name)  # noqa: E731

    # 0: finished.
    rc, so, se = fleetsweep(case, "run", spec(case, "exit-ok"), "--workers", "1", "--out",
                            out("ok"))
    expect(rc, 0, "a finished sweep", so + se)
    h.check(os.path.exists(os.path.join(out("ok"), "results.json")), "no results.json")

    # 2: the store holds another spec under the same name (the spec changed between runs).
    changed = spec(case, "exit-ok", values="1, 2, 3")
    rc, so, se = fleetsweep(case, "run", changed, "--workers", "1", "--out", out("ok"))
    expect(rc, 2, "a changed spec against the same store", so + se)

    # 2: a malformed spec, an unknown flag, an --out path that cannot be a directory.
    bad = write(case, "bad.yaml", "sweep: bad\nparameters: [\n")
    rc, so, se = fleetsweep(case, "run", bad, "--out", out("bad"))
    expect(rc, 2, "a malformed spec", so + se)
    h.check("bad.yaml" in se, "the error does not name the spec: " + se)
    rc, so, se = fleetsweep(case, "run", spec(case, "exit-flag"), "--out", out("flag"),
                            "--no-such-flag")
    expect(rc, 2, "an unknown flag", so + se)
    plain = write(case, "plain-file", "")
    rc, so, se = fleetsweep(case, "run", spec(case, "exit-dir"), "--out",
                            os.path.join(plain, "sub"))
    expect(rc, 2, "--out under a regular file", so + se)

    # 3: a store that cannot be reached, a ZeroMQ port in use, a metrics port in use.
    (dead,) = h.free_ports(1)
    rc, text = coordinator(case, "--spec", spec(case, "exit-store"), "--store",
                           "redis://127.0.0.1:%d" % dead, "--bind", "tcp://127.0.0.1:0")
    expect(rc, 3, "an unreachable store", text)
    held = listening_socket()
    try:
        port = held.getsockname()[1]
        rc, text = coordinator(case, "--spec", spec(case, "exit-bind"), "--store",
                               "file:" + os.path.join(case.tmp, "store-bind"), "--bind",
                               "tcp://127.0.0.1:%d" % port)
        expect(rc, 3, "a ZeroMQ port in use", text)
        rc, text = coordinator(case, "--spec", spec(case, "exit-metrics"), "--store",
                               "file:" + os.path.join(case.tmp, "store-metrics"), "--bind",
                               "tcp://127.0.0.1:0", "--metrics-port", str(port))
        expect(rc, 3, "a metrics port in use", text)
    finally:
        held.close()

    # 4: the only configuration fails deterministically: nothing succeeded.
    rc, so, se = fleetsweep(case, "run", spec(case, "exit-none", values="1", ni="1"),
                            "--workers", "1", "--out", out("none"))
    expect(rc, 4, "a sweep where nothing succeeded", so + se)
    h.check("no configuration succeeded" in se, se)

    # 5: the audit refuses the result (every variant ran the same code).
    audit = write(case, "audit.yaml", IGNORE_ALL.format(bench=HONEST_BENCH))
    rc, so, se = fleetsweep(case, "run", audit, "--workers", "1", "--out", out("audit"))
    expect(rc, 5, "a sweep the audit refuses", so + se)
    h.check("INVALID" in se, se)

    # 0: stopped by SIGINT after the first executions: partial results are written.
    slow = spec(case, "exit-stop", values="1, 2, 3, 4, 5, 6", sleep="0.3")
    before = ledger_lines(case)
    p = subprocess.Popen([os.path.join(h.BIN, "fleetsweep"), "run", slow, "--workers", "1",
                          "--out", out("stop")], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, cwd=case.tmp)
    try:
        case.wait_until("first executions of the stopped sweep",
                        lambda: ledger_lines(case) >= before + 2, 60)
        p.send_signal(signal.SIGINT)
        text, _ = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    expect(p.returncode, 0, "a sweep stopped by SIGINT", text)
    with open(os.path.join(out("stop"), "results.json")) as f:
        r = json.load(f)
    h.check(r["summary"]["unfinished"] > 0, "the stopped sweep reports no unfinished work: %s"
            % r["summary"])


def store_fault(case, name, fault, want, extra=()):
    """A cluster sweep (redis, coordinator, one worker); `fault(resp)` once executions are stored;
    the coordinator must exit `want` without writing results."""
    s = spec(case, name, values="1, 2, 3, 4, 5, 6, 7, 8", sleep="0.2")
    (port,) = h.free_ports(1)
    out = os.path.join(case.tmp, "out")
    if os.path.exists(os.path.join(out, "results.json")):
        os.remove(os.path.join(out, "results.json"))
    coord = case.start_coordinator(s, port, name="coordinator-" + name,
                                   extra=["--no-progress"] + list(extra))
    case.start_workers(1, port, prefix=name + "-")
    before = ledger_lines(case)
    case.wait_until("stored executions", lambda: ledger_lines(case) >= before + 3, 60)
    r = h.Resp(case.redis_port, case.redis_password)
    try:
        fault(r)
    finally:
        r.close()
    rc = case.wait_exit(coord, "coordinator after the store fault", 40)
    text = case.read_log("coordinator-" + name)
    expect(rc, want, name, text)
    h.check(not os.path.exists(os.path.join(out, "results.json")),
            "%s: results were written after a store fault" % name)
    return text


def second_signal(case):
    """130: the first SIGINT stops the sweep, whose wind-down then waits on a store that stopped
    answering (redis-server SIGSTOPped); a second SIGINT ends the coordinator at once."""
    s = spec(case, "exit-twice", values="1, 2, 3, 4, 5, 6, 7, 8", sleep="0.2")
    (port,) = h.free_ports(1)
    out = os.path.join(case.tmp, "out")
    if os.path.exists(os.path.join(out, "results.json")):
        os.remove(os.path.join(out, "results.json"))
    coord = case.start_coordinator(s, port, name="coordinator-exit-twice", extra=["--no-progress"])
    case.start_workers(1, port, prefix="exit-twice-")
    before = ledger_lines(case)
    case.wait_until("stored executions", lambda: ledger_lines(case) >= before + 3, 60)
    os.kill(case.redis_proc.pid, signal.SIGSTOP)
    try:
        coord.send_signal(signal.SIGINT)
        time.sleep(1.0)
        h.check(coord.poll() is None,
                "the coordinator exited (%s) before the second SIGINT, with its store stopped"
                % coord.poll())
        coord.send_signal(signal.SIGINT)
        rc = case.wait_exit(coord, "coordinator after the second SIGINT", 5)
    finally:
        os.kill(case.redis_proc.pid, signal.SIGCONT)
    text = case.read_log("coordinator-exit-twice")
    expect(rc, 130, "a second SIGINT", text)
    h.check("second interrupt" in text, "no second-interrupt message:\n" + text[-2000:])
    h.check(not os.path.exists(os.path.join(out, "results.json")),
            "results were written after a second SIGINT")


def body(case):
    case.require_binaries("fleetsweep", "fleetsweep-coordinator", "fleetsweep-worker")
    local_codes(case)
    case.start_redis()
    second_signal(case)
    # 6: the store lost what the coordinator had stored.
    text = store_fault(case, "exit-lost", lambda r: r.call("FLUSHALL"), 6)
    h.check("no longer holds sweep" in text or "missing from the store" in text
            or "were stored and counted" in text, "no data-loss message:\n" + text[-2000:])
    # 7: the store refuses writes past --store-give-up.
    text = store_fault(case, "exit-refused",
                       lambda r: (r.call("CONFIG", "SET", "maxmemory-policy", "noeviction"),
                                  r.call("CONFIG", "SET", "maxmemory", "1")),
                       7, extra=["--store-give-up", "1"])
    h.check("refused writes" in text, text[-2000:])


if __name__ == "__main__":
    h.run("exit_codes", 280, body)
