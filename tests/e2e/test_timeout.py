#!/usr/bin/python3
"""E2E 5: a hanging benchmark is killed at its timeout, with everything it started.

4 workers run tests/data/e2e/hang.yaml (4 configurations, 2 repetitions, timeout 2 s,
max_failures 2). X=4 hangs after starting a grandchild that ignores SIGTERM; both carry a marker
unique to this run in their argv. Checks: X=4 infeasible with class timeout after exactly
max_failures attempts, the others done; while the sweep runs the marked processes do exist (so the
check below is not vacuous), and after it no process with the marker is left (`pgrep -f`); the
coordinator and the workers exit 0; the whole sweep takes a bounded time.
"""
import os
import subprocess
import time

import e2e_harness as h

SWEEP, WORKERS, MAX_FAILURES = "e2e-hang", 4, 2


def pgrep(marker):
    r = subprocess.run(["pgrep", "-f", marker], stdout=subprocess.PIPE, text=True)
    return [int(p) for p in r.stdout.split()]


def body(case):
    case.require_binaries("fleetsweep-coordinator", "fleetsweep-worker", "/usr/bin/pgrep")
    case.start_redis()
    marker = "fs-e2e-hang-marker-%d-%d" % (os.getpid(), int(time.time() * 1000))
    spec = case.render_spec("hang.yaml", MARKER=marker)
    (port,) = h.free_ports(1)
    t0 = time.monotonic()
    coord = case.start_coordinator(spec, port)
    workers = case.start_workers(WORKERS, port)
    try:
        # The hanging benchmark and its grandchild exist at some point (2 processes per attempt).
        case.wait_until("the hanging benchmark and its grandchild", lambda: len(pgrep(marker)) >= 2,
                        30, interval=0.05)
        rc = case.wait_exit(coord, "coordinator", 60)
        elapsed = time.monotonic() - t0
        h.check(rc == 0, "coordinator exited with %d" % rc)
        for i, w in enumerate(workers):
            wrc = case.wait_exit(w, "worker %d after the sweep finished" % i, 15)
            h.check(wrc == 0, "worker %d exited with %d" % (i, wrc))
        left = pgrep(marker)
        h.check(not left, "processes left behind by the timed-out benchmark: %s" % left)
    finally:
        for pid in pgrep(marker):  # never leave our own processes behind, even on failure
            try:
                os.kill(pid, 9)
            except OSError:
                pass
    # 2 attempts x (2 s timeout + up to 2 s SIGTERM->SIGKILL grace) + the other work: well under 40.
    h.check(elapsed < 40, "the sweep took %.1fs" % elapsed)

    res = case.results()
    by_x = {c["params"]["X"]: c for c in res["configurations"]}
    for x in "123":
        h.check(by_x[x]["status"] == "done" and by_x[x]["n"] > 0, "X=%s: %s" % (x, by_x[x]))
    c = by_x["4"]
    h.check(c["status"] == "infeasible", "X=4 is %s, expected infeasible" % c["status"])
    h.check(c.get("failure", {}).get("class") == "timeout", "X=4 failure: %s" % c.get("failure"))
    h.check(c["attempts"] == MAX_FAILURES and c["failed_attempts"] == MAX_FAILURES,
            "X=4: %d attempts (%d failed), expected %d" % (c["attempts"], c["failed_attempts"],
                                                          MAX_FAILURES))
    store = case.store(SWEEP)
    attempts, _ = h.check_store_matches_ledger(case, store, h.read_ledger(case.ledger))
    hung = [a for a in attempts.values() if a["config_key"] == c["key"]]
    h.check(all(a["failure_class"] == "TIMEOUT" for a in hung), "X=4 attempts: %s" % hung)
    case.log("X=4 infeasible after %d timeouts; sweep took %.1fs; no marked process left"
             % (len(hung), elapsed))


if __name__ == "__main__":
    h.run("timeout", 90, body)
