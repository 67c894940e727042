// IncrementalAggregate's per-configuration summaries (incremental_aggregate.h): median, MAD and
// hierarchical bootstrap CI of every metric, bounds, log execution medians, and the two tiers of
// bootstrap rounds by rank (AggregateOptions::full_ci_top).
#include <algorithm>
#include <cmath>

#include "common/stats/descriptive.h"
#include "common/stats/hierarchical.h"
#include "coordinator/aggregate/incremental_aggregate.h"
#include "coordinator/aggregate/metric_checks.h"

namespace fleetsweep {

namespace {

using Executions = std::vector<std::vector<double>>;

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
  Executions nonempty;  // a copy only when some execution has no value of this metric
  const bool has_empty = static_cast<size_t>(m.n) < execs.size();
  if (has_empty) {
    for (const auto& e : execs) {
      if (!e.empty()) nonempty.push_back(e);
    }
  }
  auto med = stats::Median(pooled);
  auto mad = stats::Mad(pooled);
  auto ci =
      stats::HierarchicalBootstrapMedianCI(has_empty ? nonempty : execs, 0.95, resamples, seed);
  m.median = med.ok() ? *med : 0;
  m.mad = mad.ok() ? *mad : 0;
  m.ci_low = ci.ok() ? ci->low : m.median;
  m.ci_high = ci.ok() ? ci->high : m.median;
  m.resamples = ci.ok() ? resamples : 0;
  return m;
}

// The log of each execution's median (executions without a positive median are left out) and,
// parallel to them, the sessions of those kept (`sessions`: one per execution of `execs`).
void LogMedians(const Executions& execs, const std::vector<int32_t>& sessions,
                std::vector<double>* logs, std::vector<int32_t>* kept_sessions) {
  logs->clear();
  kept_sessions->clear();
  std::vector<double> scratch;  // the values are finite (GroupFiniteSamples): no checks needed
  for (size_t j = 0; j < execs.size(); ++j) {
    if (execs[j].empty()) continue;
    scratch.assign(execs[j].begin(), execs[j].end());
    const double m = stats::MedianInPlace(&scratch);
    if (!(m > 0)) continue;
    logs->push_back(std::log(m));
    kept_sessions->push_back(j < sessions.size() ? sessions[j] : -1);
  }
}

}  // namespace

int IncrementalAggregate::RestResamples() const {
  return std::max(1, std::min(options_.resamples, options_.rest_resamples));
}

// `summaries`: the raw metrics changed; `corrected`: the corrected primary must be redone.
void IncrementalAggregate::Refresh(Entry* e, bool summaries, bool corrected, bool applied,
                                   const std::vector<double>& divisors, int resamples) {
  e->primary_resamples = resamples;
  const uint64_t cseed = Fnv1a64(log_.key(e->logged), options_.seed);
  if (summaries) {
    ConfigResult c;  // CheckBounds reads metrics and writes the bound fields
    e->metrics.clear();
    e->metrics.reserve(e->raw.size());
    e->raw_primary = MetricSummary{};
    for (const auto& [metric, execs] : e->raw) {
      const bool primary = metric == primary_id_;
      const MetricSummary m = Summarize(execs, cseed, primary ? resamples : 500);
      e->metrics.emplace_back(metric, m);
      c.metrics.emplace(metric_names_.name(metric), m);
      if (primary) e->raw_primary = m;
    }
    CheckBounds(spec_, &c);
    e->lacks_bounded_metric = LacksBoundedMetric(spec_, e->ok_attempts, c.metrics);
    e->violates_bound = c.violates_bound;
    if (!c.bound_violations.empty() || e->rare) {
      e->rare_texts().bound_violations = std::move(c.bound_violations);
    }
  }
  if (corrected) {
    Executions corr;
    const Executions* raw = RawOf(*e, primary_id_);
    // Divisors of 1 leave every value as it is (x / 1 == x): no corrected copy is made.
    const bool unit = std::all_of(e->primary_nodes.begin(), e->primary_nodes.end(), [&](int32_t n) {
      return divisors[static_cast<size_t>(n)] == 1.0;
    });
    if (raw != nullptr && unit) {
      LogMedians(*raw, e->primary_sessions, &e->log_medians, &e->log_sessions);
      e->primary = applied ? Summarize(*raw, cseed, resamples) : e->raw_primary;
      return;
    }
    if (raw != nullptr) {
      corr.reserve(raw->size());
      for (size_t j = 0; j < raw->size(); ++j) {
        const double div = divisors[static_cast<size_t>(e->primary_nodes[j])];
        std::vector<double> xs = (*raw)[j];
        for (double& x : xs) x /= div;
        corr.push_back(std::move(xs));
      }
    }
    LogMedians(corr, e->primary_sessions, &e->log_medians, &e->log_sessions);
    e->primary = applied ? Summarize(corr, cseed, resamples) : e->raw_primary;
  }
}

void IncrementalAggregate::RetierCIs(bool minimize, bool applied,
                                     const std::vector<double>& divisors) {
  const int full = options_.resamples;
  const int rest = RestResamples();
  // The ranking of Compute (rankable first, by corrected median, ties in entry order; a
  // configuration lacking a bounded metric is not rankable: CheckMetricsArrived), on the entries:
  // the first full_ci_top of it get `full` rounds, every other entry `rest`.
  std::vector<size_t> ranked;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (e.primary.n > 0 && !e.violates_bound && !e.lacks_bounded_metric) {
      ranked.push_back(i);
    }
  }
  const size_t top =
      std::min(ranked.size(), static_cast<size_t>(std::max(0, options_.full_ci_top)));
  if (full != rest && top > 0 && top < ranked.size()) {
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(top - 1),
                     ranked.end(), [&](size_t a, size_t b) {
                       const double ma = entries_[a].primary.median;
                       const double mb = entries_[b].primary.median;
                       if (ma != mb) return RanksBefore(ma, mb, minimize);
                       return a < b;
                     });
  }
  std::vector<char> in_top(entries_.size(), 0);
  for (size_t k = 0; k < top; ++k) in_top[ranked[k]] = 1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    const int want = in_top[i] ? full : rest;
    if (e.primary_resamples != want) Refresh(&e, true, true, applied, divisors, want);
  }
}

}  // namespace fleetsweep
