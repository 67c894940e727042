"""Hierarchical bootstrap and within-block permutation test, transcribed on the same Rng stream."""

import itertools

import numpy as np

from stats_vectors.rng import Xoshiro, packed_indices

# ---------------------------------------------------------------- hierarchical bootstrap
COMBINED_LIMIT = 65536


def hierarchical_round(r, execs):
    """One round's pooled draw, as common/stats/hierarchical.h states the stream."""
    k, n = len(execs), len(execs[0])
    combos = n ** n
    if all(len(ex) == n for ex in execs) and k * combos <= COMBINED_LIMIT:
        pooled = []
        for u in packed_indices(r, [k * combos] * k):
            e, c = divmod(u, combos)
            digits = [(c // n ** (n - 1 - j)) % n for j in range(n)]
            pooled.extend(execs[e][d] for d in digits)
        return pooled
    drawn = [execs[e] for e in packed_indices(r, [k] * k)]
    ranges = [len(ex) for ex in drawn for _ in ex]
    samples = iter(packed_indices(r, ranges))
    return [ex[next(samples)] for ex in drawn for _ in ex]


def hierarchical_vectors():
    g = np.random.default_rng(17)
    cases = [
        ([[1.0, 2.0, 3.0], [10.0, 11.0], [5.0]], 0.95, 300, 3),
        ([list(np.round(g.normal(m, 0.5, 5), 3)) for m in (10.0, 10.4, 9.7, 10.1)], 0.9, 500, 42),
        ([list(np.round(g.lognormal(0.0, 0.02, 8), 5)) for _ in range(3)], 0.95, 1000, 7),
        # the live aggregate's shape: 30 executions of 3 samples (combined draws, R = 810)
        ([list(np.round(g.lognormal(0.0, 0.05, 3), 4)) for _ in range(30)], 0.95, 400, 9),
        ([[float(np.round(v, 3))] for v in g.normal(5.0, 1.0, 6)], 0.95, 300, 5),  # n = 1
        ([[1.0, 2.0], [3.0, 4.0], [2.0, 2.0]], 0.8, 300, 6),  # ties, even totals
    ]
    out = []
    for execs, conf, resamples, seed in cases:
        r = Xoshiro(seed)
        meds = [float(np.median(hierarchical_round(r, execs))) for _ in range(resamples)]
        alpha = 1 - conf
        out.append({"executions": execs, "confidence": conf, "resamples": resamples,
                    "seed": seed, "first_medians": meds[:5],
                    "low": float(np.quantile(meds, alpha / 2)),
                    "high": float(np.quantile(meds, 1 - alpha / 2))})
    return out


# ---------------------------------------------------------------- block permutation test
def block_stat(blocks, labels, levels):
    sums = [0.0] * levels
    counts = [0] * levels
    for blk, lab in zip(blocks, labels):
        mean = sum(v for _, v in blk) / len(blk)
        for (_, v), l in zip(blk, lab):
            sums[l] += v - mean
            counts[l] += 1
    return sum(s * s / c for s, c in zip(sums, counts) if c > 0)


def block_perm_vectors():
    g = np.random.default_rng(19)
    cases = [
        # two configurations x three executions, one block: 20 arrangements, min p 0.1
        ([[(0, 1.0), (0, 1.1), (0, 0.9), (1, 2.0), (1, 2.1), (1, 1.9)]], 2, 100, 1, 20000),
        # three blocks of two configurations (one value each): 8 arrangements
        ([[(0, 1.0), (1, 1.2)], [(0, 3.0), (1, 3.3)], [(0, 0.5), (1, 0.7)]], 2, 100, 1, 20000),
        # three levels, unequal blocks
        ([[(0, 0.1), (1, 0.3), (2, 0.2), (0, 0.15)], [(1, 1.0), (2, 1.4), (0, 0.9)]], 3, 100, 1,
         20000),
        # Monte Carlo: four blocks of 2 x 3 executions (20^4 arrangements)
        ([[(l, float(np.round(g.normal(b + 0.02 * l, 0.02), 4))) for l in (0, 0, 0, 1, 1, 1)]
          for b in range(4)], 2, 400, 11, 20000),
    ]
    out = []
    for blocks, levels, resamples, seed, limit in cases:
        blocks = [blk for blk in blocks if len({l for l, _ in blk}) >= 2]
        observed = [[l for l, _ in blk] for blk in blocks]
        s_obs = block_stat(blocks, observed, levels)
        per_block = [sorted(set(itertools.permutations(lab))) for lab in observed]
        total = 1
        for p in per_block:
            total *= len(p)
        tol = lambda s, ref: s >= ref - 1e-12 * abs(ref)
        if total <= limit:
            stats_all = [block_stat(blocks, list(combo), levels)
                         for combo in itertools.product(*per_block)]
            hits = sum(1 for s in stats_all if tol(s, s_obs))
            best = max(stats_all)
            p, min_p, exact = hits / total, sum(1 for s in stats_all if tol(s, best)) / total, True
        else:
            r = Xoshiro(seed)
            labels = [list(lab) for lab in observed]
            hits = 0
            ranges = [k for lab in labels for k in range(len(lab), 1, -1)]
            for _ in range(resamples):
                draws = iter(packed_indices(r, ranges))
                for lab in labels:
                    for k in range(len(lab), 1, -1):
                        j = next(draws)
                        lab[k - 1], lab[j] = lab[j], lab[k - 1]
                if tol(block_stat(blocks, labels, levels), s_obs):
                    hits += 1
            p, min_p, exact = (1 + hits) / (1 + resamples), 1 / (1 + resamples), False
        out.append({"blocks": [[[l, v] for l, v in blk] for blk in blocks], "levels": levels,
                    "resamples": resamples, "seed": seed, "exact_limit": limit,
                    "statistic": s_obs, "p": p, "min_p": min_p, "exact": exact,
                    "arrangements": total})
    return out
