#include "coordinator/aggregate/execution_log.h"

#include <cmath>
#include <cstdlib>

#include "common/stats/descriptive.h"

namespace fleetsweep {

int32_t ExecutionLog::FindKey(const std::string& key) const { return keys_.Find(key); }

int32_t ExecutionLog::Add(const v1::Attempt& a) {
  if (!a.ok()) return -1;
  std::vector<double> xs;
  for (const auto& s : a.samples()) {
    if (s.metric() == metric_ && std::isfinite(s.value())) xs.push_back(s.value());
  }
  return AddWith(a, xs).node;
}

ExecutionLog::Ids ExecutionLog::AddWith(const v1::Attempt& a, const std::vector<double>& finite) {
  if (!a.ok()) return {};
  LoggedExecution e;
  if (finite.empty()) {
    e.median = NAN;
  } else {
    scratch_.assign(finite.begin(), finite.end());
    e.median = stats::MedianInPlace(&scratch_);
  }
  e.config = keys_.Intern(a.config_key());
  e.node = nodes_.Intern(a.node());
  if (!a.info().empty()) {
    auto it = a.info().find("session.position");
    e.position = it == a.info().end() ? 0 : std::atoi(it->second.c_str());
    auto id = a.info().find("session.id");
    if (id != a.info().end() && !id->second.empty()) {
      e.session = sessions_.Intern(std::to_string(e.node) + '\x1f' + id->second);
    }
    auto start = a.info().find("session.start_seconds");
    if (start != a.info().end()) {
      const double seconds = std::atof(start->second.c_str());
      if (std::isfinite(seconds) && seconds >= 0) {
        ++totals_.session_starts;
        totals_.session_start_seconds += seconds;
      }
    }
  }
  if (std::isfinite(a.duration_seconds()) && a.duration_seconds() >= 0) {
    totals_.attempt_seconds += a.duration_seconds();
  }
  e.reference = a.reference();
  executions_.push_back(e);
  if (e.reference && !finite.empty()) {
    references_.push_back({e.node, a.started_unix_ms(), a.attempt_id(), finite});
  }
  return {e.config, e.node, e.session};
}

}  // namespace fleetsweep
