// Aggregator: turns a sweep's stored attempts into per-configuration robust summaries and names
// the winner only when it can be defended (its 95% CI does not overlap any other configuration's;
// otherwise the statistically tied set is reported).
//
// Pure function of (spec, config records, attempts): the same inputs give the same output (the
// bootstrap is seeded). Reference attempts (node-effect measurements) are not mixed into the
// configurations' samples.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/space/spec.h"
#include "common/space/value.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

struct MetricSummary {
  int64_t n = 0;
  double median = 0, mad = 0, ci_low = 0, ci_high = 0;
};

struct ConfigResult {
  std::string key;
  std::map<std::string, std::string> params;
  std::string status;  // "done", "infeasible", "pending", "leased"
  int attempts = 0, ok_attempts = 0, failed_attempts = 0;
  MetricSummary primary;
  std::map<std::string, MetricSummary> metrics;  // every metric reported (primary included)
  std::set<std::string> fingerprints;
  std::set<std::string> nodes;
  std::string failure_class;  // last failure ("" when none)
  std::string failure_detail;
  std::map<std::string, int> failures_by_class;
  bool violates_bound = false;  // a metric bound (e.g. p99 latency) is violated by the median
};

struct SweepResult {
  std::string sweep;
  std::string metric;
  std::string goal;  // "minimize" / "maximize"
  std::vector<ConfigResult> configs;  // ranked: best first; configs without samples last
  int winner = -1;                    // index into configs when defensible
  std::vector<int> tied;              // indices of the statistically tied best set
  int64_t total_attempts = 0, total_samples = 0;
  int64_t done = 0, infeasible = 0, unfinished = 0;
  std::vector<std::string> warnings;
};

SweepResult Aggregate(const SweepSpec& spec, const std::vector<v1::ConfigRecord>& records,
                      const std::vector<v1::Attempt>& attempts, uint64_t seed = 1);

}  // namespace fleetsweep
