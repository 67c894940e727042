"""Process helpers shared by the chaos, bad-input and orchestration-bench scripts.

Every child is started in its own process group and registered with a Procs object; Procs.close()
(also run at exit and on SIGTERM/SIGINT) SIGKILLs every group it started, so a failing test leaves
no stray redis-server, coordinator or worker. Loopback only. children_of/in_sleep/kill_child find
and SIGKILL benchmark processes that workers started (through /proc), by pid.
"""
import atexit
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import time

SKIP = 77


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def binary(name):
    path = os.path.join(os.environ.get("FLEETSWEEP_BIN", ""), name)
    if not os.access(path, os.X_OK):
        print(f"missing {path} (set FLEETSWEEP_BIN)", file=sys.stderr)
        sys.exit(1)
    return path


def redis_binary():
    for cand in (os.environ.get("FLEETSWEEP_REDIS_SERVER"), "/usr/bin/redis-server",
                 shutil.which("redis-server")):
        if cand and os.access(cand, os.X_OK):
            return cand
    print("SKIP: no redis-server", file=sys.stderr)
    sys.exit(SKIP)


class Procs:
    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.live = []
        atexit.register(self.close)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: sys.exit(3))

    def start(self, argv, name, env=None):
        log = open(os.path.join(self.log_dir, name + ".log"), "ab")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True, env=env)
        log.close()
        p.name = name
        self.live.append(p)
        return p

    def kill(self, p, sig=signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()

    def close(self):
        for p in self.live:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        self.live = []


class Redis:
    """redis-server on a fixed loopback port with AOF (appendfsync always) in `dir`."""

    def __init__(self, procs, dir):
        self.procs, self.dir, self.port = procs, dir, free_port()
        self.url = f"redis://127.0.0.1:{self.port}"
        self.proc = None
        self.starts = 0

    def start(self):
        self.starts += 1
        argv = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                "--appendonly", "yes", "--appendfsync", os.environ.get("OBENCH_FSYNC", "always"), "--save", "",
                "--protected-mode", "no"]
        self.proc = self.procs.start(argv, f"redis{self.starts}")
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("redis-server exited during startup")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("redis-server never answered PING")

    def stop(self, sig):
        self.procs.kill(self.proc, sig)


def read_dump(url, sweep):
    out = subprocess.run([binary("fleetsweep-store-dump"), url, sweep], capture_output=True,
                         text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError("store-dump failed: " + out.stderr)
    configs, attempts = {}, []
    for line in out.stdout.splitlines():
        rec = json.loads(line)
        if rec["kind"] == "config":
            configs[rec["config_key"]] = rec
        else:
            attempts.append(rec)
    return configs, attempts


def _is_child(pid, parents, exe):
    """True when `pid` lives, its parent pid is in `parents` and it runs `exe` (a realpath)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        return ppid in parents and os.readlink(f"/proc/{pid}/exe") == exe
    except (OSError, ValueError, IndexError):
        return False


def children_of(parents, exe):
    """Pids of the live processes running `exe` whose parent pid is in `parents`."""
    want = os.path.realpath(exe)
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and _is_child(n, parents, want)]


# nanosleep and clock_nanosleep, for kernels that hide /proc/PID/wchan.
_SLEEP_SYSCALLS = {"x86_64": {"35", "230"}, "aarch64": {"101", "115"}}


def in_sleep(pid):
    """True when `pid` sleeps in nanosleep (fleetsweep-tiny-bench's --sleep-ms: mid-execution)."""
    try:
        with open(f"/proc/{pid}/wchan") as f:
            if "nanosleep" in f.read():
                return True
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/syscall") as f:
            return f.read().split()[0] in _SLEEP_SYSCALLS.get(platform.machine(), ())
    except (OSError, IndexError):
        return False


def kill_child(pid, parents, exe):
    """SIGKILLs `pid` if it still runs `exe` under a parent in `parents`; True when it did. A
    pidfd (where the kernel has them) pins the process between the check and the signal, so a
    reused pid is never hit."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return False
    except (AttributeError, OSError):
        fd = None
    try:
        if not _is_child(pid, parents, os.path.realpath(exe)):
            return False
        if fd is None:
            os.kill(pid, signal.SIGKILL)
        else:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        return True
    except OSError:
        return False
    finally:
        if fd is not None:
            os.close(fd)


def processes_with_argv(argv):
    """{pid: FLEETSWEEP_NODE of its environment ('' if none)} of live processes whose command
    line is exactly argv."""
    want = b"".join(a.encode() + b"\0" for a in argv)
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if f.read() != want:
                    continue
            with open("/proc/%s/environ" % d, "rb") as f:
                env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
        except OSError:
            continue
        out[int(d)] = env.get(b"FLEETSWEEP_NODE", b"").decode()
    return out


def tail(path, n=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""
