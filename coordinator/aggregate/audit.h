// Honest-measurement audits of an aggregated sweep (docs/honest-measurement.md):
//
//   AuditInjection      did each swept parameter reach what ran? (fingerprints)
//   AuditEffects        does each swept parameter make a measurable difference? (permutation test
//                       of log execution medians, labels re-dealt within blocks)
//   FindContradictions  parameters the two audits disagree about
//   InfeasibleRegions   which parameter values make configurations infeasible?
//
// All are pure functions of their inputs (no I/O, deterministic) and never fail: a parameter that
// cannot be judged gets the verdict untested / inconclusive (or no_fingerprint) with a note, never
// a silent pass. Thread-safety: pure; safe to call concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/aggregate/audit_blocks.h"
#include "coordinator/aggregate/sweep_result.h"

namespace fleetsweep {

// For each name in `params` (the swept parameters, each with at least two levels), compares the
// fingerprint sets of every pair of successful configurations that differ only in that parameter
// (configurations are grouped by the values of all other parameters). A configuration counts as
// successful when it has at least one ok attempt.
std::vector<InjectionVerdict> AuditInjection(const std::vector<ConfigResult>& configs,
                                             const std::vector<std::string>& params);
// The same, reading the parameters from `table` (a ParamTable of `configs`): one table serves
// every audit of a result (RunAudits), instead of one built per audit.
std::vector<InjectionVerdict> AuditInjection(const std::vector<ConfigResult>& configs,
                                             const ParamTable& table,
                                             const std::vector<std::string>& params);

// The sweep-level consequence of the injection audit: a non-empty reason when fingerprints were
// compared for at least one parameter and no parameter changed them (every variant ran the same
// code), "" otherwise.
std::string InjectionInvalidReason(const std::vector<InjectionVerdict>& verdicts);

// What the effect test re-deals within a block: each execution's label (the unit of evidence),
// or each configuration's label for all its executions at once (a subgroup of the former: exact
// too, and valid when a configuration's executions are correlated).
enum class Redealing { kAuto, kExecutions, kConfigurations };

// kAuto re-deals configurations when both hold (read from the design alone: which
// configurations have how many executions at which level, never their values, which would void
// the test's level):
// - the test has more than this many executions: up to it the execution-level test costs at
//   most ~2e7 label visits per parameter (0.08 s on the 2-core CI machine) and keeps its exact
//   enumeration and its power in small sweeps (fleetsweep-verdict-bench's average 20-160
//   executions); above it, 500 re-dealings of every execution dominated the final aggregate
//   (0.45 s a parameter at 300,000 executions; docs/performance.md);
inline constexpr int kConfigurationRedealingMinExecutions = 20000;
// - the blocks hold at least this many configurations per level (for a complete grid: blocks).
//   The configuration-level test sees a level's effect only ACROSS blocks (within one block a
//   configuration's own offset and its level's effect are the same thing) and estimates its noise
//   from the configurations' scatter instead of the executions': it is close to a randomised-block
//   F test against the execution-level test's chi-square, so it loses power with few blocks
//   (one block per level: none; 3 blocks of 100 levels: 55% against 70%). Measured with
//   fleetsweep-redealing-bench (docs/honest-measurement.md section 2) at ~65-77% power: 20
//   blocks lose 2-3 points, 50 blocks 1-1.5 (2 and 10 levels). 50 blocks also make the
//   configuration-level arrangements at least 2^50, so the smallest reachable p is set by the
//   Monte Carlo resolution 1 / (1 + re-dealings), as for the execution level.
inline constexpr double kConfigurationRedealingMinPerLevel = 50;

struct EffectOptions {
  double alpha = 0.05;       // the test's level: P(active | parameter does nothing) <= alpha
  double max_spread = 0.02;  // level effects within 2% of each other: small
  int resamples = 4000;      // Monte Carlo re-dealings when enumeration is too large
  // Sequential Monte Carlo: stop re-dealing once this many reach the observed statistic
  // (stats::BlockPermutationTest, Besag-Clifford; valid p, a parameter that does nothing costs
  // ~h / p re-dealings); 0 runs them all. h = 20 lost power in fleetsweep-verdict-bench (a real
  // 3% difference found in 988 of 1000 sweeps against 995 without stopping); h = 100: 995.
  int stop_after_hits = 100;
  uint64_t seed = 1;  // mixed with the parameter's name
  int threads = 1;    // parameters tested at once (each has its own seed: same verdicts)
  Redealing redealing = Redealing::kAuto;  // the others force the unit (benches, tests)
  // When set and true, parameters not yet tested are left untested (a partial result to
  // discard). Not owned.
  const std::atomic<bool>* cancel = nullptr;
};

// `log_exec_medians[i]` holds, per execution of configs[i], the log of its median of the primary
// metric (node effects removed); configs[i].primary.median is the configuration's median. For
// each parameter, configurations are grouped into blocks sharing all other parameters (blocks
// with one level are dropped); the level labels of the executions (or, in large designs, of the
// configurations: Redealing) are re-dealt within blocks (stats::BlockPermutationTestOfUnits:
// exact or seeded Monte Carlo), so the other parameters' effects cancel and the test holds its
// level for any block sizes. InertVerdict::redealing says which. Verdicts:
//   kActive        p <= alpha;
//   kInconclusive  the design cannot reach alpha (min_p > alpha: too few blocks / executions), or
//                  p > alpha but the level effects spread by max_spread or more (too noisy);
//   kNoEffect      p > alpha, reachable, and spread < max_spread;
//   kUntested      no block holds two levels.
// level_effects / spread: per level, the median over blocks of configuration median / block
// median (description only; the test is on executions).
//
// Sessions: `log_exec_sessions` is empty or holds, per configuration, the benchmark session of
// each execution, parallel to log_exec_medians[i] (an index; -1 for none: a one-shot
// execution, its own process). A persistent session serves executions one after another in one
// process, and what that process holds (allocations, caches, an engine's startup state) can give
// all its executions an offset of their own. When no session of the design holds two levels of
// the parameter (a session-key parameter: `restart: true` or templated into the command, env or
// files, whose levels never share a process) and some session holds two of its executions, kAuto
// re-deals whole SESSIONS instead: each session is one unit (its executions' level, count and
// within-block rank sum, the ranks centred on their block's mean), re-dealt within strata (blocks
// joined by a session that spans them: a session serves every configuration of its key), so the
// test needs only the sessions to be exchangeable, not their executions. The executions re-dealt
// otherwise would read a session's offset as the level's effect. A design with one session per
// level cannot tell the two apart: min_p > alpha, "inconclusive". InertVerdict::redealing is then
// "sessions" (test name ending in "_sessions_redealt"). Sessions holding two levels (a parameter
// the session does not depend on) leave the choice as above: both levels share the sessions'
// offsets within a block.
std::vector<InertVerdict> AuditEffects(const std::vector<ConfigResult>& configs,
                                       const std::vector<std::vector<double>>& log_exec_medians,
                                       const std::vector<std::vector<int32_t>>& log_exec_sessions,
                                       const std::vector<std::string>& params,
                                       const EffectOptions& options = {});
// The same, reading the parameters from `table` (a ParamTable of `configs`).
std::vector<InertVerdict> AuditEffects(const std::vector<ConfigResult>& configs,
                                       const ParamTable& table,
                                       const std::vector<std::vector<double>>& log_exec_medians,
                                       const std::vector<std::vector<int32_t>>& log_exec_sessions,
                                       const std::vector<std::string>& params,
                                       const EffectOptions& options = {});
// Without sessions (every execution its own process, or not recorded).
std::vector<InertVerdict> AuditEffects(const std::vector<ConfigResult>& configs,
                                       const std::vector<std::vector<double>>& log_exec_medians,
                                       const std::vector<std::string>& params,
                                       const EffectOptions& options = {});

// Every parameter that is Injection::kNotInjected by fingerprints yet Effect::kActive by timing.
std::vector<Contradiction> FindContradictions(const std::vector<InjectionVerdict>& injection,
                                              const std::vector<InertVerdict>& effects);

// For every parameter value shared by at least one infeasible configuration: how many of the
// configurations with that value are infeasible, by failure class. Whole regions (all infeasible)
// first, then by count. `params` lists the parameters to consider (usually the swept ones).
std::vector<InfeasibleRegion> InfeasibleRegions(const std::vector<ConfigResult>& configs,
                                                const std::vector<std::string>& params);
// The same, reading the parameters from `table` (a ParamTable of `configs`).
std::vector<InfeasibleRegion> InfeasibleRegions(const std::vector<ConfigResult>& configs,
                                                const ParamTable& table,
                                                const std::vector<std::string>& params);

}  // namespace fleetsweep
