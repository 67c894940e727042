#include "coordinator/aggregate/node_effects.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <unordered_map>

#include "common/stats/descriptive.h"
#include "common/stats/rank_tests.h"
#include "coordinator/aggregate/node_effects_fit.h"

namespace fleetsweep {
namespace {

// The all-data fit with residual-bootstrap CIs; fills effect, ci_low/high, executions.
// `col[n]`: the column of log node n.
bool FitAllData(const ExecutionLog& log, const std::vector<int>& col, uint64_t seed,
                const NodeEffectsOptions& options, std::vector<NodeEffect>* nodes) {
  std::unordered_map<int32_t, std::set<int>> row_nodes;  // by configuration
  std::vector<std::pair<int32_t, node_fit::Obs>> raw;
  for (const LoggedExecution& a : log.executions()) {
    if (!(a.median > 0)) continue;  // no samples (NaN) or a non-positive median
    raw.push_back({a.config, node_fit::Obs{0, col[a.node], std::log(a.median)}});
    row_nodes[a.config].insert(col[a.node]);
  }
  std::unordered_map<int32_t, int> row;
  std::vector<node_fit::Obs> obs;
  for (auto& [key, o] : raw) {
    if (row_nodes[key].size() < 2) continue;  // a row on one node says nothing about nodes
    auto ins = row.emplace(key, static_cast<int>(row.size()));
    o.row = ins.first->second;
    obs.push_back(o);
    (*nodes)[o.col].executions++;
  }
  const int rows = static_cast<int>(row.size()), cols = static_cast<int>(nodes->size());
  for (const auto& n : *nodes) {
    if (n.executions == 0) return false;
  }
  if (rows == 0 || !node_fit::Connected(obs, rows, cols)) return false;
  const double e = static_cast<double>(obs.size()), p = rows + cols - 1;
  if (e - p < std::max(3, cols)) return false;  // too few residual degrees of freedom
  const node_fit::Grid g = node_fit::ByRow(obs, rows, cols);
  std::vector<double> y(g.obs.size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = g.obs[i].y;
  const std::vector<double> fit =
      node_fit::FitColumns(g, y, options.iterations, nullptr, {}, options.threads);
  node_fit::BootstrapOptions bo;
  // Bounded cost for very large sweeps (node_effects_fit.h): about 2e7 element visits, at least
  // 50 rounds; past max_bootstrap_executions, the subset bootstrap.
  bo.rounds =
      std::max(50, std::min(options.resamples,
                            static_cast<int>(2e7 / (static_cast<double>(options.iterations) * e))));
  bo.iterations = options.iterations;
  bo.threads = options.threads;
  bo.max_bootstrap_executions = options.max_bootstrap_executions;
  auto draws = node_fit::BootstrapColumns(g, y, fit, seed, bo);
  for (int j = 0; j < cols; ++j) {
    NodeEffect& n = (*nodes)[j];
    n.effect = std::exp(fit[j]);
    n.ci_low = std::exp(stats::QuantileInPlace(&draws[j], 0.025));
    n.ci_high = std::exp(stats::QuantileInPlace(&draws[j], 0.975));
  }
  return true;
}

// Reference-only effects and drift, per node, from the reference attempts.
void ReferenceEffects(const ExecutionLog& log, const NodeEffectsOptions& options,
                      std::vector<NodeEffect>* nodes, std::vector<std::string>* warnings) {
  std::map<std::string,
           std::vector<std::pair<std::pair<int64_t, std::string>, std::vector<double>>>>
      refs;
  for (const LoggedReference& r : log.references()) {
    refs[log.node(r.node)].push_back({{r.started_unix_ms, r.attempt_id}, r.samples});
  }
  std::map<std::string, double> medians;
  for (auto& [node, list] : refs) {
    std::sort(list.begin(), list.end());
    std::vector<double> all;
    for (const auto& [when, xs] : list) all.insert(all.end(), xs.begin(), xs.end());
    medians[node] = stats::MedianOf(all);
  }
  std::vector<double> meds;
  for (const auto& [node, m] : medians) meds.push_back(m);
  const double pooled = meds.empty() ? NAN : stats::MedianOf(meds);
  for (auto& e : *nodes) {
    auto it = refs.find(e.node);
    if (it == refs.end()) continue;
    e.reference_attempts = static_cast<int>(it->second.size());
    for (const auto& [when, xs] : it->second)
      e.reference_samples += static_cast<int64_t>(xs.size());
    if (pooled > 0) e.reference_effect = medians[e.node] / pooled;
    const size_t k = it->second.size();
    if (k < 2) continue;
    std::vector<double> early, late;
    for (size_t i = 0; i < k; ++i) {
      auto& dst = i < k / 2 ? early : late;
      dst.insert(dst.end(), it->second[i].second.begin(), it->second[i].second.end());
    }
    auto mw = stats::MannWhitneyU(early, late);
    if (!mw.ok()) continue;
    e.drift_tested = true;
    e.drift_p = mw->p_value;
    const double me = stats::MedianOf(early);
    e.drift_change = me != 0 ? stats::MedianOf(late) / me - 1 : NAN;
    e.drift =
        e.drift_p < options.drift_alpha && std::fabs(e.drift_change) > options.drift_min_change;
    if (e.drift) {
      char b[200];
      std::snprintf(b, sizeof b,
                    "node %s drifted: its reference moved %+.1f%% between early and late "
                    "measurements (Mann-Whitney p = %.2g)",
                    e.node.c_str(), 100 * e.drift_change, e.drift_p);
      warnings->push_back(b);
    }
  }
}

std::string Pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * x);
  return b;
}

// Why the effects must not be applied ("" when they may).
std::string RefuseReason(const std::vector<NodeEffect>& nodes, const NodeEffectsOptions& o) {
  bool clear = false;
  for (const auto& e : nodes) {
    if ((e.ci_low > 1 || e.ci_high < 1) && std::fabs(e.effect - 1) >= o.min_effect) clear = true;
  }
  if (!clear) {
    return "no node's effect is distinguishable from 1 (95% CI) by at least " + Pct(o.min_effect) +
           ": samples not corrected";
  }
  for (const auto& e : nodes) {
    const double half = (std::log(e.ci_high) - std::log(e.ci_low)) / 2;
    if (!(half <= o.max_log_half_width)) {
      return "node " + e.node + "'s effect is not well determined (CI half-width " + Pct(half) +
             " > " + Pct(o.max_log_half_width) + "): samples not corrected";
    }
  }
  for (const auto& e : nodes) {
    if (!std::isfinite(e.reference_effect)) continue;
    const bool clearly_slow = e.ci_low > 1, clearly_fast = e.ci_high < 1;
    if ((clearly_slow && e.reference_effect < 1 - o.min_effect) ||
        (clearly_fast && e.reference_effect > 1 + o.min_effect)) {
      char b[240];
      std::snprintf(b, sizeof b,
                    "node %s: the reference alone says %.3f, all data say %.3f [%.3f, %.3f]: "
                    "inconsistent, samples not corrected",
                    e.node.c_str(), e.reference_effect, e.effect, e.ci_low, e.ci_high);
      return b;
    }
  }
  return "";
}

}  // namespace

NodeEffectsResult EstimateNodeEffects(const ExecutionLog& log, uint64_t seed,
                                      const NodeEffectsOptions& options) {
  NodeEffectsResult out;
  out.method = "none";
  // Every node with an ok attempt (the log holds ok attempts only), by name.
  std::vector<int32_t> by_name(static_cast<size_t>(log.node_count()));
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(),
            [&](int32_t x, int32_t y) { return log.node(x) < log.node(y); });
  std::vector<int> col(by_name.size());
  for (size_t i = 0; i < by_name.size(); ++i) {
    col[static_cast<size_t>(by_name[i])] = static_cast<int>(i);
    NodeEffect e;
    e.node = log.node(by_name[i]);
    out.nodes.push_back(e);
    out.divisors[e.node] = 1.0;
  }
  ReferenceEffects(log, options, &out.nodes, &out.warnings);
  if (by_name.size() < 2) {
    out.note = "one node: no node effects to remove";
    return out;
  }
  if (!FitAllData(log, col, seed * 0x9E3779B97F4A7C15ULL + 1, options, &out.nodes)) {
    for (auto& e : out.nodes) e.effect = e.ci_low = e.ci_high = NAN;
    out.note =
        "too few executions of configurations measured on several nodes link the nodes: "
        "node effects were not estimated or removed";
    out.warnings.push_back(
        "several nodes, but too few executions of configurations measured on "
        "several nodes to estimate node effects: they are not removed");
    return out;
  }
  const std::string refuse = RefuseReason(out.nodes, options);
  if (!refuse.empty()) {
    out.note = refuse;
    if (refuse.find("inconsistent") != std::string::npos) out.warnings.push_back(refuse);
    return out;
  }
  out.applied = true;
  out.method = "all_data";
  out.note =
      "primary-metric samples divided by their node's effect (all-data fit: clearly "
      "non-zero, well determined, consistent with the reference)";
  for (auto& e : out.nodes) {
    out.divisors[e.node] = e.effect;
    e.applied = true;
  }
  return out;
}

NodeEffectsResult EstimateNodeEffects(const std::vector<v1::Attempt>& attempts,
                                      const std::string& metric, uint64_t seed,
                                      const NodeEffectsOptions& options) {
  ExecutionLog log(metric);
  for (const auto& a : attempts) log.Add(a);
  return EstimateNodeEffects(log, seed, options);
}

}  // namespace fleetsweep
