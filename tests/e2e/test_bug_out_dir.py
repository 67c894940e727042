#!/usr/bin/python3
"""E2E (known bug, see the report of issue 3): `fleetsweep-coordinator --out DIR` must create DIR
(as `fleetsweep run --out` does) instead of failing after the whole sweep has run.

A tiny sweep (basic.yaml, 1 worker, no sleep) with --out pointing at a directory that does not
exist yet. Expected: exit 0 and DIR/results.json with every configuration done.
"""
import os

import e2e_harness as h


def body(case):
    case.require_binaries("fleetsweep-coordinator", "fleetsweep-worker")
    case.start_redis()
    spec = case.render_spec("basic.yaml", SLEEP="0")
    (port,) = h.free_ports(1)
    h.check(not os.path.exists(os.path.join(case.tmp, "out")), "out dir exists already")
    coord = case.start_coordinator(spec, port, make_out=False)
    case.start_workers(2, port)
    rc = case.wait_exit(coord, "coordinator", 60)
    h.check(rc == 0, "coordinator --out <missing dir> exited with %d:\n%s"
            % (rc, case.read_log("coordinator")[-600:]))
    h.check_results_complete(case, case.results(), 3, 8)


if __name__ == "__main__":
    h.run("bug_out_dir", 60, body)
