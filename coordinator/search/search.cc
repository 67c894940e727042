// The search strategies (search.h).
#include "coordinator/search/search.h"

#include <algorithm>
#include <unordered_set>

#include "common/stats/rng.h"
#include "coordinator/scheduler/repetition.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

std::vector<int64_t> SearchStrategy::Select(const SpaceIndex& space) const {
  std::vector<int64_t> all(static_cast<size_t>(space.size()));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  return all;
}

namespace {

// random and lhs: a budget of positions out of the space, drawn without expanding it.
class SampledSearch : public SearchStrategy {
 public:
  SampledSearch(const SweepSpec& spec, bool latin) : spec_(spec), latin_(latin) {}
  bool SelectsAll() const override { return spec_.search.budget <= 0; }

  std::vector<int64_t> Select(const SpaceIndex& space) const override {
    const SearchSpec& s = spec_.search;
    const int64_t n = space.size();
    if (s.budget <= 0 || s.budget >= n) return SearchStrategy::Select(space);  // n <= budget
    stats::Rng rng(s.seed);
    const size_t budget = static_cast<size_t>(s.budget);
    std::vector<int64_t> chosen = latin_ ? Latin(space, budget, &rng) : Uniform(n, budget, &rng);
    std::sort(chosen.begin(), chosen.end());
    spdlog::info("search {}: {} of {} configurations selected (seed {})", s.strategy, chosen.size(),
                 n, s.seed);
    return chosen;
  }

 private:
  // Uniform sample of `budget` distinct positions of [0, n) without replacement (Floyd's
  // algorithm: one draw per kept position; every subset of that size is equally likely).
  static std::vector<int64_t> Uniform(int64_t n, size_t budget, stats::Rng* rng) {
    std::unordered_set<int64_t> taken;
    taken.reserve(budget);
    std::vector<int64_t> chosen;
    chosen.reserve(budget);
    for (int64_t j = n - static_cast<int64_t>(budget); j < n; ++j) {
      const int64_t t = rng->UniformIndex(static_cast<uint32_t>(j + 1));
      const int64_t pick = taken.insert(t).second ? t : j;
      if (pick == j) taken.insert(j);
      chosen.push_back(pick);
    }
    return chosen;
  }

  // Latin hypercube over the swept levels: each parameter's levels are used equally often (a
  // shuffled, balanced column per parameter). A row is the raw index of its levels in the swept
  // product (last declared parameter fastest); a row that violates a constraint starts at a
  // random position instead, and a row whose position is taken falls forward to the next unused
  // position (in expansion order, wrapping).
  std::vector<int64_t> Latin(const SpaceIndex& space, size_t budget, stats::Rng* rng) const {
    std::vector<size_t> levels;
    for (const auto& p : spec_.params) {
      if (p.fate == ParamFate::kSwept) levels.push_back(p.values.size());
    }
    std::vector<std::vector<size_t>> columns;
    for (size_t count : levels) {
      std::vector<size_t> col(budget);
      for (size_t r = 0; r < budget; ++r) col[r] = r % count;
      for (size_t r = budget; r > 1; --r) std::swap(col[r - 1], col[rng->UniformIndex(r)]);
      columns.push_back(std::move(col));
    }
    const int64_t n = space.size();
    std::unordered_set<int64_t> taken;
    taken.reserve(budget);
    std::vector<int64_t> chosen;
    chosen.reserve(budget);
    for (size_t r = 0; r < budget; ++r) {
      uint64_t raw = 0;
      for (size_t k = 0; k < levels.size(); ++k) raw = raw * levels[k] + columns[k][r];
      int64_t at = space.PositionOf(raw);
      if (at < 0) at = rng->UniformIndex(static_cast<uint32_t>(n));
      // budget < n and fewer than budget are taken, so an unused position is found.
      while (taken.count(at) > 0) at = (at + 1) % n;
      taken.insert(at);
      chosen.push_back(at);
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
