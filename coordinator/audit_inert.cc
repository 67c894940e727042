// AuditInert: Kruskal-Wallis across a parameter's levels on block-normalised medians (or samples).
#include <algorithm>
#include <cmath>
#include <map>

#include "common/stats/rank_tests.h"
#include "coordinator/audit.h"
#include "coordinator/robust.h"

namespace fleetsweep {
namespace {

std::string OthersKey(const ConfigResult& c, const std::string& skip) {
  std::string k;
  for (const auto& [name, value] : c.params) {
    if (name != skip) k += name + "=" + value + "\x1f";
  }
  return k;
}

}  // namespace

std::vector<InertVerdict> AuditInert(const std::vector<ConfigResult>& configs,
                                     const std::vector<std::vector<double>>& samples,
                                     const std::vector<std::string>& params,
                                     const InertOptions& options) {
  std::vector<InertVerdict> out;
  for (const auto& p : params) {
    InertVerdict v;
    v.param = p;
    std::map<std::string, std::vector<size_t>> blocks;
    for (size_t i = 0; i < configs.size() && i < samples.size(); ++i) {
      const ConfigResult& c = configs[i];
      if (c.primary.n == 0 || samples[i].empty() || !c.params.count(p)) continue;
      if (!(std::isfinite(c.primary.median) && c.primary.median != 0)) continue;
      blocks[OthersKey(c, p)].push_back(i);
    }
    // level -> block-normalised medians / samples
    std::map<std::string, std::vector<double>> med_by_level, smp_by_level;
    for (const auto& [key, members] : blocks) {
      std::set<std::string> levels;
      for (size_t i : members) levels.insert(configs[i].params.at(p));
      if (levels.size() < 2) continue;
      ++v.blocks;
      std::vector<double> meds;
      for (size_t i : members) meds.push_back(configs[i].primary.median);
      const double block = MedianOf(meds);
      if (!(std::isfinite(block) && block != 0)) continue;
      for (size_t i : members) {
        const std::string& level = configs[i].params.at(p);
        med_by_level[level].push_back(configs[i].primary.median / block);
        for (double x : samples[i]) smp_by_level[level].push_back(x / block);
      }
    }
    v.levels = static_cast<int>(med_by_level.size());
    if (v.levels < 2) {
      v.verdict = "untested";
      v.note = "no two configurations differ only in this parameter with samples";
      out.push_back(v);
      continue;
    }
    size_t fewest = SIZE_MAX;
    for (const auto& [level, xs] : med_by_level) fewest = std::min(fewest, xs.size());
    const bool on_medians = fewest >= static_cast<size_t>(options.min_per_level);
    const auto& groups_by_level = on_medians ? med_by_level : smp_by_level;
    v.test = on_medians ? "kruskal_wallis_block_normalized_medians"
                        : "kruskal_wallis_block_normalized_samples";
    if (!on_medians) {
      v.note = "fewer than " + std::to_string(options.min_per_level) +
               " blocks per level: samples (normalised by their block's median) were tested";
    }
    std::vector<std::vector<double>> groups;
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& [level, xs] : groups_by_level) {
      groups.push_back(xs);
      v.observations += static_cast<int>(xs.size());
      const double effect = MedianOf(med_by_level.at(level));
      v.level_effects[level] = effect;
      lo = std::min(lo, effect);
      hi = std::max(hi, effect);
    }
    v.spread = lo > 0 ? hi / lo - 1 : INFINITY;
    auto kw = stats::KruskalWallis(groups);
    if (!kw.ok()) {
      v.verdict = "untested";
      v.note = kw.status().message();
      out.push_back(v);
      continue;
    }
    v.statistic = kw->h;
    v.df = kw->df;
    v.p_value = kw->p_value;
    v.epsilon_squared = kw->epsilon_squared;
    if (v.p_value <= options.alpha) {
      v.verdict = "active";
    } else if (v.spread < options.max_spread) {
      v.verdict = "inert";
    } else {
      v.verdict = "inconclusive";
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace fleetsweep
