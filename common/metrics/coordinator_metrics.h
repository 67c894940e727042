// CoordinatorMetrics: the coordinator's Prometheus metrics for one sweep (docs/metrics.md).
//
// Every metric is registered once, in the constructor, on a registry the caller owns (usually
// MetricsExposer::registry()), and kept as a member; every series carries the label
// sweep="<sweep>". Label values that come from callers are bounded: failure classes go through
// metrics::FailureClassLabel, audit verdicts through a fixed set, the top-configuration table keeps
// at most kTopConfigs series, and node/parameter/metric names are bounded by the spec and fleet.
//
// Known label combinations (each configuration state, each failure class, each slot state) are
// created at 0 up front, so rate() and "by state" queries have series before the first event.
//
// Errors: none at run time. Registering a family with a name that already exists with another
// type in the same registry is a programming error and aborts in the constructor.
//
// Ownership: the registry must outlive this object. Several CoordinatorMetrics (different sweeps)
// may share one registry; they share the metric families and each touches only its own series.
//
// Thread-safety: every method may be called from any thread concurrently (prometheus-cpp metric
// operations are atomic; SetTopConfigs and SetAuditVerdict serialise on an internal mutex).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace fleetsweep {

class CoordinatorMetrics {
 public:
  // At most this many series in fleetsweep_coordinator_top_config_value.
  static constexpr size_t kTopConfigs = 10;

  CoordinatorMetrics(prometheus::Registry& registry, const std::string& sweep);
  ~CoordinatorMetrics();
  CoordinatorMetrics(const CoordinatorMetrics&) = delete;
  CoordinatorMetrics& operator=(const CoordinatorMetrics&) = delete;

  // fleetsweep_coordinator_configurations{state=pending|leased|done|infeasible}.
  void SetConfigStates(int64_t pending, int64_t leased, int64_t done, int64_t infeasible);
  // fleetsweep_coordinator_configurations_planned: configurations the sweep will run in all.
  void SetConfigsTotal(int64_t n);

  // fleetsweep_coordinator_attempts_total{result=ok|failed, failure_class}. `failure_class` is
  // ignored when ok ("none"); see metrics::FailureClassLabel for how it is bounded.
  void IncAttempts(bool ok, const std::string& failure_class);
  void IncLeasesGranted();
  void IncLeasesExpired();
  void IncRetries();
  void IncDuplicateResults();
  // Results refused: not from the holder of their lease, for no lease, or with NaN/Inf samples.
  void IncRefusedResults();
  // fleetsweep_coordinator_store_writable: 1 while store writes succeed, 0 while they fail (no
  // leases are granted then).
  void SetStoreWritable(bool writable);

  void SetWorkersConnected(int64_t n);
  // fleetsweep_coordinator_slots{state=busy|free}; free = total - busy (never below 0).
  void SetSlots(int64_t total, int64_t busy);
  void IncSamplesStored(int64_t n);

  // Best configuration so far for `metric` (the spec's metric name): median and 95% CI.
  void SetBest(const std::string& metric, double median, double ci_low, double ci_high);
  // Node effect of `node` (its factor against the fleet, 1 = none) and its 95% CI.
  void SetNodeEffect(const std::string& node, double effect, double ci_low, double ci_high);
  // One-hot fleetsweep_coordinator_audit_verdict{parameter, verdict}: 1 on `verdict`, 0 on the
  // other known verdicts (injected, not_injected, no_effect, no_fingerprint). An unknown verdict is
  // recorded as "other".
  void SetAuditVerdict(const std::string& parameter, const std::string& verdict);
  // fleetsweep_coordinator_store_operation_duration_seconds{op}. `op` must be one of a fixed set
  // of code constants ("put_attempt", "load_configs", ...); it is lower-cased and cut to 32 chars.
  void ObserveStoreLatency(const std::string& op, double seconds);
  // Replaces the top-configuration table: fleetsweep_coordinator_top_config_value{rank, config}
  // for the first kTopConfigs entries (rank 1 = first); series of the previous call that are not
  // in this one are removed.
  void SetTopConfigs(const std::vector<std::pair<std::string, double>>& key_and_median);

  const std::string& sweep() const { return sweep_; }

 private:
  std::string sweep_;

  prometheus::Family<prometheus::Gauge>& configurations_;
  prometheus::Gauge& pending_;
  prometheus::Gauge& leased_;
  prometheus::Gauge& done_;
  prometheus::Gauge& infeasible_;
  prometheus::Gauge& planned_;

  prometheus::Family<prometheus::Counter>& attempts_;
  prometheus::Counter& leases_granted_;
  prometheus::Counter& leases_expired_;
  prometheus::Counter& retries_;
  prometheus::Counter& duplicate_results_;
  prometheus::Counter& refused_results_;
  prometheus::Gauge& store_writable_;

  prometheus::Gauge& workers_connected_;
  prometheus::Family<prometheus::Gauge>& slots_;
  prometheus::Gauge& slots_busy_;
  prometheus::Gauge& slots_free_;
  prometheus::Counter& samples_stored_;

  prometheus::Family<prometheus::Gauge>& best_value_;
  prometheus::Family<prometheus::Gauge>& best_ci_lower_;
  prometheus::Family<prometheus::Gauge>& best_ci_upper_;
  prometheus::Family<prometheus::Gauge>& node_effect_;
  prometheus::Family<prometheus::Gauge>& node_effect_ci_lower_;
  prometheus::Family<prometheus::Gauge>& node_effect_ci_upper_;
  prometheus::Family<prometheus::Gauge>& audit_verdict_;
  prometheus::Family<prometheus::Histogram>& store_latency_;
  prometheus::Family<prometheus::Gauge>& top_config_;

  std::mutex mu_;                               // serialises SetTopConfigs and SetAuditVerdict
  std::vector<prometheus::Gauge*> top_series_;  // GUARDED_BY(mu_)
};

}  // namespace fleetsweep
