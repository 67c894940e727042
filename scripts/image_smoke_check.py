#!/usr/bin/env python3
"""The checks of scripts/image-smoke.sh on what its two container sweeps wrote.

    image_smoke_check.py cpu-demo RESULTS_JSON STORED_ATTEMPTS
        at least one configuration done; no more ok executions counted than Redis stored
    image_smoke_check.py sessions RESULTS_JSON TIMING_LOG
        the 6 configurations of tests/data/image-smoke/sessions.yaml done; executions served by
        warm sessions (warm_state.persistent, a position > 1); the benchmark's own log of timed
        sections ("<pid> start|end <ns>") holds every execution and no two sections overlap

Prints one line of what it found; exits 1 with the failed check's message.
"""
import json
import sys


def cpu_demo(results, stored):
    r = json.load(open(results))
    done = [c for c in r["configurations"] if c["status"] == "done"]
    ok = sum(c.get("ok_attempts", 0) for c in r["configurations"])
    winner = (r.get("winner") or {}).get("params") or "none (no defensible winner here)"
    print("image-smoke: cpu-demo: %d configurations done, %d ok executions, %d attempts stored,"
          " rank 1 %s, winner %s" % (len(done), ok, int(stored), r["configurations"][0]["params"],
                                     winner))
    assert done, "no configuration done"
    assert int(stored) >= ok, "fewer attempts stored (%s) than counted (%d)" % (stored, ok)


def overlap(timing_log):
    """(timed sections, processes, most sections open at once) from the benchmark's log."""
    events, pids = [], set()
    for line in open(timing_log):
        pid, what, ns = line.split()
        pids.add(pid)
        events.append((int(ns), 1 if what == "start" else -1))
    events.sort()
    now = worst = 0
    for _, d in events:
        now += d
        worst = max(worst, now)
    return sum(1 for _, d in events if d == 1), len(pids), worst


def sessions(results, timing_log):
    r = json.load(open(results))
    done = [c for c in r["configurations"] if c["status"] == "done"]
    assert len(done) == 6, "%d of 6 configurations done" % len(done)
    warm = r["warm_state"]
    assert warm["persistent"] and warm["max_position"] > 1, "no warm session: %s" % warm
    starts, procs, worst = overlap(timing_log)
    assert starts >= 18, "only %d timed sections for 18 executions" % starts
    assert worst == 1, "%d timed sections overlapped on one device" % worst
    print("image-smoke: sessions: 6 configurations done, %d executions in %d warm processes"
          " (positions up to %d), %d timed sections, never two at once"
          % (warm["executions"], procs, warm["max_position"], starts))


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "cpu-demo":
            cpu_demo(argv[2], argv[3])
        elif len(argv) == 4 and argv[1] == "sessions":
            sessions(argv[2], argv[3])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (AssertionError, OSError, KeyError, ValueError) as exc:
        print("image-smoke: %s: %s: %s" % (argv[1], type(exc).__name__, exc), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
