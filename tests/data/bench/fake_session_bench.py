#!/usr/bin/env python3
"""A scripted benchmark that speaks the session protocol raw (no helper) and misbehaves on
command, for the session tests (worker/executors/session_test.cc, tests/e2e/test_sessions.py).

Per execution, the parameter ACT says what to do:
  ok           prepare, then in run: 3 samples of time_ms = VALUE (default 1), fingerprint, end
  hang         hang in run (never answers)
  crash        exit 3 in the middle of run (after one sample)
  segv         SIGSEGV itself in the middle of run
  after_end    like ok, then print one more sample after its end line
  prep_fail    answer prepare with an error line and end
  refuse       in run: an error line (invalid_argument), then exit 2 (one-shot) or end with
               status 2 (persistent)
  slow         like ok but the run sleeps SLEEP_MS milliseconds (default 30) while "timing"
With DEVICE_IN_RUN=1 (persistent), run sends a stray device request (the worker must drop it).
With DEVICE_PREP_MS=N (persistent), prepare asks for the device alone ({"fleetsweep":"device"}),
waits for device_granted and then uses the device for N ms (logged like a timed section).
For the whole process (environment):
  FAKE_START=die         exit 2 before ready;   FAKE_START=silent: never say ready
  FAKE_IGNORE_EOF=1      ignore stdin closing (keep running until killed)
  FAKE_START_DEVICE_MS=N before ready, ask for the device ({"fleetsweep":"device"}, no attempt
                         id), wait for device_granted, use the device N ms (logged like a timed
                         section), then say ready
  FAKE_TIMING_LOG=PATH   append "<pid> start|end <monotonic ns>" around each timed section
  FAKE_RUN_AFTER_PREPARE=1  offer run_after_prepare on the ready line: a prepare request with
                         "run": true runs right after prepared (a run line for it then crashes
                         the fake: it is no longer pending)
One-shot mode (no FLEETSWEEP_SESSION): one execution from FLEETSWEEP_PARAMS and the
FLEETSWEEP_PARAM_<NAME> variables, then exit.
"""
import json
import os
import signal
import sys
import time


def emit(**rec):
    sys.stdout.write(json.dumps(rec) + "\n")
    sys.stdout.flush()


def log_timing(what):
    path = os.environ.get("FAKE_TIMING_LOG")
    if path:
        with open(path, "a") as f:
            f.write("%d %s %d\n" % (os.getpid(), what, time.monotonic_ns()))


def run(params, attempt):
    act = params.get("ACT", "ok")
    value = float(params.get("VALUE", "1"))
    if act == "refuse":
        emit(type="error", **{"class": "invalid_argument", "detail": "VALUE refused"})
        if attempt is None:
            sys.exit(2)
        emit(fleetsweep="end", attempt_id=attempt, status=2)
        return
    if attempt is not None and params.get("DEVICE_IN_RUN"):
        emit(fleetsweep="device", attempt_id=attempt)
    log_timing("start")
    if act == "slow":
        time.sleep(float(params.get("SLEEP_MS", "30")) / 1000.0)
    if act == "hang":
        time.sleep(3600)
    emit(type="sample", metric="time_ms", value=value)
    if act == "crash":
        sys.stdout.flush()
        os._exit(3)
    if act == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    emit(type="sample", metric="time_ms", value=value)
    emit(type="sample", metric="time_ms", value=value)
    log_timing("end")
    emit(type="fingerprint", value="fake-%s-%s" % (params.get("VARIANT", act),
                                                   params.get("VALUE", "1")))
    emit(type="info", key="pid", value=str(os.getpid()))
    if attempt is not None:
        emit(fleetsweep="end", attempt_id=attempt)
        if act == "after_end":
            emit(type="sample", metric="time_ms", value=999.0)


def main():
    if os.environ.get("FLEETSWEEP_SESSION") != "persistent":
        params = json.loads(os.environ.get("FLEETSWEEP_PARAMS") or "{}")
        prefix = "FLEETSWEEP_PARAM_"  # how the worker passes parameters to a one-shot process
        params.update({k[len(prefix):]: v for k, v in os.environ.items() if k.startswith(prefix)})
        run(params, None)
        return 0
    start = os.environ.get("FAKE_START", "")
    if start == "die":
        sys.stderr.write("fake: dying before ready\n")
        return 2
    emit(type="info", key="session_pid", value=str(os.getpid()))
    if start == "silent":
        time.sleep(3600)
    start_device_ms = os.environ.get("FAKE_START_DEVICE_MS")
    if start_device_ms:
        emit(fleetsweep="device")
        granted = json.loads(sys.stdin.readline() or "{}")
        if granted.get("fleetsweep") != "device_granted":
            sys.stderr.write("fake: expected device_granted before ready, got %r\n" % granted)
            return 4
        log_timing("start")
        time.sleep(float(start_device_ms) / 1000.0)
        log_timing("end")
        emit(type="info", key="start_device_granted_to", value=granted.get("attempt_id", ""))
    offer = os.environ.get("FAKE_RUN_AFTER_PREPARE") == "1"
    if offer:
        emit(fleetsweep="ready", run_after_prepare=True)
    else:
        emit(fleetsweep="ready")
    pending = {}
    while True:
        line = sys.stdin.readline()
        if not line:
            if os.environ.get("FAKE_IGNORE_EOF") == "1":
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(3600)
            return 0
        req = json.loads(line)
        attempt = req.get("attempt_id")
        if req["fleetsweep"] == "prepare":
            params = req.get("params", {})
            if params.get("ACT") == "prep_fail":
                emit(type="error", **{"class": "not_implemented", "detail": "cannot prepare"})
                emit(fleetsweep="end", attempt_id=attempt)
                continue
            if params.get("DEVICE_PREP_MS"):
                emit(fleetsweep="device", attempt_id=attempt)
                granted = json.loads(sys.stdin.readline() or "{}")
                if granted.get("fleetsweep") != "device_granted":
                    sys.stderr.write("fake: expected device_granted, got %r\n" % granted)
                    return 4
                log_timing("start")
                time.sleep(float(params["DEVICE_PREP_MS"]) / 1000.0)
                log_timing("end")
            emit(fleetsweep="prepared", attempt_id=attempt)
            if offer and req.get("run") is True:
                run(params, attempt)
            else:
                pending[attempt] = params
        elif req["fleetsweep"] == "run":
            run(pending.pop(attempt), attempt)


if __name__ == "__main__":
    sys.exit(main())
