// Honest-measurement audits of an aggregated sweep (docs/honest-measurement.md):
//
//   AuditInjection      did each swept parameter reach what ran? (fingerprints)
//   AuditInert          does each swept parameter make a measurable difference? (Kruskal-Wallis on
//                       block-normalised medians)
//   InfeasibleRegions   which parameter values make configurations infeasible?
//
// All are pure functions of their inputs (no I/O, deterministic) and never fail: a parameter that
// cannot be judged gets the verdict "untested" (or "no_fingerprint") with a note, never a silent
// pass. Thread-safety: pure; safe to call concurrently.
#pragma once

#include <string>
#include <vector>

#include "coordinator/sweep_result.h"

namespace fleetsweep {

// For each name in `params` (the swept parameters, each with at least two levels), compares the
// fingerprint sets of every pair of successful configurations that differ only in that parameter
// (configurations are grouped by the values of all other parameters). A configuration counts as
// successful when it has at least one ok attempt.
std::vector<InjectionVerdict> AuditInjection(const std::vector<ConfigResult>& configs,
                                             const std::vector<std::string>& params);

// The sweep-level consequence of the injection audit: a non-empty reason when fingerprints were
// compared for at least one parameter and no parameter changed them (every variant ran the same
// code), "" otherwise.
std::string InjectionInvalidReason(const std::vector<InjectionVerdict>& verdicts);

struct InertOptions {
  double alpha = 0.05;       // p above this: no evidence of an effect
  double max_spread = 0.02;  // level effects within 2% of each other: small
  int min_per_level = 3;     // fewer block-normalised medians per level: test samples instead
};

// `samples[i]` are the (node-corrected) primary-metric samples of configs[i]; configs[i].primary
// holds their median. For each parameter, configurations with samples are grouped into blocks
// sharing all other parameters; within a block each configuration's median is divided by the
// block's median (blocks with fewer than two levels are dropped). The ratios are compared across
// levels with Kruskal-Wallis. When some level has fewer than `min_per_level` ratios (too few
// blocks for a test on medians to ever reach alpha), the block-normalised samples are tested
// instead (test name says which). Verdict: "inert" when p > alpha and spread < max_spread,
// "active" when p <= alpha, "inconclusive" otherwise, "untested" without two levels in a block.
std::vector<InertVerdict> AuditInert(const std::vector<ConfigResult>& configs,
                                     const std::vector<std::vector<double>>& samples,
                                     const std::vector<std::string>& params,
                                     const InertOptions& options = {});

// For every parameter value shared by at least one infeasible configuration: how many of the
// configurations with that value are infeasible, by failure class. Whole regions (all infeasible)
// first, then by count. `params` lists the parameters to consider (usually the swept ones).
std::vector<InfeasibleRegion> InfeasibleRegions(const std::vector<ConfigResult>& configs,
                                                const std::vector<std::string>& params);

}  // namespace fleetsweep
