#!/usr/bin/env python3
"""Where an execution of fleetsweep-torch-bench spends its time: one persistent session (the
serve mode, driven here exactly as the worker drives it: prepare (answering its device request),
then run, per execution)
against one process per execution (one-shot), same kernel, levels and repetitions.

  python3 bench/torch_session_bench.py --bench build/bin/fleetsweep-torch-bench \\
      [--kernel moe] [--param BLOCK_SIZE_M --levels 16,32,64,128] [--executions 3] \\
      [--reps 10 --warmup 2] [--dtype bfloat16] [--gpu-shapes M=1024,K=4096,N=14336,E=8,topk=2]
      [--detail] [--no-one-shot] [--bench-arg=ARG ...]

Per execution: wall milliseconds (persistent: from the prepare request to the end line; one-shot:
process start to exit) and the timed milliseconds (the sum of its samples). "Outside" = 1 - timed
/ wall: the share of an execution that is not the timed kernel (start-up, inputs, the check, the
fingerprint, warm-up). The first persistent execution of each level includes building inputs
(cached afterwards) unless the session prewarmed; the process start (to `ready`) is reported
apart. Prints a Markdown table.
--detail adds a row per persistent execution: the prepare round trip (request to `prepared`),
the bench's own prepare_ms info line and its phases (prepare_phases_ms: parameters and plan, the
input set (built on a miss), the check's launch, the compare, the fingerprint), the run round
trip (request to `end`) and the timed sum.
--bench-arg passes one more argument to the bench (repeatable), e.g. --bench-arg=--l2-mb=50.
--prewarm passes --prewarm PARAM=LEVEL for every level to the persistent session (it warms every
level once before ready, holding the device: docs/torch-executor.md "Prewarm"; the start line
then includes it).
--no-one-shot skips the one-shot executions (to spend less device time).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def base_args(a):
    args = [a.bench, "--kernel", a.kernel, "--device", a.device, "--dtype", a.dtype, "--reps",
            str(a.reps), "--warmup", str(a.warmup), "--platform", a.platform]
    if a.gpu_shapes:
        args += ["--gpu-shapes", a.gpu_shapes]
    if a.shapes:
        args += ["--shapes", a.shapes]
    return args + a.bench_arg


def samples_of(lines):
    total, n = 0.0, 0
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("type") == "sample":
            vals = rec.get("values") or [rec.get("value")]
            total += sum(vals)
            n += len(vals)
    return total, n


def info_of(lines, key):
    """The value of the bench's info line `key` among `lines` ("" when absent)."""
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("type") == "info" and rec.get("key") == key:
            return str(rec.get("value", ""))
    return ""


def one_shot(a, level):
    t0 = time.monotonic()
    p = subprocess.run(base_args(a) + ["--param", "%s=%s" % (a.param, level)],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wall = (time.monotonic() - t0) * 1000
    timed, n = samples_of(p.stdout.splitlines())
    return wall, timed, n, p.returncode


class Session:
    def __init__(self, a):
        env = dict(os.environ, FLEETSWEEP_SESSION="persistent")
        t0 = time.monotonic()
        self.p = subprocess.Popen(base_args(a), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env, bufsize=1)
        start = self.read_until(lambda r: r.get("fleetsweep") in ("ready", "device"))
        if json.loads(start[-1]).get("fleetsweep") == "device":  # device work before ready
            self.p.stdin.write(json.dumps({"fleetsweep": "device_granted",
                                           "attempt_id": "session"}) + "\n")
            start += self.read_until(lambda r: r.get("fleetsweep") == "ready")
        self.ready_ms = (time.monotonic() - t0) * 1000
        self.prewarm = info_of(start, "prewarm")
        self.seq = 0

    def read_until(self, done):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the bench exited")
            lines.append(line)
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if done(rec):
                return lines

    def execute(self, param, level):
        self.seq += 1
        aid = "a%d" % self.seq
        t0 = time.monotonic()
        self.p.stdin.write(json.dumps({"fleetsweep": "prepare", "attempt_id": aid,
                                       "params": {param: str(level)}}) + "\n")
        prep = self.read_until(lambda r: r.get("fleetsweep") in ("prepared", "end", "device"))
        if json.loads(prep[-1]).get("fleetsweep") == "device":  # on CUDA: the gate, as the worker
            self.p.stdin.write(json.dumps({"fleetsweep": "device_granted", "attempt_id": aid}) +
                               "\n")
            prep += self.read_until(lambda r: r.get("fleetsweep") in ("prepared", "end"))
        t1 = time.monotonic()
        self.p.stdin.write(json.dumps({"fleetsweep": "run", "attempt_id": aid}) + "\n")
        lines = self.read_until(lambda r: r.get("fleetsweep") == "end")
        t2 = time.monotonic()
        wall = (t2 - t0) * 1000
        timed, n = samples_of(lines)
        self.detail = ((t1 - t0) * 1000, info_of(prep + lines, "prepare_ms"),
                       info_of(prep + lines, "prepare_phases_ms"), (t2 - t1) * 1000)
        return wall, timed, n

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def row(name, walls, timeds):
    wall, timed = statistics.median(walls), statistics.median(timeds)
    outside = [1 - t / w for w, t in zip(walls, timeds)]
    return "| %s | %d | %.1f | %.2f | %.1f%% | %.1f%% |" % (
        name, len(walls), wall, timed, 100 * statistics.median(outside), 100 * max(outside))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--kernel", default="moe")
    ap.add_argument("--param", default="BLOCK_SIZE_M")
    ap.add_argument("--levels", default="16,32,64,128")
    ap.add_argument("--executions", type=int, default=3, help="per level and mode")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--platform", default="bi-v100")
    ap.add_argument("--gpu-shapes", default="M=1024,K=4096,N=14336,E=8,topk=2")
    ap.add_argument("--shapes", default="", help="shapes on the CPU (e.g. M=128,K=128,N=256,E=8,topk=2)")
    ap.add_argument("--detail", action="store_true", help="a row per persistent execution")
    ap.add_argument("--no-one-shot", action="store_true", help="skip the one-shot executions")
    ap.add_argument("--bench-arg", action="append", default=[],
                    help="one more argument for the bench (repeatable)")
    ap.add_argument("--prewarm", action="store_true",
                    help="the persistent session prewarms every level before it says ready")
    a = ap.parse_args()
    levels = a.levels.split(",")
    if a.prewarm:
        for level in levels:
            a.bench_arg += ["--prewarm", "%s=%s" % (a.param, level)]
    print("# %s, kernel %s, %s levels %s, %d executions each, reps %d, warmup %d, %s%s"
          % (time.strftime("%Y-%m-%d %H:%M"), a.kernel, a.param, a.levels, a.executions, a.reps,
             a.warmup, a.dtype, (", bench args " + " ".join(a.bench_arg)) if a.bench_arg else ""))
    s = Session(a)
    first, warm = ([], []), ([], [])
    details = []
    for e in range(a.executions):
        for level in levels:
            wall, timed, n = s.execute(a.param, level)
            target = first if e == 0 else warm
            target[0].append(wall)
            target[1].append(timed)
            details.append((e + 1, level, wall) + s.detail + (timed,))
    s.close()
    if a.detail:
        print("| execution of level | %s | wall ms | prepare round trip ms | bench prepare_ms | "
              "its phases ms | run round trip ms | timed ms |" % a.param)
        print("|---:|---:|---:|---:|---:|---|---:|---:|")
        for e, level, wall, prep, prep_ms, phases, run, timed in details:
            print("| %d | %s | %.1f | %.1f | %s | %s | %.1f | %.2f |" % (
                e, level, wall, prep, prep_ms, phases.replace(";", " "), run, timed))
    shot = ([], [])
    for e in range(0 if a.no_one_shot else a.executions):
        for level in levels:
            wall, timed, n, rc = one_shot(a, level)
            if rc != 0:
                print("one-shot %s=%s exited %d" % (a.param, level, rc), file=sys.stderr)
            shot[0].append(wall)
            shot[1].append(timed)
    print("| mode | executions | median wall ms | median timed ms | outside the timed kernel "
          "(median) | (worst) |")
    print("|---|---:|---:|---:|---:|---:|")
    print(row("persistent, the session's first execution", first[0][:1], first[1][:1]))
    if len(first[0]) > 1:
        print(row("persistent, first execution of each other level", first[0][1:], first[1][1:]))
    if warm[0]:
        print(row("persistent, later executions", *warm))
    if shot[0]:
        print(row("one-shot (a process per execution)", *shot))
    print("persistent process start to ready: %.0f ms (once per session; prewarm: %s)"
          % (s.ready_ms, s.prewarm))
    return 0


if __name__ == "__main__":
    sys.exit(main())
