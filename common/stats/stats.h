// fleetsweep::stats: the robust statistics the aggregator and the adaptive repetition loop use.
//
//   descriptive.h     Median, Quantile (type 7), Mad (raw / normal-scaled), Mean, StdDev, Summarize
//   bootstrap.h       BootstrapMedianCI (seeded percentile bootstrap), RelativeHalfWidth
//   hierarchical.h    HierarchicalBootstrapMedianCI (executions, then samples within them)
//   t_test.h          WelchTTest, PooledVarianceT, StudentTSf, RegularizedIncompleteBeta
//   block_permutation.h  BlockPermutationTest (labels re-dealt within blocks; exact or seeded),
//                     BlockPermutationTestOfUnits (whole units of observations re-dealt)
//   hodges_lehmann.h  HodgesLehmannShift (shift estimate + distribution-free CI)
//   rank_tests.h      MannWhitneyU, KruskalWallis (+ epsilon^2), MidRanks
//   median_polish.h   MedianPolish (configurations x nodes, missing cells allowed)
//   distributions.h   NormalCdf/Sf/Quantile, RegularizedGammaP/Q, ChiSquareSf
//   rng.h             Rng (xoshiro256**, splitmix64 seeding): portable, reproducible
//   packed_indices.h  PlanPacked, DrawPacked: several small-range indices per 64-bit output
//
// Conventions: fallible functions return Status/StatusOr (InvalidArgument for empty input,
// non-finite values, mismatched sizes, out-of-range parameters) and never throw; each header says
// which SciPy/numpy/R function it matches. Everything is thread-compatible: pure functions, and
// objects (Rng, BootstrapWorkspace) that one thread at a time may use.
#pragma once

#include "common/stats/block_permutation.h"
#include "common/stats/bootstrap.h"
#include "common/stats/descriptive.h"
#include "common/stats/distributions.h"
#include "common/stats/hierarchical.h"
#include "common/stats/hodges_lehmann.h"
#include "common/stats/median_polish.h"
#include "common/stats/packed_indices.h"
#include "common/stats/rank_tests.h"
#include "common/stats/rng.h"
#include "common/stats/t_test.h"
