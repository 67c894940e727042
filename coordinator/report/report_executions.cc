#include "coordinator/report/report_executions.h"

#include <algorithm>
#include <cmath>

namespace fleetsweep::report {

double ExecutionValue(const v1::Attempt& a, const std::string& metric) {
  std::vector<double> v;
  for (const auto& s : a.samples()) {
    if (s.metric() == metric && std::isfinite(s.value())) v.push_back(s.value());
  }
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ExecutionCollector::ExecutionCollector(const ReportData& d) : d_(d) {
  out_.values.resize(d.configs.size());
  index_.reserve(d.configs.size());
  for (size_t i = 0; i < d.configs.size(); ++i) index_.emplace(d.configs[i].key, i);
}

void ExecutionCollector::Add(const v1::Attempt& a) {
  const bool started = a.started_unix_ms() > 0;
  if (started) out_.first_start_ms = std::min<int64_t>(out_.first_start_ms, a.started_unix_ms());
  if (a.reference()) return;
  if (!a.ok()) {
    if (started) ++out_.failed;
    return;
  }
  const double v = ExecutionValue(a, d_.metric);
  if (started) {
    out_.finished.emplace_back(a.started_unix_ms() + 1000.0 * a.duration_seconds(), v);
  }
  if (!std::isfinite(v)) return;
  auto it = index_.find(a.config_key());
  if (it != index_.end()) out_.values[it->second].push_back(v);
}

}  // namespace fleetsweep::report
