// Aggregator: turns a sweep's stored attempts into per-configuration robust summaries, runs the
// honest-measurement audits (coordinator/aggregate/audit.h, coordinator/aggregate/node_effects.h)
// and names a winner only when it can be defended (coordinator/aggregate/winner.h).
//
// The execution is the unit of evidence (docs/honest-measurement.md): samples inside one
// execution share its process, clocks, caches and node, so
//   - every summary's n counts executions (samples beside it) and its CI is the hierarchical
//     bootstrap's (executions resampled, then samples within them; per-configuration seed);
//   - the winner rule and the effect audit test one value per execution (its log median);
//   - the winner must beat every other ranked configuration with the family-wise error rate held
//     at AggregateOptions::winner_alpha (1%) over all pairs and the scheduler's adaptive stages;
//     otherwise the tied set is reported (the best plus every configuration it did not beat);
//   - the sweep must be valid (the fingerprint audit found that some parameter reached the
//     kernel).
//
// Node effects: when they are well determined, the primary metric's samples are divided by their
// node's effect before the per-configuration medians, CIs, ranking and tests
// (ConfigResult::raw_primary keeps the uncorrected summary).
//
// Computed by IncrementalAggregate (incremental_aggregate.h) fed every attempt in order, which
// the live audits keep up to date between ticks.
//
// Pure function of (spec, config records, attempts): the same inputs give the same output (the
// bootstraps and permutations are seeded). Reference attempts (node-effect measurements) are not
// mixed into the configurations' samples. Never fails: problems become warnings or
// invalid_reasons.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/space/spec.h"
#include "common/space/value.h"
#include "coordinator/aggregate/sweep_result.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

struct AggregateOptions {
  uint64_t seed = 1;
  double winner_alpha = 0.01;  // family-wise false-winner rate
  double effect_alpha = 0.05;  // level of the per-parameter effect test
  // Hierarchical bootstrap rounds of the primary metric's CI: `resamples` for the `full_ci_top`
  // best-ranked configurations, min(resamples, rest_resamples) (at least 1) for the others, whose
  // intervals decide nothing (the winner and effect tests read execution medians): fewer rounds
  // only add Monte Carlo noise to their endpoints (MetricSummary::resamples says which; 500 for
  // every other metric). docs/honest-measurement.md section 1 states the noise.
  int resamples = 2000;
  int full_ci_top = 100;
  int rest_resamples = 500;
  bool remove_node_effects = true;
  // Threads for the per-configuration summaries (the result does not depend on it).
  int threads = 1;
  // When set and true, IncrementalAggregate::Result stops at its next check (between
  // configurations, between parameters' tests, between steps) and returns a partial result that
  // the caller must discard; the state stays exact for a later Result. Not owned.
  const std::atomic<bool>* cancel = nullptr;
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
