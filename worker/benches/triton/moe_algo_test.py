#!/usr/bin/env python3
"""CPU tests of the fused-MoE benchmark's GPU-free logic (moe_algo.py). Run by ctest."""
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import moe_algo as ma  # noqa: E402

PLATFORMS = os.path.join(HERE, "..", "..", "platforms")


def rand_matrix(rng, rows, cols, scale=1.0):
    return [[rng.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


class AlignBlockSize(unittest.TestCase):
    def test_groups_by_expert_keeps_token_order_and_pads(self):
        ids = [[2, 0], [0, 1], [2, 0]]  # flat ids 0..5 -> experts 2,0,0,1,2,0
        sorted_ids, experts, total = ma.align_block_size(ids, 4, 4)
        pad = 6
        self.assertEqual(sorted_ids, [1, 2, 5, pad, 3, pad, pad, pad, 0, 4, pad, pad])
        self.assertEqual(experts, [0, 1, 2])  # expert 3 has no token: no block
        self.assertEqual(total, 12)

    def test_every_id_once_and_blocks_hold_one_expert(self):
        rng = random.Random(3)
        for block_m in (1, 2, 3, 16, 64):
            ids = [rng.sample(range(8), 2) for _ in range(37)]
            sorted_ids, experts, total = ma.align_block_size(ids, 8, block_m)
            numel = 37 * 2
            self.assertEqual(total % block_m, 0)
            self.assertEqual(len(experts), total // block_m)
            real = [i for i in sorted_ids if i < numel]
            self.assertEqual(sorted(real), list(range(numel)))
            flat = [e for row in ids for e in row]
            for b, e in enumerate(experts):
                for i in sorted_ids[b * block_m:(b + 1) * block_m]:
                    if i < numel:
                        self.assertEqual(flat[i], e)
            # padding is minimal: each expert's group is shorter than one extra block
            for e in set(flat):
                count = flat.count(e)
                self.assertEqual(experts.count(e), -(-count // block_m))

    def test_bad_input(self):
        with self.assertRaisesRegex(ValueError, "block_m"):
            ma.align_block_size([[0]], 2, 0)
        with self.assertRaisesRegex(ValueError, "expert id 5"):
            ma.align_block_size([[5]], 2, 16)


class ProgramGrid(unittest.TestCase):
    def test_grouped_order_is_a_bijection(self):
        for num_m, num_n, group in [(7, 5, 1), (7, 5, 3), (7, 5, 16), (1, 9, 4), (12, 1, 5)]:
            seen = {ma.program_tile(p, num_m, num_n, group) for p in range(num_m * num_n)}
            self.assertEqual(seen, {(i, j) for i in range(num_m) for j in range(num_n)})

    def test_group_walks_down_a_column_first(self):
        self.assertEqual([ma.program_tile(p, 4, 3, 2) for p in range(4)], [(0, 0), (1, 0), (0, 1), (1, 1)])


class FusedMoeAgainstReference(unittest.TestCase):
    def test_blocked_kernel_matches_float_reference(self):
        rng = random.Random(7)
        m, e, n, k, topk = 6, 4, 10, 12, 2
        x = rand_matrix(rng, m, k)
        w1 = [rand_matrix(rng, 2 * n, k, k ** -0.5) for _ in range(e)]
        w2 = [rand_matrix(rng, k, n, n ** -0.5) for _ in range(e)]
        ids, wts = ma.route_topk(rand_matrix(rng, m, e), topk)
        ref = ma.reference_moe(x, w1, w2, ids, wts)
        for tiles in ({"BLOCK_SIZE_M": 4, "BLOCK_SIZE_N": 4, "BLOCK_SIZE_K": 8, "GROUP_SIZE_M": 1},
                      {"BLOCK_SIZE_M": 2, "BLOCK_SIZE_N": 3, "BLOCK_SIZE_K": 5, "GROUP_SIZE_M": 2},
                      {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}):
            got = ma.fused_moe_blocked(x, w1, w2, ids, wts, tiles)
            err = max(abs(a - b) for ra, rb in zip(got, ref) for a, b in zip(ra, rb))
            scale = max(abs(v) for r in ref for v in r)
            self.assertLess(err, 1e-9 * scale, tiles)

    def test_every_output_written_once_and_weights_matter(self):
        rng = random.Random(9)
        m, e, n, k, topk = 5, 3, 7, 4, 2
        x = rand_matrix(rng, m, k)
        w = [rand_matrix(rng, n, k) for _ in range(e)]
        ids, wts = ma.route_topk(rand_matrix(rng, m, e), topk)
        tiles = {"BLOCK_SIZE_M": 2, "BLOCK_SIZE_N": 4, "BLOCK_SIZE_K": 3, "GROUP_SIZE_M": 2}
        s, ex, _ = ma.align_block_size(ids, e, 2)
        out, writes = ma.blocked_moe_gemm(x, w, s, ex, m * topk, topk, tiles, wts)
        self.assertTrue(all(c == 1 for row in writes for c in row))
        plain, _ = ma.blocked_moe_gemm(x, w, s, ex, m * topk, topk, tiles)
        flat = [v for r in wts for v in r]
        for i in range(m * topk):
            for c in range(n):
                self.assertAlmostEqual(out[i][c], plain[i][c] * flat[i], places=12)

    def test_routing_is_softmax_topk_renormalised(self):
        ids, wts = ma.route_topk([[0.0, 2.0, 1.0, 2.0]], 2)
        self.assertEqual(ids, [[1, 3]])  # tie: lower expert first
        self.assertAlmostEqual(sum(wts[0]), 1.0)
        self.assertAlmostEqual(wts[0][0], 0.5)


class SharedMemory(unittest.TestCase):
    def test_estimate_matches_compiled_kernels(self):
        # (tile set, bytes Triton 3.6 reported for the compiled kernel on an H200, 2026-12-02)
        seen = [((32, 32, 128, 5), 65536), ((16, 128, 128, 5), 147456), ((128, 32, 64, 5), 102400),
                ((64, 32, 128, 3), 73728), ((32, 64, 256, 3), 98304), ((128, 64, 128, 4), 196608),
                ((32, 32, 128, 4), 49152), ((128, 64, 64, 4), 98304), ((32, 256, 64, 3), 73728)]
        for (bm, bn, bk, st), compiled in seen:
            self.assertEqual(ma.smem_bytes(bm, bn, bk, st), compiled, (bm, bn, bk, st))
        self.assertEqual(ma.smem_bytes(16, 32, 64, 1, elem_bytes=4), (16 * 64 + 64 * 32) * 4)

    def test_space_is_benchmark_moe_and_the_limit_splits_it(self):
        everything, none = ma.tuning_space()
        self.assertEqual(len(everything), 5 * 4 * 3 * 4 * 2 * 4)
        self.assertEqual(none, [])
        fits32, over32 = ma.tuning_space(smem_limit=32 * 1024)
        fits48, _ = ma.tuning_space(smem_limit=48 * 1024)
        self.assertEqual(len(fits32) + len(over32), len(everything))
        self.assertTrue(all(ma.config_smem(c) <= 32 * 1024 for c in fits32))
        self.assertTrue(all(ma.config_smem(c) > 32 * 1024 for c in over32))
        self.assertLess(len(fits32), len(fits48))  # 48 KiB admits more tile sets
        big = {"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 256, "GROUP_SIZE_M": 1,
               "num_warps": 8, "num_stages": 5}
        self.assertIn(big, over32)


class TileSetIds(unittest.TestCase):
    def test_id_round_trip_and_bad_text_named(self):
        config = dict(zip(ma.TILE_PARAMS, (128, 256, 64, 64, 8, 4)))
        self.assertEqual(ma.tile_set_id(config), "128/256/64/64/8/4")
        self.assertEqual(ma.parse_tile_set("128/256/64/64/8/4"), config)
        for bad in ("128/256/64/64/8", "128/256/64/64/8/x", ""):
            with self.assertRaises(ValueError) as ctx:
                ma.parse_tile_set(bad)
            self.assertIn(repr(bad), str(ctx.exception))


class Surfaces(unittest.TestCase):
    def test_platform_files(self):
        cuda = ma.read_surface_honoured(os.path.join(PLATFORMS, "cuda.yaml"))
        biv = ma.read_surface_honoured(os.path.join(PLATFORMS, "bi-v100.yaml"))
        self.assertEqual(set(cuda), set(ma.TILE_PARAMS))
        self.assertEqual(biv, ["BLOCK_SIZE_M"])
        self.assertIsNone(ma.read_surface_honoured(os.path.join(PLATFORMS, "cuda.yaml"), "no_such"))

    def test_effective_tiles(self):
        req = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 16,
               "num_warps": 8, "num_stages": 4}
        self.assertEqual(ma.effective_tiles(req, None), req)
        biv = ma.effective_tiles(req, ["BLOCK_SIZE_M"])
        self.assertEqual(biv, dict(ma.FIXED_WHEN_IGNORED, BLOCK_SIZE_M=128))
        # N, K, GROUP requested differently on bi-v100 -> the same kernel runs
        other = dict(req, BLOCK_SIZE_N=32, BLOCK_SIZE_K=64, GROUP_SIZE_M=1)
        self.assertEqual(ma.effective_tiles(other, ["BLOCK_SIZE_M"]), biv)
        with self.assertRaisesRegex(ValueError, "BLOCK_SIZE_M"):
            ma.effective_tiles({}, None)

    def test_find_and_malformed(self):
        self.assertTrue(ma.find_surface("bi-v100", [PLATFORMS]).endswith("bi-v100.yaml"))
        self.assertIsNone(ma.find_surface("nope", [PLATFORMS]))
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("platform: x\nfused_moe:\n  honoured: BLOCK_SIZE_M\n")
        try:
            with self.assertRaisesRegex(ValueError, r":3: honoured must be a \[list\]"):
                ma.read_surface_honoured(f.name)
        finally:
            os.unlink(f.name)


class Roofline(unittest.TestCase):
    def test_floor_is_the_larger_term(self):
        m, n, k = 1024, 14336, 4096
        flops = ma.moe_flops(m, n, k, 2)
        self.assertEqual(flops, 6 * m * 2 * n * k)
        t = ma.roofline_ms(m, n, k, 2, 8, 800.0, 4000.0)
        self.assertAlmostEqual(t, 1e3 * max(flops / 800e12, ma.moe_bytes(m, n, k, 2, 8) / 4000e9))
        # small M: the weights of the touched experts dominate
        self.assertGreater(ma.roofline_ms(1, n, k, 2, 8, 800.0, 4000.0),
                           ma.roofline_ms(1, n, k, 2, 2, 800.0, 4000.0) * 3.9)


@unittest.skipIf(importlib.util.find_spec("torch") is not None, "torch present: the GPU path runs instead")
class StagesAndWaves(unittest.TestCase):
    def test_stage_tiles_of_mixtral_at_1024_with_128_row_tiles(self):
        tiles = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256}
        # 20 aligned row blocks: 2 x 28672 / 256 = 112 and 4096 / 256 = 16 column blocks.
        self.assertEqual(ma.stage_tiles(20 * 128, 14336, 4096, tiles), (2240, 320))
        # A ragged last column block still gets a program.
        self.assertEqual(ma.stage_tiles(128, 100, 300, {"BLOCK_SIZE_M": 128,
                                                               "BLOCK_SIZE_N": 64}), (4, 5))

    def test_wave_use(self):
        self.assertEqual(ma.wave_use(0, 132), (0, 1.0))
        self.assertEqual(ma.wave_use(264, 132), (2, 1.0))
        waves, use = ma.wave_use(320, 132)  # GEMM2 above on an H100/H200
        self.assertEqual(waves, 3)
        self.assertAlmostEqual(use, 320 / 396)
        self.assertEqual(ma.wave_use(1, 132), (1, 1 / 132))


class HarnessesWithoutTorch(unittest.TestCase):
    def test_they_speak_the_protocol_and_report_not_implemented(self):
        for bench, params in (("fused_moe_bench.py", {"BLOCK_SIZE_M": "64"}),
                              ("flash_attn_bench.py", {"BLOCK_M": "64", "BLOCK_N": "64", "num_warps": "4",
                                                       "num_stages": "2"})):
            env = dict(os.environ, FLEETSWEEP_PARAMS=json.dumps(params))
            env.pop("FLEETSWEEP_SESSION", None)
            r = subprocess.run([sys.executable, os.path.join(HERE, bench)], env=env, capture_output=True,
                               text=True, timeout=60)
            lines = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual([(x["type"], x["class"]) for x in lines], [("error", "not_implemented")], bench)


if __name__ == "__main__":
    unittest.main()
