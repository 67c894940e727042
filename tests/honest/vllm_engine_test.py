#!/usr/bin/python3
"""vLLM engine sweep through the exec executor's `vllm-bench` output format, with a fake `vllm`
(tests/data/vllm/fake_vllm.py; vLLM itself cannot run here). Checks: every documented metric is
parsed, the p99 end-to-end latency bound (goodput constraint) marks configurations
violates_bound and keeps them out of the ranking, and the missing fingerprints are reported as
"no_fingerprint", never as a pass. Exit 77 when the fleetsweep binary is missing."""
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
            "--result-filename", "result.json", "--max-num-seqs", "{max_num_seqs}"]
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


def main():
    if not os.access(os.path.join(BIN, "fleetsweep"), os.X_OK):
        print("skip: fleetsweep not built")
        return 77
    with tempfile.TemporaryDirectory(prefix="honest-vllm-") as tmp:
        spec = os.path.join(tmp, "spec.yaml")
        with open(spec, "w") as f:
            f.write(SPEC % FAKE)
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        p = subprocess.run([os.path.join(BIN, "fleetsweep"), "run", spec, "--workers", "2",
                            "--out", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=90)
        text = p.stdout
        assert p.returncode == 0, f"rc {p.returncode}\n{text}"
        with open(os.path.join(out, "results.json")) as f:
            r = json.load(f)
    configs = r["configurations"]
    assert len(configs) == 12, text
    for c in configs:
        assert c["status"] == "done", c
        for m in ("request_throughput", "output_throughput", "mean_ttft_ms", "median_tpot_ms",
                  "p99_itl_ms", "p99_e2el_ms", "median_e2el_ms"):
            assert m in c["metrics"], (m, c["metrics"].keys())
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
    print("PASS vllm_engine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
