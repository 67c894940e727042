#!/usr/bin/env python3
"""CurveZMQ end to end over real sockets: a worker whose key is not in the coordinator's
authorised-keys list gets nothing and can submit nothing; an authorised worker is served and the
sweep completes. Also: a spec whose executable is outside a worker's --allow-exec is refused and
the configuration is marked failed (REFUSED), never run."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

BIN = os.environ.get("FLEETSWEEP_BIN", "build/bin")
FAILED = []


def check(cond, msg):
    if not cond:
        FAILED.append(msg)
        print("FAIL:", msg, flush=True)
    return cond


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def spec(path, name, command, marker):
    with open(path, "w") as f:
        f.write(f"""sweep: {name}
executor:
  type: exec
  command: {json.dumps(command)}
  timeout: 20
  env: {{MARKER: "{marker}"}}
parameters:
  X: {{values: [1, 2, 3]}}
repetitions: {{min: 2, max: 2}}
metrics: [{{name: t, goal: minimize}}]
""")


BENCH = r"""
import os, sys
open(os.environ["MARKER"], "a").write(os.environ["FLEETSWEEP_ATTEMPT_ID"] + "\n")
x = int(os.environ["FLEETSWEEP_PARAM_X"])
print('{"type":"fingerprint","value":"fp%d"}' % x)
for i in range(3):
    print('{"type":"sample","metric":"t","value":%f}' % (x + 0.01 * i))
"""


def main():
    for b in ("fleetsweep", "fleetsweep-coordinator", "fleetsweep-worker"):
        if not os.path.exists(os.path.join(BIN, b)):
            print(f"missing {BIN}/{b}")
            return 77
    work = tempfile.mkdtemp(prefix="fs-curve-")
    procs = []
    try:
        fs = os.path.join(BIN, "fleetsweep")
        for who in ("coord", "good", "bad"):
            r = subprocess.run([fs, "keygen", "--out", os.path.join(work, who)],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"keygen {who}: {r.stderr}")
        check(oct(os.stat(os.path.join(work, "coord.key")).st_mode & 0o777) == "0o600",
              "secret key file is not 0600")
        good_pub = open(os.path.join(work, "good.pub")).read()
        with open(os.path.join(work, "authorized"), "w") as f:
            f.write("# authorised workers\n" + good_pub)
        bench = os.path.join(work, "bench.py")
        open(bench, "w").write(BENCH)
        marker = os.path.join(work, "ran.txt")
        sp = os.path.join(work, "spec.yaml")
        spec(sp, "curve", ["/usr/bin/python3", bench], marker)
        port = free_port()
        ep = f"tcp://127.0.0.1:{port}"
        out = os.path.join(work, "out")
        clog = open(os.path.join(work, "coordinator.log"), "w")
        coord = subprocess.Popen(
            [os.path.join(BIN, "fleetsweep-coordinator"), "--spec", sp, "--redis",
             "file:" + os.path.join(work, "store"), "--bind", ep, "--exit-when-finished", "--out", out,
             "--no-progress", "--curve-secret-key", os.path.join(work, "coord.key"),
             "--authorized-keys", os.path.join(work, "authorized")],
            stdout=clog, stderr=subprocess.STDOUT)
        procs.append(coord)
        time.sleep(0.5)
        worker = os.path.join(BIN, "fleetsweep-worker")
        common = ["--coordinator", ep, "--slots", "1", "--exit-when-finished",
                  "--curve-server-key", os.path.join(work, "coord.pub")]
        # 0. Cluster mode without an exec allow-list: the worker refuses to start (issue 15/4).
        bare = subprocess.run([worker] + common + ["--curve-secret-key",
                                                   os.path.join(work, "good.key")],
                              capture_output=True, text=True, timeout=60)
        check(bare.returncode == 2 and "--allow-exec" in bare.stderr,
              f"a cluster worker without --allow-exec started: {bare.returncode} {bare.stderr[-300:]}")
        check(not os.path.exists(marker), "the worker without an allow-list ran a benchmark")
        common += ["--allow-exec", "/usr/bin/python3*"]
        # 1. The unauthorised worker: its handshake is refused; it gives up having run nothing.
        bad = subprocess.run([worker] + common + ["--curve-secret-key",
                                                  os.path.join(work, "bad.key"),
                                                  "--node", "intruder", "--give-up-after", "4"],
                             capture_output=True, text=True, timeout=60)
        check(bad.returncode != 0, f"unauthorised worker exited {bad.returncode}")
        check("no answer from coordinator" in bad.stderr, "unauthorised worker: " + bad.stderr[-500:])
        check(not os.path.exists(marker), "the unauthorised worker ran a benchmark")
        # 2. The authorised worker is served and the sweep completes.
        good = subprocess.run([worker] + common + ["--curve-secret-key",
                                                   os.path.join(work, "good.key"),
                                                   "--node", "trusted"],
                              capture_output=True, text=True, timeout=90)
        check(good.returncode == 0, f"authorised worker exited {good.returncode}: {good.stderr[-800:]}")
        rc = coord.wait(timeout=60)
        check(rc == 0, f"coordinator exit {rc}")
        res = json.load(open(os.path.join(out, "results.json")))
        check(res["summary"]["done"] == 3, f"summary {res['summary']}")
        nodes = set()
        for c in res["configurations"]:
            nodes.update(c.get("nodes", []))
        check(nodes == {"trusted"}, f"nodes that reported: {nodes}")
        clog.close()
        log = open(os.path.join(work, "coordinator.log")).read()
        check("not authorised" in log, "coordinator did not log the refused key")

        # 3. Exec allow-list: the spec's executable is outside --allow-exec -> refused, never run.
        marker2 = os.path.join(work, "ran2.txt")
        sp2 = os.path.join(work, "spec2.yaml")
        spec(sp2, "allow", ["/usr/bin/python3", bench], marker2)
        r = subprocess.run([fs, "run", sp2, "--workers", "1", "--out", os.path.join(work, "out2"),
                            "--worker-arg=--allow-exec", "--worker-arg=/opt/allowed/*"],
                           capture_output=True, text=True, timeout=120)
        check(not os.path.exists(marker2), "a refused executable was run")
        res2 = json.load(open(os.path.join(work, "out2", "results.json")))
        classes = {c["status"]: c.get("failure", {}).get("class") for c in res2["configurations"]}
        check(res2["summary"]["infeasible"] == 3, f"allow-list summary {res2['summary']}")
        check(classes.get("infeasible") == "refused", f"failure classes {classes}")
        detail = res2["configurations"][0].get("failure", {}).get("detail", "")
        check("allow" in detail, f"refusal detail does not say why: {detail}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if not FAILED:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("work dir kept:", work)
    print("curve/allow-list:", "OK" if not FAILED else f"{len(FAILED)} checks failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
