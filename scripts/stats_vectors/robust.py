"""Median polish (R's medpolish transcribed) and Hodges-Lehmann (exact null counts)."""

import math

import numpy as np
from scipy import stats

from stats_vectors.classic import two_sample_pairs

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
