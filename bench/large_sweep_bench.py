#!/usr/bin/env python3
"""A very large sweep through `fleetsweep run` (issue 16): how long until the first execution
starts, the peak RSS of `fleetsweep run` (coordinator, scheduler and embedded store in one
process), how long a SIGINT takes to be honoured, and what the outputs weigh.

  FLEETSWEEP_BIN=$PWD/build/bin python3 bench/large_sweep_bench.py [--levels 100] [--run-s 10]
      [--metrics] [--strategy random --budget 100000 [--seed 1]] [--complete]

--metrics serves the coordinator's Prometheus metrics (`--metrics-port 0`), which turns on the
live audits (coordinator/app/live_audits.h) and so measures their memory too.

--complete lets the sweep finish instead of sending SIGINT (use fewer --levels: 40 is 64,000
configurations): the peak RSS is then that of a completed sweep's Finish (read back, aggregate,
results, report), and the row "Finish phases" copies the run's own timing line.

--strategy (grid, random, lhs, racing; default grid) and --budget / --seed set the spec's
`search:` block, so a sampled sweep over the whole space can be timed (docs/search.md).

The spec has 3 parameters of --levels levels each (100: 1,000,000 configurations), 1 execution
per configuration of bin/fleetsweep-tiny-bench in persistent sessions (--sleep-ms 0), 2 local
workers. The benchmark appends each attempt id to a ledger when it starts: the first line's
arrival is the first execution. After --run-s seconds of executions the driver sends SIGINT and
measures until the process exits. Prints one markdown row per measure. Not a test.
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time


def binary(name):
    d = os.environ.get("FLEETSWEEP_BIN")
    if not d:
        sys.exit("set FLEETSWEEP_BIN to the build's bin directory")
    return os.path.join(d, name)


def rss_mib(pid):
    """Resident set of pid and its children (the local workers and benchmarks), MiB."""
    total_self, total_all = 0, 0
    pids = [pid]
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            pids += [int(p) for p in f.read().split()]
    except OSError:
        pass
    for p in pids:
        try:
            with open("/proc/%d/status" % p) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        kb = int(line.split()[1])
                        total_all += kb
                        if p == pid:
                            total_self += kb
        except OSError:
            pass
    return total_self / 1024.0, total_all / 1024.0


def wait_first(proc, ledger, t0, run_s):
    """Seconds from t0 to the first execution (None if none came). Returns once run_s seconds of
    executions have passed, or (run_s None) once the process exits on its own; 600 s at most."""
    first = None
    while proc.poll() is None and time.time() - t0 < (900 if run_s is None else 600):
        if first is None and os.path.exists(ledger) and os.path.getsize(ledger) > 0:
            first = time.time() - t0
        if run_s is not None and first is not None and time.time() - t0 >= first + run_s:
            break
        time.sleep(0.01)
    if first is None and os.path.exists(ledger) and os.path.getsize(ledger) > 0:
        first = time.time() - t0  # finished between two polls
    return first


def finish_line(log):
    """The run's own "finish (...): read back ..., aggregate ..., results ..., report ..." line."""
    with open(log) as f:
        lines = [line.strip() for line in f if "] finish (" in line]
    return lines[-1].split("] ", 2)[-1] if lines else "no finish line in the log"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--levels", type=int, default=100)
    ap.add_argument("--run-s", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--metrics", action="store_true", help="--metrics-port 0 (live audits on)")
    ap.add_argument("--strategy", default="grid", choices=["grid", "random", "lhs", "racing"],
                    help="search.strategy (default grid)")
    ap.add_argument("--budget", type=int, default=0,
                    help="search.budget for random / lhs (0: the whole space)")
    ap.add_argument("--seed", type=int, default=1, help="search.seed")
    ap.add_argument("--repetitions", type=int, default=1,
                    help="executions per configuration (repetitions min = max)")
    ap.add_argument("--noise", type=float, default=0.0,
                    help="log-normal noise of each execution's sample (tiny-bench --noise)")
    ap.add_argument("--complete", action="store_true",
                    help="let the sweep finish (no SIGINT); time the whole run and its Finish")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fs-large-")
    ledger = os.path.join(work, "ledger.txt")
    levels = list(range(args.levels))
    spec = os.path.join(work, "large.yaml")
    with open(spec, "w") as f:
        f.write(f"""sweep: large
executor:
  type: exec
  command: ["{binary('fleetsweep-tiny-bench')}", "--sleep-ms", "0", "--ledger", "{ledger}", "--noise", "{args.noise}"]
  timeout: 60
  session: {{mode: persistent}}
parameters:
  A: {{values: {levels}}}
  B: {{values: {levels}}}
  C: {{values: {levels}}}
repetitions: {{min: {args.repetitions}, max: {args.repetitions}}}
metrics:
  - {{name: time_ms, goal: minimize, unit: ms}}
search: {{strategy: {args.strategy}, budget: {args.budget}, seed: {args.seed}}}
""")
    out = os.path.join(work, "out")
    t0 = time.time()
    cmd = [binary("fleetsweep"), "run", spec, "--out", out, "--workers", str(args.workers)]
    if args.metrics:
        cmd += ["--metrics-port", "0"]
    proc = subprocess.Popen(cmd, stdout=open(os.path.join(work, "run.out"), "w"),
                            stderr=subprocess.STDOUT)
    peak = [0.0, 0.0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            s, a = rss_mib(proc.pid)
            peak[0], peak[1] = max(peak[0], s), max(peak[1], a)
            time.sleep(0.05)

    threading.Thread(target=sample, daemon=True).start()
    first = wait_first(proc, ledger, t0, None if args.complete else args.run_s)
    at_sigint = rss_mib(proc.pid)[0]  # what the run holds; the rest of the peak is Finish's
    t_int = time.time()
    if not args.complete:
        proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(timeout=900 if args.complete else 300)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "killed after the timeout"
    stop_s = time.time() - t_int
    wall_s = time.time() - t0
    done.set()
    executions = sum(1 for _ in open(ledger)) if os.path.exists(ledger) else 0
    sizes = {}
    for root, _, files in os.walk(out):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), out)
            top = rel.split(os.sep)[0]
            sizes[top] = sizes.get(top, 0) + os.path.getsize(os.path.join(root, name))
    n = args.levels ** 3
    print("| measure | value |")
    print("|---|---|")
    print("| configurations | %d (%d executions each) |" % (n, args.repetitions))
    print("| execution noise (log-normal sd) | %g |" % args.noise)
    print("| search | %s (budget %d, seed %d) |" % (args.strategy, args.budget, args.seed))
    print("| metrics (live audits) | %s |" % ("on" if args.metrics else "off"))
    print("| first execution after start | %s |" % ("%.2f s" % first if first is not None else "none"))
    if args.complete:
        print("| executions (completed sweep) | %d |" % executions)
        print("| wall, start to exit | %.2f s (exit %s) |" % (wall_s, rc))
        print("| Finish phases | %s |" % finish_line(os.path.join(work, "run.out")))
    else:
        print("| executions before SIGINT (%.0f s of running) | %d |" % (args.run_s, executions))
    print("| peak RSS of `fleetsweep run` (with its workers) | %.0f MiB (%.0f MiB) |" % (peak[0], peak[1]))
    if not args.complete:
        print("| RSS of `fleetsweep run` when SIGINT was sent | %.0f MiB |" % at_sigint)
        print("| SIGINT to exit | %.2f s (exit %s) |" % (stop_s, rc))
    for name in sorted(sizes):
        print("| out/%s | %.1f MB |" % (name, sizes[name] / 1e6))
    print("# work dir %s" % work, file=sys.stderr)


if __name__ == "__main__":
    main()
