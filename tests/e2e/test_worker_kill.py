#!/usr/bin/python3
"""E2E 2: a worker killed with SIGKILL in the middle of an execution costs nothing.

4 workers run tests/data/e2e/basic.yaml (8 x 3, each execution sleeps 0.3 s). While worker e2e-w0
is executing (its benchmark's in-flight flag exists), it gets SIGKILL. The coordinator must notice
the silent worker (--worker-timeout 3), re-queue its lease, and still finish. Checks:
  * every configuration is done with >= 3 ok attempts; results.json counts each stored attempt
    once (n = 3 x ok attempts);
  * the store has no duplicate attempt ids; every stored attempt is in the benchmark's ledger
    exactly once with the samples it printed (nothing fabricated);
  * ledger rows missing from the store (work lost with the worker) are only the killed worker's,
    and at most one (it had one slot);
  * the surviving workers exit 0 on their own.
"""
import os
import signal

import e2e_harness as h

SWEEP, CONFIGS, REPS, WORKERS = "e2e-basic", 8, 3, 4
VICTIM = "e2e-w0"


def body(case):
    case.require_binaries("fleetsweep-coordinator", "fleetsweep-worker")
    case.start_redis()
    spec = case.render_spec("basic.yaml", SLEEP="0.3")
    (port,) = h.free_ports(1)
    coord = case.start_coordinator(spec, port)
    workers = case.start_workers(WORKERS, port)
    store = case.store(SWEEP)

    def victim_busy():
        if store.count_attempts() < WORKERS:
            return None
        return [f for f in os.listdir(case.inflight) if f.startswith(VICTIM + "__")]
    flags = case.wait_until("%s executing after a few stored attempts" % VICTIM, victim_busy, 30,
                            interval=0.02)
    os.kill(workers[0].pid, signal.SIGKILL)
    workers[0].wait()
    case.log("SIGKILL %s while it ran %s (%d attempts stored)" % (VICTIM, flags,
                                                                 store.count_attempts()))

    rc = case.wait_exit(coord, "coordinator", 60)
    h.check(rc == 0, "coordinator exited with %d" % rc)
    for i, w in enumerate(workers[1:], start=1):
        wrc = case.wait_exit(w, "worker %d after the sweep finished" % i, 15)
        h.check(wrc == 0, "worker %d exited with %d" % (i, wrc))
    # The victim's orphaned benchmark (own process group) finishes its 0.3 s and writes its row.
    case.wait_until("the orphaned benchmark to finish", lambda: not os.listdir(case.inflight), 10)

    res = case.results()
    h.check_results_complete(case, res, REPS, CONFIGS)
    ledger = h.read_ledger(case.ledger)
    attempts, _ = h.check_store_matches_ledger(
        case, store, ledger, allowed_missing=lambda row: row[1] == VICTIM)
    h.check_results_vs_store(res, attempts)
    stored = {a["attempt_id"] for a in attempts.values()}
    lost = [row[0] for row in ledger if row[0] not in stored]
    h.check(len(lost) <= 1, "more executions lost than the victim had slots: %s" % lost)
    coord_log = case.read_log("coordinator")
    h.check(VICTIM in coord_log and "gone" in coord_log,
            "the coordinator never noticed that %s is gone" % VICTIM)
    case.log("%d attempts stored, %d ledger rows, lost with the victim: %s"
             % (len(attempts), len(ledger), lost))


if __name__ == "__main__":
    h.run("worker_kill", 90, body)
