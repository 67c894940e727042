// Permutation test of "the level labels do not matter" with permutations WITHIN blocks.
//
// Design: observations (one per execution: the unit of evidence) are grouped into blocks (e.g.
// configurations sharing every other parameter) and carry a level (the tested parameter's value).
// Under the null hypothesis the level labels are exchangeable inside each block, whatever the
// blocks' own effects; the test re-deals the labels within every block and is exact by
// construction (no distributional assumption, any block sizes, incomplete blocks allowed).
//
// Units (BlockPermutationTestOfUnits): what is re-dealt may be a UNIT of several observations
// that keep one label together (e.g. all executions of one configuration): a unit carries its
// level, its count of observations n_u and the sum of their values. Re-dealing whole units is a
// subgroup of re-dealing single observations, so the test stays exact under the same null, and
// it needs less: the units (not the observations) must be exchangeable, so observations of one
// unit may be correlated (a configuration's executions sharing an offset). BlockPermutationTest
// is the case of one observation per unit (bit-identical results: the same draws, sums and p).
//
// Statistic: values are centred on their block's mean (over observations); S = sum over levels l
// of (sum of centred values at l)^2 / n_l, n_l the observations at l, the between-level sum of
// squares of a randomised-block one-way layout (large when levels differ consistently within
// blocks). With units of unequal counts in a block, n_l changes with the re-dealing and is
// recomputed for each one; otherwise it is fixed.
//
// p-value: exact (every distinct re-dealing of the units' labels enumerated, p = #{S' >= S} /
// total) when the number of distinct arrangements is at most `exact_limit`; otherwise Monte Carlo
// with `resamples` seeded shuffles (Fisher-Yates over every block's units, each shuffle's indices
// one packed sequence: packed_indices.h), p = (1 + #{S' >= S}) / (1 + resamples), which is valid
// (never below the exact level). `min_p` is the smallest p the design can give (exact: the
// share of arrangements reaching the largest S; Monte Carlo: 1 / (1 + resamples)): when it
// exceeds the test level the data cannot show an effect and the caller must say "inconclusive",
// never "no effect".
//
// Sequential Monte Carlo (Besag and Clifford 1991, "Sequential Monte Carlo p-values",
// Biometrika 78(2)): with `stop_after_hits` = h > 0 the re-dealing stops as soon as h of them
// reach the observed statistic; stopped after L re-dealings, p = h / L, otherwise (all
// `resamples` done) p is as above. The p-value stays valid (P(p <= u) <= u under the null), and a
// parameter that does nothing costs about h / p re-dealings instead of `resamples` (h = 100 and
// p ~ 0.5: ~200 instead of 4000). A small h loses power near the test level (a true p of 0.04
// can reach h hits before h / 0.05 re-dealings); the audit uses h = 100. `min_p` is unchanged (what
// the full run could reach).
//
// scripts/gen_stats_vectors.py enumerates the same arrangements with itertools and replays the
// Monte Carlo stream (tests/data/stats/vectors.json).
//
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "common/status.h"

namespace fleetsweep::stats {

// Above this many distinct arrangements the test draws (Monte Carlo) instead of enumerating.
inline constexpr double kBlockPermutationExactLimit = 20000;

struct BlockPermutationResult {
  double statistic = 0;
  double p_value = 1;
  double min_p = 1;
  bool exact = false;
  double arrangements = 0;     // distinct re-dealings (product of multinomials; may be huge)
  int resamples = 0;           // Monte Carlo draws made (0 when exact)
  bool stopped_early = false;  // sequential: stop_after_hits reached before `resamples`
};

// `blocks[b]` holds (level, value) pairs, level in [0, levels): one observation per unit. Blocks
// whose observations all share one level carry no information and are skipped. Errors
// (InvalidArgument): levels < 2, a level out of range, a non-finite value, resamples < 1,
// stop_after_hits < 0.
StatusOr<BlockPermutationResult> BlockPermutationTest(
    const std::vector<std::vector<std::pair<int, double>>>& blocks, int levels,
    int resamples = 4000, uint64_t seed = 0, double exact_limit = kBlockPermutationExactLimit,
    int stop_after_hits = 0);

// What is re-dealt: `observations` observations of one level, whose values sum to `value_sum`.
struct PermutationUnit {
  int level = 0;
  int observations = 1;  // n_u >= 1
  double value_sum = 0;  // sum of the unit's observations' values (not centred)
};

// The same test with units re-dealt within blocks (`arrangements` counts distinct re-dealings of
// the units' labels). Units of one observation each give BlockPermutationTest's result bit for
// bit. Blocks whose units all share one level are skipped. Errors (InvalidArgument): as
// BlockPermutationTest, and a unit with observations < 1.
StatusOr<BlockPermutationResult> BlockPermutationTestOfUnits(
    const std::vector<std::vector<PermutationUnit>>& blocks, int levels, int resamples = 4000,
    uint64_t seed = 0, double exact_limit = kBlockPermutationExactLimit, int stop_after_hits = 0);

}  // namespace fleetsweep::stats
