// Scheduler's search strategies (docs/search.md): the subset of the space that random and Latin
// hypercube sampling keep, the cached confidence interval of each configuration's median, and
// racing's elimination of configurations that are clearly worse than the leader.
#include <algorithm>
#include <unordered_map>

#include "common/stats/bootstrap.h"
#include "common/stats/hierarchical.h"
#include "common/stats/rng.h"
#include "coordinator/scheduler.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

std::vector<bool> Scheduler::SelectSubset(const std::vector<Config>& all) const {
  const SearchSpec& s = spec_.search;
  std::vector<bool> keep(all.size(), true);
  if ((s.strategy != "random" && s.strategy != "lhs") || s.budget <= 0 ||
      static_cast<size_t>(s.budget) >= all.size()) {
    return keep;
  }
  std::fill(keep.begin(), keep.end(), false);
  stats::Rng rng(s.seed);
  const size_t budget = static_cast<size_t>(s.budget);
  size_t chosen = 0;
  if (s.strategy == "lhs") {
    // Latin hypercube over the swept levels: each parameter's levels are used equally often
    // (a shuffled, balanced column per parameter); a row that violates a constraint or repeats
    // falls back to the nearest unused valid configuration in expansion order.
    std::unordered_map<std::string, size_t> index;
    for (size_t i = 0; i < all.size(); ++i) index[CanonicalKey(all[i])] = i;
    std::vector<const ParamSpec*> swept;
    for (const auto& p : spec_.params) {
      if (p.fate == ParamFate::kSwept) swept.push_back(&p);
    }
    std::vector<std::vector<size_t>> columns;
    for (const ParamSpec* p : swept) {
      std::vector<size_t> col(budget);
      for (size_t r = 0; r < budget; ++r) col[r] = r % p->values.size();
      for (size_t r = budget; r > 1; --r) std::swap(col[r - 1], col[rng.UniformIndex(r)]);
      columns.push_back(std::move(col));
    }
    for (size_t r = 0; r < budget; ++r) {
      Config c = all.front();
      for (size_t k = 0; k < swept.size(); ++k) c[swept[k]->name] = swept[k]->values[columns[k][r]];
      auto it = index.find(CanonicalKey(c));
      size_t at = it != index.end() ? it->second : rng.UniformIndex(all.size());
      for (size_t probe = 0; probe < all.size() && keep[at]; ++probe) at = (at + 1) % all.size();
      if (!keep[at]) {
        keep[at] = true;
        ++chosen;
      }
    }
  } else {
    // Uniform sample without replacement (selection sampling, order kept).
    for (size_t i = 0; i < all.size() && chosen < budget; ++i) {
      if (rng.UniformIndex(all.size() - i) < budget - chosen) {
        keep[i] = true;
        ++chosen;
      }
    }
  }
  spdlog::info("search {}: {} of {} configurations selected (seed {})", s.strategy, chosen,
               all.size(), s.seed);
  return keep;
}

// The CI of the median with the execution as the unit (hierarchical bootstrap), seeded per
// configuration; recomputed only when an execution is added.
void Scheduler::UpdateCi(ConfigState* c) {
  if (c->ci_n == c->executions.size()) return;
  c->ci_n = c->executions.size();
  if (c->executions.empty()) {
    c->ci_low = c->ci_high = c->median;
    return;
  }
  auto ci = stats::HierarchicalBootstrapMedianCI(c->executions, 0.95, 1000,
                                                 Fnv1a64(c->record.config_key(), options_.seed));
  c->ci_low = ci.ok() ? ci->low : c->median;
  c->ci_high = ci.ok() ? ci->high : c->median;
}

bool Scheduler::CiTight(ConfigState* c) {
  if (c->executions.size() < 2) return false;
  UpdateCi(c);
  stats::Interval ci{c->ci_low, c->ci_high};
  return stats::RelativeHalfWidth(ci, c->median) <= spec_.repetitions.target_rel_ci;
}

void Scheduler::Race() {
  // The leader: best median among configurations with their first round complete.
  const bool minimize = spec_.primary_metric().goal == Goal::kMinimize;
  const int first_round = spec_.repetitions.min;
  int leader = -1;
  for (size_t i = 0; i < configs_.size(); ++i) {
    ConfigState& c = configs_[i];
    if (c.ok_attempts < first_round || c.primary.empty()) continue;
    UpdateCi(&c);
    if (leader < 0 ||
        (minimize ? c.median < configs_[leader].median : c.median > configs_[leader].median)) {
      leader = static_cast<int>(i);
    }
  }
  if (leader < 0) return;
  const ConfigState& l = configs_[leader];
  for (size_t i = 0; i < configs_.size(); ++i) {
    ConfigState& c = configs_[i];
    if (static_cast<int>(i) == leader || c.ok_attempts < first_round || c.primary.empty()) continue;
    auto st = c.record.state();
    if (st == v1::CONFIG_STATE_INFEASIBLE || c.record.eliminated()) continue;
    const bool clearly_worse = minimize ? c.ci_low > l.ci_high : c.ci_high < l.ci_low;
    if (!clearly_worse) continue;
    c.record.set_eliminated(true);
    if (c.inflight == 0) {
      c.record.set_state(v1::CONFIG_STATE_DONE);
    }
    Status s = PersistConfig(static_cast<int>(i));
    if (!s.ok()) spdlog::warn("store: {}", s.ToString());
  }
}

}  // namespace fleetsweep
