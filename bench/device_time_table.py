#!/usr/bin/env python3
"""Where a device's time went in a fleetsweep sweep: per execution, the share outside the timed
kernel; per device, the share of the wall during which it timed.

  fleetsweep-store-dump file://OUT/store SWEEP | python3 bench/device_time_table.py [--metric time_ms]

Reads the store dump's attempt lines (bench/store_dump.cc). The timed kernel of an execution is
the sum of its primary metric's samples (milliseconds). Per execution (ok attempts):
  outside            1 - timed / duration (the attempt's whole wall: session start when it opened
                     one, prepare, waiting for the device's timing gate, run)
  outside, no gate   the same without the gate wait (exec.gate_wait_seconds): what the execution
                     itself cost beside its timed kernel
  the execution      the same without the session's start too (session.start_seconds, on the
                     attempt that opened a persistent session: process start to ready, any
                     prewarm included): the execution proper, its prepare request to its end
A last table: the sessions' starts (how many, their seconds, and their share of the device wall).
grouped by the execution's place in its session: the session's first execution (it starts the
benchmark process and builds its inputs), the first execution of a configuration in its session
(a new variant's first launch), and the later ones. Per device: wall from the first execution's
start to the last one's end, and the timed share of it (sum of timed kernels / wall): with several
slots on one device, preparation overlaps another slot's timing and this share rises.
Prints Markdown tables.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict


def load(stream):
    attempts = []
    for line in stream:
        line = line.strip()
        if not line:
            continue
        rec = json.loads(line)
        if rec.get("kind") == "attempt" and rec.get("ok"):
            attempts.append(rec)
    return attempts


def place(attempts):
    """Labels each attempt: session first / first of its configuration in the session / later."""
    seen = defaultdict(set)  # session id -> config keys already run in it
    labels = []
    for a in sorted(attempts, key=lambda r: r.get("started_unix_ms", 0)):
        info = a.get("info", {})
        sid = info.get("session.id", a["attempt_id"])
        if info.get("session.position", "1") == "1":
            label = "first of its session"
        elif a["config_key"] not in seen[sid]:
            label = "first of its configuration in the session"
        else:
            label = "later"
        seen[sid].add(a["config_key"])
        labels.append((label, a))
    return labels


def shares(a):
    timed = sum(a.get("values", [])) / 1000.0
    dur = a.get("duration_seconds", 0.0)
    gate = float(a.get("info", {}).get("exec.gate_wait_seconds", "0") or 0)
    out = 1 - timed / dur if dur > 0 else float("nan")
    own = dur - gate
    out_own = 1 - timed / own if own > 0 else float("nan")
    execution = own - start_seconds(a)
    out_exec = 1 - timed / execution if execution > 0 else float("nan")
    return timed, dur, out, out_own, out_exec


def start_seconds(a):
    return float(a.get("info", {}).get("session.start_seconds", "0") or 0)


def pct(v):
    return "%.1f%%" % (100 * v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump", nargs="?", default="-", help="store dump file (- for stdin)")
    a = ap.parse_args()
    attempts = load(sys.stdin if a.dump == "-" else open(a.dump))
    if not attempts:
        print("no ok attempts in the dump", file=sys.stderr)
        return 1
    groups = defaultdict(list)
    for label, att in place(attempts):
        groups[label].append(shares(att))
    print("| execution | executions | median wall ms | median timed ms | outside (median) | "
          "(worst) | outside, no gate wait (median) | (worst) | outside, the execution alone "
          "(median) | (worst) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label in ("first of its session", "first of its configuration in the session", "later"):
        rows = groups.get(label)
        if not rows:
            continue
        print("| %s | %d | %.1f | %.2f | %s | %s | %s | %s | %s | %s |" % (
            label, len(rows), 1000 * statistics.median(r[1] for r in rows),
            1000 * statistics.median(r[0] for r in rows), pct(statistics.median(r[2] for r in rows)),
            pct(max(r[2] for r in rows)), pct(statistics.median(r[3] for r in rows)),
            pct(max(r[3] for r in rows)), pct(statistics.median(r[4] for r in rows)),
            pct(max(r[4] for r in rows))))
    by_device = defaultdict(list)
    for att in attempts:
        by_device[(att.get("node", ""), att.get("device", ""))].append(att)
    print()
    print("| node | device | slots | executions | wall s | timed s | timed share of the wall |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (node, device), atts in sorted(by_device.items()):
        start = min(x["started_unix_ms"] / 1000.0 for x in atts)
        end = max(x["started_unix_ms"] / 1000.0 + x["duration_seconds"] for x in atts)
        timed = sum(sum(x.get("values", [])) for x in atts) / 1000.0
        slots = len({x.get("slot") for x in atts})
        print("| %s | %s | %d | %d | %.2f | %.2f | %s |" % (node, device, slots, len(atts),
                                                         end - start, timed,
                                                         pct(timed / (end - start))))
    starts = [start_seconds(x) for x in attempts if start_seconds(x) > 0]
    if starts:
        wall = (max(x["started_unix_ms"] / 1000.0 + x["duration_seconds"] for x in attempts) -
                min(x["started_unix_ms"] / 1000.0 for x in attempts))
        print()
        print("| sessions started | start s (median) | (max) | all starts s | share of the wall |")
        print("|---:|---:|---:|---:|---:|")
        print("| %d | %.2f | %.2f | %.2f | %s |" % (len(starts), statistics.median(starts),
                                                  max(starts), sum(starts),
                                                  pct(sum(starts) / wall) if wall > 0 else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
