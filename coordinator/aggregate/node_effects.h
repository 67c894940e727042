// Node effects: how much faster or slower each node measures the same thing, estimated from ALL
// the data (every configuration measured on several nodes, the reference included), and the
// per-node divisors the aggregator applies before comparing configurations.
//
// Model: log(median of an execution) = configuration effect + node effect + noise, fitted
// robustly by alternating medians over the executions of configurations seen on at least two
// nodes (a median polish at the execution level: the randomised assignment of dispatch.cc puts
// every configuration on several nodes). Effects are normalised so that the median node has
// effect 1: effect(node) = exp(node effect - median over nodes).
//   CI: 95% percentile interval of a residual bootstrap at the execution level (residuals scaled
//     by sqrt(E / (E - parameters)), seeded), the execution being the unit of evidence; past
//     max_bootstrap_executions, of the m-out-of-n bootstrap of node_effects_fit.h.
//   reference_effect: the old estimate from the reference configuration alone (median of the
//     node's reference samples / median over nodes), kept as a consistency check.
//   drift: the node's reference attempts split in time into early and late halves (at least two
//     attempts); drift when Mann-Whitney p < 0.01 and |late/early - 1| > 5%.
//
// Applied (NodeEffectsResult::applied) only when ALL hold, and the note says which failed:
//   - at least two nodes, all linked through configurations measured on several of them, with
//     at least max(3, nodes) residual degrees of freedom (executions - parameters);
//   - some node's CI excludes 1 with |effect - 1| >= min_effect (else only noise is added);
//   - well determined: every node's CI half-width (log scale) <= max_log_half_width;
//   - consistent: no node's reference_effect lies on the other side of 1 (by min_effect) from
//     a clearly determined all-data effect.
//
// Pure function of its inputs; deterministic for a given seed. Thread-safety: pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "coordinator/aggregate/execution_log.h"
#include "coordinator/aggregate/sweep_result.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

struct NodeEffectsOptions {
  double min_effect = 0.01;          // apply only when some |effect - 1| >= this
  double max_log_half_width = 0.05;  // "well determined"
  double drift_alpha = 0.01;
  double drift_min_change = 0.05;
  int resamples = 300;  // residual bootstrap rounds (fewer, >= 50, past ~1e5
                        // executions: the cost is bounded)
  int iterations = 20;  // alternating-median sweeps (at most: they stop once converged)
  int threads = 1;      // bootstrap rounds split over this many threads (same result for any)
  // Past this many executions the CIs come from a subset bootstrap (node_effects_fit.h).
  size_t max_bootstrap_executions = 20000;
};

struct NodeEffectsResult {
  std::vector<NodeEffect> nodes;           // every node with an ok attempt, by name
  std::map<std::string, double> divisors;  // node -> divisor of primary samples (1 when none)
  bool applied = false;
  std::string method;  // "all_data", or "none"
  std::string note;    // why applied or not
  std::vector<std::string> warnings;
};

// `log`: every attempt of the sweep (reference ones included), logged for the primary metric
// (execution_log.h: ok attempts and their medians of that metric).
NodeEffectsResult EstimateNodeEffects(const ExecutionLog& log, uint64_t seed,
                                      const NodeEffectsOptions& options = {});
// The same over `attempts` (all stored attempts of the sweep; only ok attempts and samples of
// `metric` are used): builds their log.
NodeEffectsResult EstimateNodeEffects(const std::vector<v1::Attempt>& attempts,
                                      const std::string& metric, uint64_t seed,
                                      const NodeEffectsOptions& options = {});

}  // namespace fleetsweep
