#!/usr/bin/python3
"""Every shipped example spec (examples/*.yaml) is checked the way a new user meets it.

  examples_test.py validate        `fleetsweep validate` accepts every example (executor section
                                   included) and every example is listed below as CPU or GPU
  examples_test.py run NAME        `fleetsweep run examples/NAME.yaml --workers 2` finishes with
                                   exit 0, a valid result and every configuration accounted for,
                                   and `fleetsweep list` / `show` read its store (CPU examples;
                                   GPU ones are run by scripts/gpu-run.sh and recorded in
                                   docs/gpu-results.md)

Exit 77 (skip) when the binaries it needs are not built.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

BIN = os.environ.get("FLEETSWEEP_BIN", "")
SRC = os.environ.get("FLEETSWEEP_SRC", "")
EXAMPLES = os.path.join(SRC, "examples")

# CPU examples run here (torch ones need fleetsweep-torch-bench, i.e. libtorch at build time).
CPU = {"cpu-demo", "bi-v100-kernels", "torch-moe", "torch-paged-attention",
       "torch-prefix-prefill"}
# GPU (or vLLM) examples: validated here, run on the GPU machine.
GPU = {"triton-prefix-prefill", "vllm-engine", "bi-v100-engine"}


def fleetsweep(*args, timeout=60):
    return subprocess.run([os.path.join(BIN, "fleetsweep"), *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)


def uses_torch(name):
    with open(os.path.join(EXAMPLES, name + ".yaml")) as f:
        return "type: torch" in f.read()


def have_torch_bench():
    return os.access(os.path.join(BIN, "fleetsweep-torch-bench"), os.X_OK)


def validate():
    names = {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(EXAMPLES, "*.yaml"))}
    assert names, EXAMPLES
    unlisted = names - CPU - GPU
    assert not unlisted, f"examples neither CPU nor GPU in {__file__}: {sorted(unlisted)}"
    gone = (CPU | GPU) - names
    assert not gone, f"listed but not shipped: {sorted(gone)}"
    for name in sorted(names):
        args = ["validate", os.path.join(EXAMPLES, name + ".yaml")]
        if name in GPU or (uses_torch(name) and not have_torch_bench()):
            args.append("--no-program-check")  # its programs live on the GPU machine
        p = fleetsweep(*args)
        assert p.returncode == 0 and p.stdout.startswith("OK: "), f"{name}: rc {p.returncode}\n{p.stdout}"
        print(p.stdout.strip())
    print("PASS examples validate")
    return 0


def run(name):
    if name not in CPU:
        print(f"{name} is not a CPU example")
        return 2
    if uses_torch(name) and not have_torch_bench():
        print("skip: fleetsweep-torch-bench not built (libtorch missing)")
        return 77
    with tempfile.TemporaryDirectory(prefix=f"example-{name}-") as out:
        p = fleetsweep("run", os.path.join(EXAMPLES, name + ".yaml"), "--workers", "2", "--out",
                       out, timeout=540)
        assert p.returncode == 0, f"{name}: rc {p.returncode}\n{p.stdout[-6000:]}"
        # The progress line counts finished configurations and executions.
        assert "finished (" in p.stdout and "ETA" in p.stdout, p.stdout[-3000:]
        with open(os.path.join(out, "results.json")) as f:
            r = json.load(f)
        # The store it leaves behind, from the command line.
        listed = fleetsweep("list", "--store", out)
        assert listed.returncode == 0 and name in listed.stdout and "finished" in listed.stdout, \
            listed.stdout
        shown = fleetsweep("show", name, "--store", out, "--limit", "3")
        assert shown.returncode == 0 and "rank" in shown.stdout, shown.stdout
    assert r["valid"] is True, (name, r.get("invalid_reasons"))
    configs = r["configurations"]
    assert configs, name
    statuses = {c["status"] for c in configs}
    assert statuses <= {"done", "infeasible", "eliminated"}, (name, statuses)
    assert any(c["status"] == "done" for c in configs), name
    print(f"PASS examples run {name}: {len(configs)} configurations, "
          f"{sum(c['status'] == 'done' for c in configs)} done")
    return 0


def main(argv):
    if not os.access(os.path.join(BIN, "fleetsweep"), os.X_OK):
        print("skip: fleetsweep not built")
        return 77
    if argv[:1] == ["validate"]:
        return validate()
    if argv[:1] == ["run"] and len(argv) == 2:
        return run(argv[1])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
