#!/usr/bin/python3
"""E2E 7: Redis with a password, end to end, and the password never reaches a log.

redis-server runs with requirepass; the coordinator and 4 workers get
redis://:PASSWORD@127.0.0.1:PORT and run tests/data/e2e/basic.yaml. Checks: the sweep completes
with every configuration done and the store (read with AUTH) agrees with the benchmark's ledger;
a coordinator given a wrong password exits non-zero, says it is an authentication problem, and
prints neither password; the password appears in no coordinator or worker log nor in the outputs.
"""
import os
import secrets

import e2e_harness as h

SWEEP, CONFIGS, REPS, WORKERS = "e2e-basic", 8, 3, 4


def body(case):
    case.require_binaries("fleetsweep-coordinator", "fleetsweep-worker")
    password = "e2ePw" + secrets.token_hex(8)
    wrong = "e2eWrong" + secrets.token_hex(8)
    case.start_redis(password=password)
    spec = case.render_spec("basic.yaml", SLEEP="0.05")

    # A wrong password: refused, clearly, without echoing any secret.
    (bad_port,) = h.free_ports(1)
    good = case.redis_password
    case.redis_password = wrong
    bad = case.start_coordinator(spec, bad_port, name="coordinator-wrong-password")
    case.redis_password = good
    rc = case.wait_exit(bad, "coordinator with a wrong password", 20)
    text = case.read_log("coordinator-wrong-password")
    h.check(rc != 0, "a coordinator with a wrong Redis password exited 0")
    h.check(any(w in text.lower() for w in ("auth", "password", "wrongpass")),
            "the error does not say it is an authentication problem:\n" + text)
    h.check(wrong not in text and password not in text,
            "the coordinator printed a password:\n" + text)

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
    attempts, _ = h.check_store_matches_ledger(case, case.store(SWEEP), h.read_ledger(case.ledger))
    h.check(len(attempts) == CONFIGS * REPS, "%d attempts stored" % len(attempts))

    for name, _, path in case.procs:
        if name == "redis":
            continue
        with open(path, "rb") as f:
            h.check(password.encode() not in f.read(), "the password appears in %s's log" % name)
    for root, _, files in os.walk(os.path.join(case.tmp, "out")):
        for fn in files:
            with open(os.path.join(root, fn), "rb") as f:
                h.check(password.encode() not in f.read(), "the password appears in %s" % fn)
    case.log("sweep done through an authenticated Redis; no password in %d logs" % len(case.procs))


if __name__ == "__main__":
    h.run("redis_password", 90, body)
