"""fleetsweep_bench: serve a benchmark to fleetsweep, one-shot or as a warm (persistent) session.

Standard library only. Put this file beside your benchmark (fleetsweep installs it beside its
binaries: ``{FLEETSWEEP_BIN}/fleetsweep_bench.py``) and write three functions::

    import fleetsweep_bench as fsb

    def setup(session):               # once per process; `session`: the session-key parameters
        return {"device": "cuda"}     # any context object (optional)

    def prepare(ctx, params):         # NOT timed: compile, allocate, build inputs
        return build_kernel(params)   # anything; handed to run()

    def run(ctx, prepared, params, out):   # the timed part of ONE execution
        for _ in range(10):
            out.sample("time_ms", time_it(prepared))
        out.check(passed=True, max_rel_error=1e-3)
        out.fingerprint(prepared.binary_hash)

    fsb.serve(run, prepare=prepare, setup=setup)

The same file serves both modes (docs/executors.md, "Sessions"):

* one-shot (the default): parameters come from the FLEETSWEEP_PARAMS environment variable (a JSON
  object name -> text), or, when run by hand, from ``NAME=VALUE`` arguments; setup, prepare and
  run happen once and the process exits (status 1 after an error line).
* persistent (``FLEETSWEEP_SESSION=persistent``): after setup the benchmark prints
  ``{"fleetsweep": "ready"}`` and then answers requests on stdin, one JSON object per line:
  ``prepare`` (answered by ``prepared``, or by ``end`` when preparation failed) and ``run``
  (answered by the protocol lines and ``end``). End of stdin ends the process with status 0.
  With ``FSB_RUN_AFTER_PREPARE=1`` in the benchmark's environment (the section's ``env``; a spec
  may not set FLEETSWEEP_* variables) the ready line offers ``run_after_prepare``: a prepare
  request with ``"run": true`` (the worker sends it when no other slot shares the device) is run
  as soon as it is prepared, saving a round trip. Off by default: on an H200 the Triton
  prefix-prefill sweep timed with it ended "tied" in 3 of 3 runs where the two-step runs named a
  defensible winner (docs/gpu-results.md), so a GPU benchmark should leave it off unless its
  prepare ends with the device idle.

Device work in setup: in a persistent session, ``fsb.take_device()`` in ``setup`` takes the
device for the session's start (until ready): build inputs and warm kernels there, and no
execution pays for them; the worker reports the start's cost as ``session.start_seconds`` on the
attempt that opened the session.

Device work in prepare: several slots on one GPU prepare in parallel while one of them times.
Compiling is harmless to the one that times; launching kernels is not. Call ``fsb.take_device()``
in ``prepare`` before the first device work (building inputs, a correctness launch, a graph
capture): it returns once this execution has the device alone, and keeps it through ``run`` to the
execution's end. Compile before calling it, so that compilation stays parallel. In one-shot mode
it returns at once (a one-shot process holds the device for its whole life).

Errors: raise ``BenchError(cls, detail)`` (or NotImplementedError / an out-of-memory error) to
report a failed execution and keep the session; any other exception prints its traceback on
stderr and ends the process with status 1, so the worker classifies the crash and opens a new
session for the next execution (nothing leaks from a broken process into later executions).
"""

import json
import math
import os
import sys
import traceback

__all__ = ["BenchError", "Emitter", "Params", "parse_value", "serve", "take_device"]

# The persistent session's state that take_device() needs (set by _serve_persistent).
_session = {"out": None, "stdin": None, "attempt": None, "has_device": False, "starting": False}


class BenchError(Exception):
    """A failed execution the benchmark understands (cls: not_implemented, out_of_memory,
    wrong_result, or any other word). The session stays usable."""

    def __init__(self, cls, detail=""):
        super().__init__(detail or cls)
        self.cls = cls
        self.detail = detail


def parse_value(text):
    """A parameter's canonical text as Python: int, float, bool, else the string."""
    if not isinstance(text, str):
        return text
    if text in ("true", "false"):
        return text == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


class Params(dict):
    """Parameter name -> typed value (see parse_value); `text` keeps the canonical texts."""

    def __init__(self, texts):
        super().__init__({k: parse_value(v) for k, v in texts.items()})
        self.text = dict(texts)


class Emitter:
    """Writes protocol lines (docs/executors.md) to the real stdout, flushed line by line."""

    def __init__(self, stream):
        self._stream = stream

    def _emit(self, record):
        self._stream.write(json.dumps(record, separators=(",", ":")) + "\n")
        self._stream.flush()

    def sample(self, metric, value=None, values=None):
        vals = list(values) if values is not None else [value]
        for v in vals:
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                raise BenchError("bad_output", "sample %s is not a finite number: %r" % (metric, v))
        if values is not None:
            self._emit({"type": "sample", "metric": metric, "values": vals})
        else:
            self._emit({"type": "sample", "metric": metric, "value": vals[0]})

    def fingerprint(self, value):
        self._emit({"type": "fingerprint", "value": str(value)})

    def check(self, passed, max_rel_error=None, tolerance=None, detail=None):
        rec = {"type": "check", "passed": bool(passed)}
        if max_rel_error is not None and math.isfinite(max_rel_error):
            rec["max_rel_error"] = float(max_rel_error)
        if tolerance is not None:
            rec["tolerance"] = float(tolerance)
        if detail:
            rec["detail"] = str(detail)
        self._emit(rec)

    def info(self, key, value):
        self._emit({"type": "info", "key": str(key), "value": value})

    def error(self, cls, detail=""):
        self._emit({"type": "error", "class": str(cls), "detail": str(detail)})

    def control(self, kind, attempt_id=None, status=0, **extra):
        rec = {"fleetsweep": kind}
        rec.update(extra)
        if attempt_id is not None:
            rec["attempt_id"] = attempt_id
        if status:
            rec["status"] = status  # on an end line: the exit status one-shot would have had
        self._emit(rec)


def _known_error(exc):
    """(class, detail) for an exception that leaves the process usable, else None."""
    if isinstance(exc, BenchError):
        return exc.cls, exc.detail
    if isinstance(exc, NotImplementedError):
        return "not_implemented", str(exc) or "NotImplementedError"
    name = type(exc).__name__
    if name == "OutOfMemoryError" or "out of memory" in str(exc).lower():
        return "out_of_memory", "%s: %s" % (name, str(exc)[:500])
    return None


def _guarded(out, fn, *args):
    """Calls fn; True and its result, or False after reporting a known error. Unknown exceptions
    end the process (status 1) with the traceback on stderr."""
    try:
        return True, fn(*args)
    except Exception as exc:  # noqa: BLE001 - classified below
        known = _known_error(exc)
        if known is None:
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            os._exit(1)
        out.error(*known)
        return False, None


def _params_from_environment(argv):
    text = os.environ.get("FLEETSWEEP_PARAMS")
    if text:
        return json.loads(text)
    params = {}
    for arg in argv:
        if "=" not in arg:
            sys.exit("usage: %s NAME=VALUE ... (or FLEETSWEEP_PARAMS='{...}')" % sys.argv[0])
        name, value = arg.split("=", 1)
        params[name] = value
    return params


def take_device():
    """Blocks until this execution has the device alone (the worker's timing gate); kept until the
    execution ends. Call it in prepare, after compiling and before launching anything. In a
    persistent session's setup (before ready: building inputs, warming kernels) it takes the
    device for the start, kept until ready. A no-op in one-shot mode, outside setup and prepare,
    and when the device is already held."""
    out, stdin, attempt = _session["out"], _session["stdin"], _session["attempt"]
    starting = _session["starting"]
    if out is None or (attempt is None and not starting) or _session["has_device"]:
        return
    out.control("device", attempt)
    line = stdin.readline()
    if not line:
        os._exit(0)  # the worker closed the session while we waited
    answer = json.loads(line)
    if answer.get("fleetsweep") != "device_granted" or (
            not starting and answer.get("attempt_id") != attempt):
        sys.stderr.write("fleetsweep_bench: expected device_granted for %s, got %r\n"
                         % (attempt or "the session's start", answer))
        sys.stderr.flush()
        os._exit(1)
    _session["has_device"] = True


def _serve_one_shot(run, prepare, setup, out, argv):
    params = Params(_params_from_environment(argv))
    ok, ctx = _guarded(out, setup, params) if setup else (True, None)
    if ok:
        ok, prepared = _guarded(out, prepare, ctx, params) if prepare else (True, None)
    if ok:
        ok, _ = _guarded(out, run, ctx, prepared, params, out)
    sys.stdout.flush()
    return 0 if ok else 1


def _serve_persistent(run, prepare, setup, out, stdin):
    session = Params(json.loads(os.environ.get("FLEETSWEEP_PARAMS") or "{}"))
    _session.update(out=out, stdin=stdin, starting=True)
    ok, ctx = _guarded(out, setup, session) if setup else (True, None)
    _session.update(starting=False, has_device=False)
    if not ok:
        return 1
    if os.environ.get("FSB_RUN_AFTER_PREPARE") == "1":
        out.control("ready", run_after_prepare=True)
    else:
        out.control("ready")
    pending = {}  # attempt id -> (params, prepared)
    _session.update(out=out, stdin=stdin)
    while True:
        line = stdin.readline()
        if not line:
            break
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        kind, attempt = request.get("fleetsweep"), request.get("attempt_id")
        if kind == "prepare":
            params = Params(request.get("params") or {})
            _session.update(attempt=attempt, has_device=False)
            ok, prepared = _guarded(out, prepare, ctx, params) if prepare else (True, None)
            _session["attempt"] = None
            if not ok:
                out.control("end", attempt, status=1)
                continue
            out.control("prepared", attempt)
            if request.get("run") is True:  # run_after_prepare: no run line follows
                ok, _ = _guarded(out, run, ctx, prepared, params, out)
                out.control("end", attempt, status=0 if ok else 1)
            else:
                pending[attempt] = (params, prepared)
        elif kind == "run":
            if attempt not in pending:
                out.error("bad_request", "run before prepare for %s" % attempt)
                out.control("end", attempt)
                continue
            params, prepared = pending.pop(attempt)
            ok, _ = _guarded(out, run, ctx, prepared, params, out)
            out.control("end", attempt, status=0 if ok else 1)
        else:
            out.error("bad_request", "unknown request %r" % kind)
            out.control("end", attempt)
    return 0


def serve(run, prepare=None, setup=None, argv=None):
    """Serves the benchmark in the mode FLEETSWEEP_SESSION asks for and exits the process.

    The benchmark's own prints go to stderr while it is served, so that stdout carries only
    protocol lines."""
    out = Emitter(sys.stdout)
    sys.stdout = sys.stderr  # stray print() calls must not interleave with protocol lines
    argv = sys.argv[1:] if argv is None else argv
    if os.environ.get("FLEETSWEEP_SESSION") == "persistent":
        code = _serve_persistent(run, prepare, setup, out, sys.stdin)
    else:
        code = _serve_one_shot(run, prepare, setup, out, argv)
    out._stream.flush()
    sys.exit(code)
