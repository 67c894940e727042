#!/usr/bin/env python3
"""Markdown tables from a scripts/triton_tune.py run: triton_tables.py OUT_DIR > tables.md

Reads OUT_DIR/results.json and OUT_DIR/runs.jsonl (more run directories after it join the per-M
table: per M the lowest-median winner of all runs, also written as OUT_DIR/merged_E=...json); prints the per-M fused-MoE table (winner,
median, CI, roofline floor, ratio), search vs grid, the shared-memory table, the surfaces'
fingerprints, the flash-attention configs and the autotune check. Standard library only.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "worker", "benches", "triton"))
import fa_algo  # noqa: E402
import moe_algo  # noqa: E402
import tune_report as tr  # noqa: E402

KIB = 1024


def per_config_medians(runs):
    """{(config id, M): [samples]} over the moe and grid parts, and {config id: smem bytes}."""
    samples, smem = {}, {}
    for r in runs:
        if r.get("part") not in ("moe", "grid") or r.get("status") != "ok":
            continue
        samples.setdefault((r["key"], int(r["M"])), []).extend(r["samples"])
        if "smem_bytes" in r.get("info", {}):
            smem[r["key"]] = r["info"]["smem_bytes"]
    return samples, smem


# Dense bf16 TFLOP/s and memory GB/s from the vendors' datasheets, by a part of the device name.
DATASHEETS = (("H200", 989.0, 4800.0), ("H100 PCIe", 756.0, 2000.0), ("H100", 989.0, 3350.0))


def datasheet(device):
    """(tflops, gbps) of the first DATASHEETS entry whose name is in `device`; None when none is."""
    for name, tflops, gbps in DATASHEETS:
        if name in (device or ""):
            return tflops, gbps
    return None


def datasheet_floor(e, m, floors, device):
    """The floor again at the device's datasheet peaks (H200: 4.8 TB/s, H100 SXM: 3.35 TB/s, 989
    TFLOP/s dense bf16 both; a stricter bound: the kernel's weight stream beats the copy rate torch
    measures); None for a device without a datasheet entry."""
    peaks = datasheet(device)
    return floor_at(e, m, floors, *peaks) if peaks else None


def sustained_floor(e, m, floors):
    """The floor at the matmul rate measured after ~10 s of back-to-back matmuls (the device at
    its power cap, as during a long tuning run) and the measured copy rate; None when the run did
    not measure it."""
    if not floors.get("matmul_TFLOPs_sustained"):
        return None
    return floor_at(e, m, floors, floors["matmul_TFLOPs_sustained"], floors["copy_GBps"])


def floor_at(e, m, floors, tflops, gbps):
    """The roofline floor of entry `e` at other peak rates. The experts touched are recovered from
    the measured floor when it was memory-bound (else all 8 are)."""
    n, k, topk = 14336, 4096, 2
    touched = 8
    t_mem = e["floor"] * 1e-3 * floors["copy_GBps"] * 1e9
    if e["floor"] > 1e3 * moe_algo.moe_flops(m, n, k, topk) / (floors["matmul_TFLOPs"] * 1e12) * 1.0001:
        acts = moe_algo.moe_bytes(m, n, k, topk, 0)
        touched = int(round((t_mem - acts) / (3 * n * k * 2)))
    return moe_algo.roofline_ms(m, n, k, topk, touched, tflops, gbps)


def moe_table(runs_res):
    """Per M the best winner over the runs given (run 1 = the main run); -> (lines, winners)."""
    out = ["| M | winner BM/BN/BK/GROUP/warps/stages | median ms | 95% CI | floor ms | ratio | "
           "ratio at sustained matmul | ratio at datasheet peaks | run | executions | wall s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    winners = {}
    ms = sorted({int(m) for res in runs_res for m in res.get("moe", {})})
    for m in ms:
        cands = [(i + 1, res, res["moe"][str(m)]) for i, res in enumerate(runs_res)
                 if str(m) in res.get("moe", {}) and res["moe"][str(m)].get("winner")]
        if not cands:
            out.append("| %d | (no tile set passed) | | | | | | | | | |" % m)
            continue
        run, res, e = min(cands, key=lambda c: c[2]["median"])
        winners[m] = moe_algo.parse_tile_set(e["winner"])
        strict = datasheet_floor(e, m, res["floors"], res.get("device"))
        sustained = sustained_floor(e, m, res["floors"])
        out.append("| %d | %s | %.4f | [%.4f, %.4f] | %.4f | %.2f | %s | %s | %d | %d | %.1f |" % (
            m, e["winner"], e["median"], e["ci"][0], e["ci"][1], e["floor"], e["ratio"],
            "%.2f" % (e["median"] / sustained) if sustained else "-",
            "%.2f" % (e["median"] / strict) if strict else "-", run,
            e["executions"], e["wall_s"]))
    return out, winners


def grid_table(res):
    out = ["| M | grid best | grid median ms [CI] | halving pick | its grid median ms [CI] | gap | "
           "executions halving / grid | wall s halving / grid |", "|---|---|---|---|---|---|---|---|"]
    for m in sorted(res.get("grid", {}), key=int):
        g = res["grid"][m]
        pick = g.get("halving_pick_grid_median")
        ci = g.get("halving_pick_ci") or [float("nan")] * 2
        gap = "%.2f%%" % (100 * (pick / g["best_median"] - 1)) if pick else "-"
        out.append("| %s | %s | %.4f [%.4f, %.4f] | %s | %s [%.4f, %.4f] | %s | %d / %d (%.0f%%) | %.1f / %.1f |" % (
            m, g["best"], g["best_median"], g["best_ci"][0], g["best_ci"][1], g["halving_pick"],
            "%.4f" % pick if pick else "-", ci[0], ci[1], gap, g["halving_executions"], g["executions"],
            100.0 * g["halving_executions"] / max(1, g["executions"]), g["halving_wall_s"], g["wall_s"]))
    return out


def smem_table(res, runs, ms=(1, 64, 256, 1024, 4096)):
    samples, smem = per_config_medians(runs)
    ms = [m for m in ms if any(k[1] == m for k in samples)]
    measured = []
    for cid in smem:
        times = {m: tr.median(samples[(cid, m)]) for m in ms if (cid, m) in samples}
        measured.append((cid, smem[cid], times))
    space, _ = moe_algo.tuning_space()
    space_smem = [moe_algo.config_smem(c) for c in space]
    limits = [32 * KIB, 48 * KIB, 64 * KIB, 100 * KIB, res.get("smem_device", 232448)]
    rows = tr.smem_rows(measured, limits, space_smem)
    head = "| limit | space admits (estimate) | measured admitted | " + " | ".join(
        "best M=%d ms (tile set)" % m for m in ms) + " |"
    out = [head, "|" + "---|" * (3 + len(ms))]
    for r in rows:
        cells = []
        for m in ms:
            b = r["best"].get(m)
            cells.append("%.4f (%s)" % b if b else "none")
        out.append("| %d KiB | %d of %d | %d of %d | %s |" % (
            r["limit"] // KIB, r["space_fits"], r["space_total"], r["measured_fits"],
            r["measured_total"], " | ".join(cells)))
    return out


def infeasible_table(res):
    """The tile sets of the space whose shared-memory estimate exceeds the device's limit: never
    compiled, never run, grouped by each parameter's level (whole levels first)."""
    limit = res.get("smem_device", 232448)
    space, _ = moe_algo.tuning_space()
    bad = [c for c in space if moe_algo.config_smem(c) > limit]
    out = ["%d of %d tile sets need more than %d B of shared memory (infeasible at compile time; "
           "never compiled or run). By level:" % (len(bad), len(space), limit), "",
           "| parameter | level | infeasible / total |", "|---|---|---|"]
    rows = []
    for p in moe_algo.TILE_PARAMS:
        for v in moe_algo.BENCHMARK_MOE_SPACE[p]:
            total = sum(1 for c in space if c[p] == v)
            n = sum(1 for c in bad if c[p] == v)
            if n:
                rows.append((n == total, n / total, p, v, n, total))
    for whole, _, p, v, n, total in sorted(rows, key=lambda r: (not r[0], -r[1])):
        out.append("| %s | %s | %d / %d%s |" % (p, v, n, total, " (whole level)" if whole else ""))
    return out


def surfaces_table(res):
    out = ["| surface | requested BM/BN/BK/GROUP/warps/stages | ran | fingerprint | median ms |",
           "|---|---|---|---|---|"]
    for r in res.get("surfaces", []):
        ran = r.get("ran") or {}
        ran_text = "/".join(str(ran.get(k, "?")) for k in moe_algo.TILE_PARAMS)
        out.append("| %s | %s | %s | %s | %s |" % (r["platform"], r["requested"], ran_text, r["fingerprint"],
                                                  "%.4f" % r["median"] if r.get("median") else "-"))
    return out


def fa_tables(res):
    fa = res.get("fa")
    if not fa:
        return []
    out = ["| shape | configs ok / failed | best config (BM, BN, warps, stages) | best ms | "
           "best within 48 KiB | best within 32 KiB | autotuned (exported set) ms | best single ms | ratio |",
           "|---|---|---|---|---|---|---|---|---|"]
    for name, s in fa["shapes"].items():
        rows = [r for r in s["rows"] if r["median"] is not None]
        failed = len(s["rows"]) - len(rows)
        best = min(rows, key=lambda r: r["median"])

        def within(limit):
            fit = [r for r in rows if r["smem"] is not None and r["smem"] <= limit]
            if not fit:
                return "none"
            b = min(fit, key=lambda r: r["median"])
            return "%.4f (%s)" % (b["median"], tuple(b["config"].values()))

        out.append("| %s | %d / %d | %s | %.4f | %s | %s | %s | %s | %s |" % (
            name, len(rows), failed, tuple(best["config"].values()), best["median"], within(48 * KIB),
            within(32 * KIB), "%.4f" % s["autotuned_ms"] if "autotuned_ms" in s else "-",
            "%.4f" % s["best_single_ms"] if "best_single_ms" in s else "-",
            "%.3f" % (s["autotuned_ms"] / s["best_single_ms"]) if "autotuned_ms" in s else "-"))
    return out


def fa_limited_table(res):
    """The lists chosen within 48 / 32 KiB of shared memory, each timed as an autotuned set
    against the best single config within the same limit."""
    limited = (res.get("fa") or {}).get("limited") or {}
    out = ["| limit | shape | configs in the list | autotuned ms | best single within the limit ms | ratio | picked |",
           "|---|---|---|---|---|---|---|"]
    for limit, entry in sorted(limited.items(), key=lambda kv: -int(kv[0])):
        for name, f in entry["shapes"].items():
            out.append("| %d KiB | %s | %d | %.4f | %.4f | %.3f | %s |" % (
                int(limit) // KIB, name, f["list_size"], f["autotuned_ms"], f["best_single_ms"],
                f["autotuned_ms"] / f["best_single_ms"], f["autotune_picked"]))
    return out


def small_smem_export(res, limit):
    """The autotune list chosen only among configs whose compiled kernel fits `limit` bytes of
    shared memory (a BI-V100-style device: 32 KiB, or 48 KiB with the seed's patch)."""
    results = {}
    for name, s in res["fa"]["shapes"].items():
        results[name] = [(r["config"], r["median"]) for r in s["rows"]
                         if r["median"] is not None and r["smem"] is not None and r["smem"] <= limit]
    return fa_algo.export_config_list(fa_algo.best_set(results), name="configs_smem%dk" % (limit // KIB))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: triton_tables.py OUT_DIR [MORE_RUN_DIRS...] (per-M table and vLLM JSON over all)")
    out_dir = sys.argv[1]
    res = json.load(open(os.path.join(out_dir, "results.json")))
    more = [json.load(open(os.path.join(d, "results.json"))) for d in sys.argv[2:]]
    per_m, winners = moe_table([res] + more)
    if winners:
        name = tr.vllm_moe_file_name(8, 14336, res.get("device", "unknown"))
        with open(os.path.join(out_dir, "merged_" + name), "w") as f:
            f.write(tr.dump_vllm_moe(winners))
    runs = [json.loads(line) for line in open(os.path.join(out_dir, "runs.jsonl")) if line.strip()]
    sections = [("Fused MoE per batch size", per_m), ("Search vs grid", grid_table(res)),
                ("Shared-memory limit", smem_table(res, runs)),
                ("Infeasible at compile time", infeasible_table(res)), ("Platform surfaces", surfaces_table(res)),
                ("Flash-attention configs and the exported autotune set", fa_tables(res)),
                ("Flash-attention sets within a shared-memory limit, autotuned", fa_limited_table(res))]
    print("Device %s, torch %s, triton %s; floors %s; space %s" % (
        res.get("device"), res.get("torch"), res.get("triton"), res.get("floors"), res.get("space")))
    for title, lines in sections:
        if len(lines) > 2:
            print("\n### %s\n" % title)
            print("\n".join(lines))
    if res.get("fa", {}).get("export"):
        print("\nExported autotune set:\n\n```python\n%s```" % res["fa"]["export"])
        for limit in (48 * KIB, 32 * KIB):
            text = small_smem_export(res, limit)
            with open(os.path.join(out_dir, "flash_attn_configs_smem%dk.py" % (limit // KIB)), "w") as f:
                f.write(text)
            timed = str(limit) in (res["fa"].get("limited") or {})
            print("\nThe same choice among configs whose compiled kernel fits %d KiB (%s):\n\n"
                  "```python\n%s```" % (limit // KIB, "timed as an autotuned set in the table above"
                                         if timed else "not re-timed as an autotuned set", text))


if __name__ == "__main__":
    main()
