// Node effects: how much faster or slower each node measures the same thing, estimated from the
// reference configuration the scheduler runs on every node (first, and again every N leases), and
// the per-node divisors the aggregator applies before comparing configurations.
//
//   effect(node) = median(reference samples on node) / median over nodes of those medians
//     (the median of ALL pooled reference samples would be bimodal when nodes differ, and its
//     bootstrap unstable; the median of node medians weighs every node once)
//   CI: 95% percentile bootstrap of that ratio (every node resampled each round, seeded)
//   second estimate: Tukey median polish of log(median) over the configuration x node table
//     (reference included as a row); exp(column effect), when some row spans two nodes
//   drift: the node's reference attempts split in time into early and late halves (at least two
//     attempts); drift when Mann-Whitney p < 0.01 and |late/early - 1| > 5%
//
// Divisors are applied (SweepResult::node_effects_applied) only when there are at least two nodes,
// a reference, and some node's CI excludes 1 with |effect - 1| >= min_effect: dividing by an
// effect that is indistinguishable from 1 would only add noise.
//
// Pure function of its inputs; deterministic for a given seed. Thread-safety: pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "coordinator/sweep_result.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

struct NodeEffectsOptions {
  double min_effect = 0.01;  // apply only when some |effect - 1| >= this
  double drift_alpha = 0.01;
  double drift_min_change = 0.05;
  int resamples = 2000;
};

struct NodeEffectsResult {
  std::vector<NodeEffect> nodes;           // every node with an ok attempt, by name
  std::map<std::string, double> divisors;  // node -> divisor of primary samples (1 when none)
  bool applied = false;
  std::string method;  // "reference", or "none"
  std::string note;    // why not applied / what is missing
  std::vector<std::string> warnings;
};

// `attempts` are all stored attempts of the sweep (reference ones included); only ok attempts and
// samples of `metric` are used.
NodeEffectsResult EstimateNodeEffects(const std::vector<v1::Attempt>& attempts,
                                      const std::string& metric, uint64_t seed,
                                      const NodeEffectsOptions& options = {});

}  // namespace fleetsweep
