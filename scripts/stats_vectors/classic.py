"""Descriptive statistics, rank tests, distributions and t tests against numpy/SciPy."""

import numpy as np
from scipy import special, stats

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
