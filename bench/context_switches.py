#!/usr/bin/env python3
"""Context switches per execution of every fleetsweep and redis thread (not a test; prints a table).

  python3 bench/context_switches.py SECONDS EXECUTIONS_PER_SECOND

Reads voluntary + involuntary switches of each thread of the processes named fleetsweep* or
redis* from /proc, sleeps SECONDS, reads them again, and divides each thread's difference by
SECONDS x EXECUTIONS_PER_SECOND (the rate the run reports). Start it a few seconds into a long
orchestration bench run, e.g.

  FLEETSWEEP_BIN=$PWD/build/bin python3 bench/orchestration_bench.py --workers 1 \\
      --executions 40000 --sessions persistent &
  sleep 2.5; python3 bench/context_switches.py 3 4770

(docs/performance.md, "Pacing"). Linux only.
"""
import os
import re
import sys
import time


def snapshot():
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            comm = open(f"/proc/{pid}/comm").read().strip()
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        if not comm.startswith(("fleetsweep", "redis")):
            continue
        for tid in tids:
            try:
                status = open(f"/proc/{pid}/task/{tid}/status").read()
                tcomm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            except OSError:
                continue
            switches = sum(int(n) for n in re.findall(r"ctxt_switches:\s+(\d+)", status))
            out[(comm, pid, tid, tcomm)] = switches
    return out


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    seconds, rate = float(sys.argv[1]), float(sys.argv[2])
    before = snapshot()
    time.sleep(seconds)
    after = snapshot()
    executions = seconds * rate
    total = 0
    print("| process | thread | switches per execution |")
    print("|---|---|---:|")
    for key in sorted(after):
        if key in before and after[key] > before[key]:
            d = after[key] - before[key]
            total += d
            print(f"| {key[0]} | {key[3]} | {d / executions:.2f} |")
    print(f"| all | | {total / executions:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
