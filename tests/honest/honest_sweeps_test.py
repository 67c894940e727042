#!/usr/bin/python3
"""Integration tests of the honest-measurement audits (docs/honest-measurement.md).

Each case runs a real sweep: `fleetsweep run SPEC --workers 2 --out DIR` starts the coordinator
and two real worker processes (nodes local-0 and local-1), which run the real benchmark program
tests/data/honest-bench/synthetic_bench.py; the test then reads DIR/results.json.

usage: honest_sweeps_test.py [CASE ...]      (default: all cases)
       honest_sweeps_test.py --aa-rate N     (run the A/A sweep N times, print the tie rate)
Exit 77 when the fleetsweep binary is missing.
"""
import json
import os
import subprocess
import sys
import tempfile

BIN = os.environ.get("FLEETSWEEP_BIN", "")
SRC = os.environ.get("FLEETSWEEP_SRC", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLEETSWEEP = os.path.join(BIN, "fleetsweep")
BENCH = os.path.join(SRC, "tests", "data", "honest-bench", "synthetic_bench.py")
SESSION_BENCH = os.path.join(SRC, "tests", "data", "honest-bench", "session_bench.py")

SPECS = {
    "ignore_all": """
parameters:
  BLOCK: {values: [16, 32, 64]}
  items_per_thread: {values: [1, 4]}
reference: {BLOCK: 32, items_per_thread: 1}
""",
    "ignore_one": """
parameters:
  A: {values: [1, 2, 3]}
  B: {values: [x, y]}
  C: {values: [1, 2]}
reference: {A: 1, B: x, C: 1}
""",
    "not_implemented": """
parameters:
  use_v1: {values: [true, false]}
  BLOCK: {values: [16, 32, 64]}
reference: {use_v1: true, BLOCK: 16}
""",
    "node_effect": """
parameters:
  M: {values: [1, 2, 3, 4]}
reference: {M: 1}
""",
    "aa": """
parameters:
  N: {values: [1, 2]}
  alias: {values: [a, b]}
reference: {N: 1, alias: a}
""",
}


# Persistent sessions whose processes keep offsets of their own (session_bench.py): `alias` is
# in the command, so it is in the session key and its levels never share a process.
SESSION_SPEC = """
executor:
  type: exec
  command: ["/usr/bin/python3", "{bench}", "{{alias}}"]
  timeout: 30
  session: {{mode: persistent, max_executions: 4}}
parameters:
  N: {{values: [1, 2]}}
  alias: {{values: [a, b]}}
reference: {{N: 1, alias: a}}
repetitions: {{min: 12, max: 12, target_rel_ci: 0.5, max_failures: 3, deterministic_failures: 2}}
"""


def write_spec(tmp, mode):
    path = os.path.join(tmp, mode + ".yaml")
    with open(path, "w") as f:
        f.write(f"sweep: honest-{mode}\n")
        if mode == "session_offset":
            f.write(SESSION_SPEC.format(bench=SESSION_BENCH))
            f.write("metrics:\n  - {name: time_ms, goal: minimize, unit: ms}\n")
            return path
        f.write("executor:\n  type: exec\n")
        f.write(f'  command: ["/usr/bin/python3", "{BENCH}", "{mode}"]\n  timeout: 30\n')
        f.write(SPECS[mode])
        f.write("repetitions: {min: 3, max: 4, target_rel_ci: 0.5, max_failures: 3, "
                "deterministic_failures: 2}\n")
        f.write("metrics:\n  - {name: time_ms, goal: minimize, unit: ms}\n")
    return path


def run_sweep(mode):
    """Runs one sweep in a fresh directory; returns (exit code, results.json, summary text)."""
    with tempfile.TemporaryDirectory(prefix=f"honest-{mode}-") as tmp:
        spec = write_spec(tmp, mode)
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        p = subprocess.run([FLEETSWEEP, "run", spec, "--workers", "2", "--out", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=90)
        path = os.path.join(out, "results.json")
        if not os.path.exists(path):
            raise AssertionError(f"{mode}: no results.json (rc {p.returncode})\n{p.stdout}\n{p.stderr}")
        with open(path) as f:
            return p.returncode, json.load(f), p.stdout + p.stderr


def by_param(entries):
    return {e["param"]: e for e in entries}


def check(cond, what, context=""):
    if not cond:
        raise AssertionError(what + ("\n" + context if context else ""))


def case_ignore_all():
    rc, r, text = run_sweep("ignore_all")
    check(rc == 5, f"exit code {rc}, want 5 (invalid sweep)", text)
    check(r["valid"] is False, "valid should be false", text)
    check(r["invalid_reasons"] and "fingerprint" in r["invalid_reasons"][0], "reason", text)
    check(r["winner"] is None, "an invalid sweep names no winner", text)
    inj = by_param(r["audit"]["injection"])
    check(inj["BLOCK"]["verdict"] == "not_injected", "BLOCK", text)
    check(inj["items_per_thread"]["verdict"] == "not_injected", "items_per_thread", text)
    check("SWEEP RESULT INVALID" in text, "the summary must say it loudly", text)


def case_ignore_one():
    rc, r, text = run_sweep("ignore_one")
    check(rc == 0, f"exit code {rc}", text)
    check(r["valid"] is True, "valid", text)
    inj, inert = by_param(r["audit"]["injection"]), by_param(r["audit"]["inert"])
    check(inj["B"]["verdict"] == "not_injected", f"B injection {inj['B']}", text)
    check(inj["A"]["verdict"] == "injected" and inj["C"]["verdict"] == "injected", "A/C", text)
    check(inert["B"]["verdict"] == "no_effect", f"B no_effect {inert['B']}", text)
    for p in ("A", "C"):
        check(inert[p]["verdict"] == "active", f"{p} should be active: {inert[p]}", text)
        check(inert[p]["p_value"] <= 0.05 and inert[p]["test"].startswith("block_permutation"), p)
    check(not r["audit"]["contradictions"], f"contradictions {r['audit']['contradictions']}", text)
    check(inert["B"]["p_value"] > 0.05 and inert["B"]["spread"] < 0.02, "B stats", text)


def case_not_implemented():
    rc, r, text = run_sweep("not_implemented")
    check(rc == 0, f"exit code {rc}", text)
    regions = r["audit"]["infeasible_regions"]
    check(regions, "no infeasible regions", text)
    top = regions[0]
    check(top["param"] == "use_v1" and top["value"] == "false", f"top region {top}", text)
    check(top["infeasible"] == 3 and top["total"] == 3 and top["whole"], f"{top}", text)
    check(top["classes"] == {"not_implemented": 3}, f"{top}", text)
    check(top["text"] == "use_v1=false: 3 of 3 configurations infeasible (not_implemented)",
          top["text"], text)
    check("use_v1=false: 3 of 3" in text, "summary shows the region", text)
    for c in r["configurations"]:
        want = "infeasible" if c["params"]["use_v1"] == "false" else "done"
        check(c["status"] == want, f"{c['params']} {c['status']}", text)


def case_node_effect():
    rc, r, text = run_sweep("node_effect")
    check(rc == 0, f"exit code {rc}", text)
    ne = r["node_effects"]
    nodes = {n["node"]: n for n in ne["nodes"]}
    check(set(nodes) == {"local-0", "local-1"}, f"nodes {nodes}", text)
    ratio = nodes["local-1"]["effect"] / nodes["local-0"]["effect"]
    check(abs(ratio - 1.2) <= 0.05, f"node effect ratio {ratio}", text)
    check(nodes["local-1"]["ci_low"] <= nodes["local-1"]["effect"] <= nodes["local-1"]["ci_high"],
          "CI brackets the effect", text)
    check(ne["applied"] is True, "node effects must be removed", text)
    ranked = [int(c["params"]["M"]) for c in r["configurations"]]
    check(ranked == [1, 2, 3, 4], f"ranking {ranked} differs from the truth", text)
    for c in r["configurations"]:  # corrected medians sit on one node's scale: 10 * 1.1^(M-1) * k
        m = int(c["params"]["M"])
        check(c["median"] > 0 and "raw" in c, "raw summary kept", text)
    meds = [c["median"] for c in r["configurations"]]
    for a, b in zip(meds, meds[1:]):
        check(abs(b / a - 1.1) < 0.03, f"corrected medians {meds} not 10% apart", text)


def case_aa(times=5, allowed=1):
    """Five real A/A sweeps. A false winner is a verdict error with a stated rate (<= 1% per
    sweep, docs/honest-measurement.md; the rate itself is tested by ctest verdict_error_rates on
    300 seeded simulated sweeps), so one false winner in five real sweeps is allowed: two or more
    happen with probability <= 0.1% at the stated rate, and in ~5% of runs at the ~8% rate of the
    old per-sample rule. Every sweep without a winner must tie the two aliases of N=1."""
    false_winners = []
    for i in range(times):
        rc, r, text = run_sweep("aa")
        check(rc == 0, f"A/A run {i}: exit code {rc}", text)
        if r["winner"] is not None:
            false_winners.append(f"run {i}: {json.dumps(r['winner'])}")
            continue
        tied = {(t["params"]["N"], t["params"]["alias"]) for t in r["tied"]}
        check({("1", "a"), ("1", "b")} <= tied, f"A/A run {i}: tied set {tied}", text)
    check(len(false_winners) <= allowed,
          f"{len(false_winners)} of {times} A/A sweeps named a winner between aliases "
          f"(at most {allowed} expected): " + "; ".join(false_winners))
    if false_winners:
        print(f"note: {false_winners[0]} named a false winner (allowed: rate <= 1%)")


def case_session_offset():
    """Each benchmark process keeps a 10% offset (0.5% noise within it): the session ids reach the
    aggregate through real workers and the store. alias (session key, ignored by the time) is
    tested by re-dealing whole sessions, the warm-state audit sees the sessions differ and says
    so, and the winner test reports how many pairs it compared by sessions."""
    rc, r, text = run_sweep("session_offset")
    check(rc == 0, f"exit code {rc}", text)
    alias = by_param(r["audit"]["inert"])["alias"]
    check(alias["redealing"] == "sessions", f"alias re-dealt {alias['redealing']}: {alias}", text)
    check(alias["test"].endswith("_sessions_redealt"), alias["test"], text)
    check(alias["units"] >= 2, f"sessions re-dealt: {alias['units']}", text)
    check("(sessions re-dealt)" in text, "the summary names the unit", text)
    between = r["warm_state"]["between_sessions"]
    check(between["verdict"] == "differs", f"between sessions {between}", text)
    check(any("sessions measure up to" in w for w in r["warnings"]), "warning", text)
    # The other alias's two configurations never shared a session with the best (alias is in the
    # session key) and nothing connects them to it: session means. The same alias's other
    # configuration shared sessions with the best: the two-way fit (or executions, when every
    # session served both in the same proportions); never compared across aliases by the fit.
    # A configuration none of whose sessions ran two of its executions is compared by executions
    # (they are then independent evidence): on a loaded machine the slots' sessions can change key
    # often enough for that, so the other alias's two count as sessions or executions, never more.
    wt = r["winner_test"]
    best_alias = r["configurations"][0]["params"]["alias"]
    other = [c.get("unit_vs_best") for c in r["configurations"][1:]
             if c["params"]["alias"] != best_alias]
    check(len(other) == 2 and all(u in ("sessions", "executions") for u in other),
          f"the other alias's configurations compared by {other}", text)
    check(wt["session_comparisons"] == other.count("sessions") >= 1, f"winner_test {wt}", text)
    check(wt["fit_comparisons"] + wt["within_session_comparisons"] <= 1, f"winner_test {wt}", text)


CASES = {"session_offset": case_session_offset, "ignore_all": case_ignore_all, "ignore_one": case_ignore_one,
         "not_implemented": case_not_implemented, "node_effect": case_node_effect, "aa": case_aa}


def aa_rate(n):
    ties = 0
    for i in range(n):
        rc, r, _ = run_sweep("aa")
        tie = rc == 0 and r["winner"] is None
        ties += tie
        print(f"run {i + 1}: {'tied' if tie else 'WINNER ' + json.dumps(r['winner'])}", flush=True)
    print(f"A/A tie rate: {ties}/{n}")
    return 0


def main(argv):
    if not os.access(FLEETSWEEP, os.X_OK):
        print(f"skip: {FLEETSWEEP} not built")
        return 77
    if len(argv) == 2 and argv[0] == "--aa-rate":
        return aa_rate(int(argv[1]))
    failed = 0
    for name in argv or list(CASES):
        try:
            CASES[name]()
            print(f"PASS {name}", flush=True)
        except AssertionError as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
