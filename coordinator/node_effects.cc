#include "coordinator/node_effects.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "common/stats/descriptive.h"
#include "common/stats/median_polish.h"
#include "common/stats/rank_tests.h"
#include "common/stats/rng.h"
#include "coordinator/robust.h"

namespace fleetsweep {
namespace {

std::vector<double> MetricSamples(const v1::Attempt& a, const std::string& metric) {
  std::vector<double> xs;
  for (const auto& s : a.samples()) {
    if (s.metric() == metric && std::isfinite(s.value())) xs.push_back(s.value());
  }
  return xs;
}

std::vector<double> Resample(const std::vector<double>& xs, stats::Rng* rng) {
  std::vector<double> r(xs.size());
  for (auto& x : r) x = xs[rng->UniformIndex(static_cast<uint32_t>(xs.size()))];
  return r;
}

// Percentile bootstrap CIs of median(node) / median over nodes of the node medians: every node's
// samples are resampled together in each round, so the denominator moves with them.
void RatioCis(const std::vector<std::vector<double>>& per_node, int resamples, uint64_t seed,
              std::vector<double>* lo, std::vector<double>* hi) {
  stats::Rng rng(seed);
  const size_t k = per_node.size();
  std::vector<std::vector<double>> ratios(k);
  std::vector<double> meds(k);
  for (int b = 0; b < resamples; ++b) {
    for (size_t i = 0; i < k; ++i) meds[i] = MedianOf(Resample(per_node[i], &rng));
    const double d = MedianOf(meds);
    if (d == 0) continue;
    for (size_t i = 0; i < k; ++i) ratios[i].push_back(meds[i] / d);
  }
  lo->assign(k, NAN);
  hi->assign(k, NAN);
  for (size_t i = 0; i < k; ++i) {
    if (ratios[i].empty()) continue;
    auto l = stats::Quantile(ratios[i], 0.025);
    auto h = stats::Quantile(ratios[i], 0.975);
    if (l.ok()) (*lo)[i] = *l;
    if (h.ok()) (*hi)[i] = *h;
  }
}

void PolishEffects(const std::vector<v1::Attempt>& attempts, const std::string& metric,
                   std::vector<NodeEffect>* nodes) {
  std::map<std::string, int> col;
  for (size_t i = 0; i < nodes->size(); ++i) col[(*nodes)[i].node] = static_cast<int>(i);
  std::map<std::string, std::vector<std::vector<double>>> cells;  // row key -> per node samples
  for (const auto& a : attempts) {
    if (!a.ok()) continue;
    auto it = col.find(a.node());
    if (it == col.end()) continue;
    auto& row = cells[a.config_key()];
    row.resize(col.size());
    for (double x : MetricSamples(a, metric)) row[it->second].push_back(x);
  }
  std::vector<std::vector<double>> table;
  bool spans = false;
  std::vector<bool> seen(col.size(), false);
  for (auto& [key, row] : cells) {
    std::vector<double> r(col.size(), NAN);
    int observed = 0;
    for (size_t j = 0; j < row.size(); ++j) {
      if (row[j].empty()) continue;
      const double m = MedianOf(row[j]);
      if (!(m > 0)) continue;
      r[j] = std::log(m);
      seen[j] = true;
      ++observed;
    }
    if (observed == 0) continue;
    spans = spans || observed >= 2;
    table.push_back(r);
  }
  if (!spans || std::find(seen.begin(), seen.end(), false) != seen.end()) return;
  auto mp = stats::MedianPolish(table);
  if (!mp.ok()) return;
  for (size_t j = 0; j < nodes->size(); ++j)
    (*nodes)[j].polish_effect = std::exp(mp->col_effects[j]);
}

}  // namespace

NodeEffectsResult EstimateNodeEffects(const std::vector<v1::Attempt>& attempts,
                                      const std::string& metric, uint64_t seed,
                                      const NodeEffectsOptions& options) {
  NodeEffectsResult out;
  out.method = "none";
  std::set<std::string> names;
  // node -> reference attempts (time, samples), in time order
  std::map<std::string,
           std::vector<std::pair<std::pair<int64_t, std::string>, std::vector<double>>>>
      refs;
  for (const auto& a : attempts) {
    if (!a.ok()) continue;
    names.insert(a.node());
    if (!a.reference()) continue;
    auto xs = MetricSamples(a, metric);
    if (!xs.empty()) refs[a.node()].push_back({{a.started_unix_ms(), a.attempt_id()}, xs});
  }
  // Reference samples per node (time order) and the pooled denominator: the median of the node
  // medians (each node weighs the same, however many references it ran).
  std::vector<std::string> ref_nodes;
  std::vector<std::vector<double>> per_node;
  std::vector<double> node_medians;
  for (auto& [node, list] : refs) {
    std::sort(list.begin(), list.end());
    std::vector<double> mine;
    for (const auto& [when, xs] : list) mine.insert(mine.end(), xs.begin(), xs.end());
    ref_nodes.push_back(node);
    node_medians.push_back(MedianOf(mine));
    per_node.push_back(std::move(mine));
  }
  const double pooled = node_medians.empty() ? NAN : MedianOf(node_medians);
  std::vector<double> ci_lo, ci_hi;
  if (!per_node.empty()) {
    RatioCis(per_node, options.resamples, seed * 0x9E3779B97F4A7C15ULL + 1, &ci_lo, &ci_hi);
  }
  bool some_clear = false, missing = false;
  for (const auto& name : names) {
    NodeEffect e;
    e.node = name;
    auto it = refs.find(name);
    const size_t r = std::find(ref_nodes.begin(), ref_nodes.end(), name) - ref_nodes.begin();
    if (it != refs.end() && pooled != 0 && std::isfinite(pooled)) {
      e.reference_attempts = static_cast<int>(it->second.size());
      e.reference_samples = static_cast<int64_t>(per_node[r].size());
      e.effect = node_medians[r] / pooled;
      e.ci_low = ci_lo[r];
      e.ci_high = ci_hi[r];
      if ((e.ci_low > 1 || e.ci_high < 1) && std::fabs(e.effect - 1) >= options.min_effect) {
        some_clear = true;
      }
      const size_t k = it->second.size();
      if (k >= 2) {
        std::vector<double> early, late;
        for (size_t i = 0; i < k; ++i) {
          auto& dst = i < k / 2 ? early : late;
          dst.insert(dst.end(), it->second[i].second.begin(), it->second[i].second.end());
        }
        auto mw = stats::MannWhitneyU(early, late);
        if (mw.ok()) {
          e.drift_tested = true;
          e.drift_p = mw->p_value;
          const double me = MedianOf(early);
          e.drift_change = me != 0 ? MedianOf(late) / me - 1 : NAN;
          e.drift = e.drift_p < options.drift_alpha &&
                    std::fabs(e.drift_change) > options.drift_min_change;
        }
      }
    } else {
      missing = true;
    }
    out.nodes.push_back(e);
  }
  PolishEffects(attempts, metric, &out.nodes);
  for (const auto& e : out.nodes) {
    out.divisors[e.node] = 1.0;
    if (e.drift) {
      char b[200];
      std::snprintf(b, sizeof b,
                    "node %s drifted: its reference moved %+.1f%% between early and late "
                    "measurements (Mann-Whitney p = %.2g)",
                    e.node.c_str(), 100 * e.drift_change, e.drift_p);
      out.warnings.push_back(b);
    }
  }
  if (names.size() < 2) {
    out.note = "one node: no node effects to remove";
    return out;
  }
  if (per_node.empty()) {
    out.note = "no reference samples: node effects were not estimated or removed";
    out.warnings.push_back(
        "several nodes but no reference measurements: node effects are not "
        "removed (add a `reference` configuration to the spec)");
    return out;
  }
  if (!some_clear) {
    out.note = "no node's effect is distinguishable from 1 (95% CI) by at least " +
               std::to_string(static_cast<int>(options.min_effect * 100 + 0.5)) +
               "%: samples not corrected";
    return out;
  }
  out.applied = true;
  out.method = "reference";
  out.note = "primary-metric samples divided by their node's reference effect";
  for (auto& e : out.nodes) {
    if (std::isfinite(e.effect) && e.effect > 0) {
      out.divisors[e.node] = e.effect;
      e.applied = true;
    }
  }
  if (missing) {
    out.warnings.push_back("some nodes have no reference samples: their samples are not corrected");
  }
  return out;
}

}  // namespace fleetsweep
