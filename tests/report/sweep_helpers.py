"""Shared helpers for the tests/report Python tests: run the real `fleetsweep` binary with a
bounded time and kill its whole process group (coordinator + local workers) on any failure."""
import os
import signal
import subprocess
import sys

BIN = os.environ.get("FLEETSWEEP_BIN", "")
SRC = os.environ.get("FLEETSWEEP_SRC", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
DATA = os.path.join(SRC, "tests", "data", "report")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(args, timeout=120, env=None, check=True):
    """Runs a command in its own process group; returns (rc, stdout, stderr)."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        fail("timed out after %ss: %s\n%s\n%s" % (timeout, " ".join(args), out[-2000:], err[-4000:]))
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # stray children of the group, if any
        except ProcessLookupError:
            pass
    if check and proc.returncode != 0:
        fail("exit %d: %s\nstdout:\n%s\nstderr:\n%s" % (proc.returncode, " ".join(args),
                                                       out[-2000:], err[-4000:]))
    return proc.returncode, out, err


def fleetsweep(*args, **kw):
    return run([os.path.join(BIN, "fleetsweep")] + list(args), **kw)


def spec_from_template(name, tmp):
    """Copies tests/data/report/NAME into tmp with @DATA@ replaced; returns the new path."""
    with open(os.path.join(DATA, name)) as f:
        text = f.read().replace("@DATA@", DATA)
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run_sweep(spec, out, workers=2):
    fleetsweep("run", spec, "--workers", str(workers), "--out", out, timeout=150)
    if not os.path.exists(os.path.join(out, "results.json")):
        fail("no results.json in " + out)
