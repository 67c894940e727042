// The search strategies (search.h).
#include "coordinator/search/search.h"

#include <algorithm>
#include <unordered_map>

#include "common/stats/rng.h"
#include "coordinator/scheduler/repetition.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

std::vector<bool> SearchStrategy::Select(const std::vector<Config>& all) const {
  return std::vector<bool>(all.size(), true);
}

namespace {

// random and lhs: a budget of configurations out of the space.
class SampledSearch : public SearchStrategy {
 public:
  SampledSearch(const SweepSpec& spec, bool latin) : spec_(spec), latin_(latin) {}
  bool SelectsAll() const override { return spec_.search.budget <= 0; }

  std::vector<bool> Select(const std::vector<Config>& all) const override {
    const SearchSpec& s = spec_.search;
    std::vector<bool> keep(all.size(), true);
    if (s.budget <= 0 || static_cast<size_t>(s.budget) >= all.size()) return keep;
    std::fill(keep.begin(), keep.end(), false);
    stats::Rng rng(s.seed);
    const size_t budget = static_cast<size_t>(s.budget);
    const size_t chosen = latin_ ? Latin(all, budget, &rng, &keep) : Uniform(budget, &rng, &keep);
    spdlog::info("search {}: {} of {} configurations selected (seed {})", s.strategy, chosen,
                 all.size(), s.seed);
    return keep;
  }

 private:
  // Uniform sample without replacement (selection sampling, order kept).
  static size_t Uniform(size_t budget, stats::Rng* rng, std::vector<bool>* keep) {
    size_t chosen = 0;
    const size_t n = keep->size();
    for (size_t i = 0; i < n && chosen < budget; ++i) {
      if (rng->UniformIndex(n - i) < budget - chosen) {
        (*keep)[i] = true;
        ++chosen;
      }
    }
    return chosen;
  }

  // Latin hypercube over the swept levels: each parameter's levels are used equally often (a
  // shuffled, balanced column per parameter); a row that violates a constraint or repeats falls
  // back to the nearest unused valid configuration in expansion order.
  size_t Latin(const std::vector<Config>& all, size_t budget, stats::Rng* rng,
               std::vector<bool>* keep) const {
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
      for (size_t r = budget; r > 1; --r) std::swap(col[r - 1], col[rng->UniformIndex(r)]);
      columns.push_back(std::move(col));
    }
    size_t chosen = 0;
    for (size_t r = 0; r < budget; ++r) {
      Config c = all.front();
      for (size_t k = 0; k < swept.size(); ++k) c[swept[k]->name] = swept[k]->values[columns[k][r]];
      auto it = index.find(CanonicalKey(c));
      size_t at = it != index.end() ? it->second : rng->UniformIndex(all.size());
      for (size_t probe = 0; probe < all.size() && (*keep)[at]; ++probe) {
        at = (at + 1) % all.size();
      }
      if (!(*keep)[at]) {
        (*keep)[at] = true;
        ++chosen;
      }
    }
    return chosen;
  }

  const SweepSpec& spec_;
  bool latin_;
};

// racing: stops configurations whose CI is clearly worse than the leader's.
class RacingSearch : public SearchStrategy {
 public:
  RacingSearch(const SweepSpec& spec, uint64_t ci_seed) : spec_(spec), ci_seed_(ci_seed) {}

  void AfterResults(ConfigTable* table) override {
    // The leader: best median among configurations with their first round complete.
    const bool minimize = spec_.primary_metric().goal == Goal::kMinimize;
    const int first_round = spec_.repetitions.min;
    // Only held configurations can have samples (an untouched one has none); the lowest index
    // wins among equal medians.
    int leader = -1;
    double lead = 0;
    table->ForEachHeld([&](int i, ConfigState& c) {
      if (c.ok_attempts < first_round || c.primary.empty()) return;
      UpdateMedianCi(&c, ci_seed_);
      if (leader < 0 || (minimize ? c.median < lead : c.median > lead) ||
          (c.median == lead && i < leader)) {
        leader = i;
        lead = c.median;
      }
    });
    if (leader < 0) return;
    const ConfigState& l = table->Get(leader);
    table->ForEachHeld([&](int i, ConfigState& c) {
      if (i == leader || c.ok_attempts < first_round || c.primary.empty()) return;
      if (c.record.state() == v1::CONFIG_STATE_INFEASIBLE || c.record.eliminated()) return;
      const bool clearly_worse = minimize ? c.ci_low > l.ci_high : c.ci_high < l.ci_low;
      if (!clearly_worse) return;
      c.record.set_eliminated(true);
      table->MarkChanged(i);
      if (c.inflight == 0) table->SetState(i, v1::CONFIG_STATE_DONE);
    });
  }

 private:
  const SweepSpec& spec_;
  uint64_t ci_seed_;
};

}  // namespace

std::unique_ptr<SearchStrategy> MakeSearchStrategy(const SweepSpec& spec, uint64_t ci_seed) {
  const std::string& name = spec.search.strategy;
  if (name == "random" || name == "lhs")
    return std::make_unique<SampledSearch>(spec, name == "lhs");
  if (name == "racing") return std::make_unique<RacingSearch>(spec, ci_seed);
  return std::make_unique<SearchStrategy>();  // grid
}

}  // namespace fleetsweep
