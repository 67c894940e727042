#!/usr/bin/env python3
"""Tests of scripts/triton_moe_specs.py (ctest: triton_moe_specs_test; CPU only).

The generated per-M specs must pass `fleetsweep validate`, their shared-memory constraint (in the
spec's constraint language) must admit exactly the tile sets moe_algo.smem_bytes admits, and the
export must give one vLLM entry per batch size from the runs' results.json files."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "triton_moe_specs.py")
sys.path.insert(0, os.path.join(HERE, "..", "worker", "benches", "triton"))
import moe_algo  # noqa: E402

BIN = os.environ.get("FLEETSWEEP_BIN", os.path.join(HERE, "..", "build", "bin"))


def fleetsweep(*args):
    return subprocess.run([os.path.join(BIN, "fleetsweep")] + list(args), capture_output=True, text=True)


class Specs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def generate(self, *extra):
        out = subprocess.run([sys.executable, SCRIPT, "specs", "--out", self.tmp.name, "--session", "one-shot"]
                             + list(extra), capture_output=True, text=True, check=True)
        return out.stdout.split()

    def test_one_spec_per_batch_size_and_each_validates(self):
        paths = self.generate()
        self.assertEqual([os.path.basename(p) for p in paths],
                         ["triton-moe-m%d.yaml" % m for m in moe_algo.TUNED_BATCH_SIZES])
        for path in paths[:3] + paths[-1:]:
            r = fleetsweep("validate", path)
            self.assertEqual(r.returncode, 0, path + ": " + r.stdout + r.stderr)

    def test_persistent_session_spec_validates(self):
        out = subprocess.run([sys.executable, SCRIPT, "specs", "--out", self.tmp.name, "--ms", "256",
                              "--strategy", "lhs", "--budget", "64"], capture_output=True, text=True, check=True)
        path = out.stdout.split()[0]
        with open(path) as f:
            text = f.read()
        self.assertIn("session: {mode: persistent", text)
        self.assertIn("{FLEETSWEEP_BIN}/benches/triton/fused_moe_bench.py", text)
        r = fleetsweep("validate", path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_constraint_admits_what_the_estimate_admits(self):
        for limit in (32 * 1024, 48 * 1024, 232448):
            path = self.generate("--ms", "64", "--smem-limit", str(limit))[0]
            r = fleetsweep("space", path, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            counts = json.loads(r.stdout)["counts"]
            fits, _ = moe_algo.tuning_space(smem_limit=limit)
            self.assertEqual(counts["after_pinned"], 1920)
            self.assertEqual(counts["final"], len(fits), limit)

    def test_smem_sweep_spec(self):
        path = self.generate("--ms", "256", "--smem-sweep", "32768,49152,232448")[0]
        r = fleetsweep("space", path, "--json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        expected = sum(len(moe_algo.tuning_space(smem_limit=lim)[0]) for lim in (32768, 49152, 232448))
        self.assertEqual(json.loads(r.stdout)["counts"]["final"], expected)

    def test_listed_configs_are_the_whole_space_and_the_first_is_the_reference(self):
        listed = "128/256/64/16/8/4,64/64/64/16/4/3,16/256/128/1/8/3"
        path = self.generate("--ms", "1024", "--configs", listed)[0]
        r = fleetsweep("space", path, "--json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(json.loads(r.stdout)["counts"]["final"], 3)
        with open(path) as f:
            text = f.read()
        self.assertIn("reference: {BLOCK_SIZE_M: 128, BLOCK_SIZE_N: 256, BLOCK_SIZE_K: 64, GROUP_SIZE_M: 16, "
                      "num_warps: 8, num_stages: 4", text)
        self.assertEqual(fleetsweep("validate", path).returncode, 0)

    def test_bad_listed_configs_are_named(self):
        for listed, words in (("128/256/64/16/8", "six integers"), ("128/256/64/16/8/x", "six integers"),
                              ("128/256/64/16/8/9", "num_stages=9"),
                              ("256/256/256/16/8/5", "shared memory")):
            r = subprocess.run([sys.executable, SCRIPT, "specs", "--out", self.tmp.name, "--ms", "64",
                                "--configs", listed], capture_output=True, text=True)
            self.assertNotEqual(r.returncode, 0, listed)
            self.assertIn(words, r.stderr, listed)
            self.assertIn(listed.split(",")[0], r.stderr, listed)

    def test_export_takes_each_runs_winner_keyed_by_m(self):
        runs = []
        for i, m in enumerate(moe_algo.TUNED_BATCH_SIZES):
            d = os.path.join(self.tmp.name, "run%d" % i)
            os.makedirs(d)
            tiles = {"BLOCK_SIZE_M": 16 * (1 + i % 4), "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 128,
                     "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 3}
            params = {k: str(v) for k, v in dict(tiles, M=m, smem_limit=232448).items()}
            results = {"sweep": "triton-moe-m%d" % m, "winner": None if i % 2 else {"params": params},
                       "configurations": [{"rank": 2, "n": 5, "params": dict(params, BLOCK_SIZE_N="32")},
                                          {"rank": 1, "n": 5, "params": params}]}
            with open(os.path.join(d, "results.json"), "w") as f:
                json.dump(results, f)
            runs.append((d, m, tiles))
        out = subprocess.run([sys.executable, SCRIPT, "export", "--device-name", "NVIDIA H200"]
                             + [r[0] for r in runs], capture_output=True, text=True, check=True)
        loaded = json.loads(out.stdout)
        self.assertEqual(list(loaded), [str(m) for m in moe_algo.TUNED_BATCH_SIZES])
        for _, m, tiles in runs:
            self.assertEqual(loaded[str(m)], tiles)
        self.assertIn("E=8,N=14336,device_name=NVIDIA_H200.json", out.stderr)

    def test_export_names_a_run_without_samples(self):
        d = os.path.join(self.tmp.name, "empty")
        os.makedirs(d)
        with open(os.path.join(d, "results.json"), "w") as f:
            json.dump({"sweep": "triton-moe-m8", "winner": None, "configurations": []}, f)
        out = subprocess.run([sys.executable, SCRIPT, "export", "--device-name", "x", d],
                             capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("triton-moe-m8: no configuration with samples", out.stderr)


if __name__ == "__main__":
    unittest.main()
