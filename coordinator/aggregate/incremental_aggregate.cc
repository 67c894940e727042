#include "coordinator/aggregate/incremental_aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <thread>

#include "common/stats/descriptive.h"
#include "common/stats/hierarchical.h"
#include "coordinator/aggregate/audit.h"
#include "coordinator/aggregate/metric_checks.h"
#include "coordinator/aggregate/node_effects.h"
#include "coordinator/aggregate/warm_state.h"
#include "coordinator/aggregate/winner.h"

namespace fleetsweep {

namespace {

// printf-style with two doubles, whatever the length (a fixed buffer cut warnings short).
std::string Fmt(const char* f, double a, double b) {
  const int n = std::snprintf(nullptr, 0, f, a, b);
  if (n <= 0) return f;
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), f, a, b);
  out.resize(static_cast<size_t>(n));
  return out;
}

// Log of each execution's median (executions with a non-positive median are left out).
void RunAudits(const SweepSpec& spec, const std::vector<std::vector<double>>& log_medians,
               const std::vector<std::vector<int32_t>>& log_sessions,
               const AggregateOptions& options, SweepResult* out) {
  std::vector<std::string> swept;
  for (const auto& p : spec.params) {
    if (p.fate == ParamFate::kSwept && p.values.size() >= 2) swept.push_back(p.name);
    if (p.fate == ParamFate::kInert) out->declared_inert.push_back({p.name, p.reason});
  }
  out->stop_inert_early_requested = spec.search.stop_inert_early;
  const ParamTable table(out->configs);  // read by every audit below
  out->injection = AuditInjection(out->configs, table, swept);
  EffectOptions eo;
  eo.alpha = options.effect_alpha;
  eo.seed = options.seed;
  eo.threads = options.threads;
  eo.cancel = options.cancel;
  out->inert = AuditEffects(out->configs, table, log_medians, log_sessions, swept, eo);
  out->contradictions = FindContradictions(out->injection, out->inert);
  out->infeasible_regions = InfeasibleRegions(out->configs, table, swept);
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
  char b[512];
  std::snprintf(
      b, sizeof b,
      "winner only if it beats EVERY other ranked configuration: two-sided moderated "
      "Welch t tests (variances shrunk toward the one pooled over all configurations) "
      "on the log median of each execution, each at 2 x %.3g / (ranked configurations x %d "
      "adaptive stages), Bonferroni over the directional claims a false winner needs, so the "
      "false-winner rate is at most %.3g; AND the sweep is valid; "
      "otherwise the tied set",
      alpha, looks, alpha);
  return b;
}

}  // namespace

ConfigResult IncrementalAggregate::Materialize(Entry& e, bool take) const {
  ConfigResult c;
  c.key = log_.key(e.logged);
  c.params.reserve(e.params.size() / 2);  // exactly: a vector grown by doubling holds up to 2x
  for (size_t i = 0; i + 1 < e.params.size(); i += 2) {
    c.params.emplace(param_names_.name(e.params[i]), param_values_.name(e.params[i + 1]));
  }
  c.status = e.status;
  c.attempts = e.attempts;
  c.ok_attempts = e.ok_attempts;
  c.failed_attempts = e.failed_attempts;
  c.primary = e.primary;
  c.raw_primary = e.raw_primary;
  c.metrics.reserve(e.metrics.size());
  for (const auto& [metric, m] : e.metrics) c.metrics.emplace(metric_names_.name(metric), m);
  c.fingerprints.reserve(e.fingerprints.size());
  for (int32_t f : e.fingerprints) c.fingerprints.insert(fingerprints_.name(f));
  c.nodes.reserve(e.nodes.size());
  for (int32_t n : e.nodes) c.nodes.insert(nodes_.name(n));
  c.violates_bound = e.violates_bound;
  if (e.rare) {
    Rare& f = *e.rare;
    c.failures_by_class = take ? std::move(f.failures_by_class) : f.failures_by_class;
    c.bound_violations = take ? std::move(f.bound_violations) : f.bound_violations;
    if (e.any_failure) {
      c.failure_class = f.attempt_class;
      c.failure_detail = f.attempt_detail;
    }
    if (e.record_infeasible && (!f.record_class.empty() || !e.any_failure)) {
      c.failure_class = f.record_class;
      c.failure_detail = f.record_detail;
    }
  }
  return c;
}

SweepResult IncrementalAggregate::Result() { return Compute(false); }

SweepResult IncrementalAggregate::TakeResult() { return Compute(true); }

SweepResult IncrementalAggregate::Compute(bool take) {
  const AggregateOptions& options = options_;
  auto cancelled = [&] { return options.cancel != nullptr && options.cancel->load(); };
  const uint64_t seed = options.seed;
  SweepResult out;
  out.sweep = spec_.name;
  out.metric = primary_;
  const bool minimize = spec_.primary_metric().goal == Goal::kMinimize;
  out.goal = minimize ? "minimize" : "maximize";
  if (take) entry_of_logged_ = {};  // nothing is looked up once the result is taken

  NodeEffectsOptions neo;
  neo.threads = options.threads;
  NodeEffectsResult ne = EstimateNodeEffects(log_, seed, neo);
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
  out.total_attempts = total_attempts_;
  out.failed_attempts = failed_attempts_;
  out.total_samples = total_samples_;

  // The divisor of each logged node (1 for a node without one).
  std::vector<double> node_divisors(static_cast<size_t>(log_.node_count()), 1.0);
  for (int32_t n = 0; n < log_.node_count(); ++n) {
    auto d = ne.divisors.find(log_.node(n));
    if (d != ne.divisors.end()) node_divisors[static_cast<size_t>(n)] = d->second;
  }
  const bool divisors_changed =
      !have_divisors_ || ne.divisors != divisors_ || ne.applied != applied_;
  std::vector<std::vector<double>> unranked_log_medians;
  std::vector<std::vector<int32_t>> unranked_log_sessions;
  unranked_log_medians.reserve(entries_.size());
  unranked_log_sessions.reserve(entries_.size());
  // Reserved whole: its pages become resident as results are moved in, while the entries go
  // (growing it instead measured 8% more peak RSS on a 103,823-configuration Finish).
  out.configs.reserve(entries_.size());
  std::vector<Entry*> stale;
  for (Entry& e : entries_) {
    if (e.dirty || divisors_changed) stale.push_back(&e);
  }
  // Configurations are independent (each has its own seed): any split gives the same result.
  // A stale entry keeps its last tier of bootstrap rounds (the cheap one when new); RetierCIs
  // below moves entries between tiers by rank.
  const int rest = RestResamples();
  auto refresh = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end && !cancelled(); ++i) {
      Entry* e = stale[i];
      Refresh(e, e->dirty, true, ne.applied, node_divisors,
              e->primary_resamples > 0 ? e->primary_resamples : rest);
      e->dirty = false;
    }
  };
  const size_t threads =
      std::min(stale.size() / 64 + 1, static_cast<size_t>(std::max(1, options.threads)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) {
    pool.emplace_back(refresh, stale.size() * t / threads, stale.size() * (t + 1) / threads);
  }
  refresh(0, stale.size() / threads);
  for (auto& th : pool) th.join();
  if (!cancelled()) RetierCIs(minimize, ne.applied, node_divisors);
  // Cancelled: the entries not refreshed stay dirty, and forgetting the divisors makes the next
  // Result recompute every corrected summary (some were refreshed with this round's divisors).
  if (cancelled()) {
    have_divisors_ = false;
    return out;
  }
  // Taking: each entry is dropped once its result is out, so the entries and the results are
  // not both held in full.
  const size_t entry_count = entries_.size();
  for (size_t k = 0; k < entry_count; ++k) {
    Entry& e = take ? entries_.front() : entries_[k];
    out.configs.push_back(Materialize(e, take));
    unranked_log_medians.push_back(take ? std::move(e.log_medians) : e.log_medians);
    unranked_log_sessions.push_back(take ? std::move(e.log_sessions) : e.log_sessions);
    const ConfigResult& c = out.configs.back();
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
    if (take) entries_.pop_front();
  }
  dirty_count_ = 0;
  have_divisors_ = true;
  divisors_ = ne.divisors;
  applied_ = ne.applied;

  CheckMetricsArrived(spec_, &out);

  // Rank: configurations with samples (and within bounds) first, by (corrected) median.
  auto rankable = [](const ConfigResult& c) { return c.primary.n > 0 && !c.violates_bound; };
  std::vector<size_t> order(out.configs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t ia, size_t ib) {
    const ConfigResult& a = out.configs[ia];
    const ConfigResult& b = out.configs[ib];
    if (rankable(a) != rankable(b)) return rankable(a);
    if (!rankable(a)) return a.key < b.key;
    return RanksBefore(a.primary.median, b.primary.median, minimize);
  });
  // The sessions in rank order (4 bytes an execution: moved into a second outer vector); none
  // when no attempt named a session (one-shot: the audits and the winner test skip them).
  std::vector<std::vector<int32_t>> log_sessions;
  if (log_.session_count() > 0) {
    log_sessions.resize(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
      log_sessions[k] = std::move(unranked_log_sessions[order[k]]);
    }
  }
  // Put into rank order in place (rank k takes order[k]), cycle by cycle: no second copy.
  std::vector<std::vector<double>> log_medians = std::move(unranked_log_medians);
  for (size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    size_t k = start;
    ConfigResult held = std::move(out.configs[start]);
    std::vector<double> held_medians = std::move(log_medians[start]);
    while (order[k] != start) {
      const size_t from = order[k];
      out.configs[k] = std::move(out.configs[from]);
      log_medians[k] = std::move(log_medians[from]);
      order[k] = k;
      k = from;
    }
    out.configs[k] = std::move(held);
    log_medians[k] = std::move(held_medians);
    order[k] = k;
  }
  size_t n_ranked = 0;
  while (n_ranked < out.configs.size() && rankable(out.configs[n_ranked])) ++n_ranked;

  if (cancelled()) return out;
  // The warm-state audit reads only the log: with more than one thread it runs beside the
  // effect audits.
  WarmStateOptions wso;
  wso.seed = seed;
  std::thread warm_thread;
  if (options.threads > 1) {
    warm_thread = std::thread([&] { out.warm_state = AuditWarmState(log_, wso); });
  }
  RunAudits(spec_, log_medians, log_sessions, options, &out);
  if (warm_thread.joinable()) {
    warm_thread.join();
  } else if (!cancelled()) {
    out.warm_state = AuditWarmState(log_, wso);
  }
  if (cancelled()) return out;
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
  if (out.warm_state.between_sessions.verdict == "differs") {
    out.warnings.push_back(
        Fmt("warm state: a configuration's sessions measure up to %.1f%% apart (median over "
            "configurations; p = %.2g): executions of one session are not independent evidence, so "
            "the effect and winner tests compare sessions where levels or configurations never "
            "shared one (docs/honest-measurement.md section 6)",
            100 * out.warm_state.between_sessions.change, out.warm_state.between_sessions.p_value));
  }

  WinnerOptions wo;
  wo.family_alpha = options.winner_alpha;
  wo.looks = spec_.repetitions.max > spec_.repetitions.min ? 2 : 1;
  out.winner_rule = WinnerRule(wo.family_alpha, wo.looks);
  DecideWinner(log_medians, log_sessions, n_ranked, minimize, wo, &out);
  if (out.unfinished > 0) {
    out.warnings.push_back(std::to_string(out.unfinished) + " configurations are unfinished");
  }
  return out;
}

}  // namespace fleetsweep
