#!/usr/bin/python3
"""E2E: local workers die with `fleetsweep run`, and workers leave no scratch root behind.

1. A complete `fleetsweep run` (2 local workers, tests/data/e2e/basic.yaml) with TMPDIR inside the
   test's dir: it exits 0 and no `fleetsweep-scratch-*` is left there (each worker removes the
   default scratch root it made when it exits).
2. The same spec with executions that sleep: once both workers run one, `fleetsweep run` gets
   SIGKILL. Its workers (PR_SET_PDEATHSIG) and their benchmarks must all be gone within a few
   seconds (the workers shut down normally: no scratch root is left either). Every process is
   identified by pid and start time, taken from /proc before the kill.
"""
import os
import signal

import e2e_harness as h


def descendants(root):
    """{pid: starttime} of every live descendant of `root` (from /proc)."""
    parent = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = (int(fields[1]), fields[19])  # ppid, starttime
    out, todo = {}, [root]
    while todo:
        p = todo.pop()
        for pid, (ppid, start) in parent.items():
            if ppid == p and pid not in out:
                out[pid] = start
                todo.append(pid)
    return out


def alive(pid, start):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == start and fields[0] != "Z"


def scratch_roots(tmpdir):
    return [d for d in os.listdir(tmpdir) if d.startswith("fleetsweep-scratch-")]


def body(case):
    case.require_binaries("fleetsweep", "fleetsweep-worker")
    tmpdir = os.path.join(case.tmp, "tmpdir")
    os.makedirs(tmpdir)
    env = {"TMPDIR": tmpdir}
    run = os.path.join(h.BIN, "fleetsweep")

    spec = case.render_spec("basic.yaml", SLEEP="0")
    p = case.spawn("run-complete", [run, "run", spec, "--workers", "2",
                                    "--out", os.path.join(case.tmp, "out-complete")], env)
    rc = case.wait_exit(p, "fleetsweep run", 60)
    h.check(rc == 0, "fleetsweep run exited with %d" % rc)
    h.check(not scratch_roots(tmpdir), "scratch roots left after a complete run: %s"
            % scratch_roots(tmpdir))

    spec = case.render_spec("basic.yaml", SLEEP="15")
    p = case.spawn("run-killed", [run, "run", spec, "--workers", "2",
                                  "--out", os.path.join(case.tmp, "out-killed")], env)
    case.wait_until("both workers executing", lambda: len(os.listdir(case.inflight)) >= 2, 30,
                    interval=0.05)
    procs = descendants(p.pid)
    workers = [pid for pid in procs if b"fleetsweep-worker" in open(
        "/proc/%d/cmdline" % pid, "rb").read()]
    h.check(len(workers) == 2, "want 2 local workers, found %s" % workers)
    h.check(len(procs) >= 4, "want the workers and their benchmarks, found %s" % procs)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    case.log("SIGKILL fleetsweep run; %d descendants: %s" % (len(procs), sorted(procs)))
    case.wait_until("every worker and benchmark gone",
                    lambda: not [pid for pid, s in procs.items() if alive(pid, s)], 10)
    h.check(not scratch_roots(tmpdir), "scratch roots left after SIGKILL of run: %s"
            % scratch_roots(tmpdir))


if __name__ == "__main__":
    h.run("run_killed", 90, body)
