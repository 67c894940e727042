#include "coordinator/aggregate/metric_checks.h"

#include <cstdio>
#include <set>

namespace fleetsweep {
namespace {

std::string List(const std::set<std::string>& names) {
  if (names.empty()) return "no metric at all";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string BoundText(const MetricSpec& m) {
  std::string out;
  char b[64];
  if (m.max_value) {
    std::snprintf(b, sizeof b, "max %.6g", *m.max_value);
    out += b;
  }
  if (m.min_value) {
    std::snprintf(b, sizeof b, "%smin %.6g", out.empty() ? "" : ", ", *m.min_value);
    out += b;
  }
  return out;
}

std::string MedianVsBound(const char* format, double median, double bound) {
  char b[96];
  std::snprintf(b, sizeof b, format, median, bound);
  return b;
}

}  // namespace

void CheckBounds(const SweepSpec& spec, ConfigResult* c) {
  for (const auto& m : spec.metrics) {
    auto it = c->metrics.find(m.name);
    if (it == c->metrics.end()) continue;
    const double med = it->second.median;
    if (m.max_value && med > *m.max_value) {
      c->violates_bound = true;
      c->bound_violations.push_back(m.name +
                                    MedianVsBound(" median %.6g > max %.6g", med, *m.max_value));
    }
    if (m.min_value && med < *m.min_value) {
      c->violates_bound = true;
      c->bound_violations.push_back(m.name +
                                    MedianVsBound(" median %.6g < min %.6g", med, *m.min_value));
    }
  }
}

bool LacksBoundedMetric(const SweepSpec& spec, int ok_attempts,
                        const FlatMap<std::string, MetricSummary>& metrics) {
  if (ok_attempts == 0) return false;
  for (const MetricSpec& m : spec.metrics) {
    if ((m.max_value || m.min_value) && !metrics.count(m.name)) return true;
  }
  return false;
}

void CheckMetricsArrived(const SweepSpec& spec, SweepResult* result) {
  std::set<std::string> reported;
  bool any_ok = false;
  for (const ConfigResult& c : result->configs) {
    if (c.ok_attempts > 0) any_ok = true;
    for (const auto& [name, summary] : c.metrics) reported.insert(name);
  }
  if (!any_ok) return;  // nothing ran: "no configuration succeeded" says it
  const std::string& primary = spec.primary_metric().name;
  if (!reported.count(primary)) {
    result->valid = false;
    result->invalid_reasons.push_back("the primary metric '" + primary +
                                      "' was never reported by the benchmark; it reported " +
                                      List(reported) + " (check metrics[0].name in the spec)");
  }
  for (const MetricSpec& m : spec.metrics) {
    if (!m.max_value && !m.min_value) continue;
    if (!reported.count(m.name)) {
      result->valid = false;
      result->invalid_reasons.push_back("the bound on '" + m.name + "' (" + BoundText(m) +
                                        ") was never enforced: no attempt reported it; the "
                                        "benchmark reported " +
                                        List(reported));
    }
    for (ConfigResult& c : result->configs) {
      if (c.ok_attempts == 0 || c.metrics.count(m.name)) continue;
      c.violates_bound = true;
      c.bound_violations.push_back(m.name + " never reported (bound " + BoundText(m) + ")");
    }
  }
}

}  // namespace fleetsweep
