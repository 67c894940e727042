// summary.txt (results_writer.h SummaryTable): the human table of the best configurations, the
// audits' verdicts and the winner or tied set; and the text helpers results.json shares
// (results_text.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/store/execution_count.h"
#include "coordinator/aggregate/results_text.h"
#include "coordinator/aggregate/results_writer.h"

namespace fleetsweep {

std::string ParamsText(const ConfigResult& c) {
  std::string s;
  for (const auto& [k, v] : c.params) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string RegionText(const InfeasibleRegion& g) {
  std::string classes;
  for (const auto& [cls, n] : g.classes) {
    classes +=
        (classes.empty() ? "" : ", ") + (g.classes.size() > 1 ? std::to_string(n) + " " : "") + cls;
  }
  return g.param + "=" + g.value + ": " + std::to_string(g.infeasible) + " of " +
         std::to_string(g.total) + " configurations infeasible (" + classes + ")";
}

namespace {

// The failures behind the infeasible configurations, one example detail per failure class.
std::string FailureExamples(const SweepResult& r) {
  std::map<std::string, std::pair<int, std::string>> by_class;  // class -> (configs, example)
  for (const auto& c : r.configs) {
    if (c.status != ConfigOutcome::kInfeasible) continue;
    auto& [n, example] = by_class[c.failure_class.empty() ? "unknown" : c.failure_class];
    ++n;
    if (example.empty()) {
      example = c.failure_detail.substr(0, c.failure_detail.find('\n'));
      if (example.size() > 160) example = example.substr(0, 157) + "...";
      example += "  [" + ParamsText(c) + "]";
    }
  }
  std::string out;
  for (const auto& [cls, e] : by_class) {
    out += "  " + cls + " (" + std::to_string(e.first) + " configuration" +
           (e.first == 1 ? "" : "s") + "), e.g.: " + e.second + "\n";
  }
  return out;
}

}  // namespace

// How far apart the tied set's medians lie, and what would separate them ("" when a tied
// configuration has no median).
std::string TiedSpan(const SweepResult& r) {
  double lo = INFINITY, hi = -INFINITY;
  for (int k : r.tied) {
    const double m = r.configs[static_cast<size_t>(k)].primary.median;
    if (!(m > 0)) return "";
    lo = std::min(lo, m);
    hi = std::max(hi, m);
  }
  if (r.tied.size() < 2) return "";
  char line[320];
  std::snprintf(line, sizeof line,
                "  (their medians span %.4g-%.4g %s, %.1f%% apart: too few or too noisy "
                "executions to separate them; more executions (repetitions.max) or a quieter "
                "machine could)\n",
                lo, hi, r.metric.c_str(), 100 * (hi / lo - 1));
  return line;
}

std::string SummaryTable(const SweepResult& r, int rows) {
  std::ostringstream o;
  char line[768];
  const std::string bar(78, '!');
  if (r.interrupted) {
    o << "INTERRUPTED: the sweep stopped before it finished; results cover the configurations "
         "that ran";
    if (r.space_configurations > 0) {
      o << " (" << r.configs.size() << " of " << r.space_configurations << "; "
        << std::max<int64_t>(0, r.space_configurations - static_cast<int64_t>(r.configs.size()))
        << " never ran and are not listed)";
    }
    o << "\n";
  }
  if (!r.valid) {
    o << bar << "\n!! SWEEP RESULT INVALID: no speedup from this sweep can be defended\n";
    for (const auto& why : r.invalid_reasons) o << "!!   " << why << "\n";
    o << bar << "\n";
  }
  std::snprintf(line, sizeof line, "%-4s %-16s %12s %25s %5s %7s  %s\n", "rank", "config",
                r.metric.c_str(), "95% CI", "execs", "samples", "parameters");
  o << line;
  int shown = 0;
  for (size_t i = 0; i < r.configs.size() && shown < rows; ++i) {
    const ConfigResult& c = r.configs[i];
    if (c.primary.n == 0) continue;
    std::snprintf(line, sizeof line, "%-4zu %-16s %12.4g   [%10.4g, %10.4g] %5lld %7lld  %s%s\n",
                  i + 1, c.key.c_str(), c.primary.median, c.primary.ci_low, c.primary.ci_high,
                  static_cast<long long>(c.primary.n), static_cast<long long>(c.primary.samples),
                  ParamsText(c).c_str(), c.violates_bound ? "  (violates a metric bound)" : "");
    o << line;
    ++shown;
  }
  o << "configurations: " << r.configs.size() << " (" << r.done << " done, " << r.infeasible
    << " infeasible, " << r.unfinished << " unfinished); "
    << ExecutionsText({r.total_attempts, r.failed_attempts}) << ", " << r.total_samples
    << " samples\n";
  if (r.infeasible > 0) o << "why configurations are infeasible:\n" << FailureExamples(r);
  if (!r.infeasible_regions.empty()) {
    o << "infeasible regions:\n";
    for (size_t k = 0; k < r.infeasible_regions.size() && k < 12; ++k) {
      const InfeasibleRegion& g = r.infeasible_regions[k];
      o << "  " << RegionText(g) << (g.whole ? "   <== the whole region" : "") << "\n";
    }
  }
  if (!r.injection.empty()) {
    o << "injection audit (fingerprints of configurations differing in one parameter):\n";
    for (const auto& v : r.injection) {
      std::snprintf(line, sizeof line, "  %-24s %-15s %d of %d pairs differ%s\n", v.param.c_str(),
                    Name(v.verdict), v.differing_pairs, v.pairs,
                    v.verdict == Injection::kNotInjected     ? "   <== NEVER REACHED WHAT RAN"
                    : v.verdict == Injection::kNoFingerprint ? "   <== no fingerprint: unchecked"
                                                             : "");
      o << line;
    }
  }
  if (!r.inert.empty()) {
    o << "parameter effects (permutation test of ranked log execution medians within blocks, "
      << r.metric << "):\n";
    for (const auto& v : r.inert) {
      if (v.verdict == Effect::kUntested) {
        o << "  " << v.param << ": untested (" << v.note << ")\n";
        continue;
      }
      std::snprintf(
          line, sizeof line, "  %-24s %-12s p=%.3g spread=%.2f%% %d blocks, %d executions%s%s%s\n",
          v.param.c_str(), Name(v.verdict), v.p_value, 100 * v.spread, v.blocks, v.observations,
          v.redealing == "executions" ? "" : (" (" + v.redealing + " re-dealt)").c_str(),
          v.note.empty() ? "" : ": ", v.note.c_str());
      o << line;
    }
  }
  for (const auto& d : r.declared_inert) {
    o << "  declared inert in the spec: " << d.param << " (" << d.reason << ")\n";
  }
  if (r.node_effects.size() > 1 || r.node_effects_applied) {
    o << "node effects (" << (r.node_effects_applied ? "REMOVED before comparing" : "not removed")
      << "; " << r.node_effects_note << "):\n";
    for (const auto& e : r.node_effects) {
      std::snprintf(line, sizeof line,
                    "  %-20s effect %.4f [%.4f, %.4f] from %d executions; reference alone %.4f%s\n",
                    e.node.c_str(), e.effect, e.ci_low, e.ci_high, e.executions, e.reference_effect,
                    e.drift ? "  DRIFT" : "");
      o << line;
    }
  }
  if (r.warm_state.persistent) {
    const WarmStateAudit& w = r.warm_state;
    std::snprintf(line, sizeof line,
                  "warm state (%d executions, positions up to %d): first vs later %s (p=%.3g, "
                  "%d blocks); drift %s (p=%.3g); between sessions %s (p=%.3g, %d blocks)\n",
                  w.executions, w.max_position, w.first_vs_later.verdict.c_str(),
                  w.first_vs_later.p_value, w.first_vs_later.blocks, w.drift.verdict.c_str(),
                  w.drift.p_value, w.between_sessions.verdict.c_str(), w.between_sessions.p_value,
                  w.between_sessions.blocks);
    o << line;
  }
  if (r.warm_state.session_starts > 0 && r.warm_state.attempt_seconds > 0) {
    const WarmStateAudit& w = r.warm_state;
    std::snprintf(
        line, sizeof line,
        "session starts: %lld took %.2f s, %.1f%% of the ok attempts' %.2f s (each in the "
        "attempt that opened its session, not in its execution)\n",
        static_cast<long long>(w.session_starts), w.session_start_seconds,
        100 * w.session_start_seconds / w.attempt_seconds, w.attempt_seconds);
    o << line;
  }
  for (const auto& c : r.contradictions) o << "CONTRADICTION: " << c.text << "\n";
  if (r.winner >= 0) {
    o << "winner: " << ParamsText(r.configs[r.winner]) << " (beats every other configuration";
    if (r.winner_test.done) {
      std::snprintf(line, sizeof line,
                    "; largest p %.3g <= %.3g per comparison, family-wise false-winner rate "
                    "<= %.3g",
                    r.winner_test.max_p, r.winner_test.comparison_alpha,
                    r.winner_test.family_alpha);
      o << line;
    }
    o << ")\n";
  } else if (!r.tied.empty()) {
    o << "no defensible winner: " << r.tied.size()
      << " configurations are statistically tied for best"
      << (r.valid ? "" : " (and the sweep is invalid)") << ":\n";
    o << TiedSpan(r);
    for (size_t k = 0; k < r.tied.size() && k < 10; ++k) {
      o << "  " << ParamsText(r.configs[r.tied[k]]) << "\n";
    }
    if (r.tied.size() > 10)
      o << "  ... and " << r.tied.size() - 10 << " more (results.csv: tied)\n";
  } else {
    o << "no configuration produced samples\n";
  }
  for (const auto& w : r.warnings) o << "warning: " << w << "\n";
  if (!r.valid) o << bar << "\n!! SWEEP RESULT INVALID (see above)\n" << bar << "\n";
  return o.str();
}

}  // namespace fleetsweep
