#!/usr/bin/python3
"""E2E: a persistent-session sweep through `fleetsweep run` with 2 slots on ONE device.

tests/data/bench/fake_session_bench.py (persistent: one process per slot) "times" every
execution by sleeping while it appends start/end stamps to a log. Checks: the sweep completes
with every configuration done; the benchmark's own log shows that no two timed sections
overlapped (the device's timing gate), although both slots prepared and ran; the executions were
served by warm processes (far fewer processes than executions, positions > 1 in the attempts);
every execution is in the log exactly once per attempt. Each session also uses the device before
it says ready (FAKE_START_DEVICE_MS: logged like a timed section): that never overlaps either, and
results.json counts the two starts (warm_state.session_starts) and their seconds.
"""
import json
import os
import subprocess
import time

import e2e_harness as h

CONFIGS, REPS = 6, 3


def body(case):
    case.require_binaries("fleetsweep", "fleetsweep-worker")
    timing_log = os.path.join(case.tmp, "timing.log")
    bench = os.path.join(h.SRC, "tests", "data", "bench", "fake_session_bench.py")
    spec = os.path.join(case.tmp, "sessions.yaml")
    with open(spec, "w") as f:
        f.write("""sweep: e2e-sessions
executor:
  type: exec
  command: [python3, "%s"]
  timeout: 30
  env: {FAKE_TIMING_LOG: "%s", FAKE_START_DEVICE_MS: "30"}
  session: {mode: persistent}
parameters:
  VALUE: [1, 2, 3, 4, 5, 6]
  ACT: {fixed: slow, reason: the fake times by sleeping}
  SLEEP_MS: {fixed: 40, reason: a timed section long enough to overlap if it could}
repetitions: {min: %d, max: %d}
metrics:
  - {name: time_ms, goal: minimize, unit: ms}
""" % (bench, timing_log, REPS, REPS))
    out = os.path.join(case.tmp, "out")
    argv = [os.path.join(h.BIN, "fleetsweep"), "run", spec, "--workers", "1", "--slots", "2",
            "--devices", "0", "--out", out]
    with open(os.path.join(case.tmp, "run.log"), "ab") as logf:
        p = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        case.procs.append(("fleetsweep-run", p, logf.name))
        rc = case.wait_exit(p, "fleetsweep run", 100)
    h.check(rc == 0, "fleetsweep run exited with %d" % rc)
    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    h.check(len(res["configurations"]) == CONFIGS, "configurations: %d" % len(res["configurations"]))
    for c in res["configurations"]:
        h.check(c["status"] == "done", "configuration %s: %s" % (c["params"], c["status"]))
    warm = res["warm_state"]
    h.check(warm["session_starts"] == 2, "session starts: %s" % warm)
    h.check(0.06 <= warm["session_start_seconds"] <= warm["attempt_seconds"],
            "session start seconds: %s" % warm)

    events, pids = [], set()
    with open(timing_log) as f:
        for line in f:
            pid, what, ns = line.split()
            pids.add(pid)
            events.append((int(ns), 1 if what == "start" else -1))
    starts = sum(1 for _, d in events if d == 1)
    h.check(starts >= CONFIGS * REPS + 2, "only %d device sections for %d executions and 2 starts"
            % (starts, CONFIGS * REPS))
    events.sort()
    open_now, worst = 0, 0
    for _, d in events:
        open_now += d
        worst = max(worst, open_now)
    h.check(worst == 1, "%d timed sections overlapped on one device" % worst)
    h.check(len(pids) == 2, "expected one warm process per slot (2), saw %d" % len(pids))
    case.log("%d timed sections by %d processes, never overlapping" % (starts, len(pids)))


if __name__ == "__main__":
    h.run("sessions", 120, body)
