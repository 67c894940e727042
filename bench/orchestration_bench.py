#!/usr/bin/env python3
"""Orchestration throughput of fleetsweep end to end (not a test; prints a table).

  FLEETSWEEP_BIN=$PWD/build/bin bench/orchestration_bench.py [--mode noop|sleep]
      [--workers 1,4,16,64] [--executions N] [--sleep-ms 1000]
      [--sessions persistent,one-shot] [--prefetch 1] [--slots 1]

noop:  N executions (N configurations x 1 repetition) of bin/fleetsweep-tiny-bench (prints one
       sample and exits) through fleetsweep-coordinator + W fleetsweep-worker processes (--slots
       each) with results stored in a real redis-server (appendonly yes, appendfsync always).
       Reports executions/s over the whole run (coordinator start to exit, worker start-up
       included), the coordinator's CPU time per execution (getrusage of the process) and the
       CPU time per execution of every process of the run together (coordinator, workers, their
       benchmark processes, redis: getrusage(RUSAGE_CHILDREN) before and after the run).
sleep: the same with --sleep-ms executions (default 1 s); executions = rounds x W, and
       "of ideal" = (rounds x sleep) / wall: the fraction of the ideal wall time. The wall is
       split (from the stored attempts' start and duration) into start-up (bench start to the
       first execution's start), the gaps between one worker's consecutive executions (their
       sum, median worker) and the tail (the last execution's end to the coordinator's exit);
       what remains is the executions themselves and the workers' staggered starts.
--repeat N runs every (worker count, session mode) N times and ends with a table of the medians
(and the range) of executions/s and CPU per execution: one run of this bench on a 2-core VM
varies by +-15%, more than most changes it is used to judge. --against DIR also runs the
binaries of DIR (another build: `git worktree` + cmake), alternating with FLEETSWEEP_BIN's run
by run, so the two builds see the same machine state; rows then name their build (A =
FLEETSWEEP_BIN, B = DIR).
--sessions runs each worker count once per session mode in the same run: persistent (one
tiny-bench process per slot serves every execution over the session protocol) and one-shot (a
process per execution, the mode before sessions). OBENCH_KEEP=1 keeps the work directory.
Needs the chaos test helpers (tests/chaos/chaos_lib.py) and bin/fleetsweep-tiny-bench.
"""
import argparse
import resource
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "chaos"))
import chaos_lib as cl  # noqa: E402


def run_once(workers, executions, sleep_ms, session="one-shot", prefetch=1, slots=1):
    work = tempfile.mkdtemp(prefix="fs-obench-")
    procs = cl.Procs(work)
    bench = cl.binary("fleetsweep-tiny-bench")
    os.makedirs(os.path.join(work, "redis"))
    redis = cl.Redis(procs, os.path.join(work, "redis"))
    redis.start()
    # VALUE x B = executions exactly (VALUE the largest divisor up to 50).
    n_a = max(d for d in range(1, min(50, max(1, executions)) + 1) if executions % d == 0)
    n_b = max(1, executions // n_a)
    spec = os.path.join(work, "bench.yaml")
    # The persistent benchmark reads VALUE from its prepare request; a one-shot one from argv.
    # (A parameter in `command` would make it part of the session key: one process per value.)
    value_args = "" if session == "persistent" else ', "--value", "{VALUE}"'
    with open(spec, "w") as f:
        f.write(f"""sweep: obench
executor:
  type: exec
  command: ["{bench}", "--sleep-ms", "{sleep_ms}"{value_args}]
  timeout: 60
  session: {{mode: {session}}}
parameters:
  VALUE: {{values: {list(range(1, n_a + 1))}}}
  B: {{values: {list(range(n_b))}}}
repetitions: {{min: 1, max: 1}}
metrics:
  - {{name: time_ms, goal: minimize, unit: ms}}
""")
    ep = f"tcp://127.0.0.1:{cl.free_port()}"
    t0 = time.time()
    all0 = children_cpu()
    coord = procs.start([cl.binary("fleetsweep-coordinator"), "--spec", spec, "--redis",
                         redis.url, "--bind", ep, "--insecure", "--exit-when-finished",
                         "--worker-timeout", "30", "--no-progress"], "coordinator")
    for i in range(workers):
        procs.start([cl.binary("fleetsweep-worker"), "--coordinator", ep, "--insecure", "--slots",
                     str(slots), "--prefetch", str(prefetch), "--redis", redis.url, "--node", f"w{i}",
                     "--exit-when-finished",
                     "--allow-exec", os.path.join(os.path.dirname(bench), "*")], f"worker{i}")
    _, status, ru = os.wait4(coord.pid, 0)
    coord.returncode = status
    wall = time.time() - t0
    _, attempts = cl.read_dump(redis.url, "obench")
    procs.close()
    all_cpu = children_cpu() - all0
    if os.environ.get("OBENCH_KEEP"):
        print(f"# kept {work}", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)
    done = sum(1 for a in attempts if a["ok"])
    phases = split_wall(t0, t0 + wall, attempts, workers)
    return wall, done, (ru.ru_utime + ru.ru_stime), n_a * n_b, status, all_cpu, phases


def split_wall(t0, t_end, attempts, workers):
    """Where the wall went (seconds): start-up (bench start to the first execution's start), the
    gaps between a worker's consecutive executions (summed over its executions, median over
    workers), and the tail (the last execution's end to the coordinator's exit)."""
    ok = [a for a in attempts if a["ok"] and "started_unix_ms" in a]
    if not ok:
        return None
    starts = [a["started_unix_ms"] / 1000.0 for a in ok]
    ends = [a["started_unix_ms"] / 1000.0 + a["duration_seconds"] for a in ok]
    by_node = {}
    for a in ok:
        by_node.setdefault(a["node"], []).append(a)
    gaps = []
    for runs in by_node.values():
        runs.sort(key=lambda a: a["started_unix_ms"])
        g = 0.0
        for prev, cur in zip(runs, runs[1:]):
            g += cur["started_unix_ms"] / 1000.0 - (prev["started_unix_ms"] / 1000.0 +
                                                   prev["duration_seconds"])
        gaps.append(g)
    gaps.sort()
    return min(starts) - t0, gaps[len(gaps) // 2], t_end - max(ends)


def children_cpu():
    """User + system seconds of every ended, waited-for child (and what they waited for)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["noop", "sleep"], default="noop")
    ap.add_argument("--workers", default="1,4,16,64")
    ap.add_argument("--executions", type=int, default=1000, help="noop: executions per run")
    ap.add_argument("--rounds", type=int, default=4, help="sleep: executions per worker")
    ap.add_argument("--sleep-ms", type=int, default=1000)
    ap.add_argument("--sessions", default="persistent,one-shot",
                    help="session modes to run, each for every worker count")
    ap.add_argument("--prefetch", type=int, default=1, help="worker --prefetch")
    ap.add_argument("--slots", type=int, default=1,
                    help="worker --slots (each slot its own device: 0..slots-1)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="noop: runs per row, then a table of medians")
    ap.add_argument("--against", default="",
                    help="noop: a second binaries directory, run alternately (rows B)")
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error(f"--repeat must be >= 1, got {a.repeat}")
    builds = [("A", os.environ.get("FLEETSWEEP_BIN", ""))]
    if a.against:
        if not os.access(os.path.join(a.against, "fleetsweep-worker"), os.X_OK):
            ap.error(f"--against {a.against}: no executable fleetsweep-worker there")
        builds.append(("B", a.against))
    print(f"# {time.strftime('%Y-%m-%d')} {os.uname().nodename}, {os.cpu_count()} CPUs, "
          f"mode {a.mode}")
    if a.mode == "noop":
        print("| build | sessions | workers | executions | wall s | executions/s | "
              "coordinator CPU ms/exec | all processes CPU ms/exec |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
    else:
        print("| sessions | workers | executions | ideal s | wall s | of ideal | overhead | "
              "start-up s | gaps s (median worker) | tail s |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    def label(w):
        return str(w) if a.slots == 1 else f"{w} x {a.slots} slots"

    rows = {}  # (build, session, workers) -> [(executions/s, coordinator ms, all ms)]
    for w in [int(x) for x in a.workers.split(",")]:
        for session in a.sessions.split(","):
            if a.mode == "noop":
                for _ in range(a.repeat):
                    for name, bindir in builds:
                        os.environ["FLEETSWEEP_BIN"] = bindir
                        wall, done, cpu, want, st, all_cpu, _ = run_once(
                            w, a.executions, 0, session, a.prefetch, a.slots)
                        got = (done / wall, 1000 * cpu / max(done, 1),
                               1000 * all_cpu / max(done, 1))
                        rows.setdefault((name, session, label(w)), []).append(got)
                        print(f"| {name} | {session} | {label(w)} | {done}/{want} | {wall:.1f} | "
                              f"{got[0]:.1f} | {got[1]:.2f} | {got[2]:.2f} |", flush=True)
            else:
                n = a.rounds * w * a.slots
                wall, done, cpu, want, st, _, ph = run_once(w, n, a.sleep_ms, session,
                                                            a.prefetch, a.slots)
                ideal = a.rounds * a.sleep_ms / 1000.0
                ph = ph or (float("nan"),) * 3
                print(f"| {session} | {label(w)} | {done}/{want} | {ideal:.0f} | {wall:.1f} | "
                      f"{ideal / wall:.1%} | {wall / ideal - 1:.1%} | {ph[0]:.3f} | "
                      f"{ph[1]:.3f} | {ph[2]:.3f} |", flush=True)
    if a.mode == "noop" and a.repeat > 1:
        print_medians(rows)
    return 0


def print_medians(rows):
    """One row per (build, sessions, workers): the median of its runs and their range."""
    def med(xs):
        xs = sorted(xs)
        n = len(xs)
        return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2

    print("\n| build | sessions | workers | runs | executions/s median [min, max] | "
          "coordinator CPU ms/exec median | all processes CPU ms/exec median [min, max] |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (name, session, workers), got in rows.items():
        rate, coord, whole = ([g[i] for g in got] for i in range(3))
        print(f"| {name} | {session} | {workers} | {len(got)} | {med(rate):.0f} "
              f"[{min(rate):.0f}, {max(rate):.0f}] | {med(coord):.3f} | {med(whole):.3f} "
              f"[{min(whole):.3f}, {max(whole):.3f}] |")


if __name__ == "__main__":
    sys.exit(main())
