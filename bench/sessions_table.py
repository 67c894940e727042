#!/usr/bin/env python3
"""The table of scripts/gpu-sessions.sh: one row per way of running the Triton prefix-prefill sweep.

  python3 bench/sessions_table.py OUT_DIR

Reads OUT_DIR/loop.json (bench/triton_loop_bench.py), OUT_DIR/NAME.wall (wall seconds measured by
the script around each command) and OUT_DIR/run-NAME/results.json (`fleetsweep run`), for the
ways named in OUT_DIR/ways.txt (in order; default persistent, parallel, one-shot). Columns:
wall seconds, executions, seconds per execution, wall for the loop's executions at that rate
(projected where the run did fewer: one-shot), ratio to the loop's wall, winner (BLOCK_M/BLOCK_N/
num_warps, its median ms), and the GPU-timed fraction: timed milliseconds / wall (for fleetsweep
runs: sum over configurations of median x samples, an estimate of the timed sum).
"""
import json
import os
import sys


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def config_name(params):
    return "%s/%s/%s" % (params.get("BLOCK_M"), params.get("BLOCK_N"), params.get("num_warps"))


def fleetsweep_row(out, name):
    wall = read(os.path.join(out, name + ".wall"))
    res = read(os.path.join(out, "run-" + name, "results.json"))
    if wall is None or res is None:
        return None
    r = json.loads(res)
    ok = [c for c in r["configurations"] if c.get("n", 0) > 0]
    execs = sum(c.get("ok_attempts", 0) for c in r["configurations"])
    timed_ms = sum(c["median"] * c.get("samples", 0) for c in ok)
    best = min(ok, key=lambda c: c["median"]) if ok else None
    winner = r.get("winner")
    label = config_name(winner["params"]) if winner else (
        "tied: " + config_name(best["params"]) if best else "-")
    return dict(name=name, wall=float(wall), execs=execs, timed_s=timed_ms / 1000,
                winner=label, winner_ms=best["median"] if best else float("nan"))


def main():
    out = sys.argv[1]
    loop = json.loads(read(os.path.join(out, "loop.json")) or "{}")
    rows = []
    if loop:
        rows.append(dict(name="in-process loop", wall=loop["wall_s"], execs=loop["executions"],
                         timed_s=loop["gpu_timed_s"], winner=loop["winner"],
                         winner_ms=loop["winner_ms"]))
    ways = (read(os.path.join(out, "ways.txt")) or "persistent parallel one-shot").split()
    for name in ways:
        row = fleetsweep_row(out, name)
        if row:
            rows.append(row)
    base_execs = loop.get("executions", 78)
    base_wall = loop.get("wall_s")
    print("| way | wall s | executions | s/execution | wall for %d executions | vs loop | "
          "winner (median ms) | GPU-timed fraction |" % base_execs)
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        per = r["wall"] / max(r["execs"], 1)
        full = per * base_execs if r["execs"] < base_execs else r["wall"]
        projected = " (projected)" if r["execs"] < base_execs else ""
        ratio = "%.2f" % (full / base_wall) if base_wall else "-"
        print("| %s | %.1f | %d | %.2f | %.1f%s | %s | %s (%.4f) | %.2f%% |"
              % (r["name"], r["wall"], r["execs"], per, full, projected, ratio, r["winner"],
                 r["winner_ms"], 100 * r["timed_s"] / r["wall"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
