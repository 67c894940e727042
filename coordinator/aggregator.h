// Aggregator: turns a sweep's stored attempts into per-configuration robust summaries, runs the
// honest-measurement audits (coordinator/audit.h, coordinator/node_effects.h) and names a winner
// only when it can be defended:
//   1. its 95% bootstrap CI of the median does not overlap any other configuration's CI, and
//   2. the Hodges-Lehmann CI (99.9% by default: AggregateOptions::pairwise_confidence) of the
//      shift between its samples and the runner-up's excludes 0 at that achieved confidence
//      (with the exact U distribution that needs at least 7 samples on each side; fewer stay
//      tied). 95% and 99% let 1 in 20 and 1 in 40 A/A sweeps name a false winner
//      (docs/honest-measurement.md), and
//   3. the sweep is valid (the fingerprint audit found that some parameter reached the kernel).
// Otherwise the statistically tied best set is reported (the CI-overlap set, plus the runner-up
// when only rule 2 failed).
//
// Node effects: when the reference configuration shows nodes measuring differently, the primary
// metric's samples are divided by their node's effect before the per-configuration medians, CIs,
// ranking and tests (ConfigResult::raw_primary keeps the uncorrected summary).
//
// Pure function of (spec, config records, attempts): the same inputs give the same output (the
// bootstraps are seeded). Reference attempts (node-effect measurements) are not mixed into the
// configurations' samples. Never fails: problems become warnings or invalid_reasons.
#pragma once

#include <cstdint>
#include <vector>

#include "common/space/spec.h"
#include "common/space/value.h"
#include "coordinator/sweep_result.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

struct AggregateOptions {
  uint64_t seed = 1;
  bool pairwise_winner_test = true;  // rule 2 above; false: CI separation only
  double pairwise_confidence = 0.999;
  bool remove_node_effects = true;
};

SweepResult Aggregate(const SweepSpec& spec, const std::vector<v1::ConfigRecord>& records,
                      const std::vector<v1::Attempt>& attempts, const AggregateOptions& options);

inline SweepResult Aggregate(const SweepSpec& spec, const std::vector<v1::ConfigRecord>& records,
                             const std::vector<v1::Attempt>& attempts, uint64_t seed = 1) {
  AggregateOptions o;
  o.seed = seed;
  return Aggregate(spec, records, attempts, o);
}

}  // namespace fleetsweep
