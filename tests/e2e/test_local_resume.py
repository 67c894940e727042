#!/usr/bin/python3
"""E2E 6: `fleetsweep run` on one machine, then the same command again resumes instantly.

Runs `fleetsweep run examples/cpu-demo.yaml --workers 2 --out DIR` (in-process coordinator,
2 fleetsweep-worker processes, file store in DIR/store). Checks: it exits 0 and results.json has
every one of the 42 configurations done with n > 0 and agrees with its own summary. A second run
with the same --out must run nothing new: it finishes in under 3 s, exits 0, reports the same
number of attempts and samples, and the same status, n and median for every configuration.
"""
import json
import os
import subprocess
import time

import e2e_harness as h

CONFIGS = 42


def run_once(case, out, budget):
    argv = [os.path.join(h.BIN, "fleetsweep"), "run",
            os.path.join(h.SRC, "examples", "cpu-demo.yaml"), "--workers", "2", "--out", out]
    case.log("running: " + " ".join(argv))
    t0 = time.monotonic()
    with open(os.path.join(case.tmp, "run.log"), "ab") as logf:
        p = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        case.procs.append(("fleetsweep-run", p, logf.name))
        rc = case.wait_exit(p, "fleetsweep run", budget)
    elapsed = time.monotonic() - t0
    h.check(rc == 0, "fleetsweep run exited with %d" % rc)
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f), elapsed


def body(case):
    case.require_binaries("fleetsweep", "fleetsweep-worker", "fleetsweep-matmul-bench")
    out = os.path.join(case.tmp, "out")
    first, t1 = run_once(case, out, 120)
    case.log("first run: %.1fs, summary %s" % (t1, first["summary"]))
    h.check(len(first["configurations"]) == CONFIGS,
            "%d configurations, expected %d" % (len(first["configurations"]), CONFIGS))
    for c in first["configurations"]:
        h.check(c["status"] == "done" and c["n"] > 0, "configuration %s: %s, n = %s"
                % (c["params"], c["status"], c["n"]))
    h.check(first["summary"]["done"] == CONFIGS, "summary: %s" % first["summary"])
    h.check(first["summary"]["attempts"] >= CONFIGS * 3, "summary: %s" % first["summary"])
    h.check(sum(c["attempts"] for c in first["configurations"]) <= first["summary"]["attempts"],
            "per-configuration attempts exceed the summary")

    second, t2 = run_once(case, out, 30)
    case.log("second run: %.1fs, summary %s" % (t2, second["summary"]))
    h.check(t2 < 3.0, "the resumed run took %.1fs (>= 3 s): it did not resume instantly" % t2)
    h.check(second["summary"] == first["summary"],
            "summary changed on resume: %s -> %s" % (first["summary"], second["summary"]))

    def table(res):
        return {c["key"]: (c["status"], c["n"], c["median"], c["attempts"])
                for c in res["configurations"]}
    h.check(table(second) == table(first), "per-configuration results changed on resume")


if __name__ == "__main__":
    h.run("local_resume", 150, body)
