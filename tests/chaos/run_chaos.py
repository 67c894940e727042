#!/usr/bin/env python3
"""Chaos test: a sweep of >= 2,000 short executions in persistent benchmark sessions survives
workers, benchmark sessions, the coordinator and Redis being killed under it, and loses or
double-counts no sample, and no process that escaped a benchmark's process group (setsid)
outlives a worker that exits normally.

400 configurations (VALUE x B) x 5 repetitions (by default; see Scale below) of bin/fleetsweep-tiny-bench over 8
fleetsweep-worker processes (1 slot each, own --scratch-root) against fleetsweep-coordinator and a
real redis-server (appendonly yes, appendfsync always). The executor section asks for persistent
sessions (docs/executors.md "Sessions"): each slot starts the benchmark once and sends it
prepare/run lines; VALUE reaches it only in the prepare line (no parameter is templated into the
command, so every configuration shares one session key) and becomes the execution's sample. While
it runs, the driver
  * SIGKILLs a random worker every 0.5-2 s and starts a replacement (until 90% of the executions,
    so that the last replacement joins before the coordinator exits),
  * SIGKILLs a random benchmark session process (a fleetsweep-tiny-bench child of a live worker,
    found through /proc) every 0.2-0.6 s, preferring one asleep in its --sleep-ms, i.e. between
    the ledger line and the sample of an execution,
  * SIGKILLs the coordinator twice and restarts it (same --redis, same --bind port),
  * SIGKILLs redis-server once and restarts it on the same dir and port (AOF replay).
At the start of each run the benchmark appends the attempt id to a ledger in its workdir (one
write() on an O_APPEND descriptor): one ledger per worker, each worker's own record of what ran.
At the end it checks
  * results.json (from the last coordinator's --out) aggregates all configurations, all done;
  * every configuration is DONE in the store (none stuck leased);
  * attempt ids are unique in the store, and no attempt id was run twice (over all ledgers);
  * every stored ok attempt is in the ledger of the worker (node) that stored it, with exactly one
    sample, equal to its configuration's VALUE (no sample crosses executions of a session);
  * every stored failed attempt was cut off by a session kill: term signal 9, not cancelled by the
    worker, class SIGNAL (or LAUNCH when the kill came before the session said ready; never for
    an attempt in a ledger, which had started to run), no more of them than session kills, and
    at least one cut off mid-run (in a ledger) -- and retried: every configuration still has >= 5
    stored ok attempts;
  * every ledger entry is stored under its worker, unless that worker was SIGKILLed (it died
    before its result was stored; the lease expired and was run again; a worker still running
    15 s after the sweep finished is SIGKILLed before the checks and reported as a straggler);
  * per configuration: results.json ok_attempts, failed_attempts and attempts equal the stored
    ones, n the number of ok executions with primary-metric samples, samples the number of those
    samples, median its VALUE;
  * every session's first run leaves a setsid'd `sleep` (tiny-bench --escape-sleep); none is
    left whose worker exited on its own (only those of SIGKILLed workers, re-parented to init).
Prints one line "CHAOS {json}" with the figures. Exit 0 pass, 1 fail, 77 no redis-server.
Bounded: gives up after FLEETSWEEP_CHAOS_DEADLINE seconds (default 150).
Scale: FLEETSWEEP_CHAOS_B (default 20) levels of B, i.e. 20 x B configurations x 5 executions;
FLEETSWEEP_CHAOS_B=200 runs the 20,000-execution sweep of docs/performance.md (give it a
FLEETSWEEP_CHAOS_DEADLINE of ~900 s on 2 cores); FLEETSWEEP_CHAOS_WORKERS (default 8).
"""
import collections
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaos_lib as cl  # noqa: E402

N_VALUE, REPS = 20, 5
N_B = int(os.environ.get("FLEETSWEEP_CHAOS_B", "20"))
WORKERS = int(os.environ.get("FLEETSWEEP_CHAOS_WORKERS", "8"))
SLEEP_MS = 20  # inside each run, after the ledger line: the window for mid-run session kills
DEADLINE = float(os.environ.get("FLEETSWEEP_CHAOS_DEADLINE", "150"))
SIGNAL_CLASS, LAUNCH_CLASS = 2, 9  # fleetsweep.v1.FailureClass (proto/fleetsweep/v1/data.proto)


def read_ledger(path):
    try:
        with open(path) as f:
            return [line.strip() for line in f if line.strip()]
    except FileNotFoundError:
        return []


def main():
    t0 = time.time()
    rng = random.Random(int(os.environ.get("FLEETSWEEP_CHAOS_SEED", "20240")))
    redis_bin = cl.redis_binary()
    coord_bin, worker_bin = cl.binary("fleetsweep-coordinator"), cl.binary("fleetsweep-worker")
    bench = cl.binary("fleetsweep-tiny-bench")
    cl.binary("fleetsweep-store-dump")
    work = tempfile.mkdtemp(prefix="fs-chaos-")
    procs = cl.Procs(work)
    out_dir = os.path.join(work, "out")
    redis_dir = os.path.join(work, "redis")
    os.makedirs(redis_dir)  # out_dir is left to the coordinator: --out creates it
    spec = os.path.join(work, "chaos.yaml")
    escape_arg = "1000.%d" % os.getpid()  # the escaped sleeps' argv[1]: found through /proc
    # {WORKDIR} is a built-in placeholder, not a parameter: it leaves the session key empty.
    with open(spec, "w") as f:
        f.write(f"""sweep: chaos
executor:
  type: exec
  command: ["{bench}", "--ledger", "{{WORKDIR}}/ledger.txt", "--sleep-ms", "{SLEEP_MS}",
            "--escape-sleep", "{escape_arg}"]
  workdir: chaos
  timeout: 20
  session: {{mode: persistent}}
parameters:
  VALUE: {{values: {list(range(1, N_VALUE + 1))}}}
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
                  "--insecure", "--exit-when-finished", "--out", out_dir, "--worker-timeout", "3",
                  "--no-progress"]
    coord_starts = [0]

    def start_coordinator():
        coord_starts[0] += 1
        return procs.start(coord_argv, f"coordinator{coord_starts[0]}")

    ledgers = {}  # node -> its ledger (in the worker's scratch root, workdir "chaos")
    worker_seq = [0]

    def start_worker():
        worker_seq[0] += 1
        node = f"w{worker_seq[0]}"
        scratch = os.path.join(work, "scratch", node)
        ledgers[node] = os.path.join(scratch, "chaos", "ledger.txt")
        p = procs.start([worker_bin, "--coordinator", endpoint, "--insecure", "--slots", "1",
                         "--redis", redis.url, "--node", node, "--exit-when-finished",
                         "--allow-exec", os.path.join(os.path.dirname(bench), "*"),
                         "--scratch-root", scratch, "--give-up-after", "60"], f"worker-{node}")
        p.node = node
        return p

    coord = start_coordinator()
    workers = [start_worker() for _ in range(WORKERS)]

    def executions():
        n = 0
        for path in ledgers.values():
            try:
                with open(path, "rb") as f:
                    n += f.read().count(b"\n")
            except FileNotFoundError:
                pass
        return n

    total = N_VALUE * N_B * REPS
    # Events fire at fractions of the ledgers' progress so they land inside the sweep however
    # fast this machine runs it.
    events = [(0.20, "coordinator"), (0.40, "redis"), (0.65, "coordinator")]
    worker_kills = coord_kills = redis_restarts = session_kills = session_kills_asleep = 0
    killed_nodes = set()
    next_worker_kill = time.time() + rng.uniform(0.5, 2)
    next_session_kill = time.time() + rng.uniform(0.2, 0.6)
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
        # The last replacement must have time to join before the coordinator exits: a worker
        # that never heard the sweep finish waits --give-up-after for a coordinator.
        if now >= next_worker_kill and done < 0.9 * total:
            live = [w for w in workers if w.poll() is None]
            if live:
                victim = rng.choice(live)
                procs.kill(victim)
                workers.remove(victim)
                killed_nodes.add(victim.node)
                worker_kills += 1
                workers.append(start_worker())
            next_worker_kill = now + rng.uniform(0.5, 2)
        if now >= next_session_kill:
            # Sessions of live workers only (a killed worker's session is an orphan that ends at
            # its stdin's EOF). Wait up to 0.5 s for one that is mid-run, then take any.
            parents = {w.pid for w in workers if w.poll() is None}
            sessions = cl.children_of(parents, bench)
            asleep = [pid for pid in sessions if cl.in_sleep(pid)]
            pick = asleep or (sessions if now >= next_session_kill + 0.5 else [])
            if pick and cl.kill_child(rng.choice(pick), parents, bench):
                session_kills += 1
                session_kills_asleep += 1 if asleep else 0
                next_session_kill = now + rng.uniform(0.2, 0.6)
        time.sleep(0.05)
    wall = time.time() - t0
    coord_rc = coord.poll()
    # Workers exit on their own once the coordinator said the sweep is finished (after at most
    # 5 s waiting for acknowledgements). One still running is SIGKILLed before anything is read,
    # so the ledgers and the store are final, and its executions count as cut off by a kill.
    stragglers = []
    wait_until = time.time() + 15
    for w in workers:
        try:
            w.wait(timeout=max(0.1, wait_until - time.time()))
        except subprocess.TimeoutExpired:
            procs.kill(w)
            killed_nodes.add(w.node)
            stragglers.append(w.node)

    # Escaped processes: every session's first run left a setsid'd `sleep` (re-parented to its
    # worker, a child subreaper). A worker that exited on its own killed them all; only those of
    # SIGKILLed workers (re-parented to init) may remain, and are cleaned up here.
    escaped = cl.processes_with_argv(["sleep", escape_arg])
    escaped_left = sorted(pid for pid, node in escaped.items() if node not in killed_nodes)
    for pid in escaped:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    failures = []
    if escaped_left:
        failures.append(f"{len(escaped_left)} setsid'd processes outlived the workers that "
                        f"exited normally: {escaped_left[:5]}")
    if status != "coordinator-exit" or coord_rc != 0:
        failures.append(f"sweep did not finish: {status}, coordinator rc={coord_rc}\n"
                        + cl.tail(os.path.join(work, f"coordinator{coord_starts[0]}.log")))
    if events:
        failures.append(f"sweep ended before these events fired: {events}")

    ran_on = {}  # attempt id -> node whose benchmark ran it
    ledger_ids = []
    for node, path in ledgers.items():
        for i in read_ledger(path):
            ledger_ids.append(i)
            ran_on[i] = node
    ledger_repeats = [i for i, c in collections.Counter(ledger_ids).items() if c > 1]
    configs, attempts = cl.read_dump(redis.url, "chaos")
    if any("params" not in c for c in configs.values()):
        print("fleetsweep-store-dump is older than this test (no config params): rebuild it",
              file=sys.stderr)
        return 1
    stored = {a["attempt_id"]: a for a in attempts}
    ids = [a["attempt_id"] for a in attempts]
    dup_ids = [i for i, c in collections.Counter(ids).items() if c > 1]
    value_of = {k: float(c["params"]["VALUE"]) for k, c in configs.items()}
    ok_by_cfg = collections.defaultdict(list)
    all_by_cfg = collections.defaultdict(list)
    for a in attempts:
        if not a["reference"]:
            all_by_cfg[a["config_key"]].append(a)
            if a["ok"]:
                ok_by_cfg[a["config_key"]].append(a)
    stuck = [k for k, c in configs.items() if c["state"] != 3]
    if len(configs) != N_VALUE * N_B:
        failures.append(f"store holds {len(configs)} configurations, want {N_VALUE * N_B}")
    if stuck:
        failures.append(f"{len(stuck)} configurations not DONE in the store, e.g. "
                        f"{[configs[k] for k in stuck[:3]]}")
    if dup_ids:
        failures.append(f"{len(dup_ids)} attempt ids stored twice, e.g. {dup_ids[:3]}")
    if ledger_repeats:
        failures.append(f"{len(ledger_repeats)} attempt ids run twice (ledgers), e.g. "
                        f"{ledger_repeats[:3]}")
    # Stored ok attempts: really ran, on the node that stored them, and measured their own VALUE.
    phantom = [a["attempt_id"] for a in attempts
               if a["ok"] and ran_on.get(a["attempt_id"]) != a["node"]]
    if phantom:
        failures.append(f"{len(phantom)} stored ok attempts missing from their worker's ledger, "
                        f"e.g. {[(i, stored[i]['node'], ran_on.get(i)) for i in phantom[:3]]}")
    wrong = [(a["attempt_id"], a["values"], value_of.get(a["config_key"])) for a in attempts
             if a["ok"] and a["values"] != [value_of.get(a["config_key"])]]
    if wrong:
        failures.append(f"{len(wrong)} ok attempts whose samples are not [VALUE] of their "
                        f"configuration (id, samples, VALUE): {wrong[:3]}")
    # Stored failed attempts: each one an execution cut off by a session SIGKILL.
    failed = [a for a in attempts if not a["ok"]]
    cut_mid_run = [a for a in failed if a["attempt_id"] in ran_on]
    unexplained = [a for a in failed
                   if a["term_signal"] != 9 or a["cancelled"]
                   or (a["failure_class"] != SIGNAL_CLASS
                       and not (a["failure_class"] == LAUNCH_CLASS
                                and a["attempt_id"] not in ran_on
                                and "before it said ready" in a["failure_detail"]))
                   or (a["attempt_id"] in ran_on and ran_on[a["attempt_id"]] != a["node"])]
    if unexplained:
        eg = [(a["attempt_id"], a["node"], a["failure_class"], a["term_signal"],
               a["failure_detail"][:200]) for a in unexplained[:3]]
        failures.append(f"{len(unexplained)} failed attempts not explained by a session SIGKILL "
                        f"(id, node, class, signal, detail), e.g. {eg}")
    if len(failed) > session_kills:
        failures.append(f"{len(failed)} failed attempts but only {session_kills} session kills")
    if not cut_mid_run:
        failures.append(f"no session was cut off mid-run ({session_kills} session kills, "
                        f"{len(failed)} failed attempts): the mid-execution kill was not exercised")
    # Ledger entries: stored under their worker, unless that worker was SIGKILLed.
    unstored = [i for i in ran_on if i not in stored]
    lost = [i for i in unstored if ran_on[i] not in killed_nodes]
    misfiled = [i for i in ran_on if i in stored and stored[i]["node"] != ran_on[i]]
    if lost:
        failures.append(f"{len(lost)} executions of workers never killed are not in the store, "
                        f"e.g. {[(i, ran_on[i]) for i in lost[:3]]}")
    if misfiled:
        failures.append(f"{len(misfiled)} ledger entries stored under another node, e.g. "
                        f"{[(i, ran_on[i], stored[i]['node']) for i in misfiled[:3]]}")
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
        if (s["configurations"] != N_VALUE * N_B or s["done"] != N_VALUE * N_B
                or s["unfinished"] != 0):
            failures.append(f"results.json summary {s}")
        for c in results["configurations"]:
            ok = ok_by_cfg.get(c["key"], [])
            every = all_by_cfg.get(c["key"], [])
            want_n = sum(1 for a in ok if a["primary"])  # executions (issue 14)
            want_samples = sum(a["primary"] for a in ok)
            if (c["n"] != want_n or c["samples"] != want_samples
                    or c["ok_attempts"] != len(ok) or c["attempts"] != len(every)
                    or c["failed_attempts"] != len(every) - len(ok) or c["status"] != "done"
                    or c["median"] != value_of.get(c["key"])):
                mismatched.append((c["key"], c["n"], c["ok_attempts"], c["failed_attempts"],
                                   c["median"], want_n, len(ok), len(every) - len(ok),
                                   value_of.get(c["key"])))
        if mismatched:
            failures.append(f"{len(mismatched)} configurations whose results.json differs from "
                            f"the store (key, n, ok, failed, median, stored n, stored ok, stored "
                            f"failed, VALUE): {mismatched[:3]}")
    elif not failures:
        failures.append("no results.json")

    figures = {
        "executions": len(ledger_ids), "stored_attempts": len(attempts),
        "stored_ok": sum(len(v) for v in ok_by_cfg.values()), "stored_failed": len(failed),
        "configurations": len(configs), "workers": WORKERS, "worker_kills": worker_kills,
        "session_kills": session_kills, "session_kills_asleep": session_kills_asleep,
        "cut_mid_run": len(cut_mid_run), "coordinator_restarts": coord_kills,
        "redis_restarts": redis_restarts, "wall_seconds": round(wall, 1),
        "duplicates": len(dup_ids), "ledger_repeats": len(ledger_repeats), "lost": len(lost),
        "phantom": len(phantom), "unexplained_failures": len(unexplained),
        "unstored_of_killed_workers": len(unstored) - len(lost), "stuck": len(stuck),
        "n_mismatch": len(mismatched), "stragglers": stragglers,
        "escaped_left": len(escaped_left), "escaped_found_after": len(escaped),
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
