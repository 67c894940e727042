#!/usr/bin/python3
"""`cmake --install` gives a working fleetsweep (docs/deploy.md, "Installing from source").

Installs the build tree (argv[1]) into a fresh prefix, checks the layout (binaries in bin/, the
benches beside them in bin/benches/, platform surfaces in platforms/) and then runs two tiny CPU
sweeps with the INSTALLED `fleetsweep` only (no FLEETSWEEP_BIN/FLEETSWEEP_SRC in its environment,
the build tree out of reach):
  1. the demo's benchmark, {FLEETSWEEP_BIN}/fleetsweep-matmul-bench (examples/cpu-demo.yaml);
  2. a benchmark written with the installed helper {FLEETSWEEP_BIN}/benches/python/
     fleetsweep_bench.py, in a persistent session; it records which helper file it imported, and
     that must be the installed one.
When fleetsweep-torch-bench was built, the installed one must find its platform surface
(<bin>/../platforms) with the source tree out of reach. Exit 77 (skip) when cmake or the binaries
are missing.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BUILD = sys.argv[1] if len(sys.argv) > 1 else ""
BINARIES = ["fleetsweep", "fleetsweep-coordinator", "fleetsweep-worker", "fleetsweep-matmul-bench"]
BENCHES = ["python/fleetsweep_bench.py", "triton/fused_moe_bench.py", "triton/flash_attn_bench.py",
           "triton/prefix_prefill.py", "triton/moe_algo.py", "triton/fa_algo.py",
           "triton/tune_report.py", "vllm/vllm_engine_bench.py"]
PLATFORMS = ["bi-v100.yaml", "cuda.yaml"]

MATMUL_SPEC = """sweep: install-matmul
executor:
  type: exec
  command: ["{FLEETSWEEP_BIN}/fleetsweep-matmul-bench", "--n", "32", "--bm", "{BM}", "--bn", "16",
            "--bk", "16", "--order", "ikj", "--reps", "2"]
  timeout: 30
parameters:
  BM: {values: [8, 16]}
repetitions: {min: 2, max: 2}
metrics:
  - {name: time_ms, goal: minimize, unit: ms}
search: {strategy: grid}
"""

HELPER_BENCH = """import os, sys
sys.path.insert(0, sys.argv[1])
import fleetsweep_bench as fsb

def run(ctx, prepared, params, out):
    with open(os.environ["INSTALL_PROBE"], "a") as f:
        f.write(os.path.realpath(fsb.__file__) + "\\n")
    for _ in range(3):
        out.sample("time_ms", 1.0 + 0.01 * int(params["X"]))
    out.check(passed=True)

fsb.serve(run)
"""

HELPER_SPEC = """sweep: install-helper
executor:
  type: exec
  command: ["/usr/bin/python3", "{bench}", "{{FLEETSWEEP_BIN}}/benches/python"]
  env: {{INSTALL_PROBE: "{probe}"}}
  session: {{mode: persistent}}
  timeout: 30
parameters:
  X: {{values: [1, 2, 3]}}
repetitions: {{min: 2, max: 2}}
metrics:
  - {{name: time_ms, goal: minimize, unit: ms}}
search: {{strategy: grid}}
"""


def clean_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLEETSWEEP_")}
    return env


def run_sweep(fleetsweep, spec_text, work, name):
    spec = os.path.join(work, name + ".yaml")
    with open(spec, "w") as f:
        f.write(spec_text)
    out = os.path.join(work, name)
    p = subprocess.run([fleetsweep, "run", spec, "--workers", "1", "--out", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240,
                       env=clean_env(), cwd=work)
    assert p.returncode == 0, f"{name}: rc {p.returncode}\n{p.stdout[-4000:]}"
    with open(os.path.join(out, "results.json")) as f:
        r = json.load(f)
    return r, p.stdout


def succeeded(r):
    return [c for c in r["configurations"]
            if c.get("status") == "done" and c.get("ok_attempts", 0) == 2]


def main():
    if not BUILD or not os.path.isfile(os.path.join(BUILD, "bin", "fleetsweep")):
        print("skip: build tree with bin/fleetsweep not given")
        return 77
    if shutil.which("cmake") is None:
        print("skip: cmake not found")
        return 77
    with tempfile.TemporaryDirectory(prefix="fleetsweep-install-") as work:
        prefix = os.path.join(work, "prefix")
        p = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        assert p.returncode == 0, p.stdout
        bin_dir = os.path.join(prefix, "bin")
        for b in BINARIES:
            assert os.access(os.path.join(bin_dir, b), os.X_OK), f"not installed: bin/{b}"
        for b in BENCHES:
            assert os.path.isfile(os.path.join(bin_dir, "benches", b)), f"not installed: {b}"
        tests = [f for _, _, fs in os.walk(os.path.join(bin_dir, "benches")) for f in fs
                 if f.endswith("_test.py")]
        assert not tests, f"test files installed: {tests}"
        for pl in PLATFORMS:
            assert os.path.isfile(os.path.join(prefix, "platforms", pl)), f"not installed: {pl}"
        fleetsweep = os.path.join(bin_dir, "fleetsweep")

        # 1. The demo's compiled benchmark, found through {FLEETSWEEP_BIN}.
        r, _ = run_sweep(fleetsweep, MATMUL_SPEC, work, "matmul")
        assert len(succeeded(r)) == 2, json.dumps(r["configurations"], indent=1)[:3000]

        # 2. A benchmark served by the installed Python helper.
        bench = os.path.join(work, "helper_bench.py")
        with open(bench, "w") as f:
            f.write(HELPER_BENCH)
        probe = os.path.join(work, "probe.txt")
        r, _ = run_sweep(fleetsweep, HELPER_SPEC.format(bench=bench, probe=probe), work, "helper")
        assert len(succeeded(r)) == 3, json.dumps(r["configurations"], indent=1)[:3000]
        with open(probe) as f:
            used = set(f.read().split())
        want = os.path.realpath(os.path.join(bin_dir, "benches", "python", "fleetsweep_bench.py"))
        assert used == {want}, f"helper imported from {used}, want {want}"

        # 3. The torch bench finds its platform surface beside the installation.
        torch_bench = os.path.join(bin_dir, "fleetsweep-torch-bench")
        if os.path.isfile(os.path.join(BUILD, "bin", "fleetsweep-torch-bench")):
            assert os.access(torch_bench, os.X_OK), "not installed: bin/fleetsweep-torch-bench"
            p = subprocess.run([torch_bench, "--device", "cpu", "--threads", "1", "--reps", "1",
                                "--warmup", "0", "--kernel", "paged_attention", "--platform",
                                "bi-v100", "--shapes", "num_seqs=2,num_heads=4,num_kv_heads=2,"
                                "head_size=16,context_len=70", "--param", "use_v1=true"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=120, env=clean_env(), cwd=work)
            assert p.returncode == 0, f"torch bench rc {p.returncode}\n{p.stdout[-3000:]}"
            assert '"sample"' in p.stdout or "time_ms" in p.stdout, p.stdout[-3000:]
        else:
            print("note: fleetsweep-torch-bench not built; its install is not checked")
    print("PASS install")
    return 0


if __name__ == "__main__":
    sys.exit(main())
