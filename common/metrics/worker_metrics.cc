#include "common/metrics/worker_metrics.h"

#include <algorithm>
#include <cmath>

#include "common/metrics/labels.h"
#include "common/metrics/registration.h"

namespace fleetsweep {

namespace {

using metrics::CounterFamily;
using metrics::GaugeFamily;
using metrics::HistogramFamily;
using metrics::Series;

// Benchmark executions: from a 10 ms micro-kernel to an hour-long engine run.
const prometheus::Histogram::BucketBoundaries& ExecutionBuckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
  return kBuckets;
}

}  // namespace

WorkerMetrics::WorkerMetrics(prometheus::Registry& registry, const std::string& node)
    : node_(node),
      executions_(CounterFamily(registry, "fleetsweep_worker_executions_total",
                                "Benchmark executions run by this worker, by result and failure "
                                "class.")),
      execution_seconds_(
          Series(HistogramFamily(registry, "fleetsweep_worker_execution_duration_seconds",
                                 "Wall time of one benchmark execution."),
                 {{"node", node}}, ExecutionBuckets())),
      slots_(GaugeFamily(registry, "fleetsweep_worker_slots",
                         "Execution slots of this worker by state (busy or free).")),
      slots_busy_(Series(slots_, {{"node", node}, {"state", "busy"}})),
      slots_free_(Series(slots_, {{"node", node}, {"state", "free"}})),
      samples_(CounterFamily(registry, "fleetsweep_worker_samples_total",
                             "Measurement samples taken, by device.")),
      last_sample_(GaugeFamily(registry, "fleetsweep_worker_last_sample_value",
                               "Latest sample value per sweep and spec metric (in the metric's "
                               "own unit).")),
      heartbeat_age_(Series(GaugeFamily(registry, "fleetsweep_worker_heartbeat_age_seconds",
                                        "Seconds since the coordinator last acknowledged a "
                                        "heartbeat of this worker."),
                            {{"node", node}})),
      connected_(Series(GaugeFamily(registry, "fleetsweep_worker_connected",
                                    "1 while the worker is connected to the coordinator, else 0."),
                        {{"node", node}})) {
  Series(executions_, {{"node", node_}, {"result", "ok"}, {"failure_class", "none"}});
  for (const std::string& fc : metrics::KnownFailureClasses()) {
    Series(executions_, {{"node", node_}, {"result", "failed"}, {"failure_class", fc}});
  }
}

WorkerMetrics::~WorkerMetrics() = default;

void WorkerMetrics::IncExecutions(bool ok, const std::string& failure_class) {
  Series(executions_, {{"node", node_},
                       {"result", metrics::ResultLabel(ok)},
                       {"failure_class", metrics::FailureClassLabel(ok, failure_class)}})
      .Increment();
}

void WorkerMetrics::ObserveExecutionSeconds(double s) { execution_seconds_.Observe(s); }

void WorkerMetrics::SetSlots(int64_t busy, int64_t free) {
  slots_busy_.Set(static_cast<double>(busy));
  slots_free_.Set(static_cast<double>(free));
}

void WorkerMetrics::IncSamples(const std::string& device, int64_t n) {
  prometheus::Counter& c = Series(samples_, {{"node", node_}, {"device", device}});
  if (n > 0) c.Increment(static_cast<double>(n));
}

void WorkerMetrics::DeclareSweepMetrics(const std::string& sweep,
                                        const std::vector<std::string>& metrics) {
  std::lock_guard<std::mutex> lock(declared_mu_);
  auto it = declared_.find(sweep);
  if (it != declared_.end()) {
    declared_order_.erase(std::find(declared_order_.begin(), declared_order_.end(), sweep));
  }
  declared_[sweep] = std::set<std::string>(metrics.begin(), metrics.end());
  declared_order_.push_back(sweep);
  while (declared_order_.size() > kMaxSweeps) {
    const std::string old = declared_order_.front();
    declared_order_.pop_front();
    for (const std::string& m : declared_[old]) {
      last_sample_.Remove(&Series(last_sample_, {{"node", node_}, {"sweep", old}, {"metric", m}}));
    }
    declared_.erase(old);
  }
}

void WorkerMetrics::SetLastSample(const std::string& sweep, const std::string& metric,
                                  double value) {
  if (!std::isfinite(value)) return;
  std::lock_guard<std::mutex> lock(declared_mu_);
  auto it = declared_.find(sweep);
  if (it == declared_.end() || it->second.count(metric) == 0) return;
  Series(last_sample_, {{"node", node_}, {"sweep", sweep}, {"metric", metric}}).Set(value);
}

void WorkerMetrics::SetHeartbeatAgeSeconds(double s) { heartbeat_age_.Set(s); }

void WorkerMetrics::SetConnected(bool c) { connected_.Set(c ? 1 : 0); }

}  // namespace fleetsweep
