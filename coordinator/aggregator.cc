#include "coordinator/aggregator.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "common/stats/bootstrap.h"
#include "common/stats/descriptive.h"

namespace fleetsweep {
namespace {

MetricSummary Summarize(const std::vector<double>& xs, uint64_t seed,
                        stats::BootstrapWorkspace* ws) {
  MetricSummary m;
  m.n = static_cast<int64_t>(xs.size());
  if (xs.empty()) return m;
  auto med = stats::Median(xs);
  auto mad = stats::Mad(xs);
  auto ci = stats::BootstrapMedianCI(xs, 0.95, 2000, seed, ws);
  m.median = med.ok() ? *med : 0;
  m.mad = mad.ok() ? *mad : 0;
  m.ci_low = ci.ok() ? ci->low : m.median;
  m.ci_high = ci.ok() ? ci->high : m.median;
  return m;
}

const char* StateName(v1::ConfigState s) {
  switch (s) {
    case v1::CONFIG_STATE_DONE: return "done";
    case v1::CONFIG_STATE_INFEASIBLE: return "infeasible";
    case v1::CONFIG_STATE_LEASED: return "leased";
    default: return "pending";
  }
}

std::string ClassName(int c) {
  std::string n = v1::FailureClass_Name(static_cast<v1::FailureClass>(c));
  const std::string prefix = "FAILURE_CLASS_";
  if (n.rfind(prefix, 0) == 0) n = n.substr(prefix.size());
  std::transform(n.begin(), n.end(), n.begin(), ::tolower);
  return n;
}

}  // namespace

SweepResult Aggregate(const SweepSpec& spec, const std::vector<v1::ConfigRecord>& records,
                      const std::vector<v1::Attempt>& attempts, uint64_t seed) {
  SweepResult out;
  out.sweep = spec.name;
  out.metric = spec.primary_metric().name;
  const bool minimize = spec.primary_metric().goal == Goal::kMinimize;
  out.goal = minimize ? "minimize" : "maximize";

  std::unordered_map<std::string, size_t> index;
  for (const auto& r : records) {
    ConfigResult c;
    c.key = r.config_key();
    for (const auto& [k, v] : r.params()) c.params[k] = v;
    c.status = StateName(r.state());
    if (r.state() == v1::CONFIG_STATE_INFEASIBLE) {
      c.failure_class = ClassName(r.last_failure());
      c.failure_detail = r.last_failure_detail();
    }
    index[c.key] = out.configs.size();
    out.configs.push_back(std::move(c));
  }
  std::vector<std::map<std::string, std::vector<double>>> samples(out.configs.size());
  for (const auto& a : attempts) {
    ++out.total_attempts;
    if (a.reference()) continue;
    auto it = index.find(a.config_key());
    if (it == index.end()) continue;
    ConfigResult& c = out.configs[it->second];
    ++c.attempts;
    c.nodes.insert(a.node());
    if (a.ok()) {
      ++c.ok_attempts;
      if (!a.fingerprint().empty()) c.fingerprints.insert(a.fingerprint());
      for (const auto& s : a.samples()) samples[it->second][s.metric()].push_back(s.value());
      out.total_samples += a.samples_size();
    } else {
      ++c.failed_attempts;
      c.failures_by_class[ClassName(a.failure_class())]++;
      if (c.failure_class.empty()) {
        c.failure_class = ClassName(a.failure_class());
        c.failure_detail = a.failure_detail();
      }
    }
  }
  stats::BootstrapWorkspace ws;
  for (size_t i = 0; i < out.configs.size(); ++i) {
    ConfigResult& c = out.configs[i];
    for (const auto& [metric, xs] : samples[i]) c.metrics[metric] = Summarize(xs, seed, &ws);
    auto p = c.metrics.find(out.metric);
    if (p != c.metrics.end()) c.primary = p->second;
    for (const auto& m : spec.metrics) {
      auto it = c.metrics.find(m.name);
      if (it == c.metrics.end()) continue;
      if ((m.max_value && it->second.median > *m.max_value) ||
          (m.min_value && it->second.median < *m.min_value)) {
        c.violates_bound = true;
      }
    }
    if (c.status == "done") ++out.done;
    else if (c.status == "infeasible") ++out.infeasible;
    else ++out.unfinished;
  }
  // Rank: configurations with samples (and within bounds) first, by median.
  auto rankable = [](const ConfigResult& c) { return c.primary.n > 0 && !c.violates_bound; };
  std::stable_sort(out.configs.begin(), out.configs.end(),
                   [&](const ConfigResult& a, const ConfigResult& b) {
                     if (rankable(a) != rankable(b)) return rankable(a);
                     if (!rankable(a)) return a.key < b.key;
                     return minimize ? a.primary.median < b.primary.median
                                     : a.primary.median > b.primary.median;
                   });
  if (!out.configs.empty() && rankable(out.configs[0])) {
    const MetricSummary& best = out.configs[0].primary;
    out.tied.push_back(0);
    for (size_t i = 1; i < out.configs.size() && rankable(out.configs[i]); ++i) {
      const MetricSummary& m = out.configs[i].primary;
      bool overlaps = minimize ? m.ci_low <= best.ci_high : m.ci_high >= best.ci_low;
      if (overlaps) out.tied.push_back(static_cast<int>(i));
    }
    if (out.tied.size() == 1) out.winner = 0;
  }
  if (out.unfinished > 0) {
    out.warnings.push_back(std::to_string(out.unfinished) + " configurations are unfinished");
  }
  return out;
}

}  // namespace fleetsweep
