// WorkerObserver: forwards the agent's events to WorkerMetrics when metrics are on; a no-op
// otherwise. Not owning. Called from the agent's loop thread only.
#pragma once

#include <string>
#include <vector>

#include "common/metrics/worker_metrics.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

class WorkerObserver {
 public:
  WorkerObserver(WorkerMetrics* metrics, std::string node) : m_(metrics), node_(std::move(node)) {}

  void Connected(bool c) {
    if (m_) m_->SetConnected(c);
  }
  void SlotsChanged(int busy, int slots) {
    if (m_) m_->SetSlots(busy, slots - busy);
  }
  void HeartbeatAge(double s) {
    if (m_) m_->SetHeartbeatAgeSeconds(s);
  }
  // The metrics `sweep`'s spec declares (bounds the last-sample series).
  void DeclareSweep(const std::string& sweep, const std::vector<std::string>& metrics) {
    if (m_) m_->DeclareSweepMetrics(sweep, metrics);
  }
  void Executed(const v1::Attempt& a, const std::string& sweep) {
    if (!m_) return;
    std::string cls = a.ok() ? "none" : v1::FailureClass_Name(a.failure_class());
    m_->IncExecutions(a.ok(), cls);
    m_->ObserveExecutionSeconds(a.duration_seconds());
    if (a.samples_size() > 0) {
      m_->IncSamples(a.device().empty() ? "0" : a.device(), a.samples_size());
      const auto& last = a.samples(a.samples_size() - 1);
      m_->SetLastSample(sweep, last.metric(), last.value());
    }
  }

 private:
  WorkerMetrics* m_;
  std::string node_;
};

}  // namespace fleetsweep
