"""Statistics, search and exports of the Triton tuning runs (standard library only).

Used by scripts/triton_tune.py on the GPU node and by the CPU tests (tune_report_test.py):

* median / hierarchical_ci: the median of all samples and a 95% bootstrap CI that resamples
  executions first, then samples inside each (an execution's samples share a process and a
  moment: they are not independent);
* halving_keep: successive halving over executions (keep the best 1/eta by median, never fewer
  than `floor` configurations);
* vllm_moe_config / vllm_moe_file_name: vLLM's tuned fused-MoE JSON, one entry per batch size;
* smem_rows: what each shared-memory limit admits and the best time it can reach.
"""

import json
import random

SIX = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages")


def median(xs):
    s = sorted(xs)
    if not s:
        raise ValueError("median of no values")
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else 0.5 * (s[mid - 1] + s[mid])


def hierarchical_ci(executions, resamples=1000, level=0.95, seed=1):
    """95% CI of the median: resample executions with replacement, then each chosen execution's
    samples with replacement, take the median of the pooled resample. executions: lists of
    floats (empty lists ignored). One execution: only its samples are resampled."""
    execs = [list(e) for e in executions if e]
    if not execs:
        raise ValueError("no samples")
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        pool = []
        for _ in range(len(execs)):
            e = execs[rng.randrange(len(execs))]
            pool.extend(e[rng.randrange(len(e))] for _ in range(len(e)))
        stats.append(median(pool))
    stats.sort()
    lo = stats[int((1 - level) / 2 * resamples)]
    hi = stats[min(resamples - 1, int((1 + level) / 2 * resamples))]
    return lo, hi


def halving_keep(scores, eta=3, floor=1):
    """scores: {key: median}; the keys of the best ceil(n / eta) (at least `floor`), best first.
    Ties keep the first listed (stable)."""
    order = sorted(scores, key=lambda k: scores[k])
    keep = max(floor, -(-len(order) // eta))
    return order[:keep]


def vllm_moe_file_name(e, n, device_name):
    """vLLM's file name: spaces in the device name become underscores."""
    return "E=%d,N=%d,device_name=%s.json" % (e, n, device_name.replace(" ", "_"))


def vllm_moe_config(winners):
    """winners: {M (int or str): dict with the six fields}. Returns the JSON object vLLM loads:
    keys str(M) in increasing M, values the six ints in vLLM's field order. Raises ValueError
    naming the batch size and field when a field is missing or not an integer."""
    out = {}
    for m in sorted(winners, key=int):
        entry = {}
        for field in SIX:
            value = winners[m].get(field)
            if isinstance(value, bool) or not isinstance(value, int):
                try:
                    value = int(str(value))
                except ValueError:
                    raise ValueError("M=%s: field %s is %r, not an integer" % (m, field, value))
            entry[field] = value
        out[str(int(m))] = entry
    return out


def dump_vllm_moe(winners):
    return json.dumps(vllm_moe_config(winners), indent=4) + "\n"


def smem_rows(measured, limits, space_smem):
    """measured: [(config_id, smem_bytes, {M: median_ms})]; limits: bytes; space_smem: the
    estimate of every tile set of the full space. Per limit: how many tile sets of the full
    space fit (estimate), how many measured ones fit (compiled figure), and per M the best median
    among the measured ones that fit (None when none fits) with its config id."""
    rows = []
    for limit in limits:
        fits = [m for m in measured if m[1] <= limit]
        best = {}
        for cid, _, times in fits:
            for mm, t in times.items():
                if t is not None and (mm not in best or t < best[mm][0]):
                    best[mm] = (t, cid)
        rows.append({"limit": limit, "space_fits": sum(1 for b in space_smem if b <= limit),
                     "space_total": len(space_smem), "measured_fits": len(fits),
                     "measured_total": len(measured), "best": best})
    return rows
