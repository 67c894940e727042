#!/usr/bin/python3
"""E2E (known bug, see the report of issue 3): workers started with --exit-when-finished must exit
when the sweep finishes, even if one of them was still executing a lease at that moment.

tests/data/e2e/straggler.yaml makes the sweep finish while a worker runs a 4-s execution of a
configuration that has just become infeasible (min 2 concurrent executions, max_failures 1). The
coordinator (--exit-when-finished) broadcasts Shutdown and exits; the busy worker finishes its
execution, stores the attempt in Redis, sends the result, and then waits for an acknowledgement
that can never come. Expected: every worker exits 0 within a bounded time after the coordinator.
"""
import e2e_harness as h

SWEEP, WORKERS = "e2e-straggler", 2


def body(case):
    case.require_binaries("fleetsweep-coordinator", "fleetsweep-worker")
    case.start_redis()
    spec = case.render_spec("straggler.yaml")
    (port,) = h.free_ports(1)
    coord = case.start_coordinator(spec, port)
    # No prefetch: with a prefetched lease the first worker to join can hold both executions of
    # X=1 (one running, one waiting behind it), so they never run at once and the first waits
    # for its 20 s timeout instead of failing at once (seen in CI when the second worker joined
    # 170 ms later). The scenario needs them on different workers.
    workers = case.start_workers(WORKERS, port, extra=["--prefetch", "0"])
    rc = case.wait_exit(coord, "coordinator", 60)
    h.check(rc == 0, "coordinator exited with %d" % rc)
    res = case.results()
    by_x = {c["params"]["X"]: c for c in res["configurations"]}
    h.check(by_x["1"]["status"] == "infeasible" and by_x["2"]["status"] == "done",
            "unexpected results: %s" % by_x)
    # The straggling execution of X=1 ends ~4 s after the sweep finished; give it 12 s more.
    for i, w in enumerate(workers):
        wrc = case.wait_exit(w, "worker %d (still executing when the sweep finished)" % i, 12)
        h.check(wrc == 0, "worker %d exited with %d" % (i, wrc))
    # Its attempt was still stored (the worker writes Redis first): nothing is lost.
    attempts, _ = h.check_store_matches_ledger(case, case.store(SWEEP), h.read_ledger(case.ledger))


if __name__ == "__main__":
    h.run("bug_worker_exit", 60, body)
