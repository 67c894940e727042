#!/usr/bin/env python3
"""Chaos test: a sweep of >= 2,000 short executions survives workers, the coordinator and Redis
being killed under it, and loses or double-counts no sample.

400 configurations x 5 repetitions of bin/fleetsweep-tiny-bench over 8 fleetsweep-worker
processes (1 slot each) against fleetsweep-coordinator and a real redis-server (appendonly yes,
appendfsync always). While it runs, the driver
  * SIGKILLs a random worker every 1-3 s and starts a replacement,
  * SIGKILLs the coordinator twice and restarts it (same --redis, same --bind port),
  * SIGKILLs redis-server once and restarts it on the same dir and port (AOF replay).
The benchmark appends its FLEETSWEEP_ATTEMPT_ID to a ledger file (O_APPEND, one write per line):
its own record of what ran. At the end it checks
  * results.json (from the last coordinator's --out) aggregates all 400 configurations, all done;
  * every configuration is DONE in the store (none stuck leased);
  * attempt ids are unique in the store and every stored attempt appears in the ledger;
  * per configuration: >= 5 stored ok attempts, results.json ok_attempts equals them, and
    results.json n equals the number of ok executions with primary-metric samples, and samples the
    number of those samples.
Prints one line "CHAOS {json}" with the figures. Exit 0 pass, 1 fail, 77 no redis-server.
Bounded: gives up after FLEETSWEEP_CHAOS_DEADLINE seconds (default 150).
"""
import collections
import json
import os
import random
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaos_lib as cl  # noqa: E402

N_A, N_B, REPS, WORKERS = 20, 20, 5, 8
DEADLINE = float(os.environ.get("FLEETSWEEP_CHAOS_DEADLINE", "150"))


def main():
    t0 = time.time()
    rng = random.Random(int(os.environ.get("FLEETSWEEP_CHAOS_SEED", "20240")))
    redis_bin = cl.redis_binary()
    coord_bin, worker_bin = cl.binary("fleetsweep-coordinator"), cl.binary("fleetsweep-worker")
    bench = cl.binary("fleetsweep-tiny-bench")
    cl.binary("fleetsweep-store-dump")
    work = tempfile.mkdtemp(prefix="fs-chaos-")
    procs = cl.Procs(work)
    ledger = os.path.join(work, "ledger.txt")
    out_dir = os.path.join(work, "out")
    redis_dir = os.path.join(work, "redis")
    os.makedirs(redis_dir)
    # fleetsweep-coordinator does not create --out itself (reported to the lead).
    os.makedirs(out_dir)
    spec = os.path.join(work, "chaos.yaml")
    with open(spec, "w") as f:
        f.write(f"""sweep: chaos
executor:
  type: exec
  command: ["{bench}", "--value", "{{A}}", "--ledger", "{ledger}"]
  timeout: 20
parameters:
  A: {{values: {list(range(1, N_A + 1))}}}
  B: {{values: {list(range(N_B))}}}
repetitions: {{min: {REPS}, max: {REPS}, target_rel_ci: 0.5, max_failures: 100,
               deterministic_failures: 100}}
metrics:
  - {{name: time_ms, goal: minimize, unit: ms}}
""")
    redis = cl.Redis(procs, redis_dir)
    redis.start()
    port = cl.free_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    coord_argv = [coord_bin, "--spec", spec, "--redis", redis.url, "--bind", endpoint,
                  "--insecure", "--exit-when-done", "--out", out_dir, "--worker-timeout", "3",
                  "--no-progress"]
    coord_starts = [0]

    def start_coordinator():
        coord_starts[0] += 1
        return procs.start(coord_argv, f"coordinator{coord_starts[0]}")

    worker_seq = [0]

    def start_worker():
        worker_seq[0] += 1
        n = worker_seq[0]
        return procs.start([worker_bin, "--coordinator", endpoint, "--insecure", "--slots", "1",
                            "--redis", redis.url, "--node", f"w{n}", "--exit-when-finished",
                            "--allow-exec", os.path.join(os.path.dirname(bench), "*"),
                            "--give-up-after", "60"], f"worker{n}")

    coord = start_coordinator()
    workers = [start_worker() for _ in range(WORKERS)]

    def executions():
        try:
            with open(ledger, "rb") as f:
                return f.read().count(b"\n")
        except FileNotFoundError:
            return 0

    total = N_A * N_B * REPS
    # Events fire at fractions of the ledger's progress so they land inside the sweep however
    # fast this machine runs it.
    events = [(0.20, "coordinator"), (0.40, "redis"), (0.65, "coordinator")]
    worker_kills = coord_kills = redis_restarts = 0
    next_worker_kill = time.time() + rng.uniform(1, 3)
    status = "running"
    while True:
        now = time.time()
        if now - t0 > DEADLINE:
            status = "deadline"
            break
        if coord.poll() is not None:
            status = "coordinator-exit"
            break
        done = executions()
        if events and done >= events[0][0] * total:
            _, what = events.pop(0)
            if what == "coordinator":
                procs.kill(coord)
                coord_kills += 1
                time.sleep(0.3)
                coord = start_coordinator()
            else:
                redis.stop(signal.SIGKILL)
                time.sleep(1.0)
                redis.start()
                redis_restarts += 1
        if now >= next_worker_kill:
            live = [w for w in workers if w.poll() is None]
            if live:
                victim = rng.choice(live)
                procs.kill(victim)
                workers.remove(victim)
                worker_kills += 1
                workers.append(start_worker())
            next_worker_kill = now + rng.uniform(1, 3)
        time.sleep(0.05)
    wall = time.time() - t0
    coord_rc = coord.poll()
    # Workers exit on their own once the coordinator said the sweep is finished.
    for w in workers:
        try:
            w.wait(timeout=10)
        except Exception:
            pass

    failures = []
    if status != "coordinator-exit" or coord_rc != 0:
        failures.append(f"sweep did not finish: {status}, coordinator rc={coord_rc}\n"
                        + cl.tail(os.path.join(work, f"coordinator{coord_starts[0]}.log")))
    if events:
        failures.append(f"sweep ended before these events fired: {events}")

    with open(ledger) as f:
        ledger_ids = [line.strip() for line in f if line.strip()]
    ledger_set = set(ledger_ids)
    configs, attempts = cl.read_dump(redis.url, "chaos")
    ids = [a["attempt_id"] for a in attempts]
    dup_ids = [i for i, c in collections.Counter(ids).items() if c > 1]
    lost = [i for i in ids if i not in ledger_set]
    ok_by_cfg = collections.defaultdict(list)
    for a in attempts:
        if a["ok"] and not a["reference"]:
            ok_by_cfg[a["config_key"]].append(a)
    stuck = [k for k, c in configs.items() if c["state"] != 3]
    if len(configs) != N_A * N_B:
        failures.append(f"store holds {len(configs)} configurations, want {N_A * N_B}")
    if stuck:
        failures.append(f"{len(stuck)} configurations not DONE in the store, e.g. "
                        f"{[configs[k] for k in stuck[:3]]}")
    if dup_ids:
        failures.append(f"{len(dup_ids)} attempt ids stored twice, e.g. {dup_ids[:3]}")
    if lost:
        failures.append(f"{len(lost)} stored attempts missing from the ledger, e.g. {lost[:3]}")
    short = [k for k in configs if len(ok_by_cfg[k]) < REPS]
    if short:
        failures.append(f"{len(short)} configurations below {REPS} ok attempts, e.g. "
                        f"{[(k, len(ok_by_cfg[k])) for k in short[:3]]}")

    results_path = os.path.join(out_dir, "results.json")
    mismatched = []
    if os.path.exists(results_path):
        with open(results_path) as f:
            results = json.load(f)
        s = results["summary"]
        if s["configurations"] != N_A * N_B or s["done"] != N_A * N_B or s["unfinished"] != 0:
            failures.append(f"results.json summary {s}")
        for c in results["configurations"]:
            stored = ok_by_cfg.get(c["key"], [])
            want_n = sum(1 for a in stored if a["primary"])  # executions (issue 14)
            want_samples = sum(a["primary"] for a in stored)
            if (c["n"] != want_n or c["samples"] != want_samples
                    or c["ok_attempts"] != len(stored) or c["status"] != "done"):
                mismatched.append((c["key"], c["n"], c["ok_attempts"], want_n, len(stored)))
        if mismatched:
            failures.append(f"{len(mismatched)} configurations whose results.json n/ok_attempts "
                            f"differ from the store (key, n, ok, stored n, stored ok): "
                            f"{mismatched[:3]}")
    elif not failures:
        failures.append("no results.json")

    figures = {
        "executions": len(ledger_ids), "stored_attempts": len(attempts),
        "stored_ok": sum(len(v) for v in ok_by_cfg.values()),
        "configurations": len(configs), "workers": WORKERS, "worker_kills": worker_kills,
        "coordinator_restarts": coord_kills, "redis_restarts": redis_restarts,
        "wall_seconds": round(wall, 1), "duplicates": len(dup_ids), "lost": len(lost),
        "ledger_repeats": len(ledger_ids) - len(ledger_set), "stuck": len(stuck),
        "n_mismatch": len(mismatched),
    }
    print("CHAOS " + json.dumps(figures))
    if failures:
        print("FAIL (logs kept in %s):\n  " % work + "\n  ".join(failures))
        return 1
    procs.close()
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
