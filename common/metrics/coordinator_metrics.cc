#include "common/metrics/coordinator_metrics.h"

#include <algorithm>
#include <cctype>

#include "common/metrics/labels.h"
#include "common/metrics/registration.h"

namespace fleetsweep {

namespace {

using metrics::CounterFamily;
using metrics::GaugeFamily;
using metrics::HistogramFamily;
using metrics::Series;

// Store round trips: from a local Redis (~100 us) to a slow fsync or a remote hop (seconds).
const prometheus::Histogram::BucketBoundaries& StoreLatencyBuckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
  return kBuckets;
}

// Lower-cases, keeps [a-z0-9_], cuts to 32 characters: `op` comes from code constants, this
// only guards against a caller formatting data into it.
std::string OpLabel(const std::string& op) {
  std::string out;
  for (unsigned char c : op) {
    if (out.size() >= 32) break;
    char l = static_cast<char>(std::tolower(c));
    out.push_back((std::isalnum(static_cast<unsigned char>(l)) || l == '_') ? l : '_');
  }
  return out.empty() ? "unknown" : out;
}

}  // namespace

CoordinatorMetrics::CoordinatorMetrics(prometheus::Registry& registry, const std::string& sweep)
    : sweep_(sweep),
      configurations_(GaugeFamily(registry, "fleetsweep_coordinator_configurations",
                                  "Configurations of the sweep by scheduling state.")),
      pending_(Series(configurations_, {{"sweep", sweep}, {"state", "pending"}})),
      leased_(Series(configurations_, {{"sweep", sweep}, {"state", "leased"}})),
      done_(Series(configurations_, {{"sweep", sweep}, {"state", "done"}})),
      infeasible_(Series(configurations_, {{"sweep", sweep}, {"state", "infeasible"}})),
      planned_(Series(GaugeFamily(registry, "fleetsweep_coordinator_configurations_planned",
                                  "Configurations the sweep will run in all (after pruning)."),
                      {{"sweep", sweep}})),
      attempts_(CounterFamily(registry, "fleetsweep_coordinator_attempts_total",
                              "Execution attempts whose results reached the coordinator, by "
                              "result and failure class.")),
      leases_granted_(Series(CounterFamily(registry, "fleetsweep_coordinator_leases_granted_total",
                                           "Leases granted to worker slots."),
                             {{"sweep", sweep}})),
      leases_expired_(Series(CounterFamily(registry, "fleetsweep_coordinator_leases_expired_total",
                                           "Leases that passed their deadline without a result "
                                           "and went back to the queue."),
                             {{"sweep", sweep}})),
      retries_(Series(CounterFamily(registry, "fleetsweep_coordinator_retries_total",
                                    "Configurations queued again after a failed or lost attempt."),
                      {{"sweep", sweep}})),
      duplicate_results_(
          Series(CounterFamily(registry, "fleetsweep_coordinator_duplicate_results_total",
                               "Results received for an attempt already stored (ignored)."),
                 {{"sweep", sweep}})),
      refused_results_(
          Series(CounterFamily(registry, "fleetsweep_coordinator_refused_results_total",
                               "Results refused: not from the worker (and CurveZMQ key) holding "
                               "their lease, for no lease granted, or with NaN/Inf samples."),
                 {{"sweep", sweep}})),
      store_writable_(Series(GaugeFamily(registry, "fleetsweep_coordinator_store_writable",
                                         "1 while store writes succeed; 0 while they fail and "
                                         "no leases are granted."),
                             {{"sweep", sweep}})),
      workers_connected_(Series(GaugeFamily(registry, "fleetsweep_coordinator_workers_connected",
                                            "Workers whose heartbeats are current."),
                                {{"sweep", sweep}})),
      slots_(GaugeFamily(registry, "fleetsweep_coordinator_slots",
                         "Execution slots of connected workers by state (busy or free).")),
      slots_busy_(Series(slots_, {{"sweep", sweep}, {"state", "busy"}})),
      slots_free_(Series(slots_, {{"sweep", sweep}, {"state", "free"}})),
      samples_stored_(Series(CounterFamily(registry, "fleetsweep_coordinator_samples_stored_total",
                                           "Measurement samples written to the result store."),
                             {{"sweep", sweep}})),
      best_value_(GaugeFamily(registry, "fleetsweep_coordinator_best_value",
                              "Median of the best configuration so far, per spec metric (in the "
                              "metric's own unit).")),
      best_ci_lower_(GaugeFamily(registry, "fleetsweep_coordinator_best_ci_lower",
                                 "Lower bound of the 95% bootstrap CI of the best median.")),
      best_ci_upper_(GaugeFamily(registry, "fleetsweep_coordinator_best_ci_upper",
                                 "Upper bound of the 95% bootstrap CI of the best median.")),
      node_effect_(GaugeFamily(registry, "fleetsweep_coordinator_node_effect",
                               "Node effect: the node's factor on the reference configuration "
                               "against the fleet (1 = none).")),
      node_effect_ci_lower_(GaugeFamily(registry, "fleetsweep_coordinator_node_effect_ci_lower",
                                        "Lower bound of the 95% CI of the node effect.")),
      node_effect_ci_upper_(GaugeFamily(registry, "fleetsweep_coordinator_node_effect_ci_upper",
                                        "Upper bound of the 95% CI of the node effect.")),
      audit_verdict_(GaugeFamily(registry, "fleetsweep_coordinator_audit_verdict",
                                 "Injection audit per parameter, one-hot over verdicts "
                                 "(1 = the current verdict).")),
      store_latency_(HistogramFamily(registry,
                                     "fleetsweep_coordinator_store_operation_duration_seconds",
                                     "Duration of result-store operations by operation.")),
      top_config_(GaugeFamily(registry, "fleetsweep_coordinator_top_config_value",
                              "Median of the primary metric of the best configurations "
                              "(at most 10), by rank and configuration key.")) {
  // Known combinations exist at 0 from the start (see the header).
  store_writable_.Set(1);
  Series(attempts_, {{"sweep", sweep_}, {"result", "ok"}, {"failure_class", "none"}});
  for (const std::string& fc : metrics::KnownFailureClasses()) {
    Series(attempts_, {{"sweep", sweep_}, {"result", "failed"}, {"failure_class", fc}});
  }
}

CoordinatorMetrics::~CoordinatorMetrics() = default;

void CoordinatorMetrics::SetConfigStates(int64_t pending, int64_t leased, int64_t done,
                                         int64_t infeasible) {
  pending_.Set(static_cast<double>(pending));
  leased_.Set(static_cast<double>(leased));
  done_.Set(static_cast<double>(done));
  infeasible_.Set(static_cast<double>(infeasible));
}

void CoordinatorMetrics::SetConfigsTotal(int64_t n) { planned_.Set(static_cast<double>(n)); }

void CoordinatorMetrics::IncAttempts(bool ok, const std::string& failure_class) {
  Series(attempts_, {{"sweep", sweep_},
                     {"result", metrics::ResultLabel(ok)},
                     {"failure_class", metrics::FailureClassLabel(ok, failure_class)}})
      .Increment();
}

void CoordinatorMetrics::IncLeasesGranted() { leases_granted_.Increment(); }
void CoordinatorMetrics::IncLeasesExpired() { leases_expired_.Increment(); }
void CoordinatorMetrics::IncRetries() { retries_.Increment(); }
void CoordinatorMetrics::IncDuplicateResults() { duplicate_results_.Increment(); }
void CoordinatorMetrics::IncRefusedResults() { refused_results_.Increment(); }
void CoordinatorMetrics::SetStoreWritable(bool writable) { store_writable_.Set(writable ? 1 : 0); }

void CoordinatorMetrics::SetWorkersConnected(int64_t n) {
  workers_connected_.Set(static_cast<double>(n));
}

void CoordinatorMetrics::SetSlots(int64_t total, int64_t busy) {
  slots_busy_.Set(static_cast<double>(busy));
  slots_free_.Set(static_cast<double>(std::max<int64_t>(0, total - busy)));
}

void CoordinatorMetrics::IncSamplesStored(int64_t n) {
  if (n > 0) samples_stored_.Increment(static_cast<double>(n));
}

void CoordinatorMetrics::SetBest(const std::string& metric, double median, double ci_low,
                                 double ci_high) {
  const prometheus::Labels labels = {{"sweep", sweep_}, {"metric", metric}};
  Series(best_value_, labels).Set(median);
  Series(best_ci_lower_, labels).Set(ci_low);
  Series(best_ci_upper_, labels).Set(ci_high);
}

void CoordinatorMetrics::SetNodeEffect(const std::string& node, double effect, double ci_low,
                                       double ci_high) {
  const prometheus::Labels labels = {{"sweep", sweep_}, {"node", node}};
  Series(node_effect_, labels).Set(effect);
  Series(node_effect_ci_lower_, labels).Set(ci_low);
  Series(node_effect_ci_upper_, labels).Set(ci_high);
}

void CoordinatorMetrics::SetAuditVerdict(const std::string& parameter, const std::string& verdict) {
  const auto& known = metrics::KnownAuditVerdicts();
  const bool is_known = std::find(known.begin(), known.end(), verdict) != known.end();
  const std::string current = is_known ? verdict : "other";
  std::lock_guard<std::mutex> lock(mu_);  // no scrape sees two verdicts at 1 between two calls
  for (const std::string& v : known) {
    Series(audit_verdict_, {{"sweep", sweep_}, {"parameter", parameter}, {"verdict", v}})
        .Set(v == current ? 1 : 0);
  }
  const prometheus::Labels other = {
      {"sweep", sweep_}, {"parameter", parameter}, {"verdict", "other"}};
  if (!is_known || audit_verdict_.Has(other)) Series(audit_verdict_, other).Set(is_known ? 0 : 1);
}

void CoordinatorMetrics::ObserveStoreLatency(const std::string& op, double seconds) {
  Series(store_latency_, {{"sweep", sweep_}, {"op", OpLabel(op)}}, StoreLatencyBuckets())
      .Observe(seconds);
}

void CoordinatorMetrics::SetTopConfigs(
    const std::vector<std::pair<std::string, double>>& key_and_median) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<prometheus::Gauge*> now;
  const size_t n = std::min(kTopConfigs, key_and_median.size());
  for (size_t i = 0; i < n; ++i) {
    prometheus::Gauge& g = Series(
        top_config_,
        {{"sweep", sweep_}, {"rank", std::to_string(i + 1)}, {"config", key_and_median[i].first}});
    g.Set(key_and_median[i].second);
    now.push_back(&g);
  }
  for (prometheus::Gauge* old : top_series_) {
    if (std::find(now.begin(), now.end(), old) == now.end()) top_config_.Remove(old);
  }
  top_series_ = std::move(now);
}

}  // namespace fleetsweep
