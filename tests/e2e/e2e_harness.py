"""Shared pieces of the end-to-end tests of distributed execution (tests/e2e/test_*.py).

Real processes only: a real redis-server (AOF on) on a free loopback port in a private temp dir,
the real fleetsweep-coordinator and fleetsweep-worker binaries from $FLEETSWEEP_BIN, and the
benchmark tests/data/e2e/bench.py. Redis is read with a tiny RESP client and the stored protobuf
records (v1.Attempt, v1.ConfigRecord) with a tiny wire-format decoder, so no third-party module
is needed. Standard library only.

Every test is a `Case`: it owns a temp dir and every process it starts, and stops them (SIGTERM,
then SIGKILL) on every exit path. Exit codes: 0 pass, 1 fail, 77 skip (a missing binary).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

# Re-exported for the tests (h.Store, h.decode_attempt, ...).
from redis_records import (CONFIG_STATES, FAILURE_CLASSES, Resp, Store,  # noqa: F401
                           decode_attempt, decode_config, pb_fields)

SKIP = 77
SRC = os.environ.get("FLEETSWEEP_SRC") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BIN = os.environ.get("FLEETSWEEP_BIN") or os.path.join(SRC, "build", "bin")
DATA = os.path.join(SRC, "tests", "data", "e2e")
BENCH = os.path.join(DATA, "bench.py")



class TestFailure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise TestFailure(msg)


def free_ports(n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def read_ledger(path):
    """The benchmark's own record: [(attempt_id, node, X, [values])]."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for line in f:
            aid, node, x, vals = line.rstrip("\n").split(",")
            out.append((aid, node, x, [float(v) for v in vals.split(";")]))
    return out


# ---- the test case: temp dir + processes ----

class Case:
    def __init__(self, name, deadline_s):
        self.name = name
        self.start = time.monotonic()
        self.deadline_s = deadline_s
        self.tmp = tempfile.mkdtemp(prefix="fs-e2e-%s-" % name)
        self.procs = []  # (name, Popen, log path)
        self.ledger = os.path.join(self.tmp, "ledger.csv")
        self.inflight = os.path.join(self.tmp, "inflight")
        os.makedirs(self.inflight)
        self.redis_port = None
        self.redis_password = None

    # -- helpers --
    def log(self, msg):
        print("[%s %5.1fs] %s" % (self.name, time.monotonic() - self.start, msg), flush=True)

    def left(self):
        return self.deadline_s - (time.monotonic() - self.start)

    def require_binaries(self, *names):
        for n in names:
            path = n if os.path.isabs(n) else os.path.join(BIN, n)
            if not os.access(path, os.X_OK):
                self.log("SKIP: %s not found" % path)
                sys.exit(SKIP)

    def render_spec(self, template, **subst):
        """Writes tests/data/e2e/TEMPLATE with @KEY@ replaced into the temp dir; returns its path."""
        with open(os.path.join(DATA, template)) as f:
            text = f.read()
        values = {"BENCH": BENCH, "LEDGER": self.ledger, "INFLIGHT": self.inflight, "SLEEP": "0"}
        values.update({k: str(v) for k, v in subst.items()})
        for k, v in values.items():
            text = text.replace("@%s@" % k, v)
        check("@" not in text.split("executor:")[1].split("parameters:")[0],
              "unreplaced @TOKEN@ in the rendered %s" % template)
        path = os.path.join(self.tmp, template)
        with open(path, "w") as f:
            f.write(text)
        return path

    def spawn(self, name, argv, env=None):
        logpath = os.path.join(self.tmp, name + ".log")
        logf = open(logpath, "ab")
        full_env = dict(os.environ)
        full_env.update(env or {})
        p = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=full_env)
        logf.close()
        self.procs.append((name, p, logpath))
        self.log("started %s (pid %d): %s" % (name, p.pid, " ".join(argv)))
        return p

    def read_log(self, name):
        with open(os.path.join(self.tmp, name + ".log"), "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_until(self, what, cond, budget, interval=0.1):
        end = time.monotonic() + min(budget, max(0.0, self.left()))
        while time.monotonic() < end:
            v = cond()
            if v:
                return v
            time.sleep(interval)
        raise TestFailure("timed out after %.0fs waiting for %s" % (budget, what))

    def wait_exit(self, p, what, budget):
        try:
            return p.wait(timeout=max(0.1, min(budget, self.left())))
        except subprocess.TimeoutExpired:
            raise TestFailure("%s (pid %d) did not exit within %.0fs" % (what, p.pid, budget))

    # -- redis --
    def start_redis(self, password=None):
        if not shutil.which("redis-server"):
            self.log("SKIP: redis-server not installed")
            sys.exit(SKIP)
        (port,) = free_ports(1)
        rdir = os.path.join(self.tmp, "redis")
        os.makedirs(rdir)
        argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", rdir,
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                "--daemonize", "no", "--protected-mode", "yes"]
        if password:
            argv += ["--requirepass", password]
        self.redis_proc = self.spawn("redis", argv)
        self.redis_port, self.redis_password = port, password

        def pong():
            try:
                r = Resp(port, password)
                try:
                    return r.call("PING") == "PONG"
                finally:
                    r.close()
            except (OSError, RuntimeError, ConnectionError):
                return False
        self.wait_until("redis PONG on port %d" % port, pong, 15)
        return port

    def redis_url(self):
        if self.redis_password:
            return "redis://:%s@127.0.0.1:%d" % (self.redis_password, self.redis_port)
        return "redis://127.0.0.1:%d" % self.redis_port

    def store(self, sweep):
        return Store(self.redis_port, sweep, self.redis_password)

    # -- fleetsweep processes --
    def start_coordinator(self, spec, port, name="coordinator", extra=(), make_out=True):
        out = os.path.join(self.tmp, "out")
        if make_out:
            os.makedirs(out, exist_ok=True)
        argv = [os.path.join(BIN, "fleetsweep-coordinator"), "--spec", spec,
                "--redis", self.redis_url(), "--insecure", "--bind", "tcp://127.0.0.1:%d" % port,
                "--exit-when-finished", "--out", out, "--worker-timeout", "3"] + list(extra)
        return self.spawn(name, argv)

    def start_workers(self, n, port, prefix="w", extra=()):
        ps = []
        for i in range(n):
            node = "e2e-%s%d" % (prefix, i)
            argv = [os.path.join(BIN, "fleetsweep-worker"), "--coordinator",
                    "tcp://127.0.0.1:%d" % port, "--insecure", "--slots", "1",
                    "--redis", self.redis_url(), "--node", node, "--worker-id", node,
                    "--exit-when-finished"] + list(extra)
            ps.append(self.spawn(node, argv))
        return ps

    def results(self):
        path = os.path.join(self.tmp, "out", "results.json")
        check(os.path.exists(path), "no results.json at " + path)
        with open(path) as f:
            return json.load(f)

    def stop_all(self):
        for _, p, _ in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for name, p, _ in reversed(self.procs):
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.log("%s (pid %d) ignored SIGTERM; SIGKILL" % (name, p.pid))
                p.kill()
                p.wait()

    def dump_logs(self, lines=40):
        for name, _, path in self.procs:
            try:
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8", "replace").splitlines()
            except OSError:
                continue
            print("---- %s (last %d lines) ----" % (name, lines))
            print("\n".join(text[-lines:]))


def run(name, deadline_s, body):
    """Runs body(case); prints PASS/FAIL; exits 0 / 1 (77 from inside body for a skip)."""
    case = Case(name, deadline_s)
    ok = False
    try:
        body(case)
        ok = True
    except TestFailure as e:
        case.log("FAIL: %s" % e)
    except Exception:  # noqa: BLE001 - any crash of the test is a failure with its traceback
        case.log("FAIL (exception):\n" + traceback.format_exc())
    finally:
        if not ok:
            case.dump_logs()
        case.stop_all()
    if ok:
        case.log("PASS in %.1fs" % (time.monotonic() - case.start))
        shutil.rmtree(case.tmp, ignore_errors=True)
        sys.exit(0)
    case.log("temp dir kept: %s" % case.tmp)
    sys.exit(1)


def check_results_complete(case, res, repetitions, expect_configs):
    """Every configuration done with n > 0 samples and at least `repetitions` ok attempts."""
    configs = res["configurations"]
    check(len(configs) == expect_configs,
          "results.json has %d configurations, expected %d" % (len(configs), expect_configs))
    for c in configs:
        check(c["status"] == "done", "configuration %s (%s) is %s, not done"
              % (c["key"], c["params"], c["status"]))
        check(c["n"] > 0, "configuration %s has n = %s" % (c["key"], c["n"]))
        check(c["ok_attempts"] >= repetitions, "configuration %s has %d ok attempts < %d"
              % (c["key"], c["ok_attempts"], repetitions))
    check(res["summary"]["done"] == expect_configs, "summary: %s" % res["summary"])


def check_store_matches_ledger(case, store, ledger, allowed_missing=lambda row: False):
    """The store and the benchmark's ledger agree: every stored attempt ran exactly once (it is in
    the ledger exactly once, with the samples it printed), ids are unique, and ledger rows missing
    from the store are only those `allowed_missing` accepts. Returns (attempts, ledger rows)."""
    attempts = store.attempts()
    check(store.count_attempts() == len(attempts), "HLEN disagrees with HGETALL")
    ids = [a["attempt_id"] for a in attempts.values()]
    check(len(set(ids)) == len(ids), "duplicate attempt ids in the store")
    for field, a in attempts.items():
        check(field == "%s/%s" % (a["config_key"], a["attempt_id"]),
              "attempt stored under field %s holds %s/%s" % (field, a["config_key"], a["attempt_id"]))
    by_id = {}
    for row in ledger:
        by_id.setdefault(row[0], []).append(row)
    for aid, a in ((a["attempt_id"], a) for a in attempts.values()):
        rows = by_id.get(aid, [])
        check(len(rows) == 1, "stored attempt %s appears %d times in the benchmark ledger"
              % (aid, len(rows)))
        if a["ok"]:
            got = sorted(v for m, v in a["samples"] if m == "time_ms")
            check(got == sorted(rows[0][3]), "attempt %s: stored samples %s != printed %s"
                  % (aid, got, rows[0][3]))
            check(rows[0][1] == a["node"], "attempt %s: node %s in store, %s in ledger"
                  % (aid, a["node"], rows[0][1]))
    stored = set(ids)
    for row in ledger:
        if row[0] not in stored:
            check(allowed_missing(row), "the benchmark ran attempt %s (node %s, X=%s) but the "
                  "store does not have it" % (row[0], row[1], row[2]))
    for aid, rows in by_id.items():
        check(len(rows) == 1, "attempt id %s ran %d times" % (aid, len(rows)))
    return attempts, ledger


def timeline(attempts, config_key=None):
    """Text lines: the stored attempts (of one configuration) in start order, for diagnostics."""
    rows = sorted((a["started_unix_ms"], a["duration_seconds"], a["attempt_id"], a["node"],
                   a["failure_class"]) for a in attempts.values()
                  if config_key is None or a["config_key"] == config_key)
    t0 = rows[0][0] if rows else 0
    return ["  start %+7.3fs end %+7.3fs  %s on %s: %s" % ((s - t0) / 1e3, (s - t0) / 1e3 + d, aid,
                                                           node, cls)
            for s, d, aid, node, cls in rows]


def check_results_vs_store(res, attempts, samples_per_attempt=3):
    """results.json aggregated each stored ok attempt exactly once: per configuration, n equals
    samples_per_attempt x the stored ok attempts, and attempts/ok_attempts match the store."""
    per_key = {}
    for a in attempts.values():
        if a["reference"]:
            continue
        ok, failed = per_key.get(a["config_key"], (0, 0))
        per_key[a["config_key"]] = (ok + a["ok"], failed + (not a["ok"]))
    for c in res["configurations"]:
        ok, failed = per_key.get(c["key"], (0, 0))
        check(c["ok_attempts"] == ok and c["attempts"] == ok + failed,
              "configuration %s: results.json says %d attempts (%d ok), the store holds %d (%d ok)"
              % (c["key"], c["attempts"], c["ok_attempts"], ok + failed, ok))
        check(c["n"] == ok, "configuration %s: n = %d executions, expected %d"
              % (c["key"], c["n"], ok))
        check(c["samples"] == samples_per_attempt * ok,
              "configuration %s: samples = %d, expected %d x %d"
              % (c["key"], c["samples"], samples_per_attempt, ok))
