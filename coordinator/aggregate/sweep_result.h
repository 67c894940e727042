// SweepResult and its parts: what the aggregator computes for one sweep and what results_writer
// turns into results.json (schema: docs/results.md). Plain values, no behaviour; copyable.
// States and verdicts are enums; Name() prints each, the only place their words are spelled.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "coordinator/aggregate/flat_map.h"

namespace fleetsweep {

// A configuration's state at aggregation time.
enum class ConfigOutcome { kPending, kLeased, kDone, kEliminated, kInfeasible };
// Fingerprint audit of a parameter (AuditInjection).
enum class Injection { kUntested, kInjected, kNotInjected, kNoFingerprint };
// Timing test of a parameter (AuditEffects). kNoEffect is NOT the spec's `inert` fate (declared,
// never measured): it means "measured, and no difference could be shown".
enum class Effect { kUntested, kInconclusive, kNoEffect, kActive };

// "pending", "leased", "done", "eliminated", "infeasible".
const char* Name(ConfigOutcome s);
// "untested", "injected", "not_injected", "no_fingerprint".
const char* Name(Injection v);
// "untested", "inconclusive", "no_effect", "active".
const char* Name(Effect v);

// Summary of one metric of one configuration. The execution is the unit of evidence: n counts
// executions (ok attempts with samples of the metric), `samples` the samples inside them; the CI
// is the hierarchical bootstrap's (executions, then samples within them).
struct MetricSummary {
  int64_t n = 0;        // executions
  int64_t samples = 0;  // samples in those executions
  double median = 0, mad = 0, ci_low = 0, ci_high = 0;
  int resamples = 0;  // bootstrap rounds behind ci_low/ci_high (0: no interval was resampled)
};

// Its small maps and sets are flat (flat_map.h): a million-configuration sweep holds one of these
// per configuration (issue 16).
struct ConfigResult {
  std::string key;
  FlatMap<std::string, std::string> params;
  ConfigOutcome status = ConfigOutcome::kPending;
  int attempts = 0, ok_attempts = 0, failed_attempts = 0;
  MetricSummary primary;      // node effects removed when SweepResult::node_effects_applied
  MetricSummary raw_primary;  // the primary metric as measured (no node correction)
  FlatMap<std::string, MetricSummary> metrics;  // every metric reported, raw (primary included)
  FlatSet<std::string> fingerprints;
  FlatSet<std::string> nodes;
  std::string failure_class;  // last failure ("" when none)
  std::string failure_detail;
  FlatMap<std::string, int> failures_by_class;
  bool violates_bound = false;  // a metric bound (e.g. p99 latency) is violated by the median
  std::vector<std::string> bound_violations;  // "p99_e2el_ms median 2400 > max 2000"
  // The winner test against the best configuration (NaN when not tested): two-sided p of the
  // difference of mean log execution medians, and that difference (this minus best).
  double p_vs_best = NAN;
  double log_diff_vs_best = NAN;
  // The units that comparison used (winner.h, "Sessions"): "executions", "fit", "sessions" or
  // "within_sessions"; empty when not tested.
  std::string unit_vs_best;
};

// Fingerprint audit of one swept parameter (coordinator/aggregate/audit.h).
struct InjectionVerdict {
  std::string param;
  // kInjected: some pair of configurations differing only in this parameter ran different code;
  // kNotInjected: every such pair has identical fingerprint sets;
  // kNoFingerprint: pairs exist but at least one side never reported a fingerprint;
  // kUntested: no pair of successful configurations differs only in this parameter.
  Injection verdict = Injection::kUntested;
  int pairs = 0;            // pairs compared (both sides with fingerprints)
  int differing_pairs = 0;  // of those, pairs whose fingerprint sets differ
  int pairs_without_fingerprint = 0;
  std::string example;  // one pair, for the report
};

// Measured-effect analysis of one swept parameter (coordinator/aggregate/audit.h).
struct InertVerdict {
  std::string param;
  Effect verdict = Effect::kUntested;
  std::string test;  // "block_permutation_ranks_log_execution_medians" (+ suffix below)
  // The re-dealt units: "executions", "configurations" (test ends in
  // "_configurations_redealt") or "sessions" ("_sessions_redealt"); "" when untested. units: how
  // many were re-dealt.
  std::string redealing;
  int units = 0;
  double statistic = 0;  // between-level sum of squares of block-centred log execution medians
  double p_value = 1;
  double min_p = 1;         // the smallest p the design could give (> alpha: inconclusive)
  bool exact = false;       // p from full enumeration (else seeded Monte Carlo)
  double arrangements = 0;  // distinct within-block re-dealings of the level labels
  double spread = 0;        // max/min of the level effects - 1 (0.02 = 2%)
  int levels = 0, blocks = 0, observations = 0;  // observations = executions
  std::map<std::string, double> level_effects;   // level -> median ratio to its block's median
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
  double effect =
      NAN;  // all-data estimate, the median node = 1 (coordinator/aggregate/node_effects.h)
  double ci_low = NAN, ci_high = NAN;  // 95% residual-bootstrap CI over executions
  int executions = 0;                  // executions of multi-node configurations on this node
  int64_t reference_samples = 0;
  int reference_attempts = 0;
  double reference_effect = NAN;  // from the reference configuration alone (consistency check)
  bool drift_tested = false;
  bool drift = false;  // early vs late reference samples: MWU p < 0.01 and > 5% change
  double drift_p = NAN, drift_change = NAN;  // late median / early median - 1
  bool applied = false;                      // samples of this node were divided by `effect`
};

// The winner rule's tests (coordinator/aggregate/winner.h): the best against every other ranked
// configuration, family-wise error controlled.
struct WinnerTest {
  bool done = false;
  std::string best_key, runner_up_key;
  std::string test;               // "t_on_log_execution_medians"
  double family_alpha = NAN;      // false-winner rate the rule holds
  double comparison_alpha = NAN;  // family_alpha / (comparisons * looks)
  int comparisons = 0,
      looks = 0;             // Bonferroni claims (m, the ranked configurations); adaptive stages
  double runner_up_p = NAN;  // best vs runner-up
  double runner_up_log_diff = NAN;  // runner-up minus best, mean log execution medians
  double max_p = NAN;               // the weakest of the best's comparisons
  std::string weakest_key;          // ... and against whom
  bool separated = false;           // every comparison significant in the right direction
  int session_comparisons = 0;      // comparisons whose units were sessions (winner.h: "Sessions")
  int within_session_comparisons = 0;  // ... differences within shared sessions (winner.h)
  int fit_comparisons = 0;             // ... the two-way session fit (session_fit.h)
};

// A parameter whose fingerprint audit and timing test disagree (e.g. "not injected" yet
// "active": the timing difference cannot come from the parameter; suspect assignment, node or
// order effects, or a fingerprint that misses what the parameter changes).
struct Contradiction {
  std::string param;
  Injection injection = Injection::kUntested;
  Effect effect = Effect::kUntested;
  std::string text;
};

// Warm-state audit of persistent sessions (coordinator/aggregate/warm_state.h).
// "untested": no block holds both kinds of execution; "inconclusive": the design cannot reach
// alpha; "no_difference": p > alpha; "differs": p <= alpha.
struct WarmStateTest {
  std::string verdict = "untested";
  double p_value = 1, min_p = 1;
  bool exact = false;
  int blocks = 0, group_a = 0, group_b = 0;  // informative blocks, executions in each group
  int tested_blocks = 0;  // blocks the permutation test used: a seeded subset of a large design
  double change = 0;      // median over blocks of (group b mean - group a mean) of log medians, as
                          // a ratio - 1 (0.1 = group b 10% higher)
};

struct WarmStateAudit {
  bool persistent = false;  // some execution ran at a session position > 1
  int executions = 0;       // executions with a position
  int max_position = 0;
  WarmStateTest first_vs_later;  // a = position 1, b = positions >= 2
  WarmStateTest drift;           // a = early half of positions >= 2, b = late half
  // Do a configuration's executions measure differently from one session to another (an offset
  // a process keeps over its life)? group_a counts sessions (summed over blocks), group_b
  // executions; change = median over blocks of (highest / lowest session mean) - 1.
  WarmStateTest between_sessions;
  std::string note;
  // What the sessions' starts cost (process start to ready, prewarm included; the attempts'
  // `session.start_seconds`): a start is in the duration of the attempt that opened the session,
  // not in its execution (docs/executors.md "Sessions").
  int64_t session_starts = 0;
  double session_start_seconds = 0;
  double attempt_seconds = 0;  // all ok attempts' durations, the starts included
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
  // Every execution in the store (the reference's included) and the failed ones among them
  // (common/store/execution_count.h: what `run`, `watch` and `list` call executions).
  int64_t total_attempts = 0, failed_attempts = 0, total_samples = 0;
  int64_t done = 0, infeasible = 0, unfinished = 0;
  std::vector<std::string> warnings;
  // Set by the sweep runner (not the aggregate): the sweep stopped before every configuration
  // finished (a signal, a store fault), and how many configurations its space has. `configs`
  // lists only configurations with a stored record (counted or changed state), so an
  // interrupted sweep's never-run configurations are space_configurations - configs.size().
  bool interrupted = false;
  int64_t space_configurations = 0;  // 0: not known (an aggregate of a store alone)

  // Honest-measurement audits.
  bool valid = true;
  std::vector<std::string> invalid_reasons;
  std::vector<InjectionVerdict> injection;
  std::vector<InertVerdict> inert;
  std::vector<Contradiction> contradictions;
  std::vector<DeclaredInert> declared_inert;
  bool stop_inert_early_requested = false;  // spec search.stop_inert_early (saving not done)
  std::vector<InfeasibleRegion> infeasible_regions;
  std::vector<NodeEffect> node_effects;
  bool node_effects_applied = false;
  std::string node_effects_method;  // "all_data" / "none"
  std::string node_effects_note;
  WarmStateAudit warm_state;
};

}  // namespace fleetsweep
