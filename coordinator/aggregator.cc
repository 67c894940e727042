#include "coordinator/aggregator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <unordered_map>

#include "common/stats/descriptive.h"
#include "common/stats/hierarchical.h"
#include "common/store/failure_text.h"
#include "coordinator/audit.h"
#include "coordinator/metric_checks.h"
#include "coordinator/node_effects.h"
#include "coordinator/warm_state.h"
#include "coordinator/winner.h"

namespace fleetsweep {
namespace {

using Executions = std::vector<std::vector<double>>;

// Per configuration: raw executions per metric, node-corrected primary executions.
struct Collected {
  std::map<std::string, Executions> raw;
  Executions corrected;
};

MetricSummary Summarize(const Executions& execs, uint64_t seed, int resamples) {
  MetricSummary m;
  std::vector<double> pooled;
  for (const auto& e : execs) {
    if (e.empty()) continue;
    ++m.n;
    pooled.insert(pooled.end(), e.begin(), e.end());
  }
  m.samples = static_cast<int64_t>(pooled.size());
  if (pooled.empty()) return m;
  Executions nonempty;
  for (const auto& e : execs) {
    if (!e.empty()) nonempty.push_back(e);
  }
  auto med = stats::Median(pooled);
  auto mad = stats::Mad(pooled);
  auto ci = stats::HierarchicalBootstrapMedianCI(nonempty, 0.95, resamples, seed);
  m.median = med.ok() ? *med : 0;
  m.mad = mad.ok() ? *mad : 0;
  m.ci_low = ci.ok() ? ci->low : m.median;
  m.ci_high = ci.ok() ? ci->high : m.median;
  return m;
}

ConfigOutcome Outcome(const v1::ConfigRecord& r) {
  switch (r.state()) {
    case v1::CONFIG_STATE_DONE:
      return r.eliminated() ? ConfigOutcome::kEliminated : ConfigOutcome::kDone;
    case v1::CONFIG_STATE_INFEASIBLE:
      return ConfigOutcome::kInfeasible;
    case v1::CONFIG_STATE_LEASED:
      return ConfigOutcome::kLeased;
    default:
      return ConfigOutcome::kPending;
  }
}

std::string ClassName(int c) { return FailureClassText(static_cast<v1::FailureClass>(c)); }

std::string Fmt(const char* f, double a, double b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

// Log of each execution's median (executions with a non-positive median are left out).
std::vector<double> LogMedians(const Executions& execs) {
  std::vector<double> out;
  for (const auto& e : execs) {
    if (e.empty()) continue;
    auto m = stats::Median(e);
    if (m.ok() && *m > 0) out.push_back(std::log(*m));
  }
  return out;
}

// Counts one attempt into its configuration; samples go to `col` (primary ones divided by `div`).
void AddAttempt(const v1::Attempt& a, const std::string& primary, double div, ConfigResult* c,
                Collected* col, SweepResult* out) {
  ++c->attempts;
  c->nodes.insert(a.node());
  if (!a.ok()) {
    ++c->failed_attempts;
    c->failures_by_class[ClassName(a.failure_class())]++;
    if (c->failure_class.empty()) {
      c->failure_class = ClassName(a.failure_class());
      c->failure_detail = a.failure_detail();
    }
    return;
  }
  ++c->ok_attempts;
  if (!a.fingerprint().empty()) c->fingerprints.insert(a.fingerprint());
  std::map<std::string, std::vector<double>> by_metric;
  std::vector<double> corrected;
  for (const auto& s : a.samples()) {
    if (!std::isfinite(s.value())) continue;
    by_metric[s.metric()].push_back(s.value());
    if (s.metric() == primary) corrected.push_back(s.value() / div);
  }
  for (auto& [metric, xs] : by_metric) col->raw[metric].push_back(std::move(xs));
  if (!corrected.empty()) col->corrected.push_back(std::move(corrected));
  out->total_samples += a.samples_size();
}

void CheckBounds(const SweepSpec& spec, ConfigResult* c) {
  for (const auto& m : spec.metrics) {
    auto it = c->metrics.find(m.name);
    if (it == c->metrics.end()) continue;
    const double med = it->second.median;
    if (m.max_value && med > *m.max_value) {
      c->violates_bound = true;
      c->bound_violations.push_back(m.name + Fmt(" median %.6g > max %.6g", med, *m.max_value));
    }
    if (m.min_value && med < *m.min_value) {
      c->violates_bound = true;
      c->bound_violations.push_back(m.name + Fmt(" median %.6g < min %.6g", med, *m.min_value));
    }
  }
}

void RunAudits(const SweepSpec& spec, const std::vector<std::vector<double>>& log_medians,
               const AggregateOptions& options, SweepResult* out) {
  std::vector<std::string> swept;
  for (const auto& p : spec.params) {
    if (p.fate == ParamFate::kSwept && p.values.size() >= 2) swept.push_back(p.name);
    if (p.fate == ParamFate::kInert) out->declared_inert.push_back({p.name, p.reason});
  }
  out->stop_inert_early_requested = spec.search.stop_inert_early;
  out->injection = AuditInjection(out->configs, swept);
  EffectOptions eo;
  eo.alpha = options.effect_alpha;
  eo.seed = options.seed;
  out->inert = AuditEffects(out->configs, log_medians, swept, eo);
  out->contradictions = FindContradictions(out->injection, out->inert);
  out->infeasible_regions = InfeasibleRegions(out->configs, swept);
  for (const auto& v : out->injection) {
    if (v.verdict == Injection::kNoFingerprint) {
      out->warnings.push_back("parameter " + v.param + ": configurations without a fingerprint (" +
                              std::to_string(v.pairs_without_fingerprint) +
                              " pairs): nobody checked that it reached what ran");
    } else if (v.verdict == Injection::kNotInjected) {
      out->warnings.push_back("parameter " + v.param + " never changed the fingerprint (" +
                              std::to_string(v.pairs) + " pairs): it did not reach the kernel");
    }
  }
  for (const auto& c : out->contradictions) out->warnings.push_back("contradiction: " + c.text);
  const std::string invalid = InjectionInvalidReason(out->injection);
  if (!invalid.empty()) {
    out->valid = false;
    out->invalid_reasons.push_back(invalid);
  }
  if (out->done == 0 && out->unfinished == 0 && !out->configs.empty()) {
    out->valid = false;
    out->invalid_reasons.push_back("no configuration succeeded");
  }
  if (spec.search.stop_inert_early) {
    out->warnings.push_back(
        "search.stop_inert_early is set but not implemented: every "
        "configuration was run; effect verdicts are reported after the fact");
  }
}

std::string WinnerRule(double alpha, int looks) {
  char b[400];
  std::snprintf(b, sizeof b,
                "winner only if it beats EVERY other ranked configuration: two-sided moderated "
                "Welch t tests (variances shrunk toward the one pooled over all configurations) "
                "on the log median of each execution, each at %.3g / (pairs x %d adaptive stages), "
                "Bonferroni, so the false-winner rate is at most %.3g; AND the sweep is valid; "
                "otherwise the tied set",
                alpha, looks, alpha);
  return b;
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
    c.status = Outcome(r);
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

  std::vector<Collected> collected(out.configs.size());
  for (const auto& a : attempts) {
    ++out.total_attempts;
    if (!a.ok()) ++out.failed_attempts;
    if (a.reference()) continue;
    auto it = index.find(a.config_key());
    if (it == index.end()) continue;
    auto d = ne.divisors.find(a.node());
    const double div = d == ne.divisors.end() ? 1.0 : d->second;
    AddAttempt(a, out.metric, div, &out.configs[it->second], &collected[it->second], &out);
  }
  for (size_t i = 0; i < out.configs.size(); ++i) {
    ConfigResult& c = out.configs[i];
    const uint64_t cseed = Fnv1a64(c.key, seed);
    for (const auto& [metric, execs] : collected[i].raw) {
      const bool primary = metric == out.metric;
      c.metrics[metric] = Summarize(execs, cseed, primary ? options.resamples : 500);
    }
    auto p = c.metrics.find(out.metric);
    if (p != c.metrics.end()) c.raw_primary = p->second;
    c.primary =
        ne.applied ? Summarize(collected[i].corrected, cseed, options.resamples) : c.raw_primary;
    CheckBounds(spec, &c);
    if (c.fingerprints.size() > 1) {
      out.warnings.push_back("configuration " + c.key + " reported " +
                             std::to_string(c.fingerprints.size()) +
                             " different fingerprints across its attempts");
    }
    if (c.status == ConfigOutcome::kDone || c.status == ConfigOutcome::kEliminated) {
      ++out.done;
    } else if (c.status == ConfigOutcome::kInfeasible) {
      ++out.infeasible;
    } else {
      ++out.unfinished;
    }
  }

  CheckMetricsArrived(spec, &out);

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
  std::vector<std::vector<double>> log_medians;
  {
    std::vector<ConfigResult> ranked;
    for (size_t i : order) {
      ranked.push_back(std::move(out.configs[i]));
      log_medians.push_back(LogMedians(collected[i].corrected));
    }
    out.configs = std::move(ranked);
  }
  size_t n_ranked = 0;
  while (n_ranked < out.configs.size() && rankable(out.configs[n_ranked])) ++n_ranked;

  RunAudits(spec, log_medians, options, &out);
  WarmStateOptions wso;
  wso.seed = seed;
  out.warm_state = AuditWarmState(attempts, out.metric, wso);
  for (const auto* t : {&out.warm_state.first_vs_later, &out.warm_state.drift}) {
    if (t->verdict != "differs") continue;
    const bool first = t == &out.warm_state.first_vs_later;
    // first: a = the first execution, b = later ones; drift: a = early, b = late.
    const double percent = 100 * (first ? 1 / (1 + t->change) - 1 : t->change);
    out.warnings.push_back(Fmt(first ? "warm state: the first execution of a session measures "
                                       "%+.1f%% against later ones (p = %.2g): prepare must warm "
                                       "up what the timing needs"
                                     : "warm state: executions drift %+.1f%% over a session's "
                                       "life (p = %.2g): recycle sessions sooner "
                                       "(session.max_executions)",
                               percent, t->p_value));
  }

  WinnerOptions wo;
  wo.family_alpha = options.winner_alpha;
  wo.looks = spec.repetitions.max > spec.repetitions.min ? 2 : 1;
  out.winner_rule = WinnerRule(wo.family_alpha, wo.looks);
  DecideWinner(log_medians, n_ranked, minimize, wo, &out);
  if (out.unfinished > 0) {
    out.warnings.push_back(std::to_string(out.unfinished) + " configurations are unfinished");
  }
  return out;
}

}  // namespace fleetsweep
