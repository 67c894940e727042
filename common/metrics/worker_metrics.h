// WorkerMetrics: a worker's Prometheus metrics (docs/metrics.md).
//
// Every metric is registered once, in the constructor, on a registry the caller owns (usually
// MetricsExposer::registry()), and kept as a member; every series carries the label
// node="<node>". Label cardinality is bounded: failure classes go through
// metrics::FailureClassLabel, devices are the node's devices, and (sweep, metric) pairs are
// bounded by the sweeps the worker serves and their spec metrics: never one series per sample.
//
// Known label combinations (ok/each failure class, busy/free) exist at 0 from the start.
//
// Errors: none at run time; a family name clash in the registry is a programming error and aborts
// in the constructor.
//
// Ownership: the registry must outlive this object.
//
// Thread-safety: every method may be called from any thread concurrently.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
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

class WorkerMetrics {
 public:
  WorkerMetrics(prometheus::Registry& registry, const std::string& node);
  ~WorkerMetrics();
  WorkerMetrics(const WorkerMetrics&) = delete;
  WorkerMetrics& operator=(const WorkerMetrics&) = delete;

  // fleetsweep_worker_executions_total{result=ok|failed, failure_class}.
  void IncExecutions(bool ok, const std::string& failure_class);
  // fleetsweep_worker_execution_duration_seconds: wall time of one benchmark execution.
  void ObserveExecutionSeconds(double s);
  // fleetsweep_worker_slots{state=busy|free}.
  void SetSlots(int64_t busy, int64_t free);
  // fleetsweep_worker_samples_total{device}: samples measured on `device` ("0", "1", or "cpu").
  void IncSamples(const std::string& device, int64_t n);
  // The metrics a sweep's spec declares: the only `metric` labels SetLastSample accepts for it.
  // The series of the sweeps beyond the latest kMaxSweeps declared are removed.
  static constexpr size_t kMaxSweeps = 4;
  void DeclareSweepMetrics(const std::string& sweep, const std::vector<std::string>& metrics);
  // fleetsweep_worker_last_sample_value{sweep, metric}: the latest sample value of that metric.
  // Ignored unless `metric` was declared for `sweep` (benchmark output names the metric, so an
  // undeclared one would add a series per name it prints) and `value` is finite.
  void SetLastSample(const std::string& sweep, const std::string& metric, double value);
  // fleetsweep_worker_heartbeat_age_seconds: time since the coordinator last acknowledged a
  // heartbeat of this worker.
  void SetHeartbeatAgeSeconds(double s);
  // fleetsweep_worker_connected: 1 while connected to the coordinator, else 0.
  void SetConnected(bool c);

  const std::string& node() const { return node_; }

 private:
  std::string node_;
  prometheus::Family<prometheus::Counter>& executions_;
  prometheus::Histogram& execution_seconds_;
  prometheus::Family<prometheus::Gauge>& slots_;
  prometheus::Gauge& slots_busy_;
  prometheus::Gauge& slots_free_;
  prometheus::Family<prometheus::Counter>& samples_;
  prometheus::Family<prometheus::Gauge>& last_sample_;
  std::mutex declared_mu_;
  std::map<std::string, std::set<std::string>> declared_;  // sweep -> metrics; GUARDED_BY mu
  std::deque<std::string> declared_order_;                 // oldest first; GUARDED_BY mu
  prometheus::Gauge& heartbeat_age_;
  prometheus::Gauge& connected_;
};

}  // namespace fleetsweep
