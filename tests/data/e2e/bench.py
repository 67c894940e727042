#!/usr/bin/python3
"""A benchmark for the end-to-end tests (tests/e2e/). It speaks the protocol of docs/executors.md.

argv: bench.py X [MARKER]. Behaviour comes from the environment the spec sets:
  E2E_LEDGER     file to which ONE line "attempt_id,node,X,v1;v2;v3" is appended (O_APPEND, one
                 write) after the work and before the samples are printed: the benchmark's own
                 record of what it ran and which values it reported.
  E2E_INFLIGHT   optional directory: "<node>__<attempt_id>" exists there while the work runs.
  E2E_SLEEP      seconds of "work" per execution (default 0).
  E2E_FAIL_X     the X that always exits 1 after printing a sample (a non-deterministic failure).
  E2E_NI_X       the X that raises NotImplementedError (a deterministic failure).
  E2E_STRAGGLER_X  the X whose executions fail (exit 1) at different times: the first one waits
                 until a second execution of the same configuration runs, then fails at once;
                 every other one fails after 4 s (needs E2E_INFLIGHT).
  E2E_HANG_X     the X that hangs forever; it first starts a grandchild python (argv carries
                 MARKER) that ignores SIGTERM, so only the executor's group kill can end both.
The sample values are a function of the attempt id, so a test can check that the store holds
exactly the values this execution printed.
"""
import json
import os
import signal
import subprocess
import sys
import time
import zlib

x = sys.argv[1]
marker = sys.argv[2] if len(sys.argv) > 2 else ""
attempt = os.environ.get("FLEETSWEEP_ATTEMPT_ID", "")
node = os.environ.get("FLEETSWEEP_NODE", "")
if os.environ.get("FLEETSWEEP_PARAM_X") != x:
    sys.exit("bench.py: FLEETSWEEP_PARAM_X=%r but argv says %r" % (os.environ.get("FLEETSWEEP_PARAM_X"), x))


def emit(**record):
    print(json.dumps(record), flush=True)


values = [10.0 + (zlib.crc32(("%s/%d" % (attempt, i)).encode()) % 1000) / 1e5 for i in range(3)]


def write_ledger():
    ledger = os.environ.get("E2E_LEDGER")
    if ledger:
        line = "%s,%s,%s,%s\n" % (attempt, node, x, ";".join(repr(v) for v in values))
        fd = os.open(ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(fd, line.encode())
        os.close(fd)


inflight = os.environ.get("E2E_INFLIGHT", "")
flag = os.path.join(inflight, "%s__%s" % (node, attempt)) if inflight else ""
if flag:
    open(flag, "w").close()

if x == os.environ.get("E2E_HANG_X"):
    write_ledger()  # the benchmark's own record: it did start this attempt
    subprocess.Popen([sys.executable, "-c",
                      "import signal, time\n"
                      "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                      "time.sleep(1000)\n", marker])
    while True:
        time.sleep(1000)

if x == os.environ.get("E2E_STRAGGLER_X"):
    key = attempt.split("-")[0]

    def mine():
        return [f for f in os.listdir(inflight) if "__" in f and f.split("__", 1)[1].startswith(key + "-")]
    try:
        os.close(os.open(os.path.join(inflight, "first-" + key), os.O_CREAT | os.O_EXCL))
        first = True
    except FileExistsError:
        first = False
    if first:
        end = time.time() + 20
        while len(mine()) < 2 and time.time() < end:
            time.sleep(0.02)
    else:
        time.sleep(4)
    write_ledger()
    os.unlink(flag)
    sys.exit("bench.py: X=%s fails (%s execution)" % (x, "first" if first else "straggling"))

time.sleep(float(os.environ.get("E2E_SLEEP", "0")))
write_ledger()
if flag:
    os.unlink(flag)

if x == os.environ.get("E2E_NI_X"):
    raise NotImplementedError("X=%s is not implemented on this platform" % x)
emit(type="sample", metric="time_ms", values=values)
emit(type="fingerprint", value="e2e-bench-x%s" % x)
emit(type="check", passed=True, max_rel_error=0.0)
if x == os.environ.get("E2E_FAIL_X"):
    sys.stderr.write("bench.py: X=%s always fails\n" % x)
    sys.exit(1)
