#!/usr/bin/python3
"""E2E 3: the coordinator is killed (SIGKILL) mid-sweep and restarted on the same Redis: it resumes.

2 workers run tests/data/e2e/basic.yaml (8 x 3, 0.3 s per execution). Once a few configurations
are DONE in Redis (and some are not), the coordinator gets SIGKILL; the workers keep running and
keep their unacknowledged results. A new coordinator (same spec, same Redis, same endpoint) starts
and must finish the sweep. Checks:
  * no configuration that was DONE before the kill gets another execution afterwards (the
    benchmark's ledger has no later row for it) and its stored attempts are unchanged;
  * the new coordinator replayed the stored attempts and did the rest (executions under its new
    lease epoch exist), the sweep completes, every configuration is done with >= 3 ok attempts;
  * nothing is lost or fabricated: the store and the ledger agree exactly (every execution the
    benchmark ran is stored once, with its samples), and results.json counts each attempt once;
  * the workers exit 0 on their own.
"""
import os
import signal
import time

import e2e_harness as h

# 2 workers, not 4: the dispatcher gives every configuration its n-th execution before any its
# (n+1)-th, so the first configuration is DONE only in the last block (executions 17-24). With 4
# workers the last 4 executions could all be leased (or stored) by the time a DONE record reached
# Redis, and the restarted coordinator had nothing left to lease (seen in CI); with 2, at least 5
# executions are still unleased when the first configuration is DONE.
SWEEP, CONFIGS, REPS, WORKERS = "e2e-basic", 8, 3, 2


def epoch_of(attempt_id):
    return attempt_id.split("-")[1]  # lease id = <config_key>-<epoch>-<seq>


def body(case):
    case.require_binaries("fleetsweep-coordinator", "fleetsweep-worker")
    case.start_redis()
    spec = case.render_spec("basic.yaml", SLEEP="0.3")
    (port,) = h.free_ports(1)
    coord = case.start_coordinator(spec, port, name="coordinator1")
    # No prefetch: leases granted ahead would let the workers finish the sweep without the new
    # coordinator, and this test is about the new coordinator doing the rest.
    workers = case.start_workers(WORKERS, port, extra=["--prefetch", "0"])
    store = case.store(SWEEP)

    def some_done():
        states = [c["state"] for c in store.configs().values()]
        done = states.count("DONE")
        return 1 <= done <= CONFIGS - 2
    case.wait_until("a few configurations DONE", some_done, 30, interval=0.03)
    os.kill(coord.pid, signal.SIGKILL)
    coord.wait()
    ledger_at_kill = len(h.read_ledger(case.ledger))
    configs_before = store.configs()
    done_before = {k for k, c in configs_before.items() if c["state"] == "DONE"}
    attempts_before = store.attempts()
    old_epochs = {epoch_of(a["attempt_id"]) for a in attempts_before.values()}
    case.log("SIGKILL coordinator: %d/%d configurations done, %d attempts stored, epochs %s"
             % (len(done_before), CONFIGS, len(attempts_before), old_epochs))
    h.check(len(old_epochs) == 1, "expected one lease epoch before the kill: %s" % old_epochs)

    time.sleep(1.0)  # the workers notice nothing yet; their results wait unacknowledged
    coord2 = case.start_coordinator(spec, port, name="coordinator2")
    rc = case.wait_exit(coord2, "restarted coordinator", 60)
    h.check(rc == 0, "restarted coordinator exited with %d" % rc)
    for i, w in enumerate(workers):
        wrc = case.wait_exit(w, "worker %d after the sweep finished" % i, 15)
        h.check(wrc == 0, "worker %d exited with %d" % (i, wrc))

    log2 = case.read_log("coordinator2")
    h.check("stored attempts replayed" in log2 and " 0 stored attempts replayed" not in log2,
            "the restarted coordinator did not replay the stored attempts")
    res = case.results()
    h.check_results_complete(case, res, REPS, CONFIGS)
    ledger = h.read_ledger(case.ledger)
    attempts, _ = h.check_store_matches_ledger(case, store, ledger)
    h.check_results_vs_store(res, attempts)

    for row in ledger[ledger_at_kill:]:
        key = row[0].split("-")[0]
        h.check(key not in done_before, "configuration %s (X=%s) was DONE before the kill but ran "
                "again afterwards (attempt %s)" % (key, row[2], row[0]))
    for key in done_before:
        before = sorted(a["attempt_id"] for a in attempts_before.values() if a["config_key"] == key)
        after = sorted(a["attempt_id"] for a in attempts.values() if a["config_key"] == key)
        h.check(before == after, "configuration %s was DONE before the kill; its attempts changed "
                "from %s to %s" % (key, before, after))
    new_epoch = [a for a in attempts.values() if epoch_of(a["attempt_id"]) not in old_epochs]
    h.check(new_epoch, "the restarted coordinator leased nothing (no attempt under a new epoch)")
    case.log("%d attempts (%d under the new epoch), %d ledger rows, %d after the kill"
             % (len(attempts), len(new_epoch), len(ledger), len(ledger) - ledger_at_kill))


if __name__ == "__main__":
    h.run("coordinator_restart", 90, body)
