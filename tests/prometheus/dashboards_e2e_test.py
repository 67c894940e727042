#!/usr/bin/python3
"""End-to-end check of the metrics and dashboards against real processes (docs/metrics.md).

Starts redis-server, a real fleetsweep-coordinator, two fleetsweep-worker processes (metrics on
free loopback ports, --insecure) running tests/data/specs-metrics/metrics-e2e.yaml, and a real
Prometheus server scraping all three every second. Then:
  * every template variable (label_values) of every dashboard must return values,
  * EVERY query of EVERY panel of dashboards/*.json, with the variables substituted as Grafana
    would, must return data through Prometheus's /api/v1/query,
  * a few values must be right (progress reaches 1, both nodes sampled, the failing
    configuration shows up as failed executions),
  * `promtool check metrics` must accept both live /metrics endpoints.

Exit 0 pass, 1 fail, 77 skip (only when prometheus or redis-server is not installed).
Environment: FLEETSWEEP_BIN (the build's bin/), FLEETSWEEP_SRC (the repo root).
Bounded: gives up after DEADLINE_S seconds. Standard library only.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dashboard_queries as dq  # noqa: E402

DEADLINE_S = 85
SKIP = 77
SWEEP = "metrics-e2e"
NODES = ["metrics-node-a", "metrics-node-b"]

SRC = os.environ.get("FLEETSWEEP_SRC") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BIN = os.environ.get("FLEETSWEEP_BIN") or os.path.join(SRC, "build", "bin")
START = time.monotonic()


def left():
    return DEADLINE_S - (time.monotonic() - START)


def log(msg):
    print("[%5.1fs] %s" % (time.monotonic() - START, msg), flush=True)


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


def http_get(url, timeout=3.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode("utf-8", "replace")


def wait_http(url, what, budget):
    end = time.monotonic() + budget
    last = None
    while time.monotonic() < end:
        try:
            status, body = http_get(url, timeout=1.0)
            if status == 200:
                return body
        except (urllib.error.URLError, OSError) as e:
            last = e
        time.sleep(0.2)
    raise RuntimeError("%s did not answer 200 at %s within %.0fs (%s)" % (what, url, budget, last))


class Procs:
    """Processes this test started; stopped (terminate, then kill) in reverse order."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.procs = []

    def start(self, name, argv):
        logf = open(os.path.join(self.tmp, name + ".log"), "wb")
        p = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.procs.append((name, p, logf))
        log("started %s (pid %d): %s" % (name, p.pid, " ".join(argv)))
        return p

    def check_alive(self):
        for name, p, _ in self.procs:
            if p.poll() is not None:
                raise RuntimeError("%s exited early with status %s" % (name, p.returncode))

    def tails(self, lines=25):
        out = []
        for name, _, logf in self.procs:
            logf.flush()
            with open(logf.name, "rb") as f:
                text = f.read().decode("utf-8", "replace").splitlines()
            out.append("---- %s (last %d lines) ----\n%s" % (name, lines, "\n".join(text[-lines:])))
        return "\n".join(out)

    def stop(self):
        for _, p, _ in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for _, p, logf in reversed(self.procs):
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            logf.close()


class Prom:
    def __init__(self, port):
        self.base = "http://127.0.0.1:%d" % port

    def api(self, path, params):
        url = self.base + path + "?" + urllib.parse.urlencode(params, doseq=True)
        _, body = http_get(url, timeout=5.0)
        doc = json.loads(body)
        if doc.get("status") != "success":
            raise RuntimeError("%s: %s" % (url, body[:500]))
        return doc["data"]

    def query(self, expr):
        data = self.api("/api/v1/query", {"query": expr})
        return data["resultType"], data["result"]

    def scalar(self, expr):
        """The value of a one-series instant vector, or None."""
        _, res = self.query(expr)
        if len(res) != 1:
            return None
        return float(res[0]["value"][1])

    def label_values(self, metric, label):
        return self.api("/api/v1/label/%s/values" % label, {"match[]": metric})


def nonempty(result_type, result):
    if result_type in ("scalar", "string"):
        return result is not None
    return len(result) > 0


def write_prometheus_config(path, coord_port, worker_ports):
    with open(path, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
                "  evaluation_interval: 1s\n"
                "scrape_configs:\n"
                "  - job_name: fleetsweep-coordinator\n"
                "    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                "  - job_name: fleetsweep-worker\n"
                "    static_configs:\n      - targets: [%s]\n"
                % (coord_port, ", ".join("'127.0.0.1:%d'" % p for p in worker_ports)))


def promtool_check(promtool, text):
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=20)
    return r.returncode, (r.stdout + r.stderr).strip()


def dashboard_queries():
    """[(dashboard title, variables [(name, metric, label, multi)], [(panel, refId, expr)])]."""
    out = []
    for path in dq.dashboard_paths(SRC):
        d = dq.load(path)
        out.append((d.get("title", path), dq.query_variables(d), list(dq.targets(d))))
    return out


def run(tmp, procs):
    prometheus = shutil.which("prometheus")
    redis = shutil.which("redis-server")
    promtool = shutil.which("promtool")
    if not prometheus or not redis:
        print("SKIP: needs the `prometheus` and `redis-server` binaries (Debian packages "
              "prometheus, redis-server); prometheus=%s redis-server=%s" % (prometheus, redis))
        return SKIP
    coordinator = os.path.join(BIN, "fleetsweep-coordinator")
    worker = os.path.join(BIN, "fleetsweep-worker")
    for b in (coordinator, worker):
        if not os.access(b, os.X_OK):
            print("FAIL: %s is not built (FLEETSWEEP_BIN=%s)" % (b, BIN))
            return 1
    spec = os.path.join(SRC, "tests", "data", "specs-metrics", "metrics-e2e.yaml")
    boards = dashboard_queries()
    if not boards:
        print("FAIL: no dashboards in %s/dashboards" % SRC)
        return 1

    redis_port, zmq_port, coord_mport, wa_mport, wb_mport, prom_port = free_ports(6)
    redis_url = "redis://127.0.0.1:%d" % redis_port
    procs.start("redis", [redis, "--port", str(redis_port), "--bind", "127.0.0.1",
                          "--save", "", "--appendonly", "no", "--dir", tmp])
    end = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", redis_port), timeout=0.5).close()
            break
        except OSError:
            if time.monotonic() > end:
                raise RuntimeError("redis-server did not listen")
            time.sleep(0.1)

    procs.start("coordinator", [
        coordinator, "--spec", spec, "--redis", redis_url,
        "--bind", "tcp://127.0.0.1:%d" % zmq_port, "--metrics-port", str(coord_mport),
        "--heartbeat", "1", "--lease-timeout", "20", "--insecure"])
    wait_http("http://127.0.0.1:%d/metrics" % coord_mport, "coordinator", 15)
    for node, mport in zip(NODES, (wa_mport, wb_mport)):
        procs.start(node, [
            worker, "--coordinator", "tcp://127.0.0.1:%d" % zmq_port, "--redis", redis_url,
            "--slots", "1", "--node", node, "--metrics-port", str(mport),
            "--allow-exec", "/usr/bin/python3", "--insecure"])
    for node, mport in zip(NODES, (wa_mport, wb_mport)):
        wait_http("http://127.0.0.1:%d/metrics" % mport, node, 15)

    prom_cfg = os.path.join(tmp, "prometheus.yml")
    write_prometheus_config(prom_cfg, coord_mport, [wa_mport, wb_mport])
    procs.start("prometheus", [
        prometheus, "--config.file=" + prom_cfg,
        "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
        "--web.listen-address=127.0.0.1:%d" % prom_port, "--log.level=warn"])
    wait_http("http://127.0.0.1:%d/-/ready" % prom_port, "prometheus", 20)
    prom = Prom(prom_port)

    # 1. All three targets scraped; the sweep finishes (done + infeasible = planned).
    progress_expr = ('sum(fleetsweep_coordinator_configurations{sweep="%s",state=~"done|infeasible"})'
                     ' / sum(fleetsweep_coordinator_configurations_planned{sweep="%s"})'
                     % (SWEEP, SWEEP))
    progress = None
    while left() > 30:
        procs.check_alive()
        up = prom.scalar('sum(up{job=~"fleetsweep-.*"})')
        progress = prom.scalar(progress_expr)
        if up == 3 and progress is not None and progress >= 1:
            break
        time.sleep(1)
    log("targets up, progress=%s" % progress)
    failures = []
    if progress is None or progress < 1:
        failures.append("the sweep did not finish while scraped (progress %s)" % progress)

    # 2. Every dashboard variable and query returns data. Queries are retried until the
    #    deadline: values the coordinator sets at the end (node effects, audits) need a scrape.
    pending = {}
    for title, variables, targets in boards:
        values = {}
        for name, metric, label, multi in variables:
            got = prom.label_values(metric, label)
            if not got:
                failures.append("%s: variable $%s (label_values(%s, %s)) is empty"
                                % (title, name, metric, label))
                got = ["<none>"]
            if name == "sweep":
                if SWEEP not in got:
                    failures.append("%s: $sweep values %r lack %s" % (title, got, SWEEP))
                got = [SWEEP]
            if name == "node":
                missing = [n for n in NODES if n not in got]
                if missing:
                    failures.append("%s: $node values %r lack %r" % (title, got, missing))
            values[name] = got if multi else got[:1]
        for panel, ref, expr in targets:
            pending[(title, panel, ref)] = dq.substitute(expr, values)
    results = {}
    while pending and left() > 5:
        for key, expr in list(pending.items()):
            try:
                rtype, res = prom.query(expr)
            except RuntimeError as e:
                results[key] = "error: %s" % e
                continue
            if nonempty(rtype, res):
                results[key] = "ok (%d series)" % len(res)
                del pending[key]
            else:
                results[key] = "no data"
        if pending:
            time.sleep(1)
            procs.check_alive()
    n_queries = len(results)
    for (title, panel, ref), expr in sorted(pending.items()):
        failures.append("%s / %s / %s: %s for %s" % (title, panel, ref,
                                                     results.get((title, panel, ref)), expr))
    log("%d dashboard queries, %d without data" % (n_queries, len(pending)))

    # 3. A few values that must be right.
    for node in NODES:
        s = prom.scalar('sum(fleetsweep_worker_samples_total{node="%s"})' % node)
        if not s or s <= 0:
            failures.append("node %s reported no samples (fleetsweep_worker_samples_total=%s)"
                            % (node, s))
    f = prom.scalar('sum(fleetsweep_worker_executions_total{result="failed"})')
    if not f or f <= 0:
        failures.append("the failing configuration (N=4) shows no failed executions (%s)" % f)
    ok = prom.scalar('sum(fleetsweep_coordinator_attempts_total{sweep="%s",result="ok"})' % SWEEP)
    if not ok or ok < 9:  # 3 feasible configurations x 3 repetitions at least
        failures.append("coordinator counted %s ok attempts, expected >= 9" % ok)

    # 4. promtool check metrics on both kinds of live endpoint.
    if promtool:
        for what, port in (("coordinator", coord_mport), (NODES[0], wa_mport)):
            _, text = http_get("http://127.0.0.1:%d/metrics" % port)
            rc, out = promtool_check(promtool, text)
            if rc != 0:
                failures.append("promtool check metrics on %s: exit %d\n%s" % (what, rc, out))
    else:
        log("promtool not installed: live /metrics lint skipped")

    for fl in failures:
        print("FAIL " + fl)
    if failures:
        print(procs.tails())
    print("%d passed, %d failed" % (n_queries - len(pending), len(failures)))
    return 1 if failures else 0


def main():
    tmp = tempfile.mkdtemp(prefix="fleetsweep-prom-e2e-")
    procs = Procs(tmp)
    try:
        return run(tmp, procs)
    except Exception as e:  # report with the processes' logs, never hang
        print("FAIL: %s: %s" % (type(e).__name__, e))
        print(procs.tails())
        return 1
    finally:
        procs.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
