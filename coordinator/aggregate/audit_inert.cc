// AuditEffects: does a parameter change the timing? A permutation test of the within-block ranks of
// log execution medians whose level labels are re-dealt within blocks of configurations sharing
// every other parameter. Ranks keep the test exact (any statistic is) and make it robust: one
// execution slowed 1.5x by a shared machine moves a rank by at most the block's size, where it
// moved a mean by log 1.5 (40x a 1% noise), which cost the value-based test most of its power.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include "common/space/value.h"
#include "common/stats/block_permutation.h"
#include "common/stats/descriptive.h"
#include "common/stats/rank_tests.h"
#include "coordinator/aggregate/audit.h"

namespace fleetsweep {
namespace {

std::string OthersKey(const ConfigResult& c, const std::string& skip) {
  std::string k;
  for (const auto& [name, value] : c.params) {
    if (name != skip) k += name + "=" + value + "\x1f";
  }
  return k;
}

// Replaces each value of the block by its midrank (stats::MidRanks: ties share their mean rank).
void RankWithinBlock(std::vector<std::pair<int, double>>* block) {
  std::vector<double> values;
  values.reserve(block->size());
  for (const auto& [level, x] : *block) values.push_back(x);
  const stats::Ranking r = stats::MidRanks(values);
  for (size_t i = 0; i < block->size(); ++i) (*block)[i].second = r.ranks[i];
}

std::string Num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

// Level effects (median over blocks of config median / block median) and their spread.
void DescribeLevels(const std::vector<ConfigResult>& configs,
                    const std::map<std::string, std::vector<size_t>>& blocks, const std::string& p,
                    InertVerdict* v) {
  std::map<std::string, std::vector<double>> ratios;
  for (const auto& [key, members] : blocks) {
    std::vector<double> meds;
    for (size_t i : members) meds.push_back(configs[i].primary.median);
    const double block = stats::MedianOf(meds);
    if (!(std::isfinite(block) && block != 0)) continue;
    for (size_t i : members)
      ratios[configs[i].params.at(p)].push_back(configs[i].primary.median / block);
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& [level, xs] : ratios) {
    const double e = stats::MedianOf(xs);
    v->level_effects[level] = e;
    lo = std::min(lo, e);
    hi = std::max(hi, e);
  }
  v->spread = lo > 0 ? hi / lo - 1 : INFINITY;
}

InertVerdict AuditOne(const std::vector<ConfigResult>& configs,
                      const std::vector<std::vector<double>>& log_exec_medians,
                      const std::string& p, const EffectOptions& options) {
  InertVerdict v;
  v.param = p;
  v.test = "block_permutation_ranks_log_execution_medians";
  std::map<std::string, std::vector<size_t>> all_blocks;
  for (size_t i = 0; i < configs.size() && i < log_exec_medians.size(); ++i) {
    const ConfigResult& c = configs[i];
    if (log_exec_medians[i].empty() || !c.params.count(p)) continue;
    if (!(std::isfinite(c.primary.median) && c.primary.median > 0)) continue;
    all_blocks[OthersKey(c, p)].push_back(i);
  }
  std::map<std::string, std::vector<size_t>> blocks;  // those holding two levels
  std::map<std::string, int> level_index;
  for (const auto& [key, members] : all_blocks) {
    std::set<std::string> levels;
    for (size_t i : members) levels.insert(configs[i].params.at(p));
    if (levels.size() < 2) continue;
    blocks[key] = members;
    for (const auto& l : levels) level_index.emplace(l, 0);
  }
  v.blocks = static_cast<int>(blocks.size());
  v.levels = static_cast<int>(level_index.size());
  if (v.levels < 2) {
    v.note = "no two configurations differ only in this parameter with samples";
    return v;
  }
  int next = 0;
  for (auto& [level, idx] : level_index) idx = next++;
  std::vector<std::vector<std::pair<int, double>>> obs;
  for (const auto& [key, members] : blocks) {
    std::vector<std::pair<int, double>> b;
    for (size_t i : members) {
      for (double x : log_exec_medians[i])
        b.emplace_back(level_index.at(configs[i].params.at(p)), x);
    }
    v.observations += static_cast<int>(b.size());
    RankWithinBlock(&b);
    obs.push_back(std::move(b));
  }
  DescribeLevels(configs, blocks, p, &v);
  // Bounded cost for very large sweeps: about 2e7 observation visits, at least 500 re-dealings.
  const int resamples = std::max(
      500, std::min(options.resamples, static_cast<int>(2e7 / std::max(1, v.observations))));
  auto r = stats::BlockPermutationTest(obs, v.levels, resamples, Fnv1a64(p, options.seed),
                                       stats::kBlockPermutationExactLimit, options.stop_after_hits);
  if (!r.ok()) {
    v.note = r.status().message();
    return v;
  }
  v.statistic = r->statistic;
  v.p_value = r->p_value;
  v.min_p = r->min_p;
  v.exact = r->exact;
  v.arrangements = r->arrangements;
  if (v.p_value <= options.alpha) {
    v.verdict = Effect::kActive;
  } else if (v.min_p > options.alpha) {
    v.verdict = Effect::kInconclusive;
    v.note = "too few blocks or executions: " + Num(v.arrangements) +
             " arrangements, the smallest reachable p is " + Num(v.min_p) + " > " +
             Num(options.alpha);
  } else if (v.spread < options.max_spread) {
    v.verdict = Effect::kNoEffect;
  } else {
    v.verdict = Effect::kInconclusive;
    v.note = "p > " + Num(options.alpha) + " but the level effects spread by " +
             Num(100 * v.spread) + "%: too noisy to say";
  }
  return v;
}

}  // namespace

std::vector<InertVerdict> AuditEffects(const std::vector<ConfigResult>& configs,
                                       const std::vector<std::vector<double>>& log_exec_medians,
                                       const std::vector<std::string>& params,
                                       const EffectOptions& options) {
  // Each parameter's test reads only the inputs and has its own seed: any split over threads
  // gives the same verdicts, in parameter order.
  std::vector<InertVerdict> out(params.size());
  const size_t threads = std::min(params.size(), static_cast<size_t>(std::max(1, options.threads)));
  auto run = [&](size_t first) {
    for (size_t i = first; i < params.size(); i += std::max<size_t>(1, threads)) {
      if (options.cancel != nullptr && options.cancel->load()) {
        out[i].param = params[i];
        continue;
      }
      out[i] = AuditOne(configs, log_exec_medians, params[i], options);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto& th : pool) th.join();
  return out;
}

}  // namespace fleetsweep
