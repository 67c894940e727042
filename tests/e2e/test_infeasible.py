#!/usr/bin/python3
"""E2E 4: configurations that always fail become infeasible at the retry cap; the sweep completes.

4 workers run tests/data/e2e/failures.yaml (6 configurations, 2 repetitions, max_failures 3,
deterministic_failures 2). X=5 always exits 1 (class exit_code, not deterministic: retried until
max_failures); X=6 raises NotImplementedError (deterministic: infeasible after 2). Checks, in
results.json and in the store: X=5 infeasible with class exit_code and exactly max_failures failed
attempts, X=6 infeasible with class not_implemented and exactly deterministic_failures attempts,
every other configuration done; the coordinator exits 0 (some configurations succeeded), the
store agrees with the benchmark's ledger, and the workers exit 0.
"""
import e2e_harness as h

SWEEP, WORKERS, MAX_FAILURES, DETERMINISTIC = "e2e-failures", 4, 3, 2


def body(case):
    case.require_binaries("fleetsweep-coordinator", "fleetsweep-worker")
    case.start_redis()
    spec = case.render_spec("failures.yaml")
    (port,) = h.free_ports(1)
    coord = case.start_coordinator(spec, port)
    workers = case.start_workers(WORKERS, port)
    rc = case.wait_exit(coord, "coordinator", 60)
    h.check(rc == 0, "coordinator exited with %d" % rc)

    res = case.results()
    store = case.store(SWEEP)
    case.log("stored attempts in start order:\n" + "\n".join(h.timeline(store.attempts())))
    by_x = {c["params"]["X"]: c for c in res["configurations"]}
    h.check(sorted(by_x) == ["1", "2", "3", "4", "5", "6"], "configurations: %s" % sorted(by_x))
    for x in "1234":
        h.check(by_x[x]["status"] == "done" and by_x[x]["n"] > 0, "X=%s: %s" % (x, by_x[x]))
    for x, cls, n in (("5", "exit_code", MAX_FAILURES), ("6", "not_implemented", DETERMINISTIC)):
        c = by_x[x]
        h.check(c["status"] == "infeasible", "X=%s is %s, expected infeasible" % (x, c["status"]))
        h.check(c.get("failure", {}).get("class") == cls,
                "X=%s failure %s, expected class %s" % (x, c.get("failure"), cls))
        h.check(c["attempts"] == n and c["failed_attempts"] == n and c["ok_attempts"] == 0,
                "X=%s: %d attempts (%d failed), expected exactly %d failed"
                % (x, c["attempts"], c["failed_attempts"], n))
        h.check(c["n"] == 0, "X=%s: an infeasible configuration has %d samples" % (x, c["n"]))
    h.check(res["summary"]["infeasible"] == 2 and res["summary"]["done"] == 4,
            "summary: %s" % res["summary"])

    attempts, _ = h.check_store_matches_ledger(case, store, h.read_ledger(case.ledger))
    h.check_results_vs_store(res, attempts)
    configs = {c["params"]["X"]: c for c in store.configs().values()}
    for x, cls, n in (("5", "EXIT_CODE", MAX_FAILURES), ("6", "NOT_IMPLEMENTED", DETERMINISTIC)):
        c = configs[x]
        h.check(c["state"] == "INFEASIBLE" and c["last_failure"] == cls and c["failures"] == n,
                "stored record of X=%s: %s" % (x, c))
        failed = [a for a in attempts.values() if a["config_key"] == c["config_key"]]
        h.check(len(failed) == n and all(a["failure_class"] == cls and not a["samples"]
                                         for a in failed),
                "stored attempts of X=%s: %s" % (x, failed))
    for i, w in enumerate(workers):
        wrc = case.wait_exit(w, "worker %d after the sweep finished" % i, 15)
        h.check(wrc == 0, "worker %d exited with %d" % (i, wrc))
    case.log("X=5 infeasible after %d exit_code failures, X=6 after %d not_implemented"
             % (by_x["5"]["attempts"], by_x["6"]["attempts"]))


if __name__ == "__main__":
    h.run("infeasible", 90, body)
