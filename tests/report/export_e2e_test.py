#!/usr/bin/python3
"""End to end: `fleetsweep export` on real small sweeps of a fake benchmark (2 local workers).
vllm-moe: vLLM's fused-MoE config file name and schema ("M" -> the four tile ints, plus num_warps
and num_stages only when the sweep set them), the best BLOCK_SIZE_M per swept M, the inert/pinned
values from the spec, vLLM's own per-M defaults for tiles the sweep never set, --out FILE.json
and --out into a directory that does not exist yet. engine-args: the winner as `vllm serve`
flags and as a --config YAML, --out FILE.yaml."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_helpers import fail, fleetsweep, run_sweep, spec_from_template  # noqa: E402

FIELDS = ["BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M"]


def check_moe_schema(path):
    with open(path) as f:
        text = f.read()
    cfg = json.loads(text)
    if not isinstance(cfg, dict) or not cfg:
        fail("%s: not a non-empty object" % path)
    for k, v in cfg.items():
        if str(int(k)) != k:
            fail("%s: key %r is not an integer string" % (path, k))
        if sorted(v.keys()) != sorted(FIELDS):  # num_warps/num_stages: never invented
            fail("%s: M=%s has fields %s" % (path, k, sorted(v.keys())))
        for f_, x in v.items():
            if type(x) is not int:
                fail("%s: M=%s %s=%r is not an int" % (path, k, f_, x))
    return cfg


def main():
    tmp = tempfile.mkdtemp(prefix="fs-export-")
    try:
        moe = os.path.join(tmp, "moe")
        run_sweep(spec_from_template("fake-moe.yaml", tmp), moe)
        _, out, _ = fleetsweep("export", moe, "--format", "vllm-moe")
        path = os.path.join(moe, "E=8,N=512,device_name=Fake_GPU_9000.json")
        if not os.path.exists(path):
            fail("expected %s; export said: %s; dir: %s" % (path, out, os.listdir(moe)))
        cfg = check_moe_schema(path)
        if sorted(cfg.keys(), key=int) != ["1", "256"]:
            fail("expected keys 1 and 256, got %s" % list(cfg.keys()))
        want = {"1": 16, "256": 64}
        for m, bm in want.items():
            got = cfg[m]
            if got["BLOCK_SIZE_M"] != bm:
                fail("M=%s: best BLOCK_SIZE_M is %d, exported %d" % (m, bm, got["BLOCK_SIZE_M"]))
            if (got["BLOCK_SIZE_N"], got["GROUP_SIZE_M"]) != (128, 1):
                fail("M=%s: inert BLOCK_SIZE_N (fixed 128) / pinned GROUP_SIZE_M (1) not used: %s"
                     % (m, got))
            # vLLM's get_default_config: BLOCK_SIZE_K 64 when M <= E (8), else 32.
            if got["BLOCK_SIZE_K"] != (64 if m == "1" else 32):
                fail("M=%s: vLLM's default not used for the undeclared BLOCK_SIZE_K: %s" % (m, got))
        # Flags override what the sweep says; --out FILE.json and --out DIR.
        target = os.path.join(tmp, "mine.json")
        fleetsweep("export", moe, "--format", "vllm-moe", "--E", "16", "--N", "1024",
                   "--device-name", "NVIDIA H100 80GB HBM3", "--out", target)
        check_moe_schema(target)
        outdir = os.path.join(tmp, "configs", "not", "yet")  # created by export
        fleetsweep("export", moe, "--format", "vllm-moe", "--device-name", "X", "--out", outdir)
        check_moe_schema(os.path.join(outdir, "E=8,N=512,device_name=X.json"))
        fleetsweep("export", moe, "--format", "vllm-moe", "--E", "16", "--N", "1024",
                   "--device-name", "NVIDIA H100 80GB HBM3", "--out", outdir)
        check_moe_schema(os.path.join(outdir, "E=16,N=1024,device_name=NVIDIA_H100_80GB_HBM3.json"))

        eng = os.path.join(tmp, "engine")
        run_sweep(spec_from_template("fake-engine.yaml", tmp), eng)
        _, out, err = fleetsweep("export", eng, "--format", "engine-args")
        want_cli = "--max-num-seqs 128 --enable-chunked-prefill --max-model-len 4096"
        if out.strip() != want_cli:
            fail("engine args: got %r, want %r (stderr %s)" % (out.strip(), want_cli, err))
        if "trace_level" not in err or "inert" not in err:
            fail("the inert trace_level should be named as left out: " + err)
        with open(os.path.join(eng, "engine-args.txt")) as f:
            if f.read().strip() != want_cli:
                fail("engine-args.txt differs from stdout")
        with open(os.path.join(eng, "engine-args.yaml")) as f:
            yaml_lines = f.read().splitlines()
        if yaml_lines != ["max-num-seqs: 128", "enable-chunked-prefill: true",
                          "max-model-len: 4096"]:
            fail("engine-args.yaml: %s" % yaml_lines)
        mine = os.path.join(tmp, "deploy", "qwen", "serve.yaml")
        fleetsweep("export", eng, "--format", "engine-args", "--out", mine)
        with open(mine) as f:
            if f.read().splitlines() != yaml_lines:
                fail("--out FILE.yaml differs from engine-args.yaml")
        with open(mine[:-5] + ".txt") as f:
            if f.read().strip() != want_cli:
                fail("--out FILE.yaml: FILE.txt differs from stdout")

        rc, _, err = fleetsweep("export", os.path.join(tmp, "nothing"), "--format", "vllm-moe",
                                check=False)
        if rc == 0 or "results.json" not in err:
            fail("export of a directory without results.json must fail naming it: %s" % err)
        print("ok: vllm-moe and engine-args exports")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
