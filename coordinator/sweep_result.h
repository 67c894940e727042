// SweepResult and its parts: what the aggregator computes for one sweep and what results_writer
// turns into results.json (schema: docs/results.md). Plain values, no behaviour; copyable.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

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
  MetricSummary primary;      // node effects removed when SweepResult::node_effects_applied
  MetricSummary raw_primary;  // the primary metric as measured (no node correction)
  std::map<std::string, MetricSummary> metrics;  // every metric reported, raw (primary included)
  std::set<std::string> fingerprints;
  std::set<std::string> nodes;
  std::string failure_class;  // last failure ("" when none)
  std::string failure_detail;
  std::map<std::string, int> failures_by_class;
  bool violates_bound = false;  // a metric bound (e.g. p99 latency) is violated by the median
  std::vector<std::string> bound_violations;  // "p99_e2el_ms median 2400 > max 2000"
};

// Fingerprint audit of one swept parameter (coordinator/audit.h).
struct InjectionVerdict {
  std::string param;
  // "injected": some pair of configurations differing only in this parameter ran different code;
  // "not_injected": every such pair has identical fingerprint sets;
  // "no_fingerprint": pairs exist but at least one side never reported a fingerprint;
  // "untested": no pair of successful configurations differs only in this parameter.
  std::string verdict;
  int pairs = 0;            // pairs compared (both sides with fingerprints)
  int differing_pairs = 0;  // of those, pairs whose fingerprint sets differ
  int pairs_without_fingerprint = 0;
  std::string example;  // one pair, for the report
};

// Measured-effect analysis of one swept parameter (coordinator/audit.h).
struct InertVerdict {
  std::string param;
  std::string verdict;   // "inert", "active", "inconclusive", "untested"
  std::string test;      // e.g. "kruskal_wallis_block_normalized_medians"
  double statistic = 0;  // H
  int df = 0;
  double p_value = 1;
  double epsilon_squared = 0;
  double spread = 0;  // max/min of the level effects - 1 (0.02 = 2%)
  int levels = 0, blocks = 0, observations = 0;
  std::map<std::string, double> level_effects;  // level -> median ratio to its block's median
  std::string note;
};

struct DeclaredInert {
  std::string param;
  std::string reason;
};

// "use_v1=false: 24 of 24 configurations infeasible (not_implemented)".
struct InfeasibleRegion {
  std::string param, value;
  int infeasible = 0, total = 0;
  std::map<std::string, int> classes;  // failure class -> configurations
  bool whole = false;                  // infeasible == total
};

struct NodeEffect {
  std::string node;
  double effect = NAN;  // median(reference on node) / median of the nodes' reference medians
  double ci_low = NAN, ci_high = NAN;  // 95% bootstrap CI of that ratio
  int64_t reference_samples = 0;
  int reference_attempts = 0;
  double polish_effect = NAN;  // exp(column effect) of the median polish; NaN when not estimable
  bool drift_tested = false;
  bool drift = false;  // early vs late reference samples: MWU p < 0.01 and > 5% change
  double drift_p = NAN, drift_change = NAN;  // late median / early median - 1
  bool applied = false;                      // samples of this node were divided by `effect`
};

// Best vs runner-up, the pairwise part of the winner rule.
struct WinnerTest {
  bool done = false;
  std::string best_key, runner_up_key;
  double confidence = NAN;  // requested for the HL interval
  double hl_shift = NAN, hl_ci_low = NAN, hl_ci_high = NAN, hl_confidence = NAN;  // achieved
  double mann_whitney_p = NAN;
  bool separated = false;  // the HL CI excludes 0 at >= 95% achieved confidence
};

struct SweepResult {
  std::string sweep;
  std::string metric;
  std::string goal;                   // "minimize" / "maximize"
  std::vector<ConfigResult> configs;  // ranked: best first; configs without samples last
  int winner = -1;                    // index into configs when defensible (and valid)
  std::vector<int> tied;              // indices of the statistically tied best set
  std::string winner_rule;            // the rule, in words
  WinnerTest winner_test;
  int64_t total_attempts = 0, total_samples = 0;
  int64_t done = 0, infeasible = 0, unfinished = 0;
  std::vector<std::string> warnings;

  // Honest-measurement audits.
  bool valid = true;
  std::vector<std::string> invalid_reasons;
  std::vector<InjectionVerdict> injection;
  std::vector<InertVerdict> inert;
  std::vector<DeclaredInert> declared_inert;
  bool stop_inert_early_requested = false;  // spec search.stop_inert_early (saving not done)
  std::vector<InfeasibleRegion> infeasible_regions;
  std::vector<NodeEffect> node_effects;
  bool node_effects_applied = false;
  std::string node_effects_method;  // "reference" / "median_polish" / "none"
  std::string node_effects_note;
};

}  // namespace fleetsweep
