#!/usr/bin/python3
"""Generates tests/data/stats/vectors.json: reference values for common/stats.

Run with Debian's interpreter, which has numpy and SciPy (1.10):

    /usr/bin/python3 scripts/gen_stats_vectors.py [--out tests/data/stats/vectors.json]

References:
  numpy.median / numpy.quantile (method='linear', Hyndman-Fan type 7), numpy.mean / numpy.std,
  scipy.stats.median_abs_deviation (scale=1 and 'normal'), scipy.stats.mannwhitneyu
  (method='asymptotic', use_continuity=True, two-sided), scipy.stats.kruskal, scipy.stats.norm
  ppf/cdf/sf, scipy.special.gammainc/gammaincc, scipy.stats.chi2.sf.
  Median polish (SciPy has none): an independent numpy transcription of Tukey's / R's medpolish
  below. Hodges-Lehmann: numpy median of pairwise differences; the CI rank k from the exact null
  distribution of U computed here with exact integers (Gaussian binomial coefficients), R's
  wilcox.test rule. Rng: splitmix64 + xoshiro256** transcribed here with Python integers.
  t tests: scipy.stats.ttest_ind (equal_var=False; equal_var=True for the pooled test),
  scipy.stats.t.sf, scipy.special.betainc, scipy.stats.mannwhitneyu(method='exact'). Hierarchical bootstrap and within-block permutation
  test: transcribed here (SciPy has neither with strata) on the same Rng stream; the exact
  permutation p enumerates itertools.permutations.

The output is deterministic (fixed numpy seeds); rerunning it must not change the file.
"""

import argparse
import json
import math
import os

import numpy as np
from scipy import special, stats

MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------- Rng (xoshiro256**)
def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK64


class Xoshiro:
    def __init__(self, seed):
        self.s = []
        st = seed
        for _ in range(4):
            st, v = splitmix64(st)
            self.s.append(v)
        self.half = None

    def next(self):
        s = self.s
        result = (rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def next32(self):
        if self.half is not None:
            v, self.half = self.half >> 32, None
            return v
        self.half = self.next()
        return self.half & 0xFFFFFFFF

    def uniform_index(self, n):
        threshold = ((1 << 32) - n) % n
        while True:
            m = self.next32() * n
            if (m & 0xFFFFFFFF) >= threshold:
                return m >> 32


def rng_vectors():
    out = []
    for seed in [0, 1, 42, 0xDEADBEEFCAFEF00D]:
        r = Xoshiro(seed)
        u64 = [r.next() for _ in range(6)]
        r = Xoshiro(seed)
        idx = [r.uniform_index(n) for n in [30, 7, 1, 1000003, 30, 2]]
        out.append({"seed": seed, "u64": u64, "index_n": [30, 7, 1, 1000003, 30, 2],
                    "index": idx})
    return out


# ---------------------------------------------------------------- samples
def samples():
    g = np.random.default_rng(20260101)
    xs = [
        [5.0],
        [2.0, 1.0],
        [3.0, 1.0, 2.0],
        [1.0, 1.0, 1.0, 1.0],
        [1.0, 2.0, 2.0, 2.0, 3.0, 100.0],
        [-4.5, 0.0, 4.5, 1e-3, -1e-3],
        [1e9 + 1.0, 1e9 + 3.0, 1e9 + 2.0, 1e9 + 2.0],
        list(np.round(g.normal(10.0, 2.0, 30), 2)),
        list(np.round(g.lognormal(0.0, 0.5, 31), 3)),
        list(np.round(g.exponential(1.0, 200), 1)),  # many ties
        list(g.standard_cauchy(17)),
    ]
    return [[float(v) for v in x] for x in xs]


def descriptive_vectors():
    qs = [0.0, 0.01, 0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975, 0.99, 1.0]
    out = []
    for x in samples():
        a = np.array(x)
        out.append({
            "x": x,
            "median": float(np.median(a)),
            "q": qs,
            "quantile": [float(np.quantile(a, q)) for q in qs],
            "mad": float(stats.median_abs_deviation(a)),
            "mad_normal": float(stats.median_abs_deviation(a, scale="normal")),
            "mean": float(np.mean(a)),
            "std_ddof0": float(np.std(a)),
            "std_ddof1": float(np.std(a, ddof=1)) if len(a) > 1 else None,
        })
    return out


# ---------------------------------------------------------------- rank tests
def two_sample_pairs():
    g = np.random.default_rng(7)
    return [
        ([1.0, 2.0, 3.0], [4.0, 5.0]),
        ([1.0, 2.0, 2.0, 3.0], [2.0, 2.0, 4.0]),  # ties across samples
        ([19.0, 22.0, 16.0, 29.0, 24.0], [20.0, 11.0, 17.0, 12.0]),
        ([1.0], [2.0]),
        (list(np.round(g.normal(0.0, 1.0, 25), 1)), list(np.round(g.normal(0.5, 1.0, 20), 1))),
        (list(g.normal(0.0, 1.0, 60)), list(g.normal(1.5, 1.0, 70))),  # tiny p
        (list(np.round(g.normal(3.0, 1.0, 80), 0)), list(np.round(g.normal(3.2, 1.0, 55), 0))),
    ]


def mwu_vectors():
    out = []
    for x, y in two_sample_pairs():
        r = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic",
                               use_continuity=True)
        out.append({"x": [float(v) for v in x], "y": [float(v) for v in y],
                    "u": float(r.statistic), "p": float(r.pvalue)})
    return out


def mwu_exact_vectors():
    """MannWhitneyExactP: SciPy's exact p without ties and below 50 values, else asymptotic."""
    g = np.random.default_rng(23)
    pairs = [([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]),
             (list(g.normal(0.0, 1.0, 10)), list(g.normal(1.0, 1.0, 10))),
             (list(g.normal(0.0, 1.0, 3)), list(g.normal(0.3, 1.0, 10))),
             (list(g.normal(0.0, 1.0, 12)), list(g.normal(0.0, 1.0, 7)))]
    pairs += [p for p in two_sample_pairs() if len(set(p[0] + p[1])) < len(p[0] + p[1])]
    out = []
    for x, y in pairs:
        ties = len(set(x + y)) < len(x + y)
        method = "asymptotic" if ties or len(x) >= 50 or len(y) >= 50 else "exact"
        r = stats.mannwhitneyu(x, y, alternative="two-sided", method=method, use_continuity=True)
        out.append({"x": [float(v) for v in x], "y": [float(v) for v in y], "method": method,
                    "p": float(r.pvalue)})
    return out


def kruskal_vectors():
    g = np.random.default_rng(11)
    cases = [
        [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [2.0, 2.0]],
        [[1.0, 3.0, 5.0, 7.0, 9.0], [2.0, 4.0, 6.0, 8.0, 10.0]],
        [list(np.round(g.normal(m, 1.0, 30), 1)) for m in (0.0, 0.1, 0.2, 0.0)],
        [list(g.normal(m, 1.0, n)) for m, n in ((0.0, 40), (1.0, 35), (2.5, 50))],  # tiny p
        [list(np.round(g.exponential(1.0, 12), 0)) for _ in range(6)],  # heavy ties
    ]
    out = []
    for groups in cases:
        groups = [[float(v) for v in grp] for grp in groups]
        r = stats.kruskal(*groups)
        n = sum(len(grp) for grp in groups)
        out.append({"groups": groups, "h": float(r.statistic), "df": len(groups) - 1,
                    "p": float(r.pvalue), "epsilon_squared": float(r.statistic) / (n - 1)})
    return out


# ---------------------------------------------------------------- distributions
def distribution_vectors():
    ps = [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.001, 0.01, 0.02425, 0.025, 0.05, 0.1, 0.25,
          0.4, 0.49, 0.5, 0.51, 0.6, 0.75, 0.9, 0.95, 0.975, 0.99, 0.999, 1 - 1e-10, 1 - 1e-15]
    xs = [-38.0, -20.0, -8.0, -5.0, -3.0, -1.96, -1.0, -0.1, 0.0, 0.1, 0.5, 1.0, 1.96, 3.0,
          5.0, 8.0, 20.0, 37.0]
    gam = [(a, x) for a in (0.5, 1.0, 1.5, 2.5, 10.0, 50.0, 200.0)
           for x in (1e-3, 0.1, 0.5, 1.0, 3.0, 10.0, 49.0, 60.0, 200.0, 400.0)]
    chi = [(x, df) for df in (1, 2, 3, 5, 10, 29, 100)
           for x in (0.0, 1e-4, 0.5, 1.0, 3.84, 7.0, 20.0, 60.0, 150.0, 900.0)]
    return {
        "norm_ppf": [{"p": p, "x": float(stats.norm.ppf(p))} for p in ps],
        "norm_cdf": [{"x": x, "cdf": float(stats.norm.cdf(x)), "sf": float(stats.norm.sf(x))}
                     for x in xs],
        "gamma": [{"a": a, "x": x, "p": float(special.gammainc(a, x)),
                   "q": float(special.gammaincc(a, x))} for a, x in gam],
        "chi2_sf": [{"x": x, "df": df, "sf": float(stats.chi2.sf(x, df))} for x, df in chi],
    }


# ---------------------------------------------------------------- median polish
def medpolish(table, eps=0.01, maxiter=10):
    """Tukey's median polish as in R's stats::medpolish(na.rm=TRUE), written for numpy."""
    z = np.array(table, dtype=float)
    nr, nc = z.shape
    t = 0.0
    r = np.zeros(nr)
    c = np.zeros(nc)
    oldsum = 0.0
    converged = False
    it = 0
    for it in range(1, maxiter + 1):
        rdelta = np.nanmedian(z, axis=1)
        z = z - rdelta[:, None]
        r = r + rdelta
        delta = np.median(c)
        c = c - delta
        t += delta
        cdelta = np.nanmedian(z, axis=0)
        z = z - cdelta[None, :]
        c = c + cdelta
        delta = np.median(r)
        r = r - delta
        t += delta
        newsum = float(np.nansum(np.abs(z)))
        converged = newsum == 0 or abs(newsum - oldsum) < eps * newsum
        if converged:
            break
        oldsum = newsum
    return t, r, c, z, it, converged


def nan_to_none(rows):
    return [[None if math.isnan(v) else float(v) for v in row] for row in rows]


def polish_vectors():
    g = np.random.default_rng(3)
    tables = []
    # Additive + noise, configurations x nodes, with an outlier and missing cells.
    base = np.add.outer(np.linspace(1.0, 3.0, 8), np.array([0.0, 0.3, -0.2, 0.05]))
    noisy = np.round(base + g.normal(0.0, 0.05, base.shape), 3)
    noisy[2, 1] += 5.0
    tables.append((noisy.tolist(), 0.01, 10))
    missing = noisy.copy()
    missing[0, 3] = np.nan
    missing[5, 0] = np.nan
    missing[6, 2] = np.nan
    tables.append((missing.tolist(), 0.01, 10))
    tables.append(([[14.0, 15.0, 14.0], [7.0, 4.0, 7.0], [8.0, 2.0, 10.0], [15.0, 9.0, 10.0],
                    [0.0, 2.0, 0.0]], 0.01, 10))
    tables.append((np.round(g.normal(0.0, 1.0, (5, 6)), 2).tolist(), 1e-6, 3))  # cut by max_iter
    tables.append(([[1.0, 2.0, 3.0]], 0.01, 10))
    out = []
    for table, eps, maxiter in tables:
        t, r, c, z, it, conv = medpolish(table, eps, maxiter)
        out.append({"table": nan_to_none(table), "tol": eps, "max_iter": maxiter,
                    "overall": float(t), "row": [float(v) for v in r],
                    "col": [float(v) for v in c], "residuals": nan_to_none(z.tolist()),
                    "iterations": it, "converged": bool(conv)})
    return out


# ---------------------------------------------------------------- Hodges-Lehmann
def mwu_exact_counts(n, m):
    """Coefficients of the Gaussian binomial [n+m choose n]_q: orderings with U = u."""
    poly = [1]  # [m+i choose i]_q for i = 0
    for i in range(1, n + 1):
        # [m+i choose i]_q = [m+i-1 choose i-1]_q * (1 - q^(m+i)) / (1 - q^i), exact in integers.
        k = m + i
        mult = poly + [0] * k
        for u in range(len(poly)):
            mult[u + k] -= poly[u]
        for u in range(i, len(mult)):  # divide by (1 - q^i): running sum with stride i
            mult[u] += mult[u - i]
        assert all(v == 0 for v in mult[i * m + 1:]), "inexact division"
        poly = mult[: i * m + 1]
    return poly


def hl_vectors():
    out = []
    g = np.random.default_rng(5)
    pairs = two_sample_pairs()
    pairs.append((list(np.round(g.normal(2.0, 1.0, 12), 2)), list(np.round(g.normal(0.0, 1.0, 9), 2))))
    for x, y in pairs:
        for conf in (0.95, 0.8):
            n, m = len(x), len(y)
            d = np.sort(np.subtract.outer(np.array(x), np.array(y)).ravel())
            half_alpha = (1 - conf) / 2
            if n < 50 and m < 50:
                counts = mwu_exact_counts(n, m)
                total = math.comb(n + m, n)
                assert sum(counts) == total
                cum, k = 0, None
                cdf = []
                for c in counts:
                    cum += c
                    cdf.append(cum / total)
                k = next(q for q, v in enumerate(cdf) if v >= half_alpha * (1 - 1e-12))
                k = max(k, 1)
                achieved = 1 - 2 * cdf[k - 1]
                exact = True
            else:
                alld = np.concatenate([x, y])
                _, t = np.unique(alld, return_counts=True)
                tie = float(np.sum(t.astype(float) ** 3 - t))
                nn = n + m
                mu = n * m / 2
                sigma = math.sqrt(n * m / 12 * ((nn + 1) - tie / (nn * (nn - 1))))
                z = stats.norm.ppf(1 - half_alpha)
                k = max(1, math.ceil(mu - 0.5 - z * sigma - 1e-9))
                achieved = 1 - 2 * stats.norm.cdf((k - 1 + 0.5 - mu) / sigma)
                exact = False
            out.append({"x": [float(v) for v in x], "y": [float(v) for v in y],
                        "confidence": conf, "estimate": float(np.median(d)),
                        "low": float(d[k - 1]), "high": float(d[n * m - k]),
                        "achieved_confidence": float(achieved), "exact": exact})
    return out


# ---------------------------------------------------------------- t tests
def t_vectors():
    g = np.random.default_rng(13)
    cases = [
        ([1.0, 2.0, 3.0], [4.0, 5.0, 7.0]),
        ([0.01, -0.02, 0.015, 0.0], [0.05, 0.04, 0.07]),
        (list(g.normal(0.0, 1.0, 10)), list(g.normal(0.3, 2.0, 12))),
        (list(g.normal(0.0, 0.01, 3)), list(g.normal(0.03, 0.01, 3))),
        (list(g.normal(5.0, 1.0, 40)), list(g.normal(5.0, 1.0, 35))),
    ]
    out = []
    for x, y in cases:
        w = stats.ttest_ind(x, y, equal_var=False)
        pooled = stats.ttest_ind(x, y, equal_var=True)
        var = (np.var(x, ddof=1) * (len(x) - 1) + np.var(y, ddof=1) * (len(y) - 1)) / (
            len(x) + len(y) - 2)
        out.append({"x": [float(v) for v in x], "y": [float(v) for v in y],
                    "welch_t": float(w.statistic), "welch_p": float(w.pvalue),
                    "pooled_var": float(var), "pooled_df": len(x) + len(y) - 2,
                    "pooled_t": float(pooled.statistic), "pooled_p": float(pooled.pvalue)})
    sf = [{"t": t, "df": df, "sf": float(stats.t.sf(t, df))}
          for df in (1.0, 2.5, 4.0, 18.0, 200.0) for t in (-3.0, -0.5, 0.0, 0.7, 2.0, 4.5, 30.0)]
    beta = [{"a": a, "b": b, "x": x, "i": float(special.betainc(a, b, x))}
            for a in (0.5, 1.0, 2.5, 9.0, 100.0) for b in (0.5, 3.0, 40.0)
            for x in (0.0, 1e-6, 0.1, 0.5, 0.9, 0.999, 1.0)]
    return {"cases": out, "t_sf": sf, "betainc": beta}


# ---------------------------------------------------------------- hierarchical bootstrap
def hierarchical_vectors():
    g = np.random.default_rng(17)
    cases = [
        ([[1.0, 2.0, 3.0], [10.0, 11.0], [5.0]], 0.95, 300, 3),
        ([list(np.round(g.normal(m, 0.5, 5), 3)) for m in (10.0, 10.4, 9.7, 10.1)], 0.9, 500, 42),
        ([list(np.round(g.lognormal(0.0, 0.02, 8), 5)) for _ in range(3)], 0.95, 1000, 7),
    ]
    out = []
    for execs, conf, resamples, seed in cases:
        r = Xoshiro(seed)
        k = len(execs)
        meds = []
        for _ in range(resamples):
            pooled = []
            for _ in range(k):
                ex = execs[r.uniform_index(k)]
                for _ in range(len(ex)):
                    pooled.append(ex[r.uniform_index(len(ex))])
            meds.append(float(np.median(pooled)))
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
    import itertools
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
            for _ in range(resamples):
                for lab in labels:
                    for k in range(len(lab), 1, -1):
                        j = r.uniform_index(k)
                        lab[k - 1], lab[j] = lab[j], lab[k - 1]
                if tol(block_stat(blocks, labels, levels), s_obs):
                    hits += 1
            p, min_p, exact = (1 + hits) / (1 + resamples), 1 / (1 + resamples), False
        out.append({"blocks": [[[l, v] for l, v in blk] for blk in blocks], "levels": levels,
                    "resamples": resamples, "seed": seed, "exact_limit": limit,
                    "statistic": s_obs, "p": p, "min_p": min_p, "exact": exact,
                    "arrangements": total})
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, "..", "tests", "data", "stats", "vectors.json")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=default_out)
    args = ap.parse_args()
    doc = {
        "generator": "scripts/gen_stats_vectors.py",
        "numpy": np.__version__,
        "scipy": __import__("scipy").__version__,
        "rng": rng_vectors(),
        "descriptive": descriptive_vectors(),
        "mannwhitneyu": mwu_vectors(),
        "kruskal": kruskal_vectors(),
        "median_polish": polish_vectors(),
        "hodges_lehmann": hl_vectors(),
        "mannwhitneyu_exact": mwu_exact_vectors(),
        "t_tests": t_vectors(),
        "hierarchical_bootstrap": hierarchical_vectors(),
        "block_permutation": block_perm_vectors(),
    }
    doc.update(distribution_vectors())
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print(f"wrote {os.path.normpath(args.out)} ({os.path.getsize(args.out)} bytes)")


if __name__ == "__main__":
    main()
