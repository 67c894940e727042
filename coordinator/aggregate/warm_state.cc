#include "coordinator/aggregate/warm_state.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>

#include "common/stats/block_permutation.h"
#include "common/stats/descriptive.h"

namespace fleetsweep {
namespace {

struct Execution {
  int position = 0;
  double log_median = 0;
};

// Executions with a position and a finite positive median of `metric`, by (config, node).
std::map<std::string, std::vector<Execution>> Collect(const std::vector<v1::Attempt>& attempts,
                                                      const std::string& metric) {
  std::map<std::string, std::vector<Execution>> blocks;
  for (const v1::Attempt& a : attempts) {
    if (!a.ok()) continue;
    auto it = a.info().find("session.position");
    if (it == a.info().end()) continue;
    const int position = std::atoi(it->second.c_str());
    if (position < 1) continue;
    std::vector<double> xs;
    for (const auto& s : a.samples()) {
      if (s.metric() == metric && std::isfinite(s.value())) xs.push_back(s.value());
    }
    if (xs.empty()) continue;
    const double m = stats::MedianOf(xs);
    if (!(m > 0)) continue;
    blocks[a.config_key() + "\x1f" + a.node()].push_back({position, std::log(m)});
  }
  return blocks;
}

// Block permutation test of group a vs group b; `group(e)` is 0 (a), 1 (b) or -1 (left out).
template <class Group>
WarmStateTest Test(const std::map<std::string, std::vector<Execution>>& blocks, Group group,
                   const WarmStateOptions& options, uint64_t salt) {
  WarmStateTest t;
  std::vector<std::vector<std::pair<int, double>>> labelled;
  std::vector<double> changes;
  for (const auto& [key, execs] : blocks) {
    std::vector<std::pair<int, double>> obs;
    double sum[2] = {0, 0};
    int n[2] = {0, 0};
    for (const Execution& e : execs) {
      const int g = group(e);
      if (g < 0) continue;
      obs.emplace_back(g, e.log_median);
      sum[g] += e.log_median;
      ++n[g];
    }
    if (n[0] == 0 || n[1] == 0) continue;
    ++t.blocks;
    t.group_a += n[0];
    t.group_b += n[1];
    changes.push_back(sum[1] / n[1] - sum[0] / n[0]);
    labelled.push_back(std::move(obs));
  }
  if (labelled.empty()) return t;
  auto r = stats::BlockPermutationTest(labelled, 2, options.resamples, options.seed ^ salt);
  if (!r.ok()) {
    t.verdict = "untested";
    return t;
  }
  t.p_value = r->p_value;
  t.min_p = r->min_p;
  t.exact = r->exact;
  t.change = std::exp(stats::MedianOf(changes)) - 1;
  if (t.min_p > options.alpha) {
    t.verdict = "inconclusive";
  } else {
    t.verdict = t.p_value <= options.alpha ? "differs" : "no_difference";
  }
  return t;
}

}  // namespace

WarmStateAudit AuditWarmState(const std::vector<v1::Attempt>& attempts, const std::string& metric,
                              const WarmStateOptions& options) {
  WarmStateAudit w;
  const auto blocks = Collect(attempts, metric);
  std::vector<int> later;
  for (const auto& [key, execs] : blocks) {
    for (const Execution& e : execs) {
      ++w.executions;
      w.max_position = std::max(w.max_position, e.position);
      if (e.position >= 2) later.push_back(e.position);
    }
  }
  w.persistent = w.max_position >= 2;
  if (!w.persistent) {
    w.note = "every execution ran in a fresh process (one-shot sessions): nothing to check";
    return w;
  }
  w.first_vs_later = Test(
      blocks, [](const Execution& e) { return e.position == 1 ? 0 : 1; }, options, 0x5eed1);
  std::sort(later.begin(), later.end());
  const int split = later[(later.size() - 1) / 2];  // early: 2..split, late: above it
  w.drift = Test(
      blocks,
      [split](const Execution& e) { return e.position < 2 ? -1 : (e.position <= split ? 0 : 1); },
      options, 0x5eed2);
  if (w.first_vs_later.verdict == "inconclusive" || w.first_vs_later.verdict == "untested") {
    w.note =
        "too few first executions beside later ones of the same configuration to test the first "
        "execution (recycle sessions with session.max_executions to get more)";
  }
  return w;
}

}  // namespace fleetsweep
