#include "coordinator/aggregator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <unordered_map>

#include "common/stats/bootstrap.h"
#include "common/stats/descriptive.h"
#include "common/stats/hodges_lehmann.h"
#include "common/stats/rank_tests.h"
#include "coordinator/audit.h"
#include "coordinator/node_effects.h"

namespace fleetsweep {
namespace {

MetricSummary Summarize(const std::vector<double>& xs, uint64_t seed,
                        stats::BootstrapWorkspace* ws) {
  MetricSummary m;
  m.n = static_cast<int64_t>(xs.size());
  if (xs.empty()) return m;
  auto med = stats::Median(xs);
  auto mad = stats::Mad(xs);
  auto ci = stats::BootstrapMedianCI(xs, 0.95, 2000, seed, ws);
  m.median = med.ok() ? *med : 0;
  m.mad = mad.ok() ? *mad : 0;
  m.ci_low = ci.ok() ? ci->low : m.median;
  m.ci_high = ci.ok() ? ci->high : m.median;
  return m;
}

const char* StateName(v1::ConfigState s) {
  switch (s) {
    case v1::CONFIG_STATE_DONE:
      return "done";
    case v1::CONFIG_STATE_INFEASIBLE:
      return "infeasible";
    case v1::CONFIG_STATE_LEASED:
      return "leased";
    default:
      return "pending";
  }
}

std::string ClassName(int c) {
  std::string n = v1::FailureClass_Name(static_cast<v1::FailureClass>(c));
  const std::string prefix = "FAILURE_CLASS_";
  if (n.rfind(prefix, 0) == 0) n = n.substr(prefix.size());
  std::transform(n.begin(), n.end(), n.begin(), ::tolower);
  return n;
}

std::string Fmt(const char* f, double a, double b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

// Rule 2 of the winner rule (aggregator.h): best vs runner-up.
void PairwiseTest(const SweepResult& out, const std::vector<std::vector<double>>& samples,
                  int runner_up, double confidence, WinnerTest* t) {
  t->best_key = out.configs[0].key;
  t->runner_up_key = out.configs[runner_up].key;
  t->confidence = confidence;
  auto hl = stats::HodgesLehmannShift(samples[0], samples[runner_up], confidence);
  auto mw = stats::MannWhitneyU(samples[0], samples[runner_up]);
  if (mw.ok()) t->mann_whitney_p = mw->p_value;
  if (!hl.ok()) return;
  t->done = true;
  t->hl_shift = hl->estimate;
  t->hl_ci_low = hl->ci.low;
  t->hl_ci_high = hl->ci.high;
  t->hl_confidence = hl->achieved_confidence;
  t->separated =
      hl->achieved_confidence >= confidence - 1e-12 && (hl->ci.low > 0 || hl->ci.high < 0);
}

}  // namespace

SweepResult Aggregate(const SweepSpec& spec, const std::vector<v1::ConfigRecord>& records,
                      const std::vector<v1::Attempt>& attempts, const AggregateOptions& options) {
  const uint64_t seed = options.seed;
  SweepResult out;
  out.sweep = spec.name;
  out.metric = spec.primary_metric().name;
  const bool minimize = spec.primary_metric().goal == Goal::kMinimize;
  out.goal = minimize ? "minimize" : "maximize";

  std::unordered_map<std::string, size_t> index;
  for (const auto& r : records) {
    ConfigResult c;
    c.key = r.config_key();
    for (const auto& [k, v] : r.params()) c.params[k] = v;
    c.status = StateName(r.state());
    if (r.eliminated() && r.state() == v1::CONFIG_STATE_DONE) c.status = "eliminated";
    if (r.state() == v1::CONFIG_STATE_INFEASIBLE) {
      c.failure_class = ClassName(r.last_failure());
      c.failure_detail = r.last_failure_detail();
    }
    index[c.key] = out.configs.size();
    out.configs.push_back(std::move(c));
  }

  NodeEffectsResult ne = EstimateNodeEffects(attempts, out.metric, seed);
  if (!options.remove_node_effects && ne.applied) {
    ne.applied = false;
    ne.method = "none";
    ne.note = "node-effect removal disabled";
    for (auto& [node, d] : ne.divisors) d = 1.0;
    for (auto& e : ne.nodes) e.applied = false;
  }
  out.node_effects = ne.nodes;
  out.node_effects_applied = ne.applied;
  out.node_effects_method = ne.method;
  out.node_effects_note = ne.note;
  for (const auto& w : ne.warnings) out.warnings.push_back(w);

  std::vector<std::map<std::string, std::vector<double>>> samples(out.configs.size());
  std::vector<std::vector<double>> corrected(out.configs.size());
  for (const auto& a : attempts) {
    ++out.total_attempts;
    if (a.reference()) continue;
    auto it = index.find(a.config_key());
    if (it == index.end()) continue;
    ConfigResult& c = out.configs[it->second];
    ++c.attempts;
    c.nodes.insert(a.node());
    if (a.ok()) {
      ++c.ok_attempts;
      if (!a.fingerprint().empty()) c.fingerprints.insert(a.fingerprint());
      auto d = ne.divisors.find(a.node());
      const double div = d == ne.divisors.end() ? 1.0 : d->second;
      for (const auto& s : a.samples()) {
        samples[it->second][s.metric()].push_back(s.value());
        if (s.metric() == out.metric) corrected[it->second].push_back(s.value() / div);
      }
      out.total_samples += a.samples_size();
    } else {
      ++c.failed_attempts;
      c.failures_by_class[ClassName(a.failure_class())]++;
      if (c.failure_class.empty()) {
        c.failure_class = ClassName(a.failure_class());
        c.failure_detail = a.failure_detail();
      }
    }
  }
  stats::BootstrapWorkspace ws;
  for (size_t i = 0; i < out.configs.size(); ++i) {
    ConfigResult& c = out.configs[i];
    for (const auto& [metric, xs] : samples[i]) c.metrics[metric] = Summarize(xs, seed, &ws);
    auto p = c.metrics.find(out.metric);
    if (p != c.metrics.end()) c.raw_primary = p->second;
    c.primary = ne.applied ? Summarize(corrected[i], seed, &ws) : c.raw_primary;
    for (const auto& m : spec.metrics) {
      auto it = c.metrics.find(m.name);
      if (it == c.metrics.end()) continue;
      const double med = it->second.median;
      if (m.max_value && med > *m.max_value) {
        c.violates_bound = true;
        c.bound_violations.push_back(m.name + Fmt(" median %.6g > max %.6g", med, *m.max_value));
      }
      if (m.min_value && med < *m.min_value) {
        c.violates_bound = true;
        c.bound_violations.push_back(m.name + Fmt(" median %.6g < min %.6g", med, *m.min_value));
      }
    }
    if (c.fingerprints.size() > 1) {
      out.warnings.push_back("configuration " + c.key + " reported " +
                             std::to_string(c.fingerprints.size()) +
                             " different fingerprints across its attempts");
    }
    if (c.status == "done" || c.status == "eliminated")
      ++out.done;
    else if (c.status == "infeasible")
      ++out.infeasible;
    else
      ++out.unfinished;
  }

  // Rank: configurations with samples (and within bounds) first, by (corrected) median.
  auto rankable = [](const ConfigResult& c) { return c.primary.n > 0 && !c.violates_bound; };
  std::vector<size_t> order(out.configs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t ia, size_t ib) {
    const ConfigResult& a = out.configs[ia];
    const ConfigResult& b = out.configs[ib];
    if (rankable(a) != rankable(b)) return rankable(a);
    if (!rankable(a)) return a.key < b.key;
    return minimize ? a.primary.median < b.primary.median : a.primary.median > b.primary.median;
  });
  {
    std::vector<ConfigResult> ranked;
    std::vector<std::vector<double>> ranked_samples;
    for (size_t i : order) {
      ranked.push_back(std::move(out.configs[i]));
      ranked_samples.push_back(std::move(corrected[i]));
    }
    out.configs = std::move(ranked);
    corrected = std::move(ranked_samples);
  }

  // Audits.
  std::vector<std::string> swept;
  for (const auto& p : spec.params) {
    if (p.fate == ParamFate::kSwept && p.values.size() >= 2) swept.push_back(p.name);
    if (p.fate == ParamFate::kInert) out.declared_inert.push_back({p.name, p.reason});
  }
  out.stop_inert_early_requested = spec.search.stop_inert_early;
  out.injection = AuditInjection(out.configs, swept);
  out.inert = AuditInert(out.configs, corrected, swept);
  out.infeasible_regions = InfeasibleRegions(out.configs, swept);
  for (const auto& v : out.injection) {
    if (v.verdict == "no_fingerprint") {
      out.warnings.push_back("parameter " + v.param + ": configurations without a fingerprint (" +
                             std::to_string(v.pairs_without_fingerprint) +
                             " pairs): nobody checked that it reached what ran");
    } else if (v.verdict == "not_injected") {
      out.warnings.push_back("parameter " + v.param + " never changed the fingerprint (" +
                             std::to_string(v.pairs) + " pairs): it did not reach the kernel");
    }
  }
  const std::string invalid = InjectionInvalidReason(out.injection);
  if (!invalid.empty()) {
    out.valid = false;
    out.invalid_reasons.push_back(invalid);
  }
  if (out.done == 0 && out.unfinished == 0 && !out.configs.empty()) {
    out.valid = false;
    out.invalid_reasons.push_back("no configuration succeeded");
  }
  if (spec.search.stop_inert_early) {
    out.warnings.push_back(
        "search.stop_inert_early is set but not implemented: every "
        "configuration was run; inert verdicts are reported after the fact");
  }

  // Winner.
  out.winner_rule =
      options.pairwise_winner_test
          ? "winner only if its 95% bootstrap CI of the median is disjoint from "
            "every other configuration's AND the Hodges-Lehmann CI of the shift to the "
            "runner-up excludes 0 at " +
                std::to_string(static_cast<int>(options.pairwise_confidence * 100 + 0.5)) +
                "% confidence AND the sweep is valid; otherwise the tied set"
          : "winner only if its 95% bootstrap CI of the median is disjoint from "
            "every other configuration's AND the sweep is valid; otherwise the tied set";
  if (!out.configs.empty() && rankable(out.configs[0])) {
    const MetricSummary& best = out.configs[0].primary;
    out.tied.push_back(0);
    int runner_up = -1;
    for (size_t i = 1; i < out.configs.size() && rankable(out.configs[i]); ++i) {
      if (runner_up < 0) runner_up = static_cast<int>(i);
      const MetricSummary& m = out.configs[i].primary;
      bool overlaps = minimize ? m.ci_low <= best.ci_high : m.ci_high >= best.ci_low;
      if (overlaps) out.tied.push_back(static_cast<int>(i));
    }
    bool defended = out.tied.size() == 1;
    if (runner_up > 0 && options.pairwise_winner_test) {
      PairwiseTest(out, corrected, runner_up, options.pairwise_confidence, &out.winner_test);
      if (defended && !out.winner_test.separated) {
        defended = false;
        out.tied.push_back(runner_up);
      }
    }
    if (defended && out.valid) out.winner = 0;
  }
  if (out.unfinished > 0) {
    out.warnings.push_back(std::to_string(out.unfinished) + " configurations are unfinished");
  }
  return out;
}

}  // namespace fleetsweep
