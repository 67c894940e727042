#!/usr/bin/python3
"""E2E 1: a cluster sweep completes with every configuration aggregated.

redis-server + fleetsweep-coordinator + 4 fleetsweep-worker processes run tests/data/e2e/basic.yaml
(8 configurations x 3 repetitions of bench.py). Checks: the coordinator and every worker exit 0 on
their own; results.json has every configuration done with n > 0; the store holds exactly 24 ok
attempts, each one in the benchmark's ledger exactly once with the very samples it printed, and
every attempt the benchmark ran is stored; the work really was spread over the 4 nodes.
"""
import os

import e2e_harness as h

SWEEP, CONFIGS, REPS, WORKERS = "e2e-basic", 8, 3, 4


def body(case):
    case.require_binaries("fleetsweep-coordinator", "fleetsweep-worker")
    case.start_redis()
    spec = case.render_spec("basic.yaml", SLEEP="0.05")
    (port,) = h.free_ports(1)
    coord = case.start_coordinator(spec, port)
    workers = case.start_workers(WORKERS, port)
    rc = case.wait_exit(coord, "coordinator", 60)
    h.check(rc == 0, "coordinator exited with %d" % rc)
    for i, w in enumerate(workers):
        wrc = case.wait_exit(w, "worker %d after the sweep finished" % i, 15)
        h.check(wrc == 0, "worker %d exited with %d" % (i, wrc))

    res = case.results()
    h.check_results_complete(case, res, REPS, CONFIGS)
    h.check(res["summary"]["attempts"] == CONFIGS * REPS,
            "summary attempts %s != %d" % (res["summary"]["attempts"], CONFIGS * REPS))
    store = case.store(SWEEP)
    attempts, ledger = h.check_store_matches_ledger(case, store, h.read_ledger(case.ledger))
    h.check(len(attempts) == CONFIGS * REPS and all(a["ok"] for a in attempts.values()),
            "expected %d ok attempts in the store, found %d" % (CONFIGS * REPS, len(attempts)))
    h.check_results_vs_store(res, attempts)
    states = {c["state"] for c in store.configs().values()}
    h.check(states == {"DONE"}, "stored configuration states: %s" % states)
    nodes = {a["node"] for a in attempts.values()}
    h.check(len(nodes) >= 2, "all work ran on %s: the sweep was not distributed" % nodes)
    case.log("%d attempts on nodes %s" % (len(attempts), sorted(nodes)))
    h.check(not os.listdir(case.inflight), "executions still marked in flight")


if __name__ == "__main__":
    h.run("complete", 90, body)
