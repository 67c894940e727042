#!/usr/bin/env python3
"""CPU tests of the tuning statistics, search and exports (tune_report.py, fa_algo.py)."""
import json
import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fa_algo  # noqa: E402
import moe_algo  # noqa: E402
import tune_report as tr  # noqa: E402


class Statistics(unittest.TestCase):
    def test_median(self):
        self.assertEqual(tr.median([3, 1, 2]), 2)
        self.assertEqual(tr.median([4, 1, 2, 3]), 2.5)
        with self.assertRaises(ValueError):
            tr.median([])

    def test_ci_covers_the_median_and_widens_with_spread_between_executions(self):
        rng = random.Random(5)
        tight = [[1.0 + rng.gauss(0, 0.001) for _ in range(10)] for _ in range(5)]
        # same within-execution noise, but executions sit at different levels
        spread = [[lvl + rng.gauss(0, 0.001) for _ in range(10)] for lvl in (0.9, 1.0, 1.1, 0.95, 1.05)]
        lo, hi = tr.hierarchical_ci(tight)
        self.assertLessEqual(lo, tr.median([x for e in tight for x in e]))
        self.assertGreaterEqual(hi, tr.median([x for e in tight for x in e]))
        slo, shi = tr.hierarchical_ci(spread)
        self.assertGreater(shi - slo, 10 * (hi - lo))
        self.assertEqual(tr.hierarchical_ci(tight), tr.hierarchical_ci(tight))  # seeded

    def test_halving_keeps_the_best_third(self):
        scores = {"a": 5.0, "b": 1.0, "c": 3.0, "d": 2.0, "e": 4.0, "f": 6.0, "g": 0.5}
        self.assertEqual(tr.halving_keep(scores, 3), ["g", "b", "d"])
        self.assertEqual(tr.halving_keep(scores, 10, floor=2), ["g", "b"])


class VllmExport(unittest.TestCase):
    def test_every_batch_size_in_order_with_the_six_fields(self):
        rng = random.Random(1)
        space, _ = moe_algo.tuning_space()
        winners = {m: rng.choice(space) for m in reversed(moe_algo.TUNED_BATCH_SIZES)}
        text = tr.dump_vllm_moe(winners)
        loaded = json.loads(text)
        self.assertEqual(list(loaded), [str(m) for m in moe_algo.TUNED_BATCH_SIZES])
        for m in moe_algo.TUNED_BATCH_SIZES:
            self.assertEqual(list(loaded[str(m)]), list(tr.SIX))
            self.assertEqual(loaded[str(m)], {k: winners[m][k] for k in tr.SIX})

    def test_text_values_become_ints_and_bad_ones_are_named(self):
        cfg = {k: "16" for k in tr.SIX}
        self.assertEqual(tr.vllm_moe_config({"8": cfg})["8"]["num_warps"], 16)
        with self.assertRaisesRegex(ValueError, "M=8: field GROUP_SIZE_M"):
            tr.vllm_moe_config({8: dict(cfg, GROUP_SIZE_M="x")})
        with self.assertRaisesRegex(ValueError, "num_stages"):
            tr.vllm_moe_config({8: {k: 1 for k in tr.SIX[:-1]}})

    def test_file_name(self):
        self.assertEqual(tr.vllm_moe_file_name(8, 14336, "NVIDIA H200"), "E=8,N=14336,device_name=NVIDIA_H200.json")


class SharedMemoryRows(unittest.TestCase):
    def test_limits_admit_and_best_reachable(self):
        measured = [("small", 30 * 1024, {64: 2.0}), ("mid", 40 * 1024, {64: 1.5}),
                    ("big", 200 * 1024, {64: 1.0, 1024: 3.0})]
        rows = tr.smem_rows(measured, [32 * 1024, 48 * 1024, 227 * 1024], [10, 40 * 1024, 300 * 1024])
        self.assertEqual([r["measured_fits"] for r in rows], [1, 2, 3])
        self.assertEqual([r["space_fits"] for r in rows], [1, 2, 2])
        self.assertEqual(rows[0]["best"], {64: (2.0, "small")})
        self.assertEqual(rows[1]["best"], {64: (1.5, "mid")})
        self.assertEqual(rows[2]["best"], {64: (1.0, "big"), 1024: (3.0, "big")})


class FlashAttentionSet(unittest.TestCase):
    def test_candidates_respect_the_limit(self):
        all_c = fa_algo.candidates()
        small = fa_algo.candidates(smem_limit=48 * 1024)
        self.assertTrue(small and len(small) < len(all_c))
        self.assertTrue(all(fa_algo.smem_bytes(c, 128) <= 48 * 1024 for c in small))
        self.assertFalse(any(c["num_warps"] == 8 and c["BLOCK_M"] < 64 for c in all_c))

    def test_best_set_and_pasteable_export(self):
        a = {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 8, "num_stages": 3}
        b = {"BLOCK_M": 64, "BLOCK_N": 32, "num_warps": 4, "num_stages": 2}
        results = {"s1": [(a, 1.0), (b, 2.0)], "s2": [(a, 3.0), (b, 2.5)], "s3": [(a, 0.5), (b, None)]}
        chosen = fa_algo.best_set(results)
        self.assertEqual(chosen, [(a, ["s1", "s3"]), (b, ["s2"])])
        text = fa_algo.export_config_list(chosen)

        class Config:  # stands in for triton.Config
            def __init__(self, kwargs, num_warps, num_stages):
                self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages

        scope = {}
        exec(text.replace("import triton\n", ""), {"triton": type("T", (), {"Config": Config})}, scope)
        got = [dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages) for c in scope["configs"]]
        self.assertEqual(got, [a, b])


if __name__ == "__main__":
    unittest.main()
