#include "coordinator/app/live_audits.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "common/metrics/coordinator_metrics.h"
#include "coordinator/aggregate/incremental_aggregate.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

LiveAudits::LiveAudits(const SweepSpec& spec, CoordinatorMetrics* metrics, LiveAuditOptions options,
                       const std::vector<v1::ConfigRecord>& records,
                       std::optional<std::vector<v1::Attempt>> attempts)
    : spec_(spec), metrics_(metrics), options_(options) {
  if (metrics_ == nullptr) return;
  if (attempts && static_cast<int64_t>(attempts->size()) <= options_.max_live_attempts) {
    AggregateOptions o;
    o.seed = options_.seed;
    o.resamples = options_.resamples;
    o.cancel = &cancel_;
    aggregate_ = std::make_unique<IncrementalAggregate>(spec_, records, o);
    for (const auto& a : *attempts) aggregate_->Add(a);
    counted_ = static_cast<int64_t>(attempts->size());
    aggregating_.store(true);
  }
  thread_ = std::thread([this] { Run(); });
}

LiveAudits::~LiveAudits() {
  cancel_.store(true);  // a round in progress stops at its next check (SIGINT within 2 s)
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LiveAudits::Hand(LiveBatch batch) {
  if (metrics_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(batch));
    ++handed_;
  }
  wake_.notify_one();
}

void LiveAudits::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [&] { return processed_ == handed_ || stop_; });
}

int LiveAudits::aggregate_rounds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rounds_;
}

void LiveAudits::Run() {
  for (;;) {
    LiveBatch batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) break;
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    Process(std::move(batch));
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++processed_;
    }
    idle_.notify_all();
  }
  idle_.notify_all();
}

void LiveAudits::Process(LiveBatch batch) {
  PublishProgress(batch.progress);
  if (aggregate_) {
    // A configuration gets its entry with its first attempt (its record comes with it).
    for (const auto& r : batch.records) aggregate_->Track(r);
    for (const auto& a : batch.attempts) aggregate_->Add(a);
    counted_ += static_cast<int64_t>(batch.attempts.size());
    if (counted_ > options_.max_live_attempts) {
      spdlog::info(
          "live audits: {} attempts (more than {}): node effects, audit verdicts and the "
          "best configuration are published at the end only",
          counted_, options_.max_live_attempts);
      aggregate_.reset();
      aggregating_.store(false);
    }
  }
  const double every = std::max(options_.aggregate_every_s, options_.duty_factor * last_cost_);
  if (aggregate_ && (first_ || batch.now - last_round_ >= every)) {
    last_round_ = batch.now;
    const auto t0 = std::chrono::steady_clock::now();
    PublishAggregate();
    last_cost_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  first_ = false;
}

void LiveAudits::PublishProgress(const Progress& p) {
  CoordinatorMetrics* m = metrics_;
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

void LiveAudits::PublishAggregate() {
  SweepResult r = aggregate_->Result();
  if (cancel_.load()) return;  // partial: stopping
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++rounds_;
  }
  // Ranked configurations (samples, within bounds) come first.
  if (!r.configs.empty() && r.configs[0].primary.n > 0 && !r.configs[0].violates_bound) {
    const MetricSummary& best = r.configs[0].primary;
    metrics_->SetBest(r.metric, best.median, best.ci_low, best.ci_high);
  }
  std::vector<std::pair<std::string, double>> top;
  for (const auto& c : r.configs) {
    if (top.size() >= CoordinatorMetrics::kTopConfigs) break;
    if (c.primary.n > 0) top.emplace_back(c.key, c.primary.median);
  }
  metrics_->SetTopConfigs(top);
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
