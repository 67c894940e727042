#!/usr/bin/python3
"""The `fleetsweep` command line as a user meets it: `help`, defaults in the help text, the
executor section checked by `validate` and by `run` before anything starts (every problem, with
file:line:column of the spec file), flag names shared by the binaries (`--devices A B` and
`--devices A,B`, `--exit-when-finished` with its deprecated alias `--exit-when-done`), and
`run`, its summary, `watch`, `list` and results.json counting the same executions over one store.
Exit 77 when the binaries are not built."""
import json
import os
import re
import subprocess
import sys
import tempfile

BIN = os.environ.get("FLEETSWEEP_BIN", "")
SRC = os.environ.get("FLEETSWEEP_SRC", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
EXECUTIONS = r"(\d+) executions? \((\d+) failed\)"

BAD_SPEC = """sweep: bad-exec
executor:
  type: exec
  comand: ["{FLEETSWEEP_BIN}/fleetsweep-matmul-bench", "--bm", "{BMM}"]
  env: {X: "{BM}"}
parameters:
  BM: {values: [16, 32]}
"""

SECTIONS_SPEC = """sweep: sections
executor: {command: ["/bin/true"], timeout: thirty}
parameters:
  BM: {values: [16, 32]}
repetitions: {min: 5, max: 2}
"""

MISSING_PROGRAM = """sweep: missing-program
executor:
  command: ["fleetsweep-no-such-benchmark", "--bm", "{BM}"]
parameters:
  BM: {values: [16, 32]}
"""


def run(*args, timeout=60):
    p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def main():
    fs = os.path.join(BIN, "fleetsweep")
    if not os.access(fs, os.X_OK):
        print("skip: fleetsweep not built")
        return 77
    rc, out, err = run(fs, "help")
    check(rc == 0, f"`fleetsweep help` exits 0 (rc {rc}, {err})")
    check("Usage: fleetsweep [OPTIONS] SUBCOMMAND" in out, f"the usage names the program:\n{out}")
    for cmd in ("run", "validate", "space", "report", "export", "watch", "list", "show"):
        check(cmd in out, f"`fleetsweep help` lists {cmd}:\n{out}")
    rc, out, err = run(fs, "help", "run")
    check(rc == 0 and "--workers" in out, f"`fleetsweep help run`: {out}{err}")
    check("=2" in out, f"help shows defaults (--workers 2):\n{out}")
    check("Usage: fleetsweep run [OPTIONS] spec" in out, f"`help run` names the program:\n{out}")
    # The exit codes (coordinator/app/exit_codes.h) are listed with the command that returns them.
    check("Exit codes:" in out and "  7  store writes failed" in out,
          f"`fleetsweep help run` lists the exit codes:\n{out}")
    coord = os.path.join(BIN, "fleetsweep-coordinator")
    if os.access(coord, os.X_OK):
        rc, cout, cerr = run(coord, "--help")
        check(rc == 0 and "Exit codes:" in cout and "  6  the store lost data" in cout,
              f"`fleetsweep-coordinator --help` lists the exit codes:\n{cout}{cerr}")
        rc, _, cerr = run(coord, "--no-such-flag")
        check(rc == 2, f"a flag error is exit code 2 (rc {rc}): {cerr}")
    rc, _, err = run(fs, "help", "nope")
    check(rc == 2 and "no command 'nope'" in err, f"help of an unknown command: {err}")

    with tempfile.TemporaryDirectory(prefix="fs-cli-") as tmp:
        spec = os.path.join(tmp, "bad.yaml")
        with open(spec, "w") as f:
            f.write(BAD_SPEC)
        rc, out, err = run(fs, "validate", spec)
        check(rc == 2, f"validate refuses a broken executor section (rc {rc}):\n{out}{err}")
        lines = [l for l in err.splitlines() if l.strip()]
        check(len(lines) == 2, f"every problem, one per line:\n{err}")
        check(f"{spec}:2:1: executor: command: is required" in lines[0], err)
        check(f"{spec}:4:3: executor: unknown key 'comand' (did you mean 'command'?)" in lines[1],
              err)
        # `run` checks the same before starting anything.
        out_dir = os.path.join(tmp, "out")
        rc, out, err = run(fs, "run", spec, "--workers", "1", "--out", out_dir, timeout=30)
        check(rc == 2 and "unknown key 'comand'" in err, f"run refuses it up front: {rc} {err}")
        check(not os.path.exists(os.path.join(out_dir, "store")), "nothing started")

        # Problems in several sections: each one, on its own line.
        spec3 = os.path.join(tmp, "sections.yaml")
        with open(spec3, "w") as f:
            f.write(SECTIONS_SPEC)
        rc, out, err = run(fs, "validate", spec3)
        lines = [l for l in err.splitlines() if l.strip()]
        check(rc == 2 and len(lines) == 2 and f"fleetsweep validate: {spec3}:2:" in lines[0]
              and "executor.timeout" in lines[0] and f"fleetsweep validate: {spec3}:5:" in lines[1]
              and "exceeds max" in lines[1], f"every broken section:\n{err}")

        spec2 = os.path.join(tmp, "missing.yaml")
        with open(spec2, "w") as f:
            f.write(MISSING_PROGRAM)
        rc, _, err = run(fs, "validate", spec2)
        check(rc == 2 and f"{spec2}:3:13: executor.command[0]: program "
              "'fleetsweep-no-such-benchmark' not found in PATH" in err, err)
        rc, out, err = run(fs, "validate", spec2, "--no-program-check")
        check(rc == 0 and out.startswith("OK: "), f"--no-program-check: {out}{err}")

    coord = os.path.join(BIN, "fleetsweep-coordinator")
    rc, out, _ = run(coord, "--help")
    check(rc == 0 and "--exit-when-finished" in out and "--store" in out,
          f"coordinator flags named like the worker's:\n{out}")
    torch_bench = os.path.join(BIN, "fleetsweep-torch-bench")
    if os.access(torch_bench, os.X_OK):
        rc, out, err = run(torch_bench, "--help")
        check(rc == 0 and "Usage" in out and not err, f"torch bench --help: {rc}\n{err}")
    worker = os.path.join(BIN, "fleetsweep-worker")
    rc, out, _ = run(worker, "--help")
    check(rc == 0 and "A,B or A B" in out and "--exit-when-done" in out
          and re.search(r"--slots[^\n]*=1\n", out) and "=[]" not in out,
          f"worker help: both --devices forms, the deprecated alias, defaults:\n{out}")
    for devices in (["7", "9"], ["7,9"]):
        rc, out, err = run(worker, "--coordinator", "tcp://127.0.0.1:1", "--insecure", "--slots",
                           "2", "--devices", *devices, "--give-up-after", "1",
                           "--exit-when-done", timeout=30)
        check("slots 2, devices 7,9 " in out, f"worker --devices {' '.join(devices)}: {out}{err}")
        check("--exit-when-done is deprecated: use --exit-when-finished" in err,
              f"the worker's deprecated alias says so: {err}")
    with tempfile.TemporaryDirectory(prefix="fs-cli-count-") as tmp:
        check_counts(fs, coord, tmp)
    matmul = os.path.join(BIN, "fleetsweep-matmul-bench")
    rc, out, err = run(matmul, "--help")
    check(rc == 0 and "usage:" in out and "(default 192)" in out and not err,
          f"matmul bench --help: exit 0, usage with defaults on stdout: {rc}\n{out}{err}")
    print("PASS cli")
    return 0


def counts_in(text, pattern, what):
    found = re.findall(pattern, text)
    check(found, f"no execution count in {what}:\n{text}")
    return tuple(int(x) for x in found[-1])


def check_counts(fs, coord, tmp):
    """One sweep with failures and reference executions: `run` (its progress line and its
    summary), `watch`, `list`, results.json and a resumed coordinator count the same
    executions. Also `run --devices A B` (each local worker its device) and the coordinator's
    deprecated --exit-when-done."""
    spec = os.path.join(SRC, "tests", "data", "report", "report-demo.yaml")
    out_dir = os.path.join(tmp, "demo")
    rc, out, err = run(fs, "run", spec, "--workers", "2", "--devices", "5", "6", "--out",
                       out_dir, timeout=180)
    check(rc == 0, f"run: rc {rc}\n{out}\n{err[-3000:]}")
    progress = counts_in(err, r"finished \(.*?" + EXECUTIONS, "the progress line")
    summary = counts_in(out, r"unfinished\); " + EXECUTIONS, "the run's summary")
    rc, wout, werr = run(fs, "watch", "--store", out_dir, "--sweep", "report-demo", "--once")
    check(rc == 0, f"watch: {werr}")
    watched = counts_in(wout, EXECUTIONS + ", events", "watch")
    rc, lout, lerr = run(fs, "list", "--store", out_dir)
    listed = counts_in(lout, EXECUTIONS, "list")
    with open(os.path.join(out_dir, "results.json")) as f:
        results = json.load(f)
    written = (results["summary"]["attempts"], results["summary"]["failed_attempts"])
    check(progress == summary == watched == listed == written,
          f"executions (all, failed): run's line {progress}, summary {summary}, watch "
          f"{watched}, list {listed}, results.json {written}")
    check(written[1] > 0, "the sweep had failed executions (LOOP_ORDER=bogus)")
    per_config = sum(c["attempts"] for c in results["configurations"])
    check(written[0] > per_config, f"reference executions are counted too: {written[0]} vs "
          f"{per_config} of the configurations")
    for i, device in enumerate(("5", "6")):
        with open(os.path.join(out_dir, "logs", f"worker-{i}.log")) as f:
            log = f.read()
        check(f"devices {device} " in log, f"run --devices 5 6: worker {i} on {device}:\n{log}")
    # The coordinator's old flag name still works (the sweep is finished: it exits at once).
    rc, cout, cerr = run(coord, "--spec", spec, "--store", "file:" + os.path.join(out_dir, "store"),
                         "--insecure", "--bind", "tcp://127.0.0.1:0", "--exit-when-done",
                         "--no-progress", timeout=60)
    check(rc == 0 and "--exit-when-done is deprecated: use --exit-when-finished" in cerr,
          f"coordinator --exit-when-done: rc {rc}\n{cerr}")
    check(counts_in(cout, r"unfinished\); " + EXECUTIONS, "the resumed summary") == written,
          f"the resumed coordinator counts the same executions:\n{cout}")
    check_summarised(coord, spec, out_dir, results, tmp)


def check_summarised(coord, spec, out_dir, results, tmp):
    """A coordinator resumed over the finished store with --results-full-limit below the sweep's
    size writes a summarised results.json (the best --results-top, the winner and the best
    --results-top of the tied set, configurations_truncated), a results.csv of every configuration, and a report
    that points at results.csv for the rest."""
    total = results["summary"]["configurations"]
    check(total > 3, f"report-demo has more than 3 configurations: {total}")
    small = os.path.join(tmp, "summarised")
    rc, cout, cerr = run(coord, "--spec", spec, "--store", "file:" + os.path.join(out_dir, "store"),
                         "--insecure", "--bind", "tcp://127.0.0.1:0", "--exit-when-finished",
                         "--no-progress", "--out", small, "--results-full-limit", "3",
                         "--results-top", "2", timeout=60)
    check(rc == 0, f"coordinator --results-full-limit 3: rc {rc}\n{cerr}")
    with open(os.path.join(small, "results.json")) as f:
        summarised = json.load(f)
    cut = summarised.get("configurations_truncated")
    named = {c["key"] for c in ([summarised["winner"]] if summarised["winner"] else [])}
    rank = {c["key"]: c["rank"] for c in results["configurations"]}
    named |= set(sorted((c["key"] for c in summarised["tied"]), key=rank.get)[:2])
    listed = {c["key"] for c in summarised["configurations"]}
    check(cut is not None and cut["total"] == total and cut["all_in"] == "results.csv" and
          cut["listed"] == len(listed) < total and named <= listed,
          f"summarised results.json: {cut}, listed {sorted(listed)}, named {sorted(named)}")
    top2 = [c["key"] for c in results["configurations"][:2]]
    check(set(top2) <= listed and summarised["summary"] == results["summary"],
          f"the top 2 {top2} are listed and the summary is the full one")
    with open(os.path.join(small, "results.csv")) as f:
        rows = f.read().splitlines()[1:]
    check(len(rows) == total, f"results.csv holds all {total} configurations: {len(rows)}")
    with open(os.path.join(small, "report.html")) as f:
        page = f.read()
    check("results.json is summarised" in page, "report.html says results.json is summarised")


if __name__ == "__main__":
    sys.exit(main())
