#!/usr/bin/env python3
"""Tests of scripts/triton_tune.py's GPU-free logic (ctest: triton_tune_test; CPU only, no torch
or triton): the command line imports its package (scripts/triton_tuning/), successive halving
and the grid against a fake harness, and the files a run writes."""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import triton_tuning  # noqa: E402,F401 - puts the harnesses' helpers on sys.path
import moe_algo  # noqa: E402
import tune_report as tr  # noqa: E402
from triton_tuning.common import cid  # noqa: E402
from triton_tuning.execution import Runner, grid, halving  # noqa: E402
from triton_tuning.output import write  # noqa: E402


class FakeBench:
    """A harness whose time is BLOCK_SIZE_M (ms); BLOCK_SIZE_M == 0 fails at prepare. It gets
    typed parameters (fleetsweep_bench.Params), as the real harnesses do."""

    def __init__(self):
        self.prepares = []

    def prepare(self, ctx, params):
        self.prepares.append(params["BLOCK_SIZE_M"])
        if params["BLOCK_SIZE_M"] == 0:
            raise RuntimeError("does not compile")
        return object()

    def run(self, ctx, prepared, params, col):
        t = float(params["BLOCK_SIZE_M"])
        col.sample("time_ms", values=[t] * int(params["reps"]))
        col.fingerprint("fp%d" % params["BLOCK_SIZE_M"])
        col.check(True, 0.0)


def tiles(bm):
    return dict(zip(moe_algo.TILE_PARAMS, (bm, 64, 32, 8, 4, 2)))


class TritonTuneTest(unittest.TestCase):
    def test_help_runs_without_a_gpu(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "triton_tune.py"), "--help"],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("--parts", out)
        self.assertIn("--deadline-s", out)

    def test_halving_keeps_the_fastest_and_never_reruns_a_failed_tile_set(self):
        configs = [tiles(bm) for bm in (64, 16, 0, 128, 32, 256)]
        bench, runs = FakeBench(), io.StringIO()
        runner = Runner(bench, {}, runs)
        winner, samples, execs, _ = halving(runner, "moe", 16, configs, {"reps": 4}, eta=2,
                                            finalists=2, final_execs=3, first_reps=1)
        self.assertEqual(winner, cid(tiles(16)))
        self.assertNotIn(cid(tiles(0)), samples)
        self.assertEqual(len(samples[cid(tiles(16))]), 3, "finalists topped up")
        self.assertEqual(len(samples[cid(tiles(16))][0]), 1, "round 1 takes first_reps samples")
        self.assertEqual(len(samples[cid(tiles(256))]), 1, "the slowest stops after round 1")
        self.assertEqual(bench.prepares.count(0), 1, "a failed tile set is not retried")
        records = [json.loads(line) for line in runs.getvalue().splitlines()]
        self.assertEqual(len(records), execs + 1)  # + the failed one
        self.assertEqual([r["status"] for r in records].count("failed"), 1)

    def test_grid_runs_every_tile_set_every_round(self):
        configs = [tiles(bm) for bm in (32, 16, 64)]
        runner = Runner(FakeBench(), {}, io.StringIO())
        samples, execs, _ = grid(runner, "grid", 16, configs, {"reps": 2}, 4)
        self.assertEqual(execs, 12)
        self.assertEqual({k: len(v) for k, v in samples.items()}, {cid(c): 4 for c in configs})

    def test_write_exports_the_winners_for_vllm(self):
        out = tempfile.mkdtemp()
        write(out, {"device": "NVIDIA H200", "moe": {16: {"winner": cid(tiles(32))}, 64: {}}})
        name = tr.vllm_moe_file_name(8, 14336, "NVIDIA H200")
        with open(os.path.join(out, name)) as f:
            exported = json.load(f)
        self.assertEqual(list(exported), ["16"])
        self.assertEqual(exported["16"]["BLOCK_SIZE_M"], 32)
        with open(os.path.join(out, "vllm_moe_config.json")) as f:
            self.assertEqual(json.load(f), exported)
        with open(os.path.join(out, "results.json")) as f:
            self.assertEqual(json.load(f)["device"], "NVIDIA H200")


class TritonTuneAbTest(unittest.TestCase):
    """scripts/triton_tune_ab.py without a GPU: variants, the summary and its table."""

    def setUp(self):
        import triton_tune_ab
        self.ab = triton_tune_ab

    def test_help_runs_without_a_gpu(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "triton_tune_ab.py"), "--help"],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("--variant", out)

    def test_variant_spec(self):
        self.assertEqual(self.ab.parse_variant("tma=a/b.py"), ("tma", "a/b.py", {}))
        self.assertEqual(self.ab.parse_variant("ptr=a/b.py:B_DESC=0,X=3"),
                         ("ptr", "a/b.py", {"B_DESC": 0, "X": 3}))
        with self.assertRaises(ValueError):
            self.ab.parse_variant("a/b.py")

    def test_variants_of_the_committed_harness_load_side_by_side(self):
        bench = os.path.join(HERE, "..", "worker", "benches", "triton", "fused_moe_bench.py")
        tma = self.ab.load_variant(("tma", bench, {}))
        ptr = self.ab.load_variant(("ptr", bench, {"B_DESC": 0}))
        self.assertIsNot(tma, ptr, "each variant its own module")
        self.assertEqual((ptr.B_DESC, tma.B_DESC), (0, True), "attribute overrides per variant")
        for mod in (tma, ptr):
            for name in ("setup", "prepare", "run", "_pipeline", "compile_tile_set"):
                self.assertTrue(callable(getattr(mod, name)), name)

    def test_summary_best_tile_set_floor_ratio_and_per_tile_set_ratio(self):
        samples = {"old": {"a": [[2.0, 2.0], [2.0]], "b": [[4.0]]},
                   "new": {"a": [[1.5, 1.5]], "b": [[2.0]]}}
        s = self.ab.summarize(samples, 1.0, "old")
        self.assertEqual(s["old"]["best"], "a")
        self.assertEqual(s["new"]["median"], 1.5)
        self.assertEqual(s["new"]["ratio"], 1.5)
        self.assertAlmostEqual(s["new"]["geomean_vs_base"], (0.75 * 0.5) ** 0.5)
        self.assertEqual(s["old"]["geomean_vs_base"], 1.0)
        text = self.ab.table({"moe": {1024: {"summary": s, "sm_mhz": {"old": 1980}}}}, ["old", "new"])
        self.assertIn("| 1024 | new | a | 1.5000 |", text)
        self.assertIn("| 0.750 |", text)


class TablesTest(unittest.TestCase):
    """scripts/triton_tables.py's per-M table: the ratio at the measured floor, at the sustained
    matmul rate (when the run measured it) and at the datasheet's peaks."""

    def setUp(self):
        import triton_tables
        self.tables = triton_tables

    def entry(self, m, floors, median):
        touched = 8
        floor = moe_algo.roofline_ms(m, 14336, 4096, 2, touched, floors["matmul_TFLOPs"], floors["copy_GBps"])
        return {"winner": "128/256/64/64/8/4", "median": median, "ci": [median, median], "floor": floor,
                "ratio": median / floor, "executions": 28, "wall_s": 1.0}

    def test_sustained_ratio_column(self):
        floors = {"copy_GBps": 3000.0, "matmul_TFLOPs": 800.0, "matmul_TFLOPs_sustained": 400.0}
        m = 4096  # compute-bound at 800 and at 400 TFLOP/s
        compute_ms = 1e3 * moe_algo.moe_flops(m, 14336, 4096, 2) / 800e12
        e = self.entry(m, floors, 3 * compute_ms)
        lines, winners = self.tables.moe_table(
            [{"floors": floors, "moe": {str(m): e}, "device": "NVIDIA H200"}])
        row = [c.strip() for c in lines[2].split("|")[1:-1]]
        self.assertIn("ratio at sustained matmul", lines[0])
        self.assertEqual(row[5], "3.00")  # at the measured floor
        self.assertEqual(row[6], "1.50")  # at half the matmul rate the floor doubles
        self.assertEqual(row[7], "%.2f" % (3 * compute_ms / (1e3 * moe_algo.moe_flops(m, 14336, 4096, 2) / 989e12)))
        self.assertEqual(winners[m]["GROUP_SIZE_M"], 64)

    def test_datasheet_follows_the_device(self):
        floors = {"copy_GBps": 3000.0, "matmul_TFLOPs": 800.0}
        m = 1  # memory-bound: the datasheet's bandwidth sets the floor
        e = self.entry(m, floors, 1.0)
        cells = {}
        for device in ("NVIDIA H200", "NVIDIA H100 80GB HBM3", "Iluvatar BI-V100"):
            lines, _ = self.tables.moe_table([{"floors": floors, "moe": {str(m): e}, "device": device}])
            cells[device] = [c.strip() for c in lines[2].split("|")[1:-1]][7]
        self.assertEqual(cells["Iluvatar BI-V100"], "-")  # no datasheet entry: no made-up ratio
        h200, h100 = float(cells["NVIDIA H200"]), float(cells["NVIDIA H100 80GB HBM3"])
        self.assertAlmostEqual(h200 / h100, 4800.0 / 3350.0, delta=0.02)

    def test_without_a_sustained_rate_the_column_says_so(self):
        floors = {"copy_GBps": 3000.0, "matmul_TFLOPs": 800.0}
        lines, _ = self.tables.moe_table([{"floors": floors, "moe": {"1024": self.entry(1024, floors, 2.0)}}])
        self.assertEqual([c.strip() for c in lines[2].split("|")[1:-1]][6], "-")


class TimedTest(unittest.TestCase):
    """triton_tuning.common.timed (the floors' and triton_moe_parts.py's timer) with a fake torch:
    3 untimed calls, then the median of the events' times over `reps` timed calls."""

    def test_median_of_the_timed_calls(self):
        from triton_tuning.common import timed
        elapsed = iter([5.0, 1.0, 3.0, 2.0])
        calls = []

        class FakeEvent:
            def __init__(self, enable_timing):
                assert enable_timing

            def record(self):
                pass

            def synchronize(self):
                pass

            def elapsed_time(self, end):
                return next(elapsed)

        class Cuda:
            Event = FakeEvent

            @staticmethod
            def synchronize():
                calls.append("sync")

        class FakeTorch:
            cuda = Cuda

        self.assertEqual(timed(FakeTorch, lambda: calls.append("fn"), 4), 2.5)  # median of 5,1,3,2
        self.assertEqual(calls.count("fn"), 7)  # 3 untimed + 4 timed
        self.assertEqual(calls[3], "sync")  # after the untimed ones


class MoePartsTest(unittest.TestCase):
    """scripts/triton_moe_parts.py: it imports without torch, refuses a bad tile set before any
    GPU work, and its table reads each launch against its floor."""

    def test_table(self):
        import triton_moe_parts as mp
        row = {"M": 1024, "tiles": "128/256/64/64/8/4", "whole_ms": 1.5, "floor_ms": 1.0,
               "check_error": 0.003, "rows_computed": 2560, "rows_valid": 2048,
               "gemm1_ms": 0.9, "silu_ms": 0.05, "gemm2_ms": 0.5, "sum_ms": 0.01,
               "gemm1": {"programs": 2240, "waves": 17, "wave_use": 2240 / 2244, "floor_ms": 0.6},
               "gemm2": {"programs": 320, "waves": 3, "wave_use": 320 / 396, "floor_ms": 0.3}}
        text = mp.table([row], 800.0, 4000.0, "Fake GPU")
        self.assertIn("| 1024 | 128/256/64/64/8/4 | 1.5000 (1.0000, 1.50) | 2560 / 2048 (+25%) |",
                      text)
        self.assertIn("0.9000 (1.50; 2240, 17, 100%)", text)
        self.assertIn("0.5000 (1.67; 320, 3, 81%)", text)
        self.assertIn("| 0.973 |", text)  # (0.9 + 0.05 + 0.5 + 0.01) / 1.5

    def test_bad_tile_set_is_refused_first(self):
        def parts(*args):
            return subprocess.run([sys.executable, os.path.join(HERE, "triton_moe_parts.py"), *args,
                                   "--out", tempfile.mkdtemp()], capture_output=True, text=True,
                                  timeout=60)
        p = parts("--configs", "128/256/64")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("128/256/64", p.stderr)
        self.assertNotIn("No module named 'torch'", p.stderr)
        p = parts("--ms", "1024,x")
        self.assertEqual(p.returncode, 2)
        self.assertIn("1024,x", p.stderr)
        self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    unittest.main()
