#!/usr/bin/python3
"""vLLM engine sweep through the exec executor's `vllm-bench` output format, with a fake `vllm`
(tests/data/vllm/fake_vllm.py; vLLM itself cannot run here). Checks: every documented metric is
parsed, the p99 end-to-end latency bound (goodput constraint) marks configurations
violates_bound and keeps them out of the ranking, the run's description (num_prompts, duration,
completed) is info and not a metric, and the missing fingerprints are reported as
"no_fingerprint", never as a pass. Then the same sweep without `--percentile-metrics ...,e2el`
(what `vllm bench serve` writes by default: no e2el) must fail loudly: the p99_e2el_ms bound can
never be enforced. Exit 77 when the fleetsweep binary is missing."""
import json
import os
import subprocess
import sys
import tempfile

BIN = os.environ.get("FLEETSWEEP_BIN", "")
SRC = os.environ.get("FLEETSWEEP_SRC", "")
FAKE = os.path.join(SRC, "tests", "data", "vllm", "fake_vllm.py")

SPEC = """sweep: vllm-engine-fake
executor:
  type: exec
  command: ["/usr/bin/python3", "%s", "bench", "serve", "--save-result",
            "--result-filename", "result.json", "--max-num-seqs", "{max_num_seqs}" %s]
  timeout: 30
  output: {file: result.json, format: vllm-bench}
parameters:
  max_num_seqs: [32, 64, 128]
  max_num_batched_tokens: [4096, 8192]
  enable_chunked_prefill: [true, false]
constraints:
  - "max_num_batched_tokens >= max_num_seqs"
repetitions: {min: 2, max: 2, target_rel_ci: 0.5}
metrics:
  - {name: output_throughput, goal: maximize, unit: tok/s}
  - {name: p99_e2el_ms, goal: minimize, unit: ms, max: 8000}
"""


E2EL = ', "--percentile-metrics", "ttft,tpot,itl,e2el"'


def run(tmp, extra_args):
    """Runs the sweep; returns (exit code, output text, results.json or None)."""
    spec = os.path.join(tmp, "spec.yaml")
    with open(spec, "w") as f:
        f.write(SPEC % (FAKE, extra_args))
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    p = subprocess.run([os.path.join(BIN, "fleetsweep"), "run", spec, "--workers", "2",
                        "--out", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=90)
    results = os.path.join(out, "results.json")
    r = None
    if os.path.exists(results):
        with open(results) as f:
            r = json.load(f)
    return p.returncode, p.stdout, r


def default_metrics_fail_loudly():
    """vLLM's default percentile metrics have no e2el: the bound on p99_e2el_ms fails loudly."""
    with tempfile.TemporaryDirectory(prefix="honest-vllm-") as tmp:
        rc, text, r = run(tmp, "")
    assert rc == 5, f"rc {rc}\n{text}"
    assert "p99_e2el_ms" in text and "never enforced" in text, text
    assert r["valid"] is False, r["invalid_reasons"]
    for c in r["configurations"]:
        assert "p99_e2el_ms" not in c["metrics"], c["metrics"].keys()
        assert c["violates_bound"], c


def main():
    if not os.access(os.path.join(BIN, "fleetsweep"), os.X_OK):
        print("skip: fleetsweep not built")
        return 77
    with tempfile.TemporaryDirectory(prefix="honest-vllm-") as tmp:
        rc, text, r = run(tmp, E2EL)
    assert rc == 0, f"rc {rc}\n{text}"
    configs = r["configurations"]
    assert len(configs) == 12, text
    for c in configs:
        assert c["status"] == "done", c
        for m in ("request_throughput", "output_throughput", "mean_ttft_ms", "median_tpot_ms",
                  "p99_itl_ms", "p99_e2el_ms", "median_e2el_ms"):
            assert m in c["metrics"], (m, c["metrics"].keys())
        for info in ("num_prompts", "duration", "completed", "total_input_tokens"):
            assert info not in c["metrics"], (info, c["metrics"].keys())
        slow = int(c["params"]["max_num_seqs"]) == 128
        assert c.get("violates_bound", False) == slow, c
        if slow:
            assert "p99_e2el_ms median" in c["bound_violations"][0], c
    # The best within the bound: 64 sequences (128 violates it), the most throughput.
    best = configs[0]
    assert best["params"]["max_num_seqs"] == "64" and not best.get("violates_bound"), best
    inj = {v["param"]: v["verdict"] for v in r["audit"]["injection"]}
    assert set(inj.values()) == {"no_fingerprint"}, inj
    assert any("without a fingerprint" in w for w in r["warnings"]), r["warnings"]
    assert r["valid"] is True
    default_metrics_fail_loudly()
    print("PASS vllm_engine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
