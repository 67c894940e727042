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
  (stats_vectors/robust.py). Hodges-Lehmann: numpy median of pairwise differences; the CI rank k
  from the exact null distribution of U computed with exact integers (Gaussian binomial
  coefficients), R's wilcox.test rule. Rng: splitmix64 + xoshiro256** transcribed with Python
  integers (stats_vectors/rng.py). t tests: scipy.stats.ttest_ind (equal_var=False; equal_var=True
  for the pooled test), scipy.stats.t.sf, scipy.special.betainc,
  scipy.stats.mannwhitneyu(method='exact'). Hierarchical bootstrap and within-block permutation
  test: transcribed (SciPy has neither with strata) on the same Rng stream
  (stats_vectors/execution.py); the exact permutation p enumerates itertools.permutations.
  The generators live in scripts/stats_vectors/, one module per area; this script assembles them.

The output is deterministic (fixed numpy seeds); rerunning it must not change the file.
"""

import argparse
import json
import os

import numpy as np

from stats_vectors.classic import (descriptive_vectors, distribution_vectors, kruskal_vectors,
                                   mwu_exact_vectors, mwu_vectors, t_vectors)
from stats_vectors.execution import block_perm_vectors, hierarchical_vectors
from stats_vectors.rng import rng_vectors
from stats_vectors.robust import hl_vectors, polish_vectors


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
