#!/usr/bin/env python3
"""Tests of fleetsweep_bench (the benchmark authors' helper), through a real subprocess that
serves a small benchmark in both modes: the session protocol lines, errors that keep the
session, and take_device() (the device gate requested from prepare)."""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

BENCH = r'''
import sys
sys.path.insert(0, %r)
import fleetsweep_bench as fsb
def prepare(ctx, params):
    if params.get("FAIL"):
        raise fsb.BenchError("not_implemented", "no such tile")
    if params.get("DEVICE"):
        fsb.take_device()
        fsb.take_device()  # a second call in the same execution asks nothing
    return params["X"] * 2
def run(ctx, prepared, params, out):
    out.sample("time_ms", float(prepared))
def setup(session):
    import os
    if os.environ.get("START_DEVICE"):
        fsb.take_device()
        fsb.take_device()  # asked once
        print("warmed with the device")  # the helper sends prints to stderr
    return None
fsb.serve(run, prepare=prepare, setup=setup)
''' % HERE


def start(persistent, extra_env=None):
    env = dict(os.environ)
    env.update(extra_env or {})
    if persistent:
        env["FLEETSWEEP_SESSION"] = "persistent"
    else:
        env["FLEETSWEEP_PARAMS"] = json.dumps({"X": "3", "DEVICE": "1"})
    return subprocess.Popen([sys.executable, "-c", BENCH], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)


class Session:
    def __init__(self, offer=False, start_device=False):
        """start_device: setup takes the device; the caller answers before ready (no expect)."""
        env = {"FSB_RUN_AFTER_PREPARE": "1"} if offer else {}
        if start_device:
            env["START_DEVICE"] = "1"
        self.p = start(True, env)
        if not start_device:
            self.expect({"fleetsweep": "ready", "run_after_prepare": True} if offer
                        else {"fleetsweep": "ready"})

    def send(self, **req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        if not line:
            raise AssertionError("benchmark closed its stdout")
        return json.loads(line)

    def expect(self, want):
        got = self.read()
        if got != want:
            raise AssertionError("want %r, got %r" % (want, got))

    def two_step(self, attempt, x):
        """One execution without a device request: prepare, prepared, run, its sample (2 x), end."""
        self.send(fleetsweep="prepare", attempt_id=attempt, params={"X": str(x)})
        self.expect({"fleetsweep": "prepared", "attempt_id": attempt})
        self.send(fleetsweep="run", attempt_id=attempt)
        self.expect({"type": "sample", "metric": "time_ms", "value": 2.0 * x})
        self.expect({"fleetsweep": "end", "attempt_id": attempt})

    def prepared_with_device(self, attempt, x):
        """A prepare that takes the device: device asked for by `attempt`, granted, prepared."""
        self.send(fleetsweep="prepare", attempt_id=attempt, params={"X": str(x), "DEVICE": "1"})
        self.expect({"fleetsweep": "device", "attempt_id": attempt})
        self.send(fleetsweep="device_granted", attempt_id=attempt)
        self.expect({"fleetsweep": "prepared", "attempt_id": attempt})

    def close(self):
        self.p.stdin.close()
        return self.p.wait(timeout=30)


class PersistentTest(unittest.TestCase):
    def test_device_is_asked_for_once_and_granted_before_prepared(self):
        s = Session()
        s.prepared_with_device("a1", 4)
        s.send(fleetsweep="run", attempt_id="a1")
        s.expect({"type": "sample", "metric": "time_ms", "value": 8.0})
        s.expect({"fleetsweep": "end", "attempt_id": "a1"})
        # The next execution asks again (the gate is held per execution).
        s.prepared_with_device("a2", 1)
        self.assertEqual(s.close(), 0)

    def test_setup_can_take_the_device_before_ready(self):
        s = Session(start_device=True)
        s.expect({"fleetsweep": "device"})  # no attempt id: the session's start
        s.send(fleetsweep="device_granted", attempt_id="session-7")
        s.expect({"fleetsweep": "ready"})
        # The start's device is not an execution's: the first prepare asks again.
        s.prepared_with_device("a1", 2)
        self.assertEqual(s.close(), 0)

    def test_a_wrong_answer_before_ready_ends_the_process(self):
        s = Session(start_device=True)
        s.expect({"fleetsweep": "device"})
        s.send(fleetsweep="prepare", attempt_id="a1", params={"X": "2"})
        self.assertEqual(s.p.wait(timeout=30), 1)
        self.assertEqual(s.p.stdout.read(), "")  # never said ready

    def test_a_prepare_that_says_run_runs_at_once(self):
        s = Session(offer=True)
        # The device is asked for and granted as usual; no run line follows prepared.
        s.send(fleetsweep="prepare", attempt_id="r1", params={"X": "3", "DEVICE": "1"}, run=True)
        s.expect({"fleetsweep": "device", "attempt_id": "r1"})
        s.send(fleetsweep="device_granted", attempt_id="r1")
        s.expect({"fleetsweep": "prepared", "attempt_id": "r1"})
        s.expect({"type": "sample", "metric": "time_ms", "value": 6.0})
        s.expect({"fleetsweep": "end", "attempt_id": "r1"})
        s.two_step("r2", 1)  # the next one may still take the two-step path
        self.assertEqual(s.close(), 0)

    def test_the_offer_is_off_by_default(self):
        s = Session()  # the ready line without run_after_prepare (checked in Session)
        s.two_step("o1", 2)
        self.assertEqual(s.close(), 0)

    def test_without_take_device_nothing_is_asked(self):
        s = Session()
        s.send(fleetsweep="prepare", attempt_id="b1", params={"X": "2"})
        s.expect({"fleetsweep": "prepared", "attempt_id": "b1"})
        self.assertEqual(s.close(), 0)

    def test_a_wrong_answer_ends_the_process(self):
        s = Session()
        s.send(fleetsweep="prepare", attempt_id="c1", params={"X": "2", "DEVICE": "1"})
        s.expect({"fleetsweep": "device", "attempt_id": "c1"})
        s.send(fleetsweep="run", attempt_id="c1")
        self.assertEqual(s.p.wait(timeout=30), 1)

    def test_a_failed_prepare_ends_the_execution_and_keeps_the_session(self):
        s = Session()
        s.send(fleetsweep="prepare", attempt_id="d1", params={"X": "2", "FAIL": "1"})
        self.assertEqual(s.read()["type"], "error")
        s.expect({"fleetsweep": "end", "attempt_id": "d1", "status": 1})
        s.send(fleetsweep="prepare", attempt_id="d2", params={"X": "2"})
        s.expect({"fleetsweep": "prepared", "attempt_id": "d2"})
        self.assertEqual(s.close(), 0)


class OneShotTest(unittest.TestCase):
    def test_take_device_returns_at_once(self):
        p = start(False)
        out, _ = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0)
        self.assertEqual([json.loads(l) for l in out.splitlines()],
                         [{"type": "sample", "metric": "time_ms", "value": 6.0}])


if __name__ == "__main__":
    unittest.main()
