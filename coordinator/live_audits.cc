#include "coordinator/live_audits.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/metrics/coordinator_metrics.h"
#include "common/stats/bootstrap.h"
#include "coordinator/aggregator.h"

namespace fleetsweep {

LiveAudits::LiveAudits(const SweepSpec& spec, ResultStore* store, CoordinatorMetrics* metrics,
                       LiveAuditOptions options)
    : spec_(spec), store_(store), metrics_(metrics), options_(options) {}

void LiveAudits::Tick(const Scheduler& scheduler, double now) {
  if (metrics_ == nullptr) return;
  PublishProgress(scheduler);
  if (first_ || now - last_slow_ >= options_.slow_every_s) {
    last_slow_ = now;
    PublishBest(scheduler);
  }
  if (first_ || now - last_audit_ >= options_.audit_every_s) {
    last_audit_ = now;
    PublishAudits();
  }
  first_ = false;
}

void LiveAudits::PublishProgress(const Scheduler& s) {
  CoordinatorMetrics* m = metrics_;
  Progress p = s.GetProgress();
  m->SetConfigStates(p.pending, p.leased, p.done, p.infeasible);
  m->SetConfigsTotal(p.total);
  m->SetWorkersConnected(p.workers);
  m->SetSlots(p.slots, p.busy);
  for (int64_t i = last_.leases_expired; i < p.leases_expired; ++i) m->IncLeasesExpired();
  for (int64_t i = last_.retries; i < p.retries; ++i) m->IncRetries();
  for (int64_t i = last_.duplicates; i < p.duplicates; ++i) m->IncDuplicateResults();
  for (int64_t i = last_.refused; i < p.refused; ++i) m->IncRefusedResults();
  last_ = p;
}

void LiveAudits::PublishBest(const Scheduler& s) {
  int b = s.BestIndex();
  if (b >= 0) {
    const auto& c = s.configs()[b];
    double med = c.median;
    auto ci = stats::BootstrapMedianCI(c.primary, 0.95, 1000, 1);
    metrics_->SetBest(s.spec().primary_metric().name, med, ci.ok() ? ci->low : med,
                      ci.ok() ? ci->high : med);
  }
  std::vector<std::pair<std::string, double>> top;
  for (const auto& c : s.configs()) {
    if (!c.primary.empty()) top.emplace_back(c.record.config_key(), c.median);
  }
  const bool minimize = s.spec().primary_metric().goal == Goal::kMinimize;
  std::sort(top.begin(), top.end(), [&](const auto& x, const auto& y) {
    return minimize ? x.second < y.second : x.second > y.second;
  });
  if (top.size() > CoordinatorMetrics::kTopConfigs) top.resize(CoordinatorMetrics::kTopConfigs);
  metrics_->SetTopConfigs(top);
}

void LiveAudits::PublishAudits() {
  auto n = store_->CountAttempts(spec_.name);
  if (!n.ok() || *n == 0 || *n > options_.max_live_attempts) return;
  auto records = store_->LoadConfigs(spec_.name);
  auto attempts = store_->LoadAttempts(spec_.name);
  if (!records.ok() || !attempts.ok()) return;
  AggregateOptions live;
  live.seed = options_.seed;
  live.resamples = options_.resamples;
  SweepResult r = Aggregate(spec_, *records, *attempts, live);
  ++audit_rounds_;
  for (const auto& e : r.node_effects) {
    if (std::isfinite(e.effect)) {
      metrics_->SetNodeEffect(e.node, e.effect, std::isfinite(e.ci_low) ? e.ci_low : e.effect,
                              std::isfinite(e.ci_high) ? e.ci_high : e.effect);
    }
  }
  std::map<std::string, std::string> verdicts;
  for (const auto& v : r.injection) {
    if (v.verdict != Injection::kUntested) verdicts[v.param] = Name(v.verdict);
  }
  for (const auto& v : r.inert) {
    if (v.verdict == Effect::kNoEffect) verdicts[v.param] = Name(v.verdict);
  }
  for (const auto& [param, verdict] : verdicts) metrics_->SetAuditVerdict(param, verdict);
}

}  // namespace fleetsweep
